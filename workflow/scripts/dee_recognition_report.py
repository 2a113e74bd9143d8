"""Rule dee_recognition_report: Figure 11, the best-accuracy table vs the paper, the verdicts.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_recognition_report.py`):
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
    snakemake = runtime.mock_snakemake("dee_recognition_report")

with runtime.job(snakemake):
    out = snakemake.output
    dee_compare_report.recognition_tables(
        {(d, m): path for d, m, path in snakemake.params.runs},
        reference=snakemake.input.reference,
        figure_stem=Path(out.figure_pdf).with_suffix(""),
        best_stem=Path(out.best_csv).with_suffix(""),
        curves_output=out.curves,
        caption=snakemake.params.caption or None,
    )
