"""A numba cache that cannot be written never fails a computation (numba #1771, #4807)."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

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


_PROBE = """
import graphdr.probe as probe
assert probe.__file__.startswith(__import__("sys").argv[1]), probe.__file__
print(probe.scale(2.0), probe.scale.stats.cache_hits, probe.scale.stats.cache_misses)
"""


def test_every_checkout_shares_the_cache_and_an_edit_still_recompiles(tmp_path):
    """Two checkouts of graphdr (a clone, a worktree, the workflow tests' copies) with the same
    module source share its compiled kernel: the second loads it (a cache hit, no compilation).
    A checkout whose module differs recompiles and gets its own result."""
    package = Path(__file__).resolve().parents[1] / "src" / "graphdr"
    source = "from graphdr._numba import njit\n\n\n@njit\ndef scale(x):\n    return {} * x\n"
    roots = {}
    for name, factor in (("one", 3.0), ("two", 3.0), ("edited", 5.0)):
        roots[name] = tmp_path / name / "src"
        copy = roots[name] / "graphdr"
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / "probe.py").write_text(source.format(factor))
    cache = tmp_path / "cache"

    def run(name):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(roots[name])}
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(roots[name])],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr
        assert "could not be read" not in out.stderr, out.stderr
        value, hits, misses = out.stdout.split(maxsplit=2)
        return float(value), hits.count(":"), misses.count(":")  # Counters of signatures

    assert run("one") == (6.0, 0, 1)  # compiled and saved
    assert run("two") == (6.0, 1, 0)  # another checkout: loaded, not compiled
    assert run("edited") == (10.0, 0, 1)  # another source: compiled, not the cached 6.0
    assert run("one") == (6.0, 0, 1)  # the entry now holds the edited source: compiled again
    assert [p.name for p in cache.iterdir()] == ["graphdr"]
