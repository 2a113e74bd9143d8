"""Paper 001 (QMI): a real Snakemake run of the quick targets (config/quick.yaml).

One run in a temporary copy of the repository (Iris and Wine with NCC and the linear SVM, 3
folds; Yale with NCC; the Swiss roll figure), then checks of the outputs and of what Snakemake
would do next: nothing; after an edit of the table module, the tables but no sweep.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_workflow import (
    MIRROR,
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
RAW = ("Yale_32x32.mat", "uci/keel/iris.dat")
TARGETS = [
    f"{FIGURES}/qmi/qmi_benchmarks_ncc.md",
    f"{FIGURES}/qmi/qmi_benchmarks_linear_svm.md",
    f"{FIGURES}/qmi/qmi_benchmarks_datasets.md",
    f"{FIGURES}/qmi/qmi_faces_datasets.md",
    f"{FIGURES}/qmi/qmi_verdicts.md",
    f"{FIGURES}/qmi/qmi_faces_ncc.md",
    f"{FIGURES}/qmi/qmi_faces_curves.pdf",
    f"{FIGURES}/qmi/qmi_swiss_roll_kernel.pdf",
]
METHODS = ["KQMI", "GDA", "CKFD", "KLPP", "KPCA", "LQMI", "LDA", "PCA", "LPP"]


@pytest.fixture(scope="module")
def run(request, tmp_path_factory):
    missing = [f for f in RAW if not (MIRROR / f).is_file()]
    if missing:
        pytest.skip(f"no offline data mirror with {missing} ({MIRROR})")
    base = tmp_path_factory.mktemp("graphdr_qmi")
    repo = base / "repo"  # the whole quick build, or a checkout that builds our targets
    if not quick_build_copy(request, tmp_path_factory, repo):
        copy_checkout(repo)
    for f in RAW:
        (base / "mirror" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(MIRROR / f, base / "mirror" / f)
    env = clean_env(GRAPHDR_DATA_MIRROR=base / "mirror", GRAPHDR_DATA_HOME=base / "home")
    out = snakemake(repo, *TARGETS, env=env).stdout
    return {"repo": repo, "env": env, "log": out}


def test_quick_targets_and_their_outputs(run):
    out = run["repo"] / FIGURES / "qmi"
    table = pd.read_csv(out / "qmi_benchmarks_ncc.csv")
    assert list(table.columns) == ["dataset", *METHODS]
    assert list(table["dataset"]) == ["Iris", "Wine", "wins (within group; ties by test)"]
    cell = table.loc[0, "KQMI"]  # "error ± std (dim)", dim <= C-1 = 2
    assert " ± " in cell and cell.endswith(("(1)", "(2)"))
    sizes = pd.read_csv(out / "qmi_benchmarks_datasets.csv")
    assert sizes[["n", "d", "C"]].to_numpy().tolist() == [[150, 4, 3], [178, 13, 3]]
    # one kernel EVD + KLPP's eigenproblem per split, 2 repeats of 3 folds
    assert (sizes["decompositions"] == 12).all() and (sizes["splits"] == 6).all()
    verdicts = pd.read_csv(out / "qmi_verdicts.csv", keep_default_na=False)
    primary = verdicts[verdicts["variant"] == "primary"].set_index("claim")["verdict"]
    assert len(primary) == len(pd.read_csv(ROOT / "config/references/qmi_claims.csv"))
    assert primary["C5"] == "not checked"  # 3-NN is not run in the quick config
    faces = pd.read_csv(out / "qmi_faces_datasets.csv")
    assert "JAFFE (not available: user-supplied file only)" in set(faces["dataset"])
    for name in ("qmi_faces_curves.png", "qmi_swiss_roll_kernel.png", "qmi_swiss_roll_linear.png"):
        assert (out / name).stat().st_size > 0
    frame = pd.read_csv(out / "qmi_results.csv", keep_default_na=False)
    visual = frame[frame["study"] == "visualisation"]
    assert set(visual["metric"]) == {"loo_1nn_error"} and visual["split"].nunique() == 10
    assert {"scale_unit_variance"} <= set(frame["variant"])  # a sensitivity study as a variant


def test_nothing_to_redo_and_a_table_edit_reruns_no_sweep(run):
    repo, env = run["repo"], run["env"]
    out = snakemake(repo, "-n", *TARGETS, env=env).stdout
    assert "Nothing to be done" in out
    out = dry_run_after_edit(repo, "graphdr/pipeline/papers/qmi/report.py", *TARGETS, env=env)
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", out, flags=re.MULTILINE))
    assert {"write_qmi_table", "write_qmi_summary", "plot_qmi_curves", "judge_claims"} <= jobs
    assert not {"run_qmi_sweep", "plot_qmi_visualisation"} & jobs  # the report module fits nothing


def test_a_method_edit_reruns_the_fits_not_the_report_code(run):
    """KQMI's module: the sweeps and the visualisations fit it and re-run for it; the table jobs
    re-run only because the sweeps' outputs will change, never for the module itself."""
    repo, env = run["repo"], run["env"]
    out = dry_run_after_edit(repo, "graphdr/methods/qmi.py", *TARGETS, env=env)
    reasons = {}
    for rule, block in re.findall(r"^(?:local)?rule (\w+):\n((?:    .*\n)+)", out, flags=re.M):
        reasons.setdefault(rule, []).append(re.search(r"reason: (.*)", block)[1])
    assert {"run_qmi_sweep", "plot_qmi_visualisation", "write_qmi_table"} <= set(reasons)
    assert all(
        "methods/qmi.py" in r for r in reasons["run_qmi_sweep"] + reasons["plot_qmi_visualisation"]
    )
    for rule in ("write_qmi_table", "write_qmi_summary", "plot_qmi_curves"):
        assert not any("methods/qmi.py" in r for r in reasons.get(rule, [])), reasons[rule]


def test_a_claim_edit_reruns_only_the_ledger_jobs(run):
    repo, env = run["repo"], run["env"]
    path = repo / "config" / "references" / "qmi_claims.csv"
    text = path.read_text()
    path.write_text(text.replace(",comparable,1.0,", ",comparable,2.0,", 1))
    try:
        out = snakemake(repo, "-n", *TARGETS, env=env).stdout
    finally:
        path.write_text(text)
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", out, flags=re.MULTILINE))
    assert jobs == {"judge_claims"}  # the scorecard is not among these targets
