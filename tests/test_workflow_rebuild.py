"""Determinism of every rule of the quick configuration: one job of each rule, run again
(``--force`` on one of its outputs) in the interrupted-then-resumed quick build of
tests/test_workflow.py, rewrites its outputs byte for byte. Every job reads the build's own
inputs, so a rule that is deterministic on them is deterministic in a from-scratch run; one job
per rule (about 40 of the 120) keeps the test at a third of a ``--forceall`` rebuild's CPU.

The rebuild runs in a copy of that build (published by ``test_workflow.publish_build``), so it
runs beside test_workflow.py's other tests on another pytest-xdist worker; when
tests/test_workflow.py is not part of the session, this module builds the quick run itself first.
"""

from __future__ import annotations

import re

import pytest
from test_workflow import (
    FIGURES,
    built_checkout,
    deterministic,
    output_files,
    snakemake,
    stage,
)

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def rebuild(request, tmp_path_factory):
    repo, env = built_checkout(request, tmp_path_factory, "graphdr_rebuild")
    first = {f: (repo / f).read_bytes() for f in deterministic(output_files(repo))}
    targets = one_output_per_rule(repo, env)
    out = snakemake(repo, "--force", *targets.values(), env=env).stdout
    second = {f: (repo / f).read_bytes() for f in first}
    return first, second, targets, out


def one_output_per_rule(repo, env) -> dict[str, str]:
    """``{rule: one of its outputs}`` for every rule of the quick run (``snakemake --summary``;
    the first output in sorted order): forcing these targets reruns one job of each rule."""
    by_rule: dict[str, list[str]] = {}
    for line in snakemake(repo, "--summary", env=env).stdout.splitlines():
        cols = line.split("\t")
        if len(cols) == 6 and cols[0] != "output_file":
            by_rule.setdefault(cols[2], []).append(cols[0])
    return {rule: min(files) for rule, files in sorted(by_rule.items())}


def test_rebuild_is_byte_identical(rebuild):
    """Run one job of every rule again: every output equals the interrupted-then-resumed build."""
    first, second, targets, out = rebuild
    heavy = {
        "run_akda_group",
        "select_ngeu_models",
        "run_dee_optimizer",
        "run_qmi_sweep",
        "run_dee_recognition",
    }
    assert heavy <= set(targets) and len(targets) >= 30, sorted(targets)
    # forced jobs make their consumers among the targets out of date: those rerun too
    ran = set(re.findall(r"^\s*(?:local)?rule (\w+):$", out, flags=re.M))
    assert set(targets) <= ran and "steps (100%) done" in out, sorted(set(targets) - ran)
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
