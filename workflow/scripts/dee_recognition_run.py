"""Rule dee_recognition_run: 1-NN accuracy against dimension of one method on one dataset.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_recognition_run.py`): the
example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import dee_compare  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("dee_recognition_run", dataset="yale", dee_method="DEE")

with runtime.job(snakemake):
    dee_compare.recognition_run(
        snakemake.input.prepared, output=snakemake.output.scores, **snakemake.params.run
    )
