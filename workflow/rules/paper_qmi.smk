# Paper 001 (QMI): paper-specific stages (config section papers.qmi, code in
# graphdr.pipeline.papers.qmi.report, helper functions in common_qmi.smk). Outputs go under
# <output.figures>/qmi/. prepared data -> one sweep per (study, dataset), or per study when it
# is `one_job` -> tables, summary
# (Table I / VI, timing, claims) and curves per study; 2-D projections per dataset.


rule run_qmi_sweep:
    """Every fold, DR method, classifier and dimension of one dataset (one EVD per fold)."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=code("graphdr.pipeline.papers.qmi.protocol"),
    output:
        errors=results("qmi/{qmi_study}/{dataset}.csv"),
        record=results("qmi/{qmi_study}/{dataset}.json"),
        timing=results("qmi/{qmi_study}/{dataset}.timing.json"),
    log:
        logs("run_qmi_sweep/{qmi_study}/{dataset}.log"),
    benchmark:
        results("benchmarks/run_qmi_sweep/{qmi_study}/{dataset}.tsv")
    wildcard_constraints:
        qmi_study=_alternatives(qmi_plan.per_dataset_studies(QMI)),
    priority: qmi_sweep_priority
    conda:
        "../../envs/compute.yaml"
    threads: resource("run_qmi_sweep", "threads")
    resources:
        mem_mb=memory("run_qmi_sweep"),
        runtime=resource("run_qmi_sweep", "runtime"),
    params:
        protocol=lambda w: qmi_plan.protocol(QMI, w.qmi_study),
    script:
        "../scripts/run_qmi_sweep.py"


# A study with `one_job: true` sweeps all its datasets in one job (rule run_qmi_sweep_<study>):
# the same files as rule run_qmi_sweep's, the same computation, one Python start-up (about 2.5
# CPU-s, a third of a short sensitivity study's CPU) instead of one per dataset. Its priority
# is run_qmi_sweep's `priority_by` of the study's name (a long study's one job starts early).
for _study in qmi_plan.one_job_studies(QMI):

    rule:
        name:
            qmi_plan.one_job_rule(_study)
        input:
            prepared=expand(
                rules.prepare_dataset.output.prepared,
                dataset=QMI_STUDIES[_study]["datasets"],
            ),
            code=code("graphdr.pipeline.papers.qmi.protocol"),
        output:
            errors=qmi_sweep_files(_study, "errors"),
            record=qmi_sweep_files(_study, "record"),
            timing=qmi_sweep_files(_study, "timing"),
        log:
            logs(f"run_qmi_sweep/{_study}.log"),
        benchmark:
            results(f"benchmarks/run_qmi_sweep/{_study}.tsv")
        priority: job_priority("run_qmi_sweep", _study)
        conda:
            "../../envs/compute.yaml"
        threads: resource("run_qmi_sweep", "threads")
        resources:
            mem_mb=memory("run_qmi_sweep"),
            runtime=resource("run_qmi_sweep", "runtime"),
        params:
            protocol=qmi_plan.protocol(QMI, _study),
        script:
            "../scripts/run_qmi_sweep.py"


rule write_qmi_table:
    """One classifier's table (Tables II-V, VII-VIII): minimum error over dimensions."""
    input:
        runs=qmi_run_files,
        code=code("graphdr.pipeline.papers.qmi.report"),
    output:
        csv=reported(
            figures("qmi/qmi_{qmi_study}_{qmi_classifier}.csv"), "qmi", "Tables"
        ),
        md=figures("qmi/qmi_{qmi_study}_{qmi_classifier}.md"),
        tex=figures("qmi/qmi_{qmi_study}_{qmi_classifier}.tex"),
    log:
        logs("write_qmi_table/{qmi_study}_{qmi_classifier}.log"),
    benchmark:
        results("benchmarks/write_qmi_table/{qmi_study}_{qmi_classifier}.tsv")
    wildcard_constraints:
        qmi_study=_alternatives(QMI_STUDIES),
        qmi_classifier=_alternatives(qmi_plan.classifiers(QMI)),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_qmi_table", "threads")
    resources:
        mem_mb=memory("write_qmi_table"),
        runtime=resource("write_qmi_table", "runtime"),
    params:
        runs=lambda w: qmi_runs(w.qmi_study),
        protocol=lambda w: qmi_plan.protocol(QMI, w.qmi_study),
        name=lambda w: QMI_STUDIES[w.qmi_study]["tables"][w.qmi_classifier],
    script:
        "../scripts/write_qmi_table.py"


