"""First lines of every workflow script: size the thread pools, then use this checkout's package.

Thread pools (OpenBLAS, OpenMP, numba) read their size when numpy or numba is first imported, so
the rule's ``threads`` are exported before anything imports them (Snakemake exports the BLAS
variables for script rules but not ``NUMBA_NUM_THREADS``). The scripts import this checkout's
``src/`` ahead of any installed graphdr, because conda environments drop ``PYTHONPATH``.
"""

import os
import sys
import traceback
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
    """Export the job's thread count (when run by Snakemake) and put ``src/`` first on the path.

    Also makes the job's log end with any error the script does not catch (an import that
    fails before ``runtime.job`` opens the log, say): Snakemake shows the log of a failed job.
    """
    snakemake = namespace.get("snakemake")
    if snakemake is not None:
        for var in THREAD_VARIABLES:
            os.environ[var] = str(snakemake.threads)
        log = list(getattr(snakemake, "log", []) or [])
        if log:
            sys.excepthook = _log_uncaught(str(log[0]), sys.excepthook)
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))


def _log_uncaught(path: str, previous):
    """An excepthook appending the traceback to ``path`` (unless runtime.job logged it)."""

    def hook(kind, value, tb):
        if not getattr(value, "graphdr_logged", False):
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                with open(path, "a", encoding="utf-8") as fh:
                    fh.write("job failed before or outside graphdr.pipeline.runtime.job:\n")
                    fh.write("".join(traceback.format_exception(kind, value, tb)))
            except OSError:
                pass  # the traceback still reaches stderr below
        previous(kind, value, tb)

    return hook
