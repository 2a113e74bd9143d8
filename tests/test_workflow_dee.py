"""Paper 003 (DEE): a real Snakemake run of the quick recognition and visualisation targets.

One run in a temporary copy of the repository (config/quick.yaml: Yale, two seeds, three
dimensions; Figure 11's report and Figure 9's panels), then checks of the outputs and of what
Snakemake would do next (nothing; and only the DEE jobs after an edit of the DEE module).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_workflow import (
    MIRROR,
    clean_env,
    copy_checkout,
    planned_after_edit,
    quick_build_copy,
    snakemake,
)

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
QUICK = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
FIGURES = QUICK["output"]["figures"]
RESULTS = QUICK["output"]["results"]
RAW = "Yale_32x32.mat"  # the quick DEE comparisons use Yale only
TARGETS = [
    f"{FIGURES}/dee/dee_recognition_best.csv",
    f"{FIGURES}/dee/dee_visualisation_separation.csv",
    f"{FIGURES}/dee/dee_visualisation_yale.png",
]


@pytest.fixture(scope="module")
def run(request, tmp_path_factory):
    if not (MIRROR / RAW).is_file():
        pytest.skip(f"no offline data mirror with {RAW} ({MIRROR})")
    base = tmp_path_factory.mktemp("graphdr_dee")
    repo = base / "repo"  # the whole quick build, or a checkout that builds our targets
    if not quick_build_copy(request, tmp_path_factory, repo):
        copy_checkout(repo)
    (base / "mirror").mkdir()
    shutil.copy2(MIRROR / RAW, base / "mirror" / RAW)
    env = clean_env(GRAPHDR_DATA_MIRROR=base / "mirror", GRAPHDR_DATA_HOME=base / "home")
    out = snakemake(repo, *TARGETS, env=env).stdout
    return {"repo": repo, "env": env, "log": out}


def test_quick_targets_and_their_outputs(run):
    repo = run["repo"]
    best = pd.read_csv(repo / FIGURES / "dee" / "dee_recognition_best.csv")
    methods = QUICK["papers"]["dee"]["recognition"]["methods"]  # the quick overlay's keys
    assert [m for m in best["method"].fillna("") if m][:1] == ["DEE"]
    assert len([m for m in best["method"].fillna("") if m]) >= len(methods)
    assert {"DSNE", "DCV", "MMPA"} <= set(best["method"])
    curves = pd.read_csv(repo / FIGURES / "dee" / "dee_recognition_curves.csv")
    grid = QUICK["papers"]["dee"]["recognition"]["dimensions"]
    raw = curves["method"].str.startswith("Raw 1-NN")
    assert set(curves.loc[raw, "dim"]) == {1024}  # the raw baseline: one point, every pixel
    assert set(curves.loc[~raw, "dim"]) <= set(grid) | {14}  # DCV may end at C-1 = 14
    assert (curves["n_seeds"] == len(QUICK["papers"]["dee"]["recognition"]["seeds"])).all()
    for name in ("dee_recognition.pdf", "dee_recognition_best.md", "dee_visualisation_yale.pdf"):
        assert (repo / FIGURES / "dee" / name).stat().st_size > 0
    # one recognition job per method and one embedding job per method
    for method in ("DEE", "DSNE", "DCV", "MMPA", "RAW"):
        assert (repo / RESULTS / "dee" / "recognition" / "yale" / f"{method}.csv").is_file()
    # the cross-validated methods record their choice per replication
    for method in ("DEE", "DSNE", "MMPA"):
        run = pd.read_csv(repo / RESULTS / "dee" / "recognition" / "yale" / f"{method}.csv")
        assert run["cv_choice"].notna().all() and run["cv_value"].notna().all()
    for method in ("DEE", "DSNE", "EE", "tsne"):
        assert (repo / RESULTS / "dee" / "visualisation" / "yale" / f"{method}.npz").is_file()


def test_nothing_to_redo_and_an_edit_reruns_only_its_jobs(run):
    repo, env = run["repo"], run["env"]
    out = snakemake(repo, "-n", *TARGETS, env=env).stdout
    assert "Nothing to be done" in out
    # editing the DSNE/DEE module re-runs their fits (and the reports), not DCV's or t-SNE's
    outputs = planned_after_edit(repo, "graphdr/methods/elastic.py", *TARGETS, env=env)
    assert f"{RESULTS}/dee/recognition/yale/DEE.csv" in outputs
    assert f"{RESULTS}/dee/visualisation/yale/EE.npz" in outputs
    assert f"{RESULTS}/dee/recognition/yale/DCV.csv" not in outputs
    assert f"{RESULTS}/dee/visualisation/yale/tsne.npz" not in outputs
