"""Rule write_dee_visualisation: class separation of the 2-D embeddings and the verdicts.

By hand: `python workflow/scripts/write_dee_visualisation.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report

with job("write_dee_visualisation") as snakemake:
    dee_report.visualisation_table(
        {(d, m): path for d, m, path in snakemake.params.runs},
        stem=Path(snakemake.output.csv).with_suffix(""),
        caption=snakemake.params.caption or None,
    )
