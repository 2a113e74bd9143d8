"""Set-up shared by every workflow script: log file, thread limits, debugging by hand.

Thread limits. Snakemake exports ``OMP/OPENBLAS/MKL_NUM_THREADS={threads}`` for ``script:``
rules but not ``NUMBA_NUM_THREADS``, and numba fixes its pool size at import: changing that
variable afterwards makes the next compilation fail ("Cannot set NUMBA_NUM_THREADS to a different
value once the threads have been launched"). So each workflow script exports all four variables
before it imports graphdr (see ``workflow/scripts``), and :func:`limit_threads` then enforces the
limit at run time as well: threadpoolctl for the BLAS/OpenMP pools already loaded and
``numba.set_num_threads`` for numba when it is loaded (its environment variable is then never
touched). A job that has not imported numba yet does not import it here (0.4 s per job, for
stages that never compile anything); numba sizes its pool from the exported variable if the job
imports it later.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import sys
from collections.abc import Iterator
from pathlib import Path

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)

_active_limits = None  # the threadpoolctl limiter, kept alive for the life of the job

logger = logging.getLogger("graphdr.pipeline")


def limit_threads(n_threads: int) -> dict[str, int]:
    """Limit BLAS, OpenMP and numba to ``n_threads`` for the rest of the process.

    Exports the BLAS/OpenMP variables for child processes (``NUMBA_NUM_THREADS`` only if numba
    is not loaded yet, see the module doc), applies threadpoolctl limits to the loaded pools, and
    calls ``numba.set_num_threads`` (capped at numba's pool size) if numba is loaded. Returns
    :func:`thread_report`.
    """
    global _active_limits
    n_threads = int(n_threads)
    if n_threads < 1:
        raise ValueError(f"n_threads={n_threads} must be >= 1.")
    numba_loaded = "numba" in sys.modules
    for var in THREAD_VARIABLES:
        if var != "NUMBA_NUM_THREADS" or not numba_loaded:
            os.environ[var] = str(n_threads)
    from threadpoolctl import threadpool_limits

    _active_limits = threadpool_limits(limits=n_threads)
    if numba_loaded:  # already imported (through graphdr._numba): adjust its pool, load nothing
        numba = sys.modules["numba"]
        numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
    return thread_report()


def thread_report() -> dict[str, int]:
    """Threads each loaded pool will use: ``{"openblas": 2, "openmp": 2, "numba": 2, ...}``.

    ``numba`` is reported once numba is loaded (a job that never compiles never loads it).
    """
    from threadpoolctl import threadpool_info

    report = {}
    for pool in threadpool_info():
        report[pool["internal_api"]] = max(report.get(pool["internal_api"], 0), pool["num_threads"])
    if "numba" in sys.modules:
        report["numba"] = sys.modules["numba"].get_num_threads()
    return report


#: the ``done`` record's usage text (parsed by graphdr.pipeline.costs.read_job_logs)
USAGE_FORMAT = "{cpu:.2f} CPU-s (user {user:.2f} + system {system:.2f}), peak RSS {rss:.0f} MB"


def process_usage() -> str:
    """CPU seconds (user + system) of this process and of the children it has waited for,
    since the process started (imports included), and its peak resident memory
    (``resource.getrusage``), as :data:`USAGE_FORMAT` text."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    user, system = own.ru_utime + children.ru_utime, own.ru_stime + children.ru_stime
    rss_mb = max(own.ru_maxrss, children.ru_maxrss) / 1024.0  # kilobytes on Linux
    return USAGE_FORMAT.format(cpu=user + system, user=user, system=system, rss=rss_mb)


@contextlib.contextmanager
def job(snakemake) -> Iterator[logging.Logger]:
    """Run the body of a workflow script as one job.

    Logs to ``snakemake.log[0]`` (overwritten; stderr when there is no log), limits threads to
    ``snakemake.threads`` and records the effective limits (at the start, and at the end when
    the job has loaded more pools, e.g. numba) and the numba cache directory. The last record is
    ``done`` for a job that succeeded, or the exception with its traceback (re-raised) for one
    that failed, so the end of a log says how the job ended. The ``done`` record also states the
    job's own CPU time (:func:`process_usage`): Snakemake's benchmark files sample a job's CPU
    every 30 s after its first 15 s and miss what it spends after the last sample
    (:mod:`graphdr.pipeline.costs` prefers the log's figure).
    """
    log_file = snakemake.log[0] if len(snakemake.log) else None
    handler = logging.FileHandler(log_file, mode="w") if log_file else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.captureWarnings(True)
    wildcards = {k: v for k, v in snakemake.wildcards.items()}
    logger.info("rule %s, wildcards %s", snakemake.rule, wildcards)
    start = limit_threads(snakemake.threads)
    logger.info("threads: %s", start)
    logger.info("NUMBA_CACHE_DIR: %s", os.environ.get("NUMBA_CACHE_DIR", "(numba default)"))
    logger.info("graphdr imported from %s", Path(__file__).resolve().parents[1])
    failure = None
    try:
        yield logger
    except BaseException as exc:
        failure = exc
        raise
    finally:
        with contextlib.suppress(Exception):  # never hide the job's own error
            end = thread_report()
            if end != start:
                logger.info("threads at the end: %s", end)
        if failure is None:
            logger.info("done: %s", process_usage())
        else:
            logger.error("job failed", exc_info=failure)
            # _bootstrap's excepthook appends uncaught errors to the log: this one is there
            with contextlib.suppress(AttributeError, TypeError):
                failure.graphdr_logged = True
        handler.flush()


def mock_snakemake(
    rule: str,
    *,
    configfiles: tuple[str | os.PathLike, ...] = (),
    root: str | os.PathLike | None = None,
    **wildcards,
):
    """The ``snakemake`` object a rule's script receives, rebuilt for running it by hand.

    ``python workflow/scripts/fit_embed.py`` then runs the job with the example wildcards given
    in the script (edit them there). Paths are made absolute; ``root`` defaults to the checkout
    holding this file. Uses Snakemake's internal API (pinned major version 9).
    """
    from snakemake.api import SnakemakeApi
    from snakemake.dag import DAG
    from snakemake.jobs import Job
    from snakemake.script import Snakemake
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
    )

    root = Path(root) if root is not None else Path(__file__).resolve().parents[3]
    configfiles = [Path(f).resolve() for f in configfiles]
    cwd = Path.cwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            workflow_api = api.workflow(
                ResourceSettings(cores=os.cpu_count() or 1),
                ConfigSettings(configfiles=configfiles),
                snakefile=root / "Snakefile",
                workdir=root,
            )
            workflow_api.dag(DAGSettings())  # installs the DAG settings a Job needs
            workflow = workflow_api._workflow
            dag = DAG(workflow, rules=[workflow.get_rule(rule)])
            job_ = Job(workflow.get_rule(rule), dag, {k: str(v) for k, v in wildcards.items()})
            for files in (job_.input, job_.output, job_.log):
                for i, f in enumerate(files):
                    files[i] = str((root / f).resolve())
            for f in job_.output:
                Path(f).parent.mkdir(parents=True, exist_ok=True)
            for f in job_.log:
                Path(f).parent.mkdir(parents=True, exist_ok=True)
            return Snakemake(
                job_.input,
                job_.output,
                job_.params,
                job_.wildcards,
                job_.threads,
                job_.resources,
                job_.log,
                workflow.config,
                rule,
                None,
                str(root / "workflow" / "scripts"),
            )
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def count_eigendecompositions(min_size: int = 0):
    """Count calls of ``scipy.linalg.eigh`` / ``eigvalsh`` inside the block: ``{"n": count,
    "sizes": [order of each matrix counted]}``.

    Every eigensolver of graphdr calls them through the ``scipy.linalg`` module attribute, so
    wrapping the attribute sees every eigendecomposition a fit performs. ``min_size``: count only
    matrices of at least that order (e.g. the O(N^3) ones, not the C x C problems of a fit).
    """
    import scipy.linalg

    counter = {"n": 0, "sizes": []}
    originals = {name: getattr(scipy.linalg, name) for name in ("eigh", "eigvalsh")}

    def wrap(function):
        def counted(a, *args, **kwargs):
            size = int(getattr(a, "shape", (0,))[0])
            if size >= min_size:
                counter["n"] += 1
                counter["sizes"].append(size)
            return function(a, *args, **kwargs)

        return counted

    try:
        for name, function in originals.items():
            setattr(scipy.linalg, name, wrap(function))
        yield counter
    finally:
        for name, function in originals.items():
            setattr(scipy.linalg, name, function)
