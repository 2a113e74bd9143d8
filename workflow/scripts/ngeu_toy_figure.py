"""Rule ngeu_toy_figure: Figure 3 of paper 004 (2-D toy, GE vs NGEU directions).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/ngeu_toy_figure.py`): the
example job below is then rebuilt from the workflow.
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import ngeu_report  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("ngeu_toy_figure")

with runtime.job(snakemake):
    result = ngeu_report.plot_toy(snakemake.params.figure, snakemake.output.pdf[: -len(".pdf")])
    ngeu_report.write_toy_record(result, snakemake.output.record)
