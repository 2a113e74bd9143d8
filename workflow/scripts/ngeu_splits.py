"""Rule ngeu_splits: train / validation / test indices of every fold of one NGEU task.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/ngeu_splits.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime, splits  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("ngeu_splits", task="coil20")

with runtime.job(snakemake):
    splits.make_splits(
        snakemake.input.prepared, snakemake.output.splits, spec=snakemake.params.split
    )
