"""Real Snakemake runs of the quick configuration, in a temporary copy of the repository.

One module-scoped build (the demo target) is shared by the tests, which then ask Snakemake what
it would do next (`snakemake -n`) after touching code or config, run a script by hand, and
finally rebuild everything to compare bytes. Tests run in file order; the last one rebuilds.
"""

from __future__ import annotations

import json
import os
import re
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
TABLE = Path("paper_figures/demo/demo_accuracy")
FIGURE = Path("paper_figures/demo/demo_projection")
MIRROR = ROOT.parent / "shared" / "datasets"


def snakemake(repo: Path, *args: str, env: dict | None = None, check: bool = True):
    """Run Snakemake in ``repo``; returns the completed process (stdout and stderr merged)."""
    proc = subprocess.run(
        [SNAKEMAKE, "--cores", "2", "--scheduler", "greedy", *args],
        cwd=repo,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-5000:]}")
    return proc


def planned(repo: Path, *args: str, env: dict | None = None) -> dict[str, int]:
    """Jobs a dry run would execute, by rule (``{}`` when nothing is to be done)."""
    out = snakemake(repo, "-n", *QUICK, *args, env=env).stdout
    if "Nothing to be done" in out:
        return {}
    table = out.split("Job stats:", 1)[1]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", table, flags=re.MULTILINE))
    counts.pop("total")
    return {rule: int(n) for rule, n in counts.items() if rule != "all"}


def outputs(repo: Path) -> dict[str, bytes]:
    files = [TABLE.with_suffix(s) for s in (".csv", ".md", ".tex")]
    files += [FIGURE.with_suffix(s) for s in (".pdf", ".png")]
    files += sorted(p.relative_to(repo) for p in (repo / "results" / "scores").rglob("*.csv"))
    files.append(Path("results/tables/demo/demo_accuracy.csv"))
    return {str(f): (repo / f).read_bytes() for f in files}


