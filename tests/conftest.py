"""Test-suite hygiene shared by every test module."""

import os

import pytest


@pytest.fixture(autouse=True)
def _restore_environment():
    """Undo environment changes a test makes (e.g. ``runtime.limit_threads`` exports
    ``OMP_NUM_THREADS``), so they never leak into later tests or the subprocesses they start."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)


def pytest_collection_modifyitems(session, config, items):
    """Run tests/test_workflow.py first: its quick build of every paper is the longest job of
    the suite, and the paper modules (tests/test_workflow_<paper>.py) copy it rather than build
    their targets again (``test_workflow.quick_build_copy``), as do the dry runs of
    tests/test_workflow_changes.py. With pytest-xdist (``--dist loadfile``) the first file goes
    to the first worker while the others take the rest; the build's copies then run on whichever
    worker is free, so the build's own file keeps only the tests that need its history."""
    items.sort(key=lambda item: item.path.name != "test_workflow.py")  # stable
