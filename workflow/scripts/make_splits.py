"""Rule make_splits: draw the train/val/test indices of every fold for one seed.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/make_splits.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime, splits  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("make_splits", experiment="demo", dataset="wine", seed=0)

with runtime.job(snakemake):
    splits.make_splits(
        snakemake.input.prepared,
        snakemake.output.splits,
        spec=snakemake.params.split,
        seed=snakemake.params.seed,
    )
