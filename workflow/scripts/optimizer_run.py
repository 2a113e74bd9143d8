"""Rule optimizer_run: fit one estimator with one optimiser on every sample of one dataset.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/optimizer_run.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import dee_runs  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake(
        "optimizer_run", study="dee_optimizers", dataset="yale", optimizer="ld"
    )

with runtime.job(snakemake):
    dee_runs.optimizer_run(
        snakemake.input.prepared,
        estimator=snakemake.params.estimator,
        params=snakemake.params.params,
        optimizer=snakemake.wildcards.optimizer,
        result_path=snakemake.output.result,
        timing_path=snakemake.output.timing,
        starts=snakemake.params.starts,
    )
