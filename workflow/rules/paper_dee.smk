# Paper-specific stages (graphdr.pipeline.papers). Paper 003's optimiser comparison:
# prepared data -> one run per (study, dataset, optimiser) -> figures per dataset, tables per study.
# Outputs whose names contain "timing" hold wall-clock measurements (not byte-identical).


rule run_dee_optimizer:
    """Fit the study's estimator with one optimiser on every sample of one dataset, from the
    study's random starts."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=lambda w: code(
            "graphdr.pipeline.papers.dee.optimisers",
            _defining_module(study_of(w)["estimator"]) or "graphdr.methods",
        ),
    output:
        result=results("optimizers/{study}/{dataset}/{optimizer}.npz"),
        timing=results("optimizers/{study}/{dataset}/{optimizer}.timing.json"),
    log:
        logs("run_dee_optimizer/{study}/{dataset}/{optimizer}.log"),
    benchmark:
        results("benchmarks/run_dee_optimizer/{study}/{dataset}/{optimizer}.tsv")
    wildcard_constraints:
        study=_alternatives(STUDIES),
        optimizer=_alternatives({o for s in STUDIES.values() for o in s["optimizers"]}),
    priority: job_priority("run_dee_optimizer")
    conda:
        "../../envs/compute.yaml"
    threads: dee_study_threads
    resources:
        mem_mb=memory("run_dee_optimizer"),
        runtime=resource("run_dee_optimizer", "runtime"),
    params:
        estimator=lambda w: study_of(w)["estimator"],
        params=lambda w: study_of(w).get("params", {}),
        starts=lambda w: dee_plan.study_starts(study_of(w), w.dataset),
    script:
        "../scripts/run_dee_optimizer.py"


rule plot_dee_optimizer_study:
    """Embeddings per optimiser, objective vs iterations and vs measured seconds (one dataset)."""
    input:
        runs=lambda w: study_run_files(w, [w.dataset]),
        code=code("graphdr.pipeline.papers.dee.report"),
    output:
        embeddings_pdf=figures("{paper}/{study}_{dataset}_embeddings.pdf"),
        embeddings_png=reported(
            figures("{paper}/{study}_{dataset}_embeddings.png"),
            "{paper}",
            "Figures",
            "dee_optimizers",
        ),
        objective_pdf=figures("{paper}/{study}_{dataset}_objective.pdf"),
        objective_png=reported(
            figures("{paper}/{study}_{dataset}_objective.png"),
            "{paper}",
            "Figures",
            "dee_optimizers",
        ),
        timing_pdf=figures("{paper}/{study}_{dataset}_objective_timing.pdf"),
        timing_png=reported(
            figures("{paper}/{study}_{dataset}_objective_timing.png"),
            "{paper}",
            "Figures",
            "dee_optimizers",
        ),
    log:
        logs("plot_dee_optimizer_study/{paper}/{study}_{dataset}.log"),
    benchmark:
        results("benchmarks/plot_dee_optimizer_study/{paper}/{study}_{dataset}.tsv")
    wildcard_constraints:
        study=_alternatives(STUDIES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_dee_optimizer_study", "threads")
    resources:
        mem_mb=memory("plot_dee_optimizer_study"),
        runtime=resource("plot_dee_optimizer_study", "runtime"),
    params:
        runs=lambda w: [[o, *f] for (_, o), f in study_runs(w, [w.dataset]).items()],
        dataset=lambda w: dataset_label(w.dataset),
    script:
        "../scripts/plot_dee_optimizer_study.py"


rule write_dee_optimizer_tables:
    """Iterations and final objective (deterministic) and fit seconds (measured) vs the paper."""
    input:
        runs=study_run_files,
        reference=lambda w: study_of(w)["reference"],
        code=code("graphdr.pipeline.papers.dee.report"),
    output:
        iterations_csv=reported(
            figures("{paper}/{study}_iterations.csv"),
            "{paper}",
            "Tables",
            "dee_optimizers",
        ),
        iterations_md=figures("{paper}/{study}_iterations.md"),
        iterations_tex=figures("{paper}/{study}_iterations.tex"),
        objective_csv=reported(
            figures("{paper}/{study}_objective.csv"),
            "{paper}",
            "Tables",
            "dee_optimizers",
        ),
        objective_md=figures("{paper}/{study}_objective.md"),
        objective_tex=figures("{paper}/{study}_objective.tex"),
        timing_csv=reported(
            figures("{paper}/{study}_timing.csv"),
            "{paper}",
            "Tables",
            "dee_optimizers",
        ),
        timing_md=figures("{paper}/{study}_timing.md"),
        timing_tex=figures("{paper}/{study}_timing.tex"),
        long=results("tables/{paper}/{study}_runs.csv"),
    log:
        logs("write_dee_optimizer_tables/{paper}/{study}.log"),
    benchmark:
        results("benchmarks/write_dee_optimizer_tables/{paper}/{study}.tsv")
    wildcard_constraints:
        study=_alternatives(STUDIES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_dee_optimizer_tables", "threads")
    resources:
        mem_mb=memory("write_dee_optimizer_tables"),
        runtime=resource("write_dee_optimizer_tables", "runtime"),
    params:
        runs=lambda w: [[d, o, *f] for (d, o), f in study_runs(w).items()],
        baseline=lambda w: study_of(w)["optimizers"][study_of(w)["baseline"]],
        captions=lambda w: study_of(w).get("captions", {}),
    script:
        "../scripts/write_dee_optimizer_tables.py"


# Figure 11: one run per (dataset, method) over every replication -> figure, tables, verdicts.
rule run_dee_recognition:
    """1-NN test accuracy against dimension of one method on one dataset, every replication."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=dee_estimator_code(DEE_RECOGNITION, "graphdr.pipeline.papers.dee.protocol"),
    output:
        scores=results("dee/recognition/{dataset}/{dee_method}.csv"),
    log:
        logs("run_dee_recognition/{dataset}/{dee_method}.log"),
    benchmark:
        results("benchmarks/run_dee_recognition/{dataset}/{dee_method}.tsv")
    wildcard_constraints:
        dee_method=_alternatives(DEE_RECOGNITION.get("methods", {})),
    priority: job_priority("run_dee_recognition")
    conda:
        "../../envs/compute.yaml"
    threads: resource("run_dee_recognition", "threads")
    resources:
        mem_mb=memory("run_dee_recognition"),
        runtime=resource("run_dee_recognition", "runtime"),
    params:
        run=lambda w: dee_plan.recognition_params(
            DEE_RECOGNITION, w.dataset, w.dee_method
        ),
    script:
        "../scripts/run_dee_recognition.py"


