"""Determinism of the whole quick configuration: a from-scratch rebuild (``--forceall``) of the
interrupted-then-resumed quick build of tests/test_workflow.py equals it byte for byte.

The rebuild runs in a copy of that build (published by ``test_workflow.publish_build``), so it
runs beside test_workflow.py's other tests on another pytest-xdist worker; when
tests/test_workflow.py is not part of the session, this module builds the quick run itself first.
"""

from __future__ import annotations

import pytest
from test_workflow import (
    FIGURES,
    IRIS,
    MIRROR,
    clean_env,
    copy_checkout,
    deterministic,
    output_files,
    quick_build_copy,
    snakemake,
    stage,
)

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def rebuild(request, tmp_path_factory):
    if not (MIRROR / IRIS).is_file():
        pytest.skip(f"no offline data mirror with {IRIS} ({MIRROR})")
    base = tmp_path_factory.mktemp("graphdr_rebuild")
    repo = base / "repo"
    env = clean_env(GRAPHDR_DATA_MIRROR=MIRROR, GRAPHDR_DATA_HOME=base / "home")
    if not quick_build_copy(request, tmp_path_factory, repo):
        copy_checkout(repo)
        snakemake(repo, env=env)
    first = {f: (repo / f).read_bytes() for f in deterministic(output_files(repo))}
    snakemake(repo, "--forceall", env=env)
    second = {f: (repo / f).read_bytes() for f in first}
    return first, second


def test_rebuild_is_byte_identical(rebuild):
    """Run it all again from scratch: every output equals the interrupted-then-resumed build."""
    first, second = rebuild
    kinds = {f.suffix if stage(f) == "figures" else stage(f) for f in first}
    # "optimizers": the DEE optimiser runs (their .timing.json files are excluded by name);
    # the paper stages' own results folders; figure records (.json) next to the figures
    stages = {"raw", "prepared", "splits", "fit", "scores", "tables", "optimizers"}
    papers = {"akda", "dee", "ngeu", "qmi"}
    assert kinds == stages | papers | {".csv", ".md", ".tex", ".pdf", ".png", ".json"}
    assert [str(f) for f in first if first[f] != second[f]] == []
    dee = [str(f) for f in first if "dee_optimizers" in str(f)]
    assert f"{FIGURES}/dee/dee_optimizers_iterations.csv" in dee and all(
        "timing" not in f for f in dee
    )
