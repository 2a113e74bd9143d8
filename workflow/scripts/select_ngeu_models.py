"""Rule select_ngeu_models: the validation grid of every method of one NGEU task.

By hand: `python workflow/scripts/select_ngeu_models.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.ngeu import protocol as ngeu
from graphdr.pipeline.runtime import logger

with job("select_ngeu_models", task="coil20") as snakemake:
    ngeu.select_task(
        snakemake.input.prepared,
        snakemake.input.splits,
        snakemake.input.uncertainty,
        snakemake.params.methods,
        snakemake.params.grid,
        snakemake.output.scores,
        snakemake.output.cost,
        snakemake.output.samples,
        k=snakemake.params.k,
        seed=snakemake.params.seed,
        logger=logger,
    )
