"""Rule collect_qmi_results: the tidy results frame of paper 001 (docs/claims.md).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/judge_claims.py`): the example job
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
    snakemake = runtime.mock_snakemake("collect_qmi_results")

with runtime.job(snakemake):
    qmi.write_results(
        {
            study: {**spec, "runs": {label: files for label, *files in spec["runs"]}}
            for study, spec in snakemake.params.studies.items()
        },
        snakemake.output.csv,
        visual=dict(zip(snakemake.params.visual_labels, snakemake.input.visual, strict=True)),
    )
