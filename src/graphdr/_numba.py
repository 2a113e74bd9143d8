"""Numba set-up shared by every compiled kernel of graphdr.

Two guarantees, both asked for by users of numba-based tools (numba #1771, #4807):

* the on-disk cache lives in a per-user directory (``NUMBA_CACHE_DIR`` when the user or the
  workflow sets it, otherwise ``$XDG_CACHE_HOME/graphdr/numba``), never next to an installed,
  possibly read-only, package;
* a cache that cannot be written never fails: the kernel is then compiled in memory only.

Kernels are declared with :func:`njit` from this module, at module level, so they compile once per
process and are loaded from the cache afterwards.
"""

from __future__ import annotations

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

CACHE_ENABLED = (
    _writable(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else False
)


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` when the cache directory is writable.

    Used exactly like ``numba.njit`` (with or without arguments). When caching is impossible the
    function is compiled in memory and a single warning says why; the result is identical.
    """
    kwargs.setdefault("cache", CACHE_ENABLED)
    signature = args[0] if args and not callable(args[0]) else None

    def compile_(func, cache):
        options = {**kwargs, "cache": cache}
        return numba.njit(signature, **options)(func) if signature else numba.njit(**options)(func)

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
