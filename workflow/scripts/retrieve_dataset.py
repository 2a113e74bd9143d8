"""Rule retrieve_dataset: fetch the raw files of one dataset, write their manifest.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/retrieve_dataset.py`): the example
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

from graphdr.pipeline import data, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("retrieve_dataset", dataset="wine")

with runtime.job(snakemake):
    data.retrieve_dataset(snakemake.params.source, snakemake.output.manifest)
