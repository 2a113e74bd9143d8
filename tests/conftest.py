"""Test-suite hygiene shared by every test module."""

import functools
import os
from pathlib import Path

import pytest

#: the modules that copy test_workflow.py's quick build, in this order (measured 2026-11-24 with
#: both workers busy: the rebuild 200 s, the change dry runs 75 s, each paper module 10-20 s). A
#: worker takes its next file as soon as at most 2 of its tests are pending, so the one-test
#: rebuild takes the next file along at once: a short one (akda), leaving the dry runs to the
#: other worker. Modules that copy the build and are not named here run after these.
_BUILD_COPIES_FIRST = (
    "test_workflow_rebuild.py",
    "test_workflow_akda.py",
    "test_workflow_changes.py",
)


@pytest.fixture(autouse=True)
def _restore_environment():
    """Undo environment changes a test makes (e.g. ``runtime.limit_threads`` exports
    ``OMP_NUM_THREADS``), so they never leak into later tests or the subprocesses they start."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)


@functools.cache
def _copies_the_build(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return "quick_build_copy" in text or "built_checkout" in text


def _rank(path: Path) -> tuple[int, int]:
    if path.name == "test_workflow.py":
        return 0, 0
    if _copies_the_build(path):
        names = _BUILD_COPIES_FIRST
        return 2, names.index(path.name) if path.name in names else len(names)
    return 1, 0


def pytest_collection_modifyitems(session, config, items):
    """Order the files so that two pytest-xdist workers (``--dist loadfile
    --no-loadscope-reorder``, as ``make test`` runs them) never wait for each other.

    tests/test_workflow.py goes first: its quick build of every paper is the longest job of
    the suite (about 4 minutes of one worker). The modules that copy that build rather than
    build their targets again (``test_workflow.quick_build_copy`` or ``built_checkout``: the
    paper modules tests/test_workflow_<paper>.py, the dry runs of
    tests/test_workflow_changes.py, the rebuild) go last (:data:`_BUILD_COPIES_FIRST`), so that
    the other worker runs every other file while the build runs instead of waiting for it
    (measured: a copy scheduled early idled one core for 3 of the suite's 9.5 minutes). xdist's
    default ``loadscope`` reordering (largest file first) would undo this order, hence
    ``--no-loadscope-reorder``."""
    items.sort(key=lambda item: _rank(item.path))  # stable: the order within a file stays