rule write_qmi_summary:
    """Table I / VI (sizes, decompositions) and the sweep's timing."""
    input:
        runs=qmi_run_files,
        sizes=lambda w: QMI_STUDIES[w.qmi_study].get("sizes_reference", []),
        code=code("graphdr.pipeline.papers.qmi.report"),
    output:
        datasets_csv=reported(
            figures("qmi/qmi_{qmi_study}_datasets.csv"), "qmi", "Tables"
        ),
        datasets_md=figures("qmi/qmi_{qmi_study}_datasets.md"),
        datasets_tex=figures("qmi/qmi_{qmi_study}_datasets.tex"),
        timing_csv=reported(
            figures("qmi/qmi_{qmi_study}_sweep_timing.csv"), "qmi", "Tables"
        ),
        timing_md=figures("qmi/qmi_{qmi_study}_sweep_timing.md"),
        timing_tex=figures("qmi/qmi_{qmi_study}_sweep_timing.tex"),
        long=results("qmi/tables/{qmi_study}_min_errors.csv"),
    log:
        logs("write_qmi_summary/{qmi_study}.log"),
    benchmark:
        results("benchmarks/write_qmi_summary/{qmi_study}.tsv")
    wildcard_constraints:
        qmi_study=_alternatives(QMI_STUDIES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_qmi_summary", "threads")
    resources:
        mem_mb=memory("write_qmi_summary"),
        runtime=resource("write_qmi_summary", "runtime"),
    params:
        runs=lambda w: qmi_runs(w.qmi_study),
    script:
        "../scripts/write_qmi_summary.py"


rule collect_qmi_results:
    """The tidy results frame of paper 001 for the claims ledger: every study, one row per fold,
    and the 2-D separability scores of Figures 1-4."""
    input:
        runs=lambda w: [
            f for study in QMI_STUDIES for run in qmi_runs(study) for f in run[1:]
        ],
        visual=expand(results("qmi/visual/{dataset}.csv"), dataset=QMI_VISUALS),
        code=code("graphdr.pipeline.papers.qmi.report"),
    output:
        csv=figures("qmi/qmi_results.csv"),
    log:
        logs("collect_qmi_results/qmi.log"),
    benchmark:
        results("benchmarks/collect_qmi_results/qmi.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("collect_qmi_results", "threads")
    resources:
        mem_mb=resource("collect_qmi_results", "mem_mb"),
        runtime=resource("collect_qmi_results", "runtime"),
    params:
        studies=lambda w: {
            study: {
                "runs": qmi_runs(study),
                "sensitivity_of": QMI_STUDIES[study].get("sensitivity_of"),
            }
            for study in QMI_STUDIES
        },
        visual_labels=[dataset_label(d) for d in QMI_VISUALS],
    script:
        "../scripts/collect_qmi_results.py"


rule plot_qmi_curves:
    """Error against dimension, one panel per dataset (Figures 5-6)."""
    input:
        runs=qmi_run_files,
        code=code("graphdr.pipeline.papers.qmi.report"),
    output:
        pdf=figures("qmi/qmi_{qmi_study}_curves.pdf"),
        png=reported(figures("qmi/qmi_{qmi_study}_curves.png"), "qmi", "Figures"),
    log:
        logs("plot_qmi_curves/{qmi_study}.log"),
    benchmark:
        results("benchmarks/plot_qmi_curves/{qmi_study}.tsv")
    wildcard_constraints:
        qmi_study=_alternatives(QMI_STUDIES),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_qmi_curves", "threads")
    resources:
        mem_mb=memory("plot_qmi_curves"),
        runtime=resource("plot_qmi_curves", "runtime"),
    params:
        runs=lambda w: qmi_runs(w.qmi_study),
        protocol=lambda w: qmi_plan.protocol(QMI, w.qmi_study),
        classifier=lambda w: QMI_STUDIES[w.qmi_study]["curves"],
    script:
        "../scripts/plot_qmi_curves.py"


rule plot_qmi_visualisation:
    """Held-out samples in 2-D by the kernel and by the linear methods (Figures 1-4), and the
    LOO 1-NN error of each held-out projection over several stratified halves."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=code("graphdr.pipeline.papers.qmi.visualise"),
    output:
        kernel_pdf=figures("qmi/{dataset}_kernel.pdf"),
        kernel_png=reported(figures("qmi/{dataset}_kernel.png"), "qmi", "Figures"),
        linear_pdf=figures("qmi/{dataset}_linear.pdf"),
        linear_png=reported(figures("qmi/{dataset}_linear.png"), "qmi", "Figures"),
        scores=results("qmi/visual/{dataset}.csv"),
    log:
        logs("plot_qmi_visualisation/{dataset}.log"),
    benchmark:
        results("benchmarks/plot_qmi_visualisation/{dataset}.tsv")
    wildcard_constraints:
        dataset=_alternatives(QMI_VISUALS),
    conda:
        "../../envs/plot.yaml"
    threads: resource("plot_qmi_visualisation", "threads")
    resources:
        mem_mb=memory("plot_qmi_visualisation"),
        runtime=resource("plot_qmi_visualisation", "runtime"),
    params:
        protocol=lambda w: qmi_plan.visual_protocol(QMI, w.dataset),
        title=lambda w: dataset_label(w.dataset),
    script:
        "../scripts/plot_qmi_visualisation.py"
