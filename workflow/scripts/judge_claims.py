"""Rule judge_claims: every claim of one paper judged by the ledger (docs/claims.md).

By hand: `python workflow/scripts/judge_claims.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import claims

with job("judge_claims", paper="qmi") as snakemake:
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
