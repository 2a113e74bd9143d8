"""Rule dee_visualisation_figure: one of Figures 7-10 (2-D embeddings of one dataset).

By hand: `python workflow/scripts/dee_visualisation_figure.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report

with job("dee_visualisation_figure", dataset="yale") as snakemake:
    dee_report.plot_visualisation(
        dict(snakemake.params.runs),
        dataset=snakemake.params.dataset,
        stem=Path(snakemake.output.pdf).with_suffix(""),
    )
