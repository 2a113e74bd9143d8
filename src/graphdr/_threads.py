"""Temporary thread limits for native pools (BLAS, OpenMP) at the cost of a dictionary lookup.

``threadpoolctl.threadpool_limits`` finds the loaded native libraries on every call: it walks
the process's shared objects (``dl_iterate_phdr``) and opens each pool it recognises. That costs
about 4-5 ms (``benchmarks/bench_estimators.py``, "thread limit"; a small one-vs-rest SVM fit
takes 1.3-1.8 ms), paid inside every grid point's SVM and every subclass clustering: in an AKDA
group job of the full reproduction it was 7 % of the job's samples (py-spy). Here one
``threadpoolctl.ThreadpoolController`` is kept and its ``limit`` used, as scikit-learn does
(``sklearn.utils.parallel._get_threadpool_controller``), with one difference: the controller is
rebuilt when ``sys.modules`` has grown since it was made, so a native library loaded later (an
extension module imported after the first call) is still limited. Limits and results are those
of ``threadpool_limits``; only the discovery is cached. We keep this small wrapper (not the
library call) for that measured cost.
"""

from __future__ import annotations

import contextlib
import sys

from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None
_modules_seen = -1


def controller() -> ThreadpoolController:
    """The process's ``ThreadpoolController``, rebuilt when a module was imported since."""
    global _controller, _modules_seen
    n_modules = len(sys.modules)
    if _controller is None or n_modules != _modules_seen:
        _controller = ThreadpoolController()
        _modules_seen = n_modules
    return _controller


def limit_threads(limits: int | None, *, user_api: str | None = None):
    """Context manager: at most ``limits`` threads in the pools of ``user_api`` (``"blas"``,
    ``"openmp"`` or None for all), restored on exit; ``limits=None`` leaves everything alone
    (and, unlike ``threadpool_limits(None)``, costs nothing)."""
    if limits is None:
        return contextlib.nullcontext()
    return controller().limit(limits=limits, user_api=user_api)
