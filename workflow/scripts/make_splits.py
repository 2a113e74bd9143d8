"""Rule make_splits: draw the train/val/test indices of every fold for one seed.

By hand: `python workflow/scripts/make_splits.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import splits

with job("make_splits", experiment="demo", dataset="wine", seed=0) as snakemake:
    splits.make_splits(
        snakemake.input.prepared,
        snakemake.output.splits,
        spec=snakemake.params.split,
        seed=snakemake.params.seed,
    )
