"""Rule run_dee_optimizer: fit one estimator with one optimiser on every sample of one dataset.

By hand: `python workflow/scripts/run_dee_optimizer.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import optimisers as dee_optimisers

with job("run_dee_optimizer", study="dee_optimizers", dataset="yale", optimizer="ld") as snakemake:
    dee_optimisers.optimizer_run(
        snakemake.input.prepared,
        estimator=snakemake.params.estimator,
        params=snakemake.params.params,
        optimizer=snakemake.wildcards.optimizer,
        result_path=snakemake.output.result,
        timing_path=snakemake.output.timing,
        starts=snakemake.params.starts,
    )