rule write_dee_recognition:
    """Figure 11 (mean +- std curves), the best-accuracy table vs the paper, the verdicts."""
    input:
        runs=lambda w: list(dee_recognition_runs().values()),
        reference=DEE_RECOGNITION.get("reference", []),
        code=code("graphdr.pipeline.papers.dee.report"),
    output:
        figure_pdf=figures("dee/dee_recognition.pdf"),
        figure_png=report(
            figures("dee/dee_recognition.png"),
            caption="../report/dee.rst",
            category="dee",
            subcategory="Figures",
            labels={"figure": "dee_recognition", "format": "PNG"},
        ),
        best_csv=report(
            figures("dee/dee_recognition_best.csv"),
            caption="../report/dee.rst",
            category="dee",
            subcategory="Tables",
            labels={"table": "dee_recognition_best", "format": "CSV"},
        ),
        best_md=figures("dee/dee_recognition_best.md"),
        best_tex=figures("dee/dee_recognition_best.tex"),
        curves=figures("dee/dee_recognition_curves.csv"),
    log:
        logs("write_dee_recognition/dee.log"),
    benchmark:
        results("benchmarks/write_dee_recognition/dee.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_dee_recognition", "threads")
    resources:
        mem_mb=memory("write_dee_recognition"),
        runtime=resource("write_dee_recognition", "runtime"),
    params:
        runs=lambda w: [[d, m, f] for (d, m), f in dee_recognition_runs().items()],
        caption=DEE_RECOGNITION.get("caption", ""),
        report_caption=dee_plan.recognition_caption(DEE_RECOGNITION, config["datasets"]),
    script:
        "../scripts/write_dee_recognition.py"


