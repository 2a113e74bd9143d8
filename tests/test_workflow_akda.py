"""Paper 002 (AKDA): a real Snakemake run of the quick MAP / speed-up / toy targets.

One run in a temporary copy of the repository (config/quick.yaml: a tiny DeCAF stand-in, four
methods, both conditions, two draws), then checks of the outputs and of what Snakemake would do next
(nothing; and only the kernel methods' group runs after an edit of the subclass module).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_workflow import (
    clean_env,
    copy_checkout,
    dry_run_after_edit,
    quick_build_copy,
    snakemake,
)

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
QUICK = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
FIGURES = QUICK["output"]["figures"]
RESULTS = QUICK["output"]["results"]
TARGETS = [
    f"{FIGURES}/akda/akda_map_100Ex.csv",
    f"{FIGURES}/akda/akda_toy_projection.png",
]


@pytest.fixture(scope="module")
def run(request, tmp_path_factory):
    base = tmp_path_factory.mktemp("graphdr_akda")
    repo = base / "repo"  # the whole quick build, or a checkout that builds our targets
    if not quick_build_copy(request, tmp_path_factory, repo):
        copy_checkout(repo)
    env = clean_env(GRAPHDR_DATA_HOME=base / "home")  # generated data: no mirror needed
    out = snakemake(repo, *TARGETS, env=env).stdout
    return {"repo": repo, "env": env, "log": out}


def test_quick_targets_and_their_outputs(run):
    repo = run["repo"]
    methods = QUICK["papers"]["akda"]["methods"]
    for cond in ("10Ex", "100Ex"):
        table = pd.read_csv(repo / FIGURES / "akda" / f"akda_map_{cond}.csv", dtype=str)
        assert table["dataset"].tolist()[-2:] == ["paper average", "Δ (first average - paper)"]
        labels = {"KDA_K2": "KDA (K^2+reg, C-1 vectors)"}
        assert list(table.columns) == ["dataset", *[labels.get(m, m) for m in methods], "notes"]
        assert table.loc[table["dataset"] == "paper average", "KDA"].tolist() == [
            "58.87" if cond == "10Ex" else "69.28"
        ]
        # two draws: mean ± std in every cell of the dataset row
        assert all(" ± " in v for v in table.iloc[0][1:-1])
        speed = pd.read_csv(repo / FIGURES / "akda" / f"akda_speedup_timing_{cond}.csv", dtype=str)
        assert speed.loc[0, "KDA"].startswith("1.00 / 1.00 | ")
    selected = pd.read_csv(repo / FIGURES / "akda" / "akda_map_selected.csv", dtype=str)
    assert len(selected) == 2 * len(methods) and set(selected["draws"]) == {"2"}
    assert {"reg", "edge", "MAP (reg=0.001)"} <= set(selected.columns)
    frame = pd.read_csv(repo / FIGURES / "akda" / "akda_results.csv", dtype=str)
    assert set(frame["variant"]) == {"primary", "reg=0.001", "samples=held_out", "samples=train"}
    assert set(frame.loc[frame["study"] == "equivalence", "dataset"]) == {"akda_quick/10Ex"}
    toy = frame[frame["study"] == "toy_separation"]
    assert sorted(zip(toy["variant"], toy["method"], strict=True)) == [
        ("primary", "AKDA"),
        ("primary", "input_2d"),
        ("samples=held_out", "AKDA"),
        ("samples=held_out", "input_2d"),
    ]
    for name in ("akda_toy_scatter.pdf", "akda_toy_projection.png", "akda_results.csv"):
        assert (repo / FIGURES / "akda" / name).stat().st_size > 0


def test_nothing_to_redo_and_an_edit_reruns_only_its_jobs(run):
    repo, env = run["repo"], run["env"]
    out = snakemake(repo, "-n", *TARGETS, env=env).stdout
    assert "Nothing to be done" in out
    out = dry_run_after_edit(repo, "graphdr/methods/subclass.py", *TARGETS, env=env)
    runs = f"{RESULTS}/akda/runs/akda_quick"
    # jobs to run print "output: <their files>" (the tables job lists every run as its input);
    # the kernel methods of a condition share one job (rule run_akda_group), the others do not
    assert (
        f"output: {runs}/100Ex/KDA.json, {runs}/100Ex/KDA_K2.json, {runs}/100Ex/AKSDA.json" in out
    )
    assert f"output: {runs}/100Ex/PCA.json" not in out
