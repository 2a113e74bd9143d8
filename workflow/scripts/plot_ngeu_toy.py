"""Rule plot_ngeu_toy: Figure 3 of paper 004 (2-D toy, GE vs NGEU directions).

By hand: `python workflow/scripts/plot_ngeu_toy.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.ngeu import report as ngeu_report

with job("plot_ngeu_toy") as snakemake:
    result = ngeu_report.plot_toy(snakemake.params.figure, snakemake.output.pdf[: -len(".pdf")])
    ngeu_report.write_toy_record(result, snakemake.output.record)
