"""Rule collect_table: aggregate an experiment's scores into one paper table.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/collect_table.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys
from pathlib import Path

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import report, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("collect_table", paper="demo", table="demo_accuracy")

with runtime.job(snakemake):
    report.collect_table(
        snakemake.input.scores,
        Path(snakemake.output.csv).with_suffix(""),
        snakemake.output.long,
        spec=snakemake.params.spec,
        labels=snakemake.params.labels,
        reference=snakemake.input.get("reference"),
    )
