"""Rule build_scorecard: CLAIMS.csv / CLAIMS.md, every claim of every paper (docs/claims.md).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/build_scorecard.py`): the example job
below is then rebuilt from the workflow.
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import claims, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("build_scorecard")

with runtime.job(snakemake):
    claims.build_scorecard(
        list(snakemake.input.verdicts),
        titles=snakemake.params.titles,
        csv_output=snakemake.output.csv,
        md_output=snakemake.output.md,
    )
