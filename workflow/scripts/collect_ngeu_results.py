"""Rule collect_ngeu_results: the tidy results frame of paper 004 for the claims ledger.

By hand: `python workflow/scripts/collect_ngeu_results.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.ngeu import report as ngeu_report
from graphdr.pipeline.results import write_results

with job("collect_ngeu_results") as snakemake:
    frame = ngeu_report.results_frame(
        snakemake.params.tables,
        snakemake.params.methods,
        snakemake.input.get("figure3"),
        snakemake.params.variants,
    )
    write_results(frame, snakemake.output.results)
