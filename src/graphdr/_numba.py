"""Numba set-up shared by every compiled kernel of graphdr.

Two guarantees, both asked for by users of numba-based tools (numba #1771, #4807):

* the on-disk cache lives in a per-user directory (``NUMBA_CACHE_DIR`` when the user or the
  workflow sets it, otherwise ``$XDG_CACHE_HOME/graphdr/numba``), never next to an installed,
  possibly read-only, package;
* a cache that cannot be written never fails: the kernel is then compiled in memory only;
* a cache entry that cannot be read (a corrupted or truncated file: ``UnpicklingError``,
  ``EOFError``, ...) never fails either: the kernel is compiled in memory, its entry is rewritten
  (so the next run loads it again), and one warning per process says so;
* every checkout of graphdr shares one cache: numba files its cache under a hash of the source
  file's absolute directory, so a second clone, a worktree, or each copy of the checkout the
  workflow tests make compiled every kernel again (about 5 CPU-s per process that fits the
  estimators, measured 2026-11-24); :class:`_PackageLocator` files it under the module's path
  inside the package instead. numba's freshness stamp is a sha256 of the source file's
  contents, so an edited module is still recompiled (and its entry rewritten).

Kernels are declared with :func:`njit` from this module, at module level, so they compile once per
process and are loaded from the cache afterwards.
"""

from __future__ import annotations

import contextlib
import os
import warnings


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "graphdr", "numba")


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


if not os.environ.get("NUMBA_CACHE_DIR"):
    _dir = _default_cache_dir()
    if _writable(_dir):
        os.environ["NUMBA_CACHE_DIR"] = _dir

import numba  # noqa: E402  (must come after NUMBA_CACHE_DIR is settled)
from numba.core import caching  # noqa: E402

CACHE_ENABLED = (
    _writable(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else False
)


_UNREADABLE_REPORTED = False


def _report_unreadable(name: str, cache_path, exc: BaseException) -> None:
    global _UNREADABLE_REPORTED
    if _UNREADABLE_REPORTED:
        return
    _UNREADABLE_REPORTED = True
    warnings.warn(
        f"numba cache of {name} under {cache_path} could not be read "
        f"({type(exc).__name__}: {exc}); compiling in memory and rewriting the entry. "
        "(Said once per process; other unreadable entries are handled the same way.)",
        RuntimeWarning,
        stacklevel=3,
    )


class _PackageLocator(caching.UserProvidedCacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` locator, with the cache directory named after the source
    file's directory inside the ``graphdr`` package (``graphdr-methods``) instead of a hash of
    its absolute path: every checkout shares the entries. Freshness is numba's own (a sha256 of
    the file's contents, :func:`numba.core.caching._hash_source_file`). Not for files outside a
    ``graphdr`` directory (numba's locators handle those)."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if _package_subpath(py_file) is None:
            return None
        return super().from_function(py_func, py_file)

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        return _package_subpath(py_file)


def _package_subpath(py_file) -> str | None:
    """``graphdr-methods`` for ``.../graphdr/methods/x.py``: the directory from the innermost
    ``graphdr`` directory down, or None outside one."""
    parts = os.path.dirname(os.path.abspath(py_file)).split(os.sep)
    if "graphdr" not in parts:
        return None
    top = len(parts) - 1 - parts[::-1].index("graphdr")
    return "-".join(parts[top:])


class _CompileResultCacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_PackageLocator, *caching.CompileResultCacheImpl._locator_classes]


class _FunctionCache(caching.FunctionCache):
    _impl_class = _CompileResultCacheImpl


class _HealingCache:
    """numba's per-function cache, except that an entry that cannot be read or written is
    compiled in memory instead of failing every later run (numba raises, e.g.
    ``UnpicklingError`` from a corrupted index). The unreadable index is removed, so the fresh
    compilation is saved in its place."""

    def __init__(self, cache, name: str):
        self._cache = cache
        self._name = name

    def __getattr__(self, attr):
        return getattr(self._cache, attr)

    def load_overload(self, sig, target_context):
        try:
            return self._cache.load_overload(sig, target_context)
        except Exception as exc:  # any unreadable entry: the compiled result does not change
            _report_unreadable(self._name, self._cache.cache_path, exc)
            index = getattr(getattr(self._cache, "_cache_file", None), "_index_path", None)
            if index is not None:
                with contextlib.suppress(OSError):
                    os.remove(index)
            return None

    def save_overload(self, sig, data):
        try:
            self._cache.save_overload(sig, data)
        except Exception as exc:
            _report_unreadable(self._name, self._cache.cache_path, exc)


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` when the cache directory is writable.

    Used exactly like ``numba.njit`` (with or without arguments). When caching is impossible the
    function is compiled in memory and a single warning says why; the result is identical. An
    unreadable cache entry is compiled in memory and rewritten (:class:`_HealingCache`).
    """
    kwargs.setdefault("cache", CACHE_ENABLED)
    signature = args[0] if args and not callable(args[0]) else None

    def compile_(func, cache):
        options = {**kwargs, "cache": cache}
        if not cache:
            if signature:
                return numba.njit(signature, **options)(func)
            return numba.njit(**options)(func)
        # compiled without numba's own cache (its locator would make a directory named after
        # this checkout's path), then given the package-keyed one (Dispatcher.enable_caching)
        dispatcher = numba.njit(**{**options, "cache": False})(func)
        dispatcher._cache = _HealingCache(_FunctionCache(func), func.__name__)
        if signature:  # numba's eager compilation, after the cache is wrapped
            from numba.core import typeinfer

            with typeinfer.register_dispatcher(dispatcher):
                for sig in signature if isinstance(signature, list) else [signature]:
                    dispatcher.compile(sig)
                dispatcher.disable_compile()
        return dispatcher

    def wrap(func):
        try:
            return compile_(func, kwargs["cache"])
        except RuntimeError as exc:  # "cannot cache function ...: no locator available"
            if not kwargs["cache"]:
                raise
            warnings.warn(
                f"numba cache unavailable for {func.__name__} ({exc}); compiling in memory. "
                "Set NUMBA_CACHE_DIR to a writable directory to cache compiled kernels.",
                RuntimeWarning,
                stacklevel=2,
            )
            return compile_(func, False)

    if args and callable(args[0]):
        return wrap(args[0])
    return wrap
