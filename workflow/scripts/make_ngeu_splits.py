"""Rule make_ngeu_splits: train / validation / test indices of every fold of one NGEU task.

By hand: `python workflow/scripts/make_ngeu_splits.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import splits

with job("make_ngeu_splits", task="coil20") as snakemake:
    splits.make_splits(
        snakemake.input.prepared, snakemake.output.splits, spec=snakemake.params.split
    )
