"""Rule estimate_uncertainty: nearest-neighbour distances of the training samples of one task.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/estimate_uncertainty.py`):
the example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import ngeu  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("estimate_uncertainty", task="coil20")

with runtime.job(snakemake):
    ngeu.estimate_uncertainty(
        snakemake.input.prepared, snakemake.input.splits, snakemake.output.uncertainty
    )
