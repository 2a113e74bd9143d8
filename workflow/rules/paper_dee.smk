# Paper-specific stages (graphdr.pipeline.papers). Paper 003's optimiser comparison:
# prepared data -> one run per (study, dataset, optimiser) -> figures per dataset, tables per study.
# Outputs whose names contain "timing" hold wall-clock measurements (not byte-identical).


rule optimizer_run:
    """Fit the study's estimator with one optimiser on every sample of one dataset."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=lambda w: code(
            "graphdr.pipeline.papers.dee_runs",
            _defining_module(study_of(w)["estimator"]) or "graphdr.methods",
        ),
    output:
        result=results("optimizers/{study}/{dataset}/{optimizer}.npz"),
        timing=results("optimizers/{study}/{dataset}/{optimizer}.timing.json"),
    log:
        logs("optimizer_run/{study}/{dataset}/{optimizer}.log"),
    benchmark:
        results("benchmarks/optimizer_run/{study}/{dataset}/{optimizer}.tsv")
    wildcard_constraints:
        study=_alternatives(STUDIES),
        optimizer=_alternatives({o for s in STUDIES.values() for o in s["optimizers"]}),
    conda:
        "../../envs/compute.yaml"
    threads: resource("optimizer_run", "threads")
    resources:
        mem_mb=resource("optimizer_run", "mem_mb"),
        runtime=resource("optimizer_run", "runtime"),
    params:
        estimator=lambda w: study_of(w)["estimator"],
        params=lambda w: study_of(w).get("params", {}),
    script:
        "../scripts/optimizer_run.py"


rule plot_optimizer_study:
    """Embeddings per optimiser, objective vs iterations and vs measured seconds (one dataset)."""
    input:
        runs=lambda w: study_run_files(w, [w.dataset]),
        code=code("graphdr.pipeline.papers.dee"),
    output:
        embeddings_pdf=figures("{paper}/{study}_{dataset}_embeddings.pdf"),
        embeddings_png=figures("{paper}/{study}_{dataset}_embeddings.png"),
        objective_pdf=figures("{paper}/{study}_{dataset}_objective.pdf"),
        objective_png=figures("{paper}/{study}_{dataset}_objective.png"),
        timing_pdf=figures("{paper}/{study}_{dataset}_objective_timing.pdf"),
        timing_png=figures("{paper}/{study}_{dataset}_objective_timing.png"),
    log:
        logs("plot_optimizer_study/{paper}/{study}_{dataset}.log"),
    benchmark:
        results("benchmarks/plot_optimizer_study/{paper}/{study}_{dataset}.tsv")
    wildcard_constraints:
        study=_alternatives(STUDIES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_optimizer_study", "threads")
    resources:
        mem_mb=resource("plot_optimizer_study", "mem_mb"),
        runtime=resource("plot_optimizer_study", "runtime"),
    params:
        runs=lambda w: [[o, *f] for (_, o), f in study_runs(w, [w.dataset]).items()],
        dataset=lambda w: config["datasets"][w.dataset].get("label", w.dataset),
    script:
        "../scripts/plot_optimizer_study.py"


rule optimizer_tables:
    """Iterations and final objective (deterministic) and fit seconds (measured) vs the paper."""
    input:
        runs=study_run_files,
        reference=lambda w: study_of(w)["reference"],
        code=code("graphdr.pipeline.papers.dee"),
    output:
        iterations_csv=figures("{paper}/{study}_iterations.csv"),
        iterations_md=figures("{paper}/{study}_iterations.md"),
        iterations_tex=figures("{paper}/{study}_iterations.tex"),
        objective_csv=figures("{paper}/{study}_objective.csv"),
        objective_md=figures("{paper}/{study}_objective.md"),
        objective_tex=figures("{paper}/{study}_objective.tex"),
        timing_csv=figures("{paper}/{study}_timing.csv"),
        timing_md=figures("{paper}/{study}_timing.md"),
        timing_tex=figures("{paper}/{study}_timing.tex"),
        long=results("tables/{paper}/{study}_runs.csv"),
        claims=figures("{paper}/{study}_claims_timing.md"),
    log:
        logs("optimizer_tables/{paper}/{study}.log"),
    benchmark:
        results("benchmarks/optimizer_tables/{paper}/{study}.tsv")
    wildcard_constraints:
        study=_alternatives(STUDIES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("optimizer_tables", "threads")
    resources:
        mem_mb=resource("optimizer_tables", "mem_mb"),
        runtime=resource("optimizer_tables", "runtime"),
    params:
        runs=lambda w: [[d, o, *f] for (d, o), f in study_runs(w).items()],
        baseline=lambda w: study_of(w)["optimizers"][study_of(w)["baseline"]],
        captions=lambda w: study_of(w).get("captions", {}),
    script:
        "../scripts/optimizer_tables.py"
