# Scores -> paper tables (CSV, Markdown, LaTeX).


rule collect_table:
    """Aggregate the scores of one experiment into one paper table (config: tables:)."""
    input:
        unpack(table_inputs),
        code=code("graphdr.pipeline.report"),
    output:
        csv=report(
            figures("{paper}/{table}.csv"),
            caption="../report/table.rst",
            category="{paper}",
            subcategory="Tables",
            labels={"table": "{table}", "format": "CSV"},
        ),
        md=figures("{paper}/{table}.md"),
        tex=figures("{paper}/{table}.tex"),
        long=results("tables/{paper}/{table}.csv"),
    log:
        logs("collect_table/{paper}/{table}.log"),
    benchmark:
        results("benchmarks/collect_table/{paper}/{table}.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("collect_table", "threads")
    resources:
        mem_mb=memory("collect_table"),
        runtime=resource("collect_table", "runtime"),
    params:
        experiment=lambda w: table_spec(w)[0],
        spec=lambda w: table_spec(w)[1],
        labels=lambda w: plan.labels(config, table_spec(w)[0]),
    script:
        "../scripts/collect_table.py"
