"""Rule build_scorecard: CLAIMS.csv / CLAIMS.md, every claim of every paper (docs/claims.md).

By hand: `python workflow/scripts/build_scorecard.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import claims

with job("build_scorecard") as snakemake:
    claims.build_scorecard(
        list(snakemake.input.verdicts),
        titles=snakemake.params.titles,
        csv_output=snakemake.output.csv,
        md_output=snakemake.output.md,
    )
