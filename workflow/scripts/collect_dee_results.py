"""Rule collect_dee_results: the tidy results frame of paper 003 for the claims ledger (docs/claims.md).

By hand: `python workflow/scripts/dee_report.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report
from graphdr.pipeline.results import write_results

with job("collect_dee_results") as snakemake:
    p = snakemake.params
    runs = {
        "optimizer_runs": {(v, d, o): (npz, timing) for v, d, o, npz, timing in p.optimizer_runs},
        "baseline": p.baseline,
        "recognition_runs": [tuple(r) for r in p.recognition_runs],
        "embedding_runs": [tuple(r) for r in p.embedding_runs],
    }
    frames = {}
    for timing, output in ((False, snakemake.output.results), (True, snakemake.output.timing)):
        frames[timing] = dee_report.results_frame(**runs, timing=timing)
        write_results(frames[timing], output)
    stem = snakemake.output.equal_accuracy_csv.removesuffix(".csv")
    timing_stem = snakemake.output.equal_accuracy_timing_csv.removesuffix(".csv")
    dee_report.write_equal_accuracy_tables(frames[False], frames[True], stem, timing_stem)
