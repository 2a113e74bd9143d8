"""Rule make_splits: draw the train/val/test indices of every fold for one seed.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/make_splits.py`): the example
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

from graphdr.pipeline import runtime, splits  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("make_splits", experiment="demo", dataset="wine", seed=0)

with runtime.job(snakemake):
    splits.make_splits(
        snakemake.input.prepared,
        snakemake.output.splits,
        spec=snakemake.params.split,
        seed=snakemake.params.seed,
    )
