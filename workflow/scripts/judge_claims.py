"""Rule judge_claims: every claim of one paper judged by the ledger (docs/claims.md).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/judge_claims.py`): the example job
below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import claims, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("judge_claims", paper="qmi")

with runtime.job(snakemake):
    claims.judge_paper(
        paper=snakemake.wildcards.paper,
        claims=snakemake.input.claims,
        results=snakemake.input.results,
        timing=snakemake.input.timing[0] if snakemake.input.timing else None,
        csv_output=snakemake.output.csv,
        md_output=snakemake.output.md,
        title=snakemake.params.title,
        alpha=snakemake.params.alpha,
    )
