"""Rule qmi_table: one classifier's table of a study, minimum error over dimensions (paper 001).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/qmi_table.py`): the example job
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
    snakemake = runtime.mock_snakemake("qmi_table", qmi_study="benchmarks", qmi_classifier="ncc")

with runtime.job(snakemake):
    qmi.classifier_table(
        {label: files for label, *files in snakemake.params.runs},
        cfg=snakemake.params.protocol,
        classifier=snakemake.wildcards.qmi_classifier,
        name=snakemake.params.name,
        stem=snakemake.output.csv[: -len(".csv")],
    )
