"""``graphdr._threads.limit_threads``: the limits of ``threadpoolctl.threadpool_limits`` with the
library discovery cached (rebuilt when a module is imported)."""

import sys
import types

import numpy as np  # noqa: F401  (loads the BLAS pool the tests limit)
import pytest
import scipy.linalg  # noqa: F401
from threadpoolctl import threadpool_info, threadpool_limits

from graphdr import _threads


def _threads_by_api():
    return sorted((p["user_api"], p["filepath"], p["num_threads"]) for p in threadpool_info())


def test_limits_blas_and_restores():
    # two threads everywhere first (threadpoolctl itself), so the limit to one is visible
    with threadpool_limits(2):
        before = _threads_by_api()
        assert any(api == "blas" and n == 2 for api, _, n in before)
        with _threads.limit_threads(1, user_api="blas"):
            inside = _threads_by_api()
        assert _threads_by_api() == before
    for (api, path, n_before), (api_in, path_in, n_in) in zip(before, inside, strict=True):
        assert (api, path) == (api_in, path_in)
        assert n_in == (1 if api == "blas" else n_before)


def test_limit_none_changes_nothing_and_finds_nothing(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("limits=None must not inspect the loaded libraries")

    monkeypatch.setattr(_threads, "ThreadpoolController", forbidden)
    monkeypatch.setattr(_threads, "_controller", None)
    before = _threads_by_api()
    with _threads.limit_threads(None, user_api="blas"):
        assert _threads_by_api() == before


def test_controller_cached_until_a_module_is_imported(monkeypatch):
    first = _threads.controller()
    assert _threads.controller() is first
    monkeypatch.setitem(sys.modules, "graphdr_test_new_module", types.ModuleType("x"))
    second = _threads.controller()
    assert second is not first  # a module was imported: libraries are looked up again
    assert _threads.controller() is second


def test_same_libraries_as_threadpoolctl():
    paths = sorted(lib.filepath for lib in _threads.controller().lib_controllers)
    assert paths == sorted(p["filepath"] for p in threadpool_info())


@pytest.mark.parametrize("user_api", ["blas", "openmp", None])
def test_nested_limits_unwind(user_api):
    before = _threads_by_api()
    with _threads.limit_threads(1, user_api=user_api):
        with _threads.limit_threads(1, user_api="blas"):
            pass
    assert _threads_by_api() == before
