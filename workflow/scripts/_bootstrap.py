"""First lines of every workflow script: size the thread pools, then use this checkout's package.

Thread pools (OpenBLAS, OpenMP, numba) read their size when numpy or numba is first imported, so
the rule's ``threads`` are exported before anything imports them (Snakemake exports the BLAS
variables for script rules but not ``NUMBA_NUM_THREADS``). The scripts import this checkout's
``src/`` ahead of any installed graphdr, because conda environments drop ``PYTHONPATH``.
"""

import os
import sys
from pathlib import Path

# the same tuple as graphdr.pipeline.runtime.THREAD_VARIABLES (tested), which cannot be imported
# here: importing graphdr would load numpy before the counts are set
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)
SRC = Path(__file__).resolve().parents[2] / "src"


def start(namespace: dict) -> None:
    """Export the job's thread count (when run by Snakemake) and put ``src/`` first on the path."""
    snakemake = namespace.get("snakemake")
    if snakemake is not None:
        for var in THREAD_VARIABLES:
            os.environ[var] = str(snakemake.threads)
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