# Figures 7-10: one 2-D embedding per (dataset, method) on every sample -> figures, table.
rule run_dee_embedding:
    """2-D embedding of every sample of one dataset by one method (DEE, DSNE, EE, t-SNE)."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=dee_estimator_code(
            DEE_VISUALISATION, "graphdr.pipeline.papers.dee.protocol"
        ),
    output:
        embedding=results("dee/visualisation/{dataset}/{dee_method}.npz"),
    log:
        logs("run_dee_embedding/{dataset}/{dee_method}.log"),
    benchmark:
        results("benchmarks/run_dee_embedding/{dataset}/{dee_method}.tsv")
    wildcard_constraints:
        dee_method=_alternatives(DEE_VISUALISATION.get("methods", {})),
    conda:
        "../../envs/compute.yaml"
    threads: resource("run_dee_embedding", "threads")
    resources:
        mem_mb=memory("run_dee_embedding"),
        runtime=resource("run_dee_embedding", "runtime"),
    params:
        estimator=lambda w: DEE_VISUALISATION["methods"][w.dee_method]["estimator"],
        params=lambda w: DEE_VISUALISATION["methods"][w.dee_method].get("params", {}),
    script:
        "../scripts/run_dee_embedding.py"


rule plot_dee_visualisation:
    """One of Figures 7-10: the 2-D embeddings of one dataset, one panel per method."""
    input:
        runs=lambda w: list(dee_embedding_runs([w.dataset], variants=False).values()),
        code=code("graphdr.pipeline.papers.dee.report"),
    output:
        pdf=figures("dee/dee_visualisation_{dataset}.pdf"),
        png=report(
            figures("dee/dee_visualisation_{dataset}.png"),
            caption="../report/dee.rst",
            category="dee",
            subcategory="Figures",
            labels={"figure": "dee_visualisation_{dataset}", "format": "PNG"},
        ),
    log:
        logs("plot_dee_visualisation/{dataset}.log"),
    benchmark:
        results("benchmarks/plot_dee_visualisation/{dataset}.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_dee_visualisation", "threads")
    resources:
        mem_mb=memory("plot_dee_visualisation"),
        runtime=resource("plot_dee_visualisation", "runtime"),
    params:
        runs=lambda w: [
            [m, f]
            for (_, m), f in dee_embedding_runs([w.dataset], variants=False).items()
        ],
        dataset=lambda w: dataset_label(w.dataset),
        report_caption=dee_plan.visualisation_caption(DEE_VISUALISATION),
    script:
        "../scripts/plot_dee_visualisation.py"


rule write_dee_visualisation:
    """Class separation of every 2-D embedding (LOO 1-NN, within/between) and the verdicts."""
    input:
        runs=lambda w: list(dee_embedding_runs().values()),
        code=code("graphdr.pipeline.papers.dee.report"),
    output:
        csv=report(
            figures("dee/dee_visualisation_separation.csv"),
            caption="../report/dee.rst",
            category="dee",
            subcategory="Tables",
            labels={"table": "dee_visualisation_separation", "format": "CSV"},
        ),
        md=figures("dee/dee_visualisation_separation.md"),
        tex=figures("dee/dee_visualisation_separation.tex"),
    log:
        logs("write_dee_visualisation/dee.log"),
    benchmark:
        results("benchmarks/write_dee_visualisation/dee.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_dee_visualisation", "threads")
    resources:
        mem_mb=memory("write_dee_visualisation"),
        runtime=resource("write_dee_visualisation", "runtime"),
    params:
        runs=lambda w: [[d, m, f] for (d, m), f in dee_embedding_runs().items()],
        caption=DEE_VISUALISATION.get("caption", ""),
        report_caption=dee_plan.visualisation_caption(DEE_VISUALISATION),
    script:
        "../scripts/write_dee_visualisation.py"


# The claims ledger (docs/claims.md): the tidy results frame of every DEE study; the generic
# judge_claims rule judges config/references/dee_claims.csv on it and on the measured seconds,
# which go to a separate frame (a "timing" file: ledger.papers.dee.timing).
rule collect_dee_results:
    """The tidy results frame of paper 003 (deterministic) and its measured-seconds part, and
    the optimisers' equal-accuracy tables (iterations; measured seconds)."""
    input:
        runs=lambda w: dee_result_files(),
        code=code("graphdr.pipeline.papers.dee.report"),
    output:
        results=figures("dee/dee_results.csv"),
        timing=figures("dee/dee_results_timing.csv"),
        equal_accuracy_csv=reported(
            figures("dee/dee_optimizers_equal_accuracy.csv"),
            "dee",
            "Tables",
            "dee_equal_accuracy",
        ),
        equal_accuracy_md=figures("dee/dee_optimizers_equal_accuracy.md"),
        equal_accuracy_tex=figures("dee/dee_optimizers_equal_accuracy.tex"),
        equal_accuracy_timing_csv=reported(
            figures("dee/dee_optimizers_equal_accuracy_timing.csv"),
            "dee",
            "Tables",
            "dee_equal_accuracy",
        ),
        equal_accuracy_timing_md=figures("dee/dee_optimizers_equal_accuracy_timing.md"),
        equal_accuracy_timing_tex=figures(
            "dee/dee_optimizers_equal_accuracy_timing.tex"
        ),
    log:
        logs("collect_dee_results/dee.log"),
    benchmark:
        results("benchmarks/collect_dee_results/dee.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("collect_dee_results", "threads")
    resources:
        mem_mb=resource("collect_dee_results", "mem_mb"),
        runtime=resource("collect_dee_results", "runtime"),
    params:
        optimizer_runs=lambda w: dee_result_optimizer_runs(),
        baseline=dee_plan.result_baseline(STUDIES),
        recognition_runs=lambda w: dee_result_recognition_runs(),
        embedding_runs=lambda w: dee_result_embedding_runs(),
    script:
        "../scripts/collect_dee_results.py"
