# Paper 004 (NGEU): paper-specific stages (config section papers.ngeu, code in
# graphdr.pipeline.papers.ngeu.protocol, helper functions in common_ngeu.smk). Outputs go under
# <output.figures>/ngeu/. Stages: prepared data -> folds (make_ngeu_splits) -> nearest-neighbour
# distances (estimate_uncertainty, uncertainty.smk) -> validation grid of every method of a task
# (select_ngeu_models) -> Tables I-II (write_ngeu_tables); Figure 3 (plot_ngeu_toy) needs no data; the
# tidy results frame of the claims ledger (collect_ngeu_results), judged by judge_claims (claims.smk).


rule make_ngeu_splits:
    """Train / validation / test indices of every fold of one task (Table I split or CV)."""
    input:
        prepared=ngeu_prepared,
        code=code("graphdr.pipeline.splits"),
    output:
        splits=results("ngeu/splits/{task}.npz"),
    log:
        logs("make_ngeu_splits/{task}.log"),
    benchmark:
        results("benchmarks/make_ngeu_splits/{task}.tsv")
    wildcard_constraints:
        task=_alternatives(NGEU_TASKS),
    priority: task_priority  # an input of select_ngeu_models only
    conda:
        "../../envs/compute.yaml"
    threads: resource("make_ngeu_splits", "threads")
    resources:
        mem_mb=memory("make_ngeu_splits"),
        runtime=resource("make_ngeu_splits", "runtime"),
    params:
        split=lambda w: ngeu_task(w)["split"],
    script:
        "../scripts/make_ngeu_splits.py"


rule select_ngeu_models:
    """Validation grid of every method of one task: one fit per model-changing grid point,
    every dimension read from that fit; scores of every cell, the eigendecomposition count,
    and the per-sample test correctness of the selected models (overall and per kernel).
    """
    input:
        prepared=ngeu_prepared,
        splits=ngeu_splits_file,
        uncertainty=ngeu_uncertainty_file,
        code=ngeu_select_code,
    output:
        scores=results("ngeu/select/{task}_scores.csv"),
        cost=results("ngeu/select/{task}_cost.json"),
        samples=results("ngeu/select/{task}_samples.csv"),
    log:
        logs("select_ngeu_models/{task}.log"),
    benchmark:
        results("benchmarks/select_ngeu_models/{task}.tsv")
    wildcard_constraints:
        task=_alternatives(NGEU_TASKS),
    priority: task_priority
    conda:
        "../../envs/compute.yaml"
    threads: resource("select_ngeu_models", "threads")
    resources:
        mem_mb=memory("select_ngeu_models"),
        runtime=resource("select_ngeu_models", "runtime"),
    params:
        methods=ngeu_task_methods,
        grid=lambda w: ngeu_plan.task_grid(NGEU, w.task),
        k=NGEU.get("knn_k", 1),
        seed=NGEU.get("seed", 0),
    script:
        "../scripts/select_ngeu_models.py"