def _ignore(directory, names):
    skip = {"__pycache__", ".pytest_cache", "results", "logs", ".snakemake", "paper_figures"}
    return [n for n in names if n in skip or n.endswith(".egg-info")]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of the workflow and package, with the quick demo built once."""
    dest = tmp_path_factory.mktemp("graphdr") / "repo"
    dest.mkdir()
    for item in ("Snakefile", "workflow", "config", "envs", "profiles", "src"):
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, dest / item, ignore=_ignore)
        elif source.exists():
            shutil.copy2(source, dest / item)
    snakemake(dest, *QUICK)
    return dest


def overlay(repo: Path, name: str, text: str) -> list[str]:
    (repo / "config" / name).write_text(text)
    return ["--configfile", "config/quick.yaml", f"config/{name}"]


# ------------------------------------------------------------------------------------------


def test_demo_table_and_figure_are_built(repo):
    long = pd.read_csv(repo / "results/tables/demo/demo_accuracy.csv")
    assert len(long) == 2 * 3 and set(long["n"]) == {1}  # quick: one seed
    assert long["value"].between(50, 100).all(), long
    lda_wine = long[(long["dataset"] == "wine") & (long["method"] == "LDA_GE")]["value"].item()
    assert lda_wine > 85  # wine is nearly separable by LDA
    shown = pd.read_csv(repo / TABLE.with_suffix(".csv"))
    assert list(shown.columns) == ["method", "Digits", "Wine"]
    assert list(shown["method"]) == ["PCA-GE", "LDA-GE", "KDA-GE"]
    assert "| PCA-GE |" in (repo / TABLE.with_suffix(".md")).read_text()
    assert r"\toprule" in (repo / TABLE.with_suffix(".tex")).read_text()
    assert (repo / FIGURE.with_suffix(".pdf")).read_bytes().startswith(b"%PDF")
    assert (repo / FIGURE.with_suffix(".png")).read_bytes().startswith(b"\x89PNG")


def test_second_run_does_nothing(repo):
    assert planned(repo) == {}


def test_jobs_log_their_thread_limits(repo):
    config = yaml.safe_load((repo / "config/config.yaml").read_text())
    fit_threads = config["resources"]["fit_embed"]["threads"]
    fit_log = (repo / "logs/fit_embed/demo/wine/KDA_GE/seed0_fold0.log").read_text()
    limits = eval(re.search(r"threads: (\{.*\})", fit_log).group(1))  # noqa: S307 (own log)
    assert limits["numba"] == fit_threads and limits.get("openblas", fit_threads) == fit_threads
    prep_log = (repo / "logs/prepare_dataset/wine.log").read_text()
    assert set(eval(re.search(r"threads: (\{.*\})", prep_log).group(1)).values()) == {1}  # noqa: S307
    assert "NUMBA_CACHE_DIR: " in fit_log
    # jobs run the package of this checkout (the copy), not the installed one
    assert f"graphdr imported from {repo / 'src' / 'graphdr'}" in fit_log


def test_target_builds_only_its_ancestors(repo):
    jobs = planned(repo, "--forceall", str(FIGURE.with_suffix(".png")))
    assert jobs == {"prepare_dataset": 2, "make_splits": 2, "fit_embed": 6, "plot_projection": 1}


def _edit(path: Path) -> tuple[str, int, int]:
    """Append a comment (a content change: Snakemake compares checksums of small inputs)."""
    stat, text = path.stat(), path.read_text()
    path.write_text(text + "# edited by test_workflow\n")
    return text, stat.st_atime_ns, stat.st_mtime_ns


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("graphdr/reporting.py", {"collect_table": 1, "plot_projection": 1}),
        ("graphdr/pipeline/evaluate.py", {"evaluate_embedding": 6, "collect_table": 1}),
        (
            "graphdr/methods/graph_embedding.py",
            {"fit_embed": 6, "evaluate_embedding": 6, "collect_table": 1, "plot_projection": 1},
        ),
    ],
)
def test_code_change_reruns_exactly_downstream_jobs(repo, module, expected):
    path = repo / "src" / module
    text, *times = _edit(path)
    try:
        assert planned(repo) == expected
    finally:
        path.write_text(text)
        os.utime(path, ns=tuple(times))
    assert planned(repo) == {}


def test_adding_a_method_touches_config_only(repo):
    args = overlay(
        repo,
        "more.yaml",
        "experiments:\n  demo:\n    methods:\n      MFA_GE: {estimator: MFA_GE, label: MFA-GE}\n",
    )
    # the new method's fits and scores, and the table that now has one more row
    assert planned(repo, *args[2:]) == {"fit_embed": 2, "evaluate_embedding": 2, "collect_table": 1}
    # a new display label re-runs the table only; a changed parameter that method only
    args = overlay(
        repo, "label.yaml", "experiments:\n  demo:\n    methods:\n      LDA_GE: {label: LDA}\n"
    )
    assert planned(repo, *args[2:]) == {"collect_table": 1, "plot_projection": 1}
    args = overlay(
        repo,
        "param.yaml",
        "experiments:\n  demo:\n    methods:\n      KDA_GE: {params: {kernel: rbf, gamma: 0.05}}\n",
    )
    expected = {"fit_embed": 2, "evaluate_embedding": 2, "collect_table": 1, "plot_projection": 1}
    assert planned(repo, *args[2:]) == expected


def test_invalid_config_fails_before_any_rule(repo):
    args = overlay(repo, "typo.yaml", "experiments:\n  demo:\n    seedz: [1]\n")
    proc = snakemake(repo, "-n", *args, check=False)
    assert proc.returncode != 0 and "seedz" in proc.stdout
    args = overlay(
        repo, "badref.yaml", "experiments:\n  demo:\n    tables:\n      x: {classifier: svm}\n"
    )
    proc = snakemake(repo, "-n", *args, check=False)
    assert proc.returncode != 0 and "classifier 'svm' is not one of" in proc.stdout


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no offline data mirror on this machine")
def test_raw_dataset_is_retrieved_then_prepared(repo):
    args = overlay(repo, "iris.yaml", "datasets:\n  keel_iris: {source: iris}\n")
    env = {"GRAPHDR_DATA_MIRROR": str(MIRROR)}
    snakemake(repo, "results/prepared/keel_iris.npz", *args, env=env)
    manifest = json.loads((repo / "results/raw/keel_iris.json").read_text())
    assert list(manifest["files"]) == ["uci/keel/iris.dat"]
    assert len(manifest["files"]["uci/keel/iris.dat"]) == 64  # a sha256
    assert (repo / "results/prepared/keel_iris.npz").stat().st_size > 1000


def test_script_runs_by_hand_with_unwritable_numba_cache(repo):
    """`python workflow/scripts/fit_embed.py` rebuilds its example job; same bytes as Snakemake."""
    target = repo / "results/fit/demo/wine/LDA_GE/seed0_fold0.npz"
    before = target.read_bytes()
    env = {**os.environ, "NUMBA_CACHE_DIR": "/dev/null/numba-cache"}  # cannot be created
    proc = subprocess.run(
        [sys.executable, "workflow/scripts/fit_embed.py"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert target.read_bytes() == before


def test_rebuild_is_byte_identical(repo):
    first = outputs(repo)
    snakemake(repo, *QUICK, "--forceall")
    second = outputs(repo)
    assert first.keys() == second.keys()
    changed = [name for name in first if first[name] != second[name]]
    assert changed == []
