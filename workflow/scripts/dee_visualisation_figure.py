"""Rule dee_visualisation_figure: one of Figures 7-10 (2-D embeddings of one dataset).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_visualisation_figure.py`):
the example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
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
    snakemake = runtime.mock_snakemake("dee_visualisation_figure", dataset="yale")

with runtime.job(snakemake):
    dee_compare_report.plot_visualisation(
        dict(snakemake.params.runs),
        dataset=snakemake.params.dataset,
        stem=Path(snakemake.output.pdf).with_suffix(""),
    )