rule write_ngeu_tables:
    """One paper table: selection on validation, paper vs ours, selected hyper-parameters
    (grid edges flagged), grid cost, the kernel methods per kernel, the paired tests of the
    claims' pairs (McNemar per split, Wilcoxon over splits)."""
    input:
        ngeu_table_inputs,
        code=code(
            "graphdr.pipeline.papers.ngeu.report",
            "graphdr.pipeline.papers.ngeu.protocol",
        ),
    output:
        table_csv=reported(figures("ngeu/ngeu_{ngeu_table}.csv"), "ngeu", "Tables"),
        table_md=figures("ngeu/ngeu_{ngeu_table}.md"),
        table_tex=figures("ngeu/ngeu_{ngeu_table}.tex"),
        selected_csv=reported(
            figures("ngeu/ngeu_{ngeu_table}_selected.csv"), "ngeu", "Tables"
        ),
        selected_md=figures("ngeu/ngeu_{ngeu_table}_selected.md"),
        selected_tex=figures("ngeu/ngeu_{ngeu_table}_selected.tex"),
        grid_csv=reported(figures("ngeu/ngeu_{ngeu_table}_grid.csv"), "ngeu", "Tables"),
        grid_md=figures("ngeu/ngeu_{ngeu_table}_grid.md"),
        grid_tex=figures("ngeu/ngeu_{ngeu_table}_grid.tex"),
        by_kernel_csv=reported(
            figures("ngeu/ngeu_{ngeu_table}_by_kernel.csv"), "ngeu", "Tables"
        ),
        by_kernel_md=figures("ngeu/ngeu_{ngeu_table}_by_kernel.md"),
        by_kernel_tex=figures("ngeu/ngeu_{ngeu_table}_by_kernel.tex"),
        pairs_csv=reported(
            figures("ngeu/ngeu_{ngeu_table}_pairs.csv"), "ngeu", "Tables"
        ),
        pairs_md=figures("ngeu/ngeu_{ngeu_table}_pairs.md"),
        pairs_tex=figures("ngeu/ngeu_{ngeu_table}_pairs.tex"),
        long=results("ngeu/tables/{ngeu_table}_long.csv"),
    log:
        logs("write_ngeu_tables/{ngeu_table}.log"),
    benchmark:
        results("benchmarks/write_ngeu_tables/{ngeu_table}.tsv")
    wildcard_constraints:
        ngeu_table=_alternatives(NGEU_TABLES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_ngeu_tables", "threads")
    resources:
        mem_mb=memory("write_ngeu_tables"),
        runtime=resource("write_ngeu_tables", "runtime"),
    params:
        tasks=ngeu_table_tasks,
        table=lambda w: NGEU_TABLES[w.ngeu_table],
        methods=NGEU.get("methods", {}),
        variants=NGEU.get("variants", {}),
    script:
        "../scripts/write_ngeu_tables.py"


rule collect_ngeu_results:
    """The tidy results frame of the claims ledger: per-fold accuracy of every method, the
    per-sample correctness of the compared methods (variants: the kernel fixed), Figure 3's
    angles."""
    input:
        unpack(ngeu_results_inputs),
        code=code(
            "graphdr.pipeline.papers.ngeu.report",
            "graphdr.pipeline.papers.ngeu.protocol",
        ),
    output:
        results=figures("ngeu/ngeu_results.csv"),
    log:
        logs("collect_ngeu_results/ngeu.log"),
    benchmark:
        results("benchmarks/collect_ngeu_results/ngeu.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("collect_ngeu_results", "threads")
    resources:
        mem_mb=resource("collect_ngeu_results", "mem_mb"),
        runtime=resource("collect_ngeu_results", "runtime"),
    params:
        tables=ngeu_results_tables,
        methods=NGEU.get("methods", {}),
        variants=NGEU.get("variants", {}),
    script:
        "../scripts/collect_ngeu_results.py"


rule plot_ngeu_toy:
    """Figure 3: 2-D toy with uncertainty ellipses, LDA/MFA directions of GE vs NGEU."""
    input:
        code=code("graphdr.pipeline.papers.ngeu.report"),
    output:
        pdf=figures("ngeu/ngeu_figure3_toy.pdf"),
        png=reported(figures("ngeu/ngeu_figure3_toy.png"), "ngeu", "Figures"),
        record=figures("ngeu/ngeu_figure3_toy.json"),
    log:
        logs("plot_ngeu_toy/figure3.log"),
    benchmark:
        results("benchmarks/plot_ngeu_toy/figure3.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_ngeu_toy", "threads")
    resources:
        mem_mb=memory("plot_ngeu_toy"),
        runtime=resource("plot_ngeu_toy", "runtime"),
    params:
        figure=NGEU.get("figure3", {}),
    script:
        "../scripts/plot_ngeu_toy.py"
