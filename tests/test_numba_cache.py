"""A numba cache that cannot be written never fails a computation (numba #1771, #4807)."""

import os
import subprocess
import sys
import textwrap

import pytest


def _run(env_update, tmp_path):
    code = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("always")
        from graphdr._numba import njit, CACHE_ENABLED

        @njit
        def add(a, b):
            return a + b

        print(CACHE_ENABLED, add(2, 3))
        """
    )
    script = tmp_path / "kernel_user.py"  # numba caches only functions defined in a file
    script.write_text(code)
    env = {**os.environ, **env_update}
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)


def test_unwritable_cache_dir_falls_back_to_memory(tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("a file where the cache directory should be")
    out = _run({"NUMBA_CACHE_DIR": str(blocker / "cache")}, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "5"]


def test_writable_cache_dir_is_used(tmp_path):
    out = _run({"NUMBA_CACHE_DIR": str(tmp_path / "cache")}, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "5"]
    assert any((tmp_path / "cache").rglob("*.nbi")), "no numba index file was written"


def test_default_cache_dir_is_per_user(tmp_path):
    env = {"NUMBA_CACHE_DIR": "", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    out = _run(env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "xdg" / "graphdr" / "numba").is_dir()


_TWO_KERNELS = """
import warnings
warnings.simplefilter("always")
from graphdr._numba import njit

@njit
def add(a, b):
    return a + b

@njit
def mul(a, b):
    return a * b

print(add(2, 3), mul(2, 3))
"""


def _run_two(tmp_path, cache):
    script = tmp_path / "two_kernels.py"
    script.write_text(_TWO_KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["5", "6"]
    return out.stderr


@pytest.mark.parametrize(
    ("pattern", "garbage"),
    [("*.nbi", b"not a pickle"), ("*.nbc", b"\x80\x04truncated"), ("*.nb*", b"")],
)
def test_corrupted_cache_compiles_in_memory_says_so_once_and_heals(tmp_path, pattern, garbage):
    cache = tmp_path / "cache"
    assert "could not be read" not in _run_two(tmp_path, cache)  # fills the cache
    corrupted = sorted(cache.rglob(pattern))
    assert len(corrupted) >= 2, "both kernels should have cache files"
    for path in corrupted:
        path.write_bytes(garbage)
    stderr = _run_two(tmp_path, cache)
    assert stderr.count("could not be read") == 1, stderr
    assert "compiling in memory" in stderr
    # the entries were rewritten: the next run loads them without a word
    assert "could not be read" not in _run_two(tmp_path, cache)
