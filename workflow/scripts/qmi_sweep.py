"""Rules qmi_sweep and qmi_sweep_<study>: every fold, DR method, classifier and dimension of one
dataset, or of each dataset of a `one_job` study (paper 001).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/qmi_sweep.py`): the example job
below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import qmi_sweep  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("qmi_sweep", qmi_study="benchmarks", dataset="iris")

with runtime.job(snakemake):
    qmi_sweep.run_sweeps(
        snakemake.input.prepared,
        snakemake.params.protocol,
        errors=snakemake.output.errors,
        record=snakemake.output.record,
        timing=snakemake.output.timing,
    )
