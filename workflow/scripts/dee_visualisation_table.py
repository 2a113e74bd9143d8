"""Rule dee_visualisation_table: class separation of the 2-D embeddings and the verdicts.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_visualisation_table.py`):
the example job below is then rebuilt from the workflow.
"""

import sys
from pathlib import Path

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import dee_compare_report  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("dee_visualisation_table")

with runtime.job(snakemake):
    dee_compare_report.visualisation_table(
        {(d, m): path for d, m, path in snakemake.params.runs},
        stem=Path(snakemake.output.csv).with_suffix(""),
        caption=snakemake.params.caption or None,
    )
