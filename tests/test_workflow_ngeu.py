"""Paper 004 (NGEU) workflow: the quick Table II and Figure 3 targets run end to end in a copy
of the checkout, their outputs are complete and a second run has nothing to do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
QUICK = ["--configfile", "config/quick.yaml"]
FIGURES = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())["output"]["figures"]
MIRROR = Path(os.environ.get("GRAPHDR_DATA_MIRROR") or ROOT.parent / "shared" / "datasets")
RAW = ("mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz")  # AWGN-MNIST
TARGETS = [f"{FIGURES}/ngeu/table2.csv", f"{FIGURES}/ngeu/figure3_toy.png"]


def _run(repo, *args, env):
    proc = subprocess.run(
        [SNAKEMAKE, "--cores", "2", *args, *QUICK],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-5000:]
    return proc.stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    if not all((MIRROR / raw).is_file() for raw in RAW):
        pytest.skip(f"no offline data mirror with {RAW} ({MIRROR})")
    base = tmp_path_factory.mktemp("ngeu")
    repo = base / "repo"
    repo.mkdir()
    skip = shutil.ignore_patterns("__pycache__", ".snakemake", "results", "logs", "paper_figures")
    for item in ("Snakefile", "workflow", "config", "envs", "src"):
        if (ROOT / item).is_dir():
            shutil.copytree(ROOT / item, repo / item, ignore=skip)
        else:
            shutil.copy2(ROOT / item, repo / item)
    mirror = base / "mirror"
    for raw in RAW:
        (mirror / raw).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(MIRROR / raw, mirror / raw)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHDR_")}
    env |= {"GRAPHDR_DATA_MIRROR": str(mirror), "GRAPHDR_DATA_HOME": str(base / "home")}
    first = _run(repo, *TARGETS, env=env)
    second = _run(repo, "-n", *TARGETS, env=env)
    return {"repo": repo, "first": first, "second": second}


def test_quick_table2_and_figure3_are_complete(repo):
    figures = repo["repo"] / FIGURES / "ngeu"
    for stem in ("table2", "table2_selected", "table2_grid"):
        for ext in ("csv", "md", "tex"):
            assert (figures / f"{stem}.{ext}").stat().st_size > 0
    table = pd.read_csv(figures / "table2.csv")
    rows = set(table["method"])
    assert {"KDA-NGEU-N + k-NN", "KMFA-GE + k-NN", "SVM"} <= rows
    # other groups' methods stay in the table, marked
    assert (
        table.set_index("method")
        .loc["RSLDA + k-NN", "AWGN-MNIST ours"]
        .startswith("not reproduced")
    )
    grid = pd.read_csv(figures / "table2_grid.csv").set_index("method")
    # one fit per model-changing grid point, per fold: never one per dimension
    assert (grid["fits"] <= grid["grid_cells"]).all()
    assert grid.loc["KDA-GE + k-NN", "fits"] < grid.loc["KDA-GE + k-NN", "grid_cells"]
    assert (figures / "figure3_toy.png").stat().st_size > 0
    assert (repo["repo"] / "results/quick/ngeu/uncertainty/awgn.npz").is_file()


def test_second_run_has_nothing_to_do(repo):
    assert "Nothing to be done" in repo["second"]
