"""Rule akda_equivalence: claim C1 of paper 002, AKDA against KNDA (principal angles).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/akda_equivalence.py`): the
example job below is then rebuilt from the workflow.
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import akda  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("akda_equivalence")

with runtime.job(snakemake):
    akda.akda_equivalence(
        dict(zip(snakemake.params.datasets, snakemake.input.prepared, strict=True)),
        snakemake.params.conditions,
        seed=snakemake.params.seed,
        reg=snakemake.params.reg,
        output=snakemake.output.record,
        timing_output=snakemake.output.timing,
    )
