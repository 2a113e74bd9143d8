# Paper 002 (AKDA): paper-specific stages (config section papers.akda, code in
# graphdr.pipeline.papers.akda.protocol, helper functions in common_akda.smk). Outputs go under
# <output.figures>/akda/. Files whose names contain "timing" hold wall-clock measurements.


rule run_akda_method:
    """Cross-validate, train and test one method on one dataset and condition (MAP, seconds):
    the methods without a kernel (PCA, LDA, LSVM)."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=akda_run_code,
    output:
        result=results("akda/runs/{dataset}/{condition}/{akda_method}.json"),
        timing=results("akda/runs/{dataset}/{condition}/{akda_method}.timing.json"),
    log:
        logs("run_akda_method/{dataset}/{condition}/{akda_method}.log"),
    benchmark:
        results("benchmarks/run_akda_method/{dataset}/{condition}/{akda_method}.tsv")
    wildcard_constraints:
        condition=_alternatives(AKDA.get("conditions", {})),
        akda_method=_alternatives(AKDA_SINGLE),
    conda:
        "../../envs/plot.yaml"
    threads: resource("run_akda_method", "threads")
    resources:
        mem_mb=memory("run_akda_method", akda_kernel_entries),
        runtime=resource("run_akda_method", "runtime"),
    params:
        n_per_class=lambda w: AKDA["conditions"][w.condition],
        cv=lambda w: akda_plan.dataset_cv(AKDA, w.dataset),
        reg=AKDA.get("reg"),
        seed=AKDA.get("seed"),
        estimators=AKDA.get("estimators", {}),
        sensitivity=AKDA.get("sensitivity", {}),
        draws=lambda w: akda_plan.draws(AKDA, w.dataset, w.condition),
    script:
        "../scripts/run_akda_method.py"


# the workflow defines the group rule only when the config has kernel methods (its output list
# would be empty)
if AKDA_GROUPED:

    rule run_akda_group:
        """The kernel methods of one dataset and condition in one job (shared CV folds, distances
        and subclass partitions; graphdr.pipeline.papers.akda.protocol.akda_group_run): every method's
        result and timing files, a skipped method's with its reason."""
        input:
            prepared=rules.prepare_dataset.output.prepared,
            code=akda_group_code,
        output:
            results=[
                results(f"akda/runs/{{dataset}}/{{condition}}/{m}.json")
                for m in AKDA_GROUPED
            ],
            timings=[
                results(f"akda/runs/{{dataset}}/{{condition}}/{m}.timing.json")
                for m in AKDA_GROUPED
            ],
        log:
            logs("run_akda_group/{dataset}/{condition}.log"),
        benchmark:
            results("benchmarks/run_akda_group/{dataset}/{condition}.tsv")
        wildcard_constraints:
            condition=_alternatives(AKDA.get("conditions", {})),
        priority: job_priority("run_akda_group")
        conda:
            "../../envs/plot.yaml"
        threads: resource("run_akda_group", "threads")
        resources:
            mem_mb=memory("run_akda_group", akda_kernel_entries),
            runtime=resource("run_akda_group", "runtime"),
        params:
            methods=AKDA_GROUPED,
            skipped=lambda w: akda_plan.group_skipped(
                AKDA, w.dataset, w.condition, AKDA_GROUPED
            ),
            n_per_class=lambda w: AKDA["conditions"][w.condition],
            cv=lambda w: akda_plan.dataset_cv(AKDA, w.dataset),
            reg=AKDA.get("reg"),
            seed=AKDA.get("seed"),
            estimators=AKDA.get("estimators", {}),
            sensitivity=AKDA.get("sensitivity", {}),
            draws=lambda w: akda_plan.draws(AKDA, w.dataset, w.condition),
        script:
            "../scripts/run_akda_group.py"


