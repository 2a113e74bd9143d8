"""Helpers shared by the benchmark modules: timing, peak memory, result rows.

A benchmark module ``bench_<name>.py`` exposes ``run(quick: bool) -> list[dict]``; each dict is
made with :func:`row`, so every benchmark prints and saves the same columns.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import subprocess
import sys
import textwrap
import time
import tracemalloc
from collections.abc import Callable, Mapping


def timeit_best(fn: Callable[[], object], repeat: int = 3, warmup: int = 1) -> float:
    """Best wall-clock time of ``fn()`` in seconds over ``repeat`` calls, after ``warmup`` calls.

    The warm-up call triggers numba compilation (or a cache load) and BLAS thread start-up; the
    minimum is the least noisy estimate of the cost on a shared machine. Results are dropped at
    once, so large outputs do not pile up.
    """
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def compare_best(fns: Mapping[str, Callable[[], object]], repeat: int = 3) -> dict[str, float]:
    """Best time of each function, measured in interleaved rounds (one warm-up round first).

    Interleaving spreads slow drifts of a shared machine (turbo, neighbours) over every
    contender instead of penalising whichever happened to run last.
    """
    for fn in fns.values():
        fn()
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def peak_memory(fn: Callable[[], object]) -> int:
    """Peak bytes allocated while ``fn()`` runs, above what was allocated when it started.

    Measured with ``tracemalloc``, which sees every allocation made through Python's allocator
    and every numpy data buffer (numpy reports them to tracemalloc), including the result while
    it is alive. It does not see memory allocated inside numba-compiled code or BLAS work
    buffers (OpenBLAS allocates those once per thread, independently of the problem size).
    Call ``fn`` once beforehand if it compiles anything: compilation allocates too.
    """
    already = tracemalloc.is_tracing()
    if not already:
        tracemalloc.start()
    try:
        gc.collect()
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not already:
            tracemalloc.stop()
    return max(peak - start, 0)


_RSS_PROBE = """
import json

def _status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

{setup}
import gc
gc.collect()
with open("/proc/self/clear_refs", "w") as f:  # reset the high-water mark VmHWM to VmRSS
    f.write("5")
_before = _status("VmRSS:")
{stmt}
print(json.dumps({{"before": _before, "peak": _status("VmHWM:")}}))
"""


def peak_rss_delta(setup: str, stmt: str, timeout: float = 600) -> int | None:
    """Growth of the resident set size while ``stmt`` runs, in a fresh Python process (bytes).

    ``setup`` builds the inputs (and warms up compiled code); the peak RSS is then reset
    (Linux ``/proc/self/clear_refs``) and ``stmt`` runs, so the result is the peak resident memory
    ``stmt`` added, whatever allocated it (numpy, numba, BLAS). Returns ``None`` where that
    interface is missing (not Linux). Pages are counted when touched, so an array allocated but
    never written is not counted.
    """
    if not os.path.exists("/proc/self/clear_refs"):
        return None
    code = _RSS_PROBE.format(setup=textwrap.dedent(setup), stmt=textwrap.dedent(stmt))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"RSS probe failed:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["peak"] - result["before"]


def row(
    case: str,
    metric: str,
    value: float,
    *,
    at_most: float | None = None,
    at_least: float | None = None,
    details: str = "",
    **extra,
) -> dict:
    """One result row; ``status`` is PASS/FAIL against ``at_most``/``at_least`` ("" without)."""
    if at_most is not None:
        target, ok = f"<= {at_most:g}", value <= at_most
    elif at_least is not None:
        target, ok = f">= {at_least:g}", value >= at_least
    else:
        target, ok = "", None
    status = "" if ok is None else ("PASS" if ok else "FAIL")
    return {
        "case": case,
        "metric": metric,
        "value": float(value),
        "target": target,
        "status": status,
        "details": details,
        **extra,
    }


def environment() -> dict:
    """Versions, cores and thread counts: what a number needs next to it to mean something."""
    import numpy
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    from graphdr._numba import numba  # first, so that numba uses graphdr's cache directory

    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    blas = [
        f"{p['internal_api']} {p.get('version')} ({p['num_threads']} threads)"
        for p in threadpool_info()
        if p["user_api"] == "blas"
    ]
    return {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "numba": numba.__version__,
        "cpu": cpu,
        "cores": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": _threading_layer(numba),
        "blas": sorted(set(blas)),
        "openblas_thread_timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "(OpenBLAS default)"),
        "load_average_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def _threading_layer(numba) -> str:
    try:
        return numba.threading_layer()  # the layer in use (threads are started by now)
    except ValueError:
        return str(numba.config.THREADING_LAYER)
