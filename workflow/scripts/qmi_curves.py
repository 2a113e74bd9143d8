"""Rule qmi_curves: error against dimension per dataset of a study (paper 001, Figures 5-6).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/qmi_curves.py`): the example job
below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import qmi  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("qmi_curves", qmi_study="faces")

with runtime.job(snakemake):
    qmi.plot_curves(
        {label: files for label, *files in snakemake.params.runs},
        snakemake.params.protocol,
        snakemake.params.classifier,
        snakemake.output.pdf[: -len(".pdf")],
    )
