"""Atomic writes and file permissions shared by every writer of graphdr (the lowest layer:
the reporting, the ledger and the workflow's :mod:`graphdr.pipeline.io` all use them)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path


def _umask() -> int:
    """The process umask, read without changing it where the system allows (Linux /proc);
    elsewhere set-and-restore (another thread could create a file in between: rare)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def shared_file_mode() -> int:
    """Mode of a file created the ordinary way (``open(path, "w")``): 0o666 minus the umask.

    Atomic writers create their temporary file with :func:`tempfile.mkstemp`, which makes it
    0600 whatever the umask; they set this mode before moving it into place, so collaborators
    on a shared directory can read the outputs (0644 under the usual umask 022).
    """
    return 0o666 & ~_umask()


# The random part of a tempfile.mkstemp/mkdtemp name: exactly 8 characters, so the pattern of
# one output's temporaries never matches those of another output in the same directory.
_RANDOM = "?" * 8


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` if the block succeeds.

    The temporary name keeps the suffix of ``path`` (writers such as ``savefig`` infer the format
    from it). On error the temporary file is removed and ``path`` is left untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(path.parent, f".{glob.escape(path.stem)}.{_RANDOM}.tmp{glob.escape(path.suffix)}")
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}", dir=path.parent
    )
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, shared_file_mode())  # mkstemp makes 0600: collaborators could not read it
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_stem(stem: str | os.PathLike, suffixes: Sequence[str]) -> Iterator[Path]:
    """Like :func:`atomic_path` for writers that take a path *stem* and add several suffixes.

    Yields a temporary stem in the same directory; afterwards ``tmp + suffix`` is moved to
    ``stem + suffix`` for every suffix (each move atomic; a missing file is an error).
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(stem.parent, f".{glob.escape(stem.name)}.{_RANDOM}.tmp")
    tmpdir = Path(tempfile.mkdtemp(prefix=f".{stem.name}.", suffix=".tmp", dir=stem.parent))
    tmp_stem = tmpdir / stem.name
    try:
        yield tmp_stem
        for suffix in suffixes:
            produced = tmp_stem.with_name(tmp_stem.name + suffix)
            if not produced.exists():
                raise FileNotFoundError(
                    f"writer did not produce {produced.name} (expected {suffixes})."
                )
        for suffix in suffixes:
            os.replace(
                tmp_stem.with_name(tmp_stem.name + suffix), stem.with_name(stem.name + suffix)
            )
    finally:
        for leftover in tmpdir.iterdir():
            leftover.unlink()
        tmpdir.rmdir()


def _remove_stale(directory: Path, pattern: str) -> None:
    """Delete temporaries a killed writer of the same output left behind (SIGKILL skips cleanup).

    One job writes one output, so a temporary matching the output's own pattern is never in use.
    """
    for stale in directory.glob(pattern):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` as UTF-8 (claims files, Markdown notes), atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
