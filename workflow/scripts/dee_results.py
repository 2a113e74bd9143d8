"""Rule dee_results: the tidy results frame of paper 003 for the claims ledger (docs/claims.md).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_results.py`): the
example job below is then rebuilt from the workflow.
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.claims import write_results  # noqa: E402
from graphdr.pipeline.papers import dee_results  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("dee_results")

with runtime.job(snakemake):
    p = snakemake.params
    runs = {
        "optimizer_runs": {(v, d, o): (npz, timing) for v, d, o, npz, timing in p.optimizer_runs},
        "baseline": p.baseline,
        "recognition_runs": [tuple(r) for r in p.recognition_runs],
        "embedding_runs": [tuple(r) for r in p.embedding_runs],
    }
    frames = {}
    for timing, output in ((False, snakemake.output.results), (True, snakemake.output.timing)):
        frames[timing] = dee_results.results_frame(**runs, timing=timing)
        write_results(frames[timing], output)
    stem = snakemake.output.equal_accuracy_csv.removesuffix(".csv")
    timing_stem = snakemake.output.equal_accuracy_timing_csv.removesuffix(".csv")
    dee_results.write_equal_accuracy_tables(frames[False], frames[True], stem, timing_stem)
