"""Rule plot_dee_visualisation: one of Figures 7-10 (2-D embeddings of one dataset).

By hand: `python workflow/scripts/plot_dee_visualisation.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report

with job("plot_dee_visualisation", dataset="yale") as snakemake:
    dee_report.plot_visualisation(
        dict(snakemake.params.runs),
        dataset=snakemake.params.dataset,
        stem=Path(snakemake.output.pdf).with_suffix(""),
    )
