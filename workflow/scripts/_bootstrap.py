"""First import of every workflow script: size the thread pools, use this checkout's package,
and run the script's body as one job.

A script is three lines of set-up and a call::

    from _bootstrap import job  # first: the thread counts are exported before numpy loads

    from graphdr.pipeline.papers.akda import protocol as akda

    with job("run_akda_method", dataset="akda_decaf50", condition="10Ex", akda_method="AKDA") as snakemake:
        akda.akda_run(snakemake.input.prepared, ...)

Importing this module exports the rule's ``threads`` to the thread-pool variables: the pools
(OpenBLAS, OpenMP, numba) read their size when numpy or numba is first imported, and Snakemake
exports the BLAS variables for script rules but not ``NUMBA_NUM_THREADS``. It also puts this
checkout's ``src/`` ahead of any installed graphdr, because conda environments drop
``PYTHONPATH``. Snakemake puts this folder on the path of the copy of the script it runs
(its script preamble adds a local script's folder); run by hand, Python does.
"""

import contextlib
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


def _start(snakemake) -> None:
    """Export the job's thread count (``snakemake``: the running job's object, None by hand) and
    put ``src/`` first on the path.

    Also makes the job's log end with any error the script does not catch (an import that
    fails before ``runtime.job`` opens the log, say): Snakemake shows the log of a failed job.
    """
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


@contextlib.contextmanager
def job(rule: str, **example_wildcards):
    """Run the script's body as one job (:func:`graphdr.pipeline.runtime.job`); yields the
    ``snakemake`` object.

    Under Snakemake, the object its preamble defined in the script; run by hand
    (``python workflow/scripts/<rule>.py``), the job of ``rule`` with ``example_wildcards``,
    rebuilt from the workflow by :func:`graphdr.pipeline.runtime.mock_snakemake` (edit the
    wildcards in the script to debug another job).
    """
    from graphdr.pipeline import runtime

    snakemake = _SNAKEMAKE
    if snakemake is None:
        snakemake = runtime.mock_snakemake(rule, **example_wildcards)
    with runtime.job(snakemake):
        yield snakemake


# the running script's own ``snakemake`` (None when it is run by hand), before anything imports
# numpy: a script imports this module first
_SNAKEMAKE = getattr(sys.modules.get("__main__"), "snakemake", None)
_start(_SNAKEMAKE)
