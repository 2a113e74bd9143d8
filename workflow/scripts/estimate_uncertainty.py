"""Rule estimate_uncertainty: nearest-neighbour distances of the training samples of one task.

By hand: `python workflow/scripts/estimate_uncertainty.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.ngeu import protocol as ngeu

with job("estimate_uncertainty", task="coil20") as snakemake:
    ngeu.estimate_uncertainty(
        snakemake.input.prepared, snakemake.input.splits, snakemake.output.uncertainty
    )
