"""Rule run_akda_method: cross-validate, train and test one method on one dataset and condition.

By hand: `python workflow/scripts/run_akda_method.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.akda import protocol as akda

with job(
    "run_akda_method", dataset="akda_decaf50", condition="10Ex", akda_method="AKDA"
) as snakemake:
    akda.akda_run(
        snakemake.input.prepared,
        dataset=snakemake.wildcards.dataset,
        condition=snakemake.wildcards.condition,
        n_per_class=snakemake.params.n_per_class,
        method=snakemake.wildcards.akda_method,
        cv=snakemake.params.cv,
        reg=snakemake.params.reg,
        seed=snakemake.params.seed,
        result_path=snakemake.output.result,
        timing_path=snakemake.output.timing,
        estimators=snakemake.params.estimators,
        sensitivity=snakemake.params.sensitivity,
        draws=snakemake.params.draws,
    )
