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
