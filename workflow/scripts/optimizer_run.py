"""Rule optimizer_run: fit one estimator with one optimiser on every sample of one dataset.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/optimizer_run.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import os
import sys
from pathlib import Path

if "snakemake" in globals():  # thread pools are sized when numpy/numba load: export first
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[_var] = str(snakemake.threads)
    _scripts = Path(snakemake.scriptdir)
else:
    _scripts = Path(__file__).parent
sys.path.insert(0, str(_scripts.resolve().parents[1] / "src"))  # this checkout's graphdr

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
    )
