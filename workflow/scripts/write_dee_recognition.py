"""Rule write_dee_recognition: Figure 11, the best-accuracy table vs the paper, the verdicts.

By hand: `python workflow/scripts/write_dee_recognition.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report

with job("write_dee_recognition") as snakemake:
    out = snakemake.output
    dee_report.recognition_tables(
        {(d, m): path for d, m, path in snakemake.params.runs},
        reference=snakemake.input.reference,
        figure_stem=Path(out.figure_pdf).with_suffix(""),
        best_stem=Path(out.best_csv).with_suffix(""),
        curves_output=out.curves,
        caption=snakemake.params.caption or None,
    )
