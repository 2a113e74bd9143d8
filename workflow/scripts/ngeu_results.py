"""Rule ngeu_results: the tidy results frame of paper 004 for the claims ledger.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/ngeu_results.py`): the example
job below is then rebuilt from the workflow.
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import ngeu_report  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("ngeu_results")

with runtime.job(snakemake):
    frame = ngeu_report.results_frame(
        snakemake.params.tables,
        snakemake.params.methods,
        snakemake.input.get("figure3"),
        snakemake.params.variants,
    )
    ngeu_report.write_results(frame, snakemake.output.results)
