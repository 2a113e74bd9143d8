"""Rule qmi_summary: dataset table and sweep timing of a study (paper 001).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/qmi_summary.py`): the example job
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
    snakemake = runtime.mock_snakemake("qmi_summary", qmi_study="benchmarks")

with runtime.job(snakemake):
    qmi.study_summary(
        {label: files for label, *files in snakemake.params.runs},
        study=snakemake.wildcards.qmi_study,
        sizes_reference=snakemake.input.sizes or None,
        datasets_stem=snakemake.output.datasets_csv[: -len(".csv")],
        timing_stem=snakemake.output.timing_csv[: -len(".csv")],
        long_output=snakemake.output.long,
    )
