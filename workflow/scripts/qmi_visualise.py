"""Rule qmi_visualise: 2-D projections by the kernel and the linear methods (paper 001, Figures 1-4).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/qmi_visualise.py`): the example job
below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import qmi_visualise  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("qmi_visualise", dataset="qmi_swiss_roll")

with runtime.job(snakemake):
    qmi_visualise.visualise(
        snakemake.input.prepared,
        snakemake.params.protocol,
        title=snakemake.params.title,
        kernel_stem=snakemake.output.kernel_pdf[: -len(".pdf")],
        linear_stem=snakemake.output.linear_pdf[: -len(".pdf")],
        scores=snakemake.output.scores,
    )
