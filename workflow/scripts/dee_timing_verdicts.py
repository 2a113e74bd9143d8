"""Rule dee_timing_verdicts: paper 003's claims judged on its results frame plus the measured
seconds (the claims on times; docs/claims.md). A timing output: its bytes vary run to run.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_timing_verdicts.py`).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import dee_results  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("dee_timing_verdicts")

with runtime.job(snakemake):
    dee_results.judge_with_timing(
        claims=snakemake.input.claims,
        results=snakemake.input.results,
        timing=snakemake.input.timing,
        csv_output=snakemake.output.csv,
        md_output=snakemake.output.md,
        title=snakemake.params.title,
        alpha=snakemake.params.alpha,
    )
