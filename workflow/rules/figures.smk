# Embeddings -> paper figures (PDF + PNG). One rule per figure kind (config: figures.<name>.kind).


rule plot_projection:
    """Scatter the first two embedding columns, one panel per (dataset, method)."""
    input:
        embeddings=projection_inputs,
        code=code("graphdr.pipeline.report"),
    output:
        pdf=report(
            figures("{paper}/{figure}.pdf"),
            caption="../report/figure.rst",
            category="{paper}",
            subcategory="Figures",
            labels={"figure": "{figure}", "format": "PDF"},
        ),
        png=report(
            figures("{paper}/{figure}.png"),
            caption="../report/figure.rst",
            category="{paper}",
            subcategory="Figures",
            labels={"figure": "{figure}", "format": "PNG"},
        ),
    log:
        logs("plot_projection/{paper}/{figure}.log"),
    benchmark:
        results("benchmarks/plot_projection/{paper}/{figure}.tsv")
    wildcard_constraints:
        figure=_alternatives(
            job["name"]
            for job in plan.paper_jobs(config, "figures", kind="projection")
        ),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_projection", "threads")
    resources:
        mem_mb=memory("plot_projection"),
        runtime=resource("plot_projection", "runtime"),
    params:
        experiment=lambda w: figure_spec(w)[0],
        panels=projection_panels,
        part=lambda w: figure_spec(w)[1].get("part", "test"),
        title=lambda w: figure_spec(w)[1].get("title"),
    script:
        "../scripts/plot_projection.py"