rule write_akda_tables:
    """MAP tables (ours vs the paper's averages), speed-ups over KDA, the ledger's results frame."""
    input:
        results=akda_run_files("result"),
        timings=akda_run_files("timing"),
        reference=AKDA.get("reference", []),
        toy_timing=akda_toy_record("timing"),
        toy_separation=akda_toy_record("separation"),
        equivalence=akda_equivalence_record(""),
        equivalence_timing=akda_equivalence_record("_timing"),
        code=code("graphdr.pipeline.papers.akda.report"),
    output:
        tables=[
            reported(f, "akda", "Tables") if f.endswith(".csv") else f
            for f in map(figures, akda_plan.table_files(AKDA))
        ],
        runs=results("tables/akda/akda_runs.csv"),
        # the claims ledger's results frame; its MEASURED rows (timing) change every run
        results=figures("akda/akda_results.csv"),
        results_timing=figures("akda/akda_results_timing.csv"),
    log:
        logs("write_akda_tables/akda.log"),
    benchmark:
        results("benchmarks/write_akda_tables/akda.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("write_akda_tables", "threads")
    resources:
        mem_mb=memory("write_akda_tables"),
        runtime=resource("write_akda_tables", "runtime"),
    params:
        cells=[list(cell) for cell in akda_plan.cells(AKDA)],
        skipped=akda_plan.skipped(AKDA),
        labels={d: dataset_label(d) for d in AKDA.get("datasets", [])},
        toy_dataset=AKDA.get("toy", {}).get("dataset", ""),
        method_labels={
            m: spec["label"]
            for m, spec in AKDA.get("estimators", {}).items()
            if spec.get("label")
        },
        map_stem=lambda w, output: os.path.join(
            os.path.dirname(output.results), "akda_map"
        ),
        timing_stem=lambda w, output: os.path.join(
            os.path.dirname(output.results), "akda_speedup_timing"
        ),
    script:
        "../scripts/write_akda_tables.py"


rule run_akda_toy:
    """Figures 2-3: one class against the rest, linear kernel, 2-D input scatter and 1-D AKDA."""
    input:
        prepared=lambda w: results(f"prepared/{AKDA['toy']['dataset']}.npz"),
        code=code(
            "graphdr.pipeline.papers.akda.protocol", "graphdr.methods.discriminant"
        ),
    output:
        scatter_pdf=figures("akda/akda_toy_scatter.pdf"),
        scatter_png=reported(figures("akda/akda_toy_scatter.png"), "akda", "Figures"),
        projection_pdf=figures("akda/akda_toy_projection.pdf"),
        projection_png=reported(
            figures("akda/akda_toy_projection.png"), "akda", "Figures"
        ),
        timing=figures("akda/akda_toy_timing.json"),
        separation=figures("akda/akda_toy_separation.json"),
    log:
        logs("run_akda_toy/akda.log"),
    benchmark:
        results("benchmarks/run_akda_toy/akda.tsv")
    conda:
        "../../envs/plot.yaml"
    threads: resource("run_akda_toy", "threads")
    resources:
        mem_mb=memory("run_akda_toy"),
        runtime=resource("run_akda_toy", "runtime"),
    params:
        n_per_class=lambda w: AKDA["conditions"][AKDA["toy"]["condition"]],
        target=lambda w: AKDA["toy"].get("target", 0),
        seed=AKDA.get("seed"),
        reg=AKDA.get("reg"),
        label=lambda w: dataset_label(AKDA["toy"]["dataset"], "toy"),
        kda_params=AKDA.get("estimators", {}).get("KDA", {}).get("params", {}),
    script:
        "../scripts/run_akda_toy.py"


rule check_akda_equivalence:
    """Claim C1: AKDA against KNDA, principal angles of their projections (a few seconds)."""
    input:
        prepared=lambda w: [
            results(f"prepared/{d}.npz") for d in AKDA["equivalence"]["datasets"]
        ],
        code=code(
            "graphdr.pipeline.papers.akda.protocol", "graphdr.methods.discriminant"
        ),
    output:
        record=figures("akda/akda_equivalence.json"),
        timing=figures("akda/akda_equivalence_timing.json"),
    log:
        logs("check_akda_equivalence/akda.log"),
    benchmark:
        results("benchmarks/check_akda_equivalence/akda.tsv")
    conda:
        "../../envs/plot.yaml"
    threads: resource("check_akda_equivalence", "threads")
    resources:
        mem_mb=memory("check_akda_equivalence"),
        runtime=resource("check_akda_equivalence", "runtime"),
    params:
        datasets=lambda w: AKDA["equivalence"]["datasets"],
        conditions=lambda w: {
            c: AKDA["conditions"][c] for c in AKDA["equivalence"]["conditions"]
        },
        seed=AKDA.get("seed"),
        reg=lambda w: AKDA["equivalence"].get("reg", 1e-8),
    script:
        "../scripts/check_akda_equivalence.py"
