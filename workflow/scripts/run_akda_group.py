"""Rule run_akda_group: the kernel methods of one dataset and condition in one job.

By hand: `python workflow/scripts/run_akda_group.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.akda import protocol as akda

with job("run_akda_group", dataset="akda_decaf50", condition="10Ex") as snakemake:
    methods = list(snakemake.params.methods)
    akda.akda_group_run(
        snakemake.input.prepared,
        dataset=snakemake.wildcards.dataset,
        condition=snakemake.wildcards.condition,
        n_per_class=snakemake.params.n_per_class,
        methods=methods,
        cv=snakemake.params.cv,
        reg=snakemake.params.reg,
        seed=snakemake.params.seed,
        result_paths=dict(zip(methods, snakemake.output.results, strict=True)),
        timing_paths=dict(zip(methods, snakemake.output.timings, strict=True)),
        estimators=snakemake.params.estimators,
        sensitivity=snakemake.params.sensitivity,
        draws=snakemake.params.draws,
        skipped=dict(snakemake.params.skipped),
    )
