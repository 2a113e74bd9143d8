"""Real Snakemake runs of the quick configuration, in a temporary copy of the repository.

One module-scoped build is shared by every test, and the build itself exercises three behaviours
(recorded, then asserted by the tests below):

1. it first asks for the projection figure alone, so only that figure's ancestors run;
2. it then starts the rest of the quick run and SIGKILLs the Snakemake process group while jobs
   are running (no clean-up at all: stale lock, incomplete markers);
3. it recovers as docs/workflow.md says (``--unlock``, then ``--rerun-incomplete``).

Tests then ask Snakemake what it would do next (``snakemake -n``, job by job) after editing code,
config or data, run a few small targets and build the report. The recovered build is published
for the other workflow modules (:func:`publish_build`): tests/test_workflow_rebuild.py reruns one
job of every rule in a copy of it and compares every output byte for byte, the paper modules
check their targets in copies of it. Raw files come
from a copy of the offline mirror in a temporary directory, so tests can damage or replace them.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
QUICK = ["--configfile", "config/quick.yaml"]


def _roots(name: str) -> dict[str, str]:
    return yaml.safe_load((ROOT / "config" / name).read_text())["output"]


# Output roots (config `output:`): the quick run writes under its own; the full ones stay untouched.
FULL_ROOTS = _roots("config.yaml")
RESULTS, FIGURES, LOGS = (_roots("quick.yaml")[k] for k in ("results", "figures", "logs"))
TABLE = Path(FIGURES, "demo/demo_accuracy")
FIGURE = Path(FIGURES, "demo/demo_projection")
MIRROR = Path(os.environ.get("GRAPHDR_DATA_MIRROR") or ROOT.parent / "shared" / "datasets")
IRIS = "uci/keel/iris.dat"  # the demo's raw-file dataset (KEEL Iris)
DEE_DATASETS = ("yale", "usps60")
DEE_OPTIMIZERS = ("ld", "fp", "cg", "gd")
DATASETS = ("digits", "wine", "iris")
METHODS = ("PCA_GE", "LDA_GE", "KDA_GE")
FIGURE_DATASETS = ("digits", "wine")  # config: figures.demo_projection.datasets
TIMEOUT = 1800  # one whole quick build; about 2 min idle, 10+ min on a loaded 2-core machine


# ------------------------------------------------------------------------------------------
# running Snakemake and reading what it did
# ------------------------------------------------------------------------------------------


def snakemake(repo: Path, *args: str, env: dict, configs=(), check: bool = True):
    """Run Snakemake on the quick config (+ overlays ``configs``) in ``repo``.

    Returns the completed process (stdout and stderr merged). Targets go in ``args``: they must
    come before ``--configfile``, which takes every word after it.
    """
    proc = subprocess.run(
        [SNAKEMAKE, "--cores", "2", "--scheduler", "greedy", *args, *QUICK, *configs],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-5000:]}")
    return proc


_JOB = re.compile(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    output: ([^,\n]+)", re.MULTILINE)


# Jobs of the paper-specific stages (papers 001, 002, 004, the uncertainty stage, and paper
# 003's recognition and visualisation outputs) have their own tests/test_workflow_<paper>.py; the
# exact job sets asserted here cover the demo, the DEE optimiser study and the shared dataset
# stages. (A dry run with nothing to do is still checked whole: see planned().)
_PAPER_STAGE = re.compile(
    rf"^(?:{re.escape(RESULTS)}/(?:ngeu|akda|qmi|dee|uncertainty)/"
    rf"|{re.escape(FIGURES)}/(?:ngeu|akda|qmi)/"
    rf"|{re.escape(FIGURES)}/dee/(?!dee_optimizers))"
)


def jobs_in(log: str) -> set[str]:
    """Jobs a Snakemake log announces (run or dry run), each named by its first output file.

    Paper-stage jobs (``_PAPER_STAGE``) are left out.
    """
    return {
        output
        for rule, output in _JOB.findall(log)
        if rule != "all" and not _PAPER_STAGE.match(output)
    }


# The claims ledger's jobs (results frames, verdicts, scorecard) are downstream of every paper
# stage by design; the exact-job-set tests below compare the stages they name, and
# tests/test_workflow_qmi.py checks that a claim edit re-runs the ledger's jobs only.
LEDGER_OUTPUT = re.compile(r"(_results\.csv|_verdicts\.csv|CLAIMS\.csv)$")


def planned(repo: Path, *targets: str, env: dict, configs=()) -> set[str]:
    """Jobs a dry run of the quick config would execute (empty when nothing is to be done),
    the claims ledger's jobs aside."""
    out = snakemake(repo, "-n", *targets, env=env, configs=configs).stdout
    jobs = jobs_in(out)
    if not jobs:  # nothing in scope: then Snakemake must have nothing at all to do
        assert "Nothing to be done" in out, out[-3000:]
    return {j for j in jobs if not LEDGER_OUTPUT.search(j)}


def add_code(text: str) -> str:
    """A change of code (a statement): the module's code stamp changes, as a comment or a
    docstring would not change it (graphdr.pipeline.codedeps.semantic_digest)."""
    return text + "\n_EDITED_BY_A_TEST = 1\n"


@contextlib.contextmanager
def edited(path: Path, change=add_code):
    """``path`` with its text replaced by ``change(text)`` for the block, then restored with its
    times."""
    stat, text = path.stat(), path.read_text()
    path.write_text(change(text))
    try:
        yield path
    finally:
        path.write_text(text)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def dry_run_after_edit(repo: Path, module: str, *targets: str, env: dict, change=add_code) -> str:
    """The output of a dry run of ``targets`` while ``src/<module>`` carries ``change``
    (:func:`edited`); the module is restored afterwards."""
    with edited(repo / "src" / module, change):
        return snakemake(repo, "-n", *targets, env=env).stdout


def planned_after_edit(repo: Path, module: str, *targets: str, env: dict, change=add_code):
    """First outputs of the jobs :func:`dry_run_after_edit` plans."""
    out = dry_run_after_edit(repo, module, *targets, env=env, change=change)
    return set(re.findall(r"^    output: ([^,\n]+)", out, re.MULTILINE))


# first output of each rule's job, so that expected job sets read like the DAG
def retrieve(d):
    return f"{RESULTS}/raw/{d}.json"


def prepare(d):
    return f"{RESULTS}/prepared/{d}.npz"


def split(d, experiment="demo", seed=0):
    return f"{RESULTS}/splits/{experiment}/{d}/seed{seed}.npz"


def fit(d, m, experiment="demo", seed=0):
    return f"{RESULTS}/fit/{experiment}/{d}/{m}/seed{seed}_fold0.pkl"


def score(d, m, experiment="demo", seed=0):
    return f"{RESULTS}/scores/{experiment}/{d}/{m}/seed{seed}_fold0.csv"


def fits(datasets=DATASETS, methods=METHODS, **kw) -> set[str]:
    return {fit(d, m, **kw) for d in datasets for m in methods}


def scores(datasets=DATASETS, methods=METHODS, **kw) -> set[str]:
    return {score(d, m, **kw) for d in datasets for m in methods}


TABLE_JOB = str(TABLE.with_suffix(".csv"))
FIGURE_JOB = str(FIGURE.with_suffix(".pdf"))


def read_back(path: Path):
    """Load an output the way its reader does; raises on a truncated or damaged file."""
    suffix = path.suffix
    if suffix == ".npz":
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    if suffix in (".csv", ".tsv"):
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
    if suffix == ".json":
        return json.loads(path.read_text())
    if suffix == ".pkl":
        with open(path, "rb") as fh:
            return pickle.load(fh)  # noqa: S301 (this workflow's own file)
    if suffix in (".md", ".tex"):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n"), path
        return text
    magic = {".pdf": b"%PDF", ".png": b"\x89PNG"}[suffix]
    data = path.read_bytes()
    assert data.startswith(magic) and (suffix != ".pdf" or data.rstrip().endswith(b"%%EOF")), path
    return data


#: the code stamps (workflow/rules/common.smk, ``code``): inputs the workflow writes when it
#: parses, not outputs of a job
CODE_STAMPS = Path(RESULTS) / "code"


def output_files(repo: Path) -> list[Path]:
    """Every output of the quick run (under its results and figures roots, the code stamps
    aside), relative to ``repo``."""
    files = {p for d in (RESULTS, FIGURES) for p in (repo / d).rglob("*") if p.is_file()}
    return sorted(
        f for f in (p.relative_to(repo) for p in files) if not f.is_relative_to(CODE_STAMPS)
    )


def stage(f: Path) -> str:
    """What an output is: "figures" under the figures root, else its results folder (fit, ...)."""
    if f.is_relative_to(FIGURES):
        return "figures"
    return f.relative_to(RESULTS).parts[0]


def outside_quick_roots(repo: Path) -> list[str]:
    """Files under the full configuration's roots that are not under the quick ones."""
    quick = [Path(r) for r in (RESULTS, FIGURES, LOGS)]
    return sorted(
        str(p.relative_to(repo))
        for root in FULL_ROOTS.values()
        for p in (repo / root).rglob("*")
        if p.is_file() and not any(p.relative_to(repo).is_relative_to(q) for q in quick)
    )


def deterministic(files: list[Path]) -> list[Path]:
    """Outputs that must be byte-identical run to run.

    Not the timings: Snakemake benchmarks, fit info files, by convention every output whose
    file name contains "timing" (graphdr.pipeline.papers.dee.optimisers.TIMING_MARK), and the claims
    ledger's verdicts and scorecard, whose rate claims quote measured times (docs/claims.md).
    """
    return [
        f
        for f in files
        if stage(f) != "benchmarks"
        and not (stage(f) == "fit" and f.suffix == ".json")
        and "timing" not in f.name
        and "_verdicts." not in f.name
        and not f.name.startswith("CLAIMS.")
    ]


# ------------------------------------------------------------------------------------------
# the shared build
# ------------------------------------------------------------------------------------------


def _ignore(directory, names):
    skip = {"__pycache__", ".pytest_cache", "results", "logs", ".snakemake", "paper_figures"}
    return [n for n in names if n in skip or n.endswith(".egg-info")]


def copy_checkout(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for item in ("Snakefile", "workflow", "config", "envs", "profiles", "src"):
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, dest / item, ignore=_ignore)
        elif source.exists():
            shutil.copy2(source, dest / item)
    return dest


#: where the module-scoped quick build of this file is published, under the session's root
#: temporary directory (shared by pytest-xdist workers): the paper modules' tests copy it instead
#: of building their paper's quick targets a second time (see :func:`quick_build_copy`)
SNAPSHOT = "quick-build-snapshot"
UNAVAILABLE = "quick-build-unavailable"


def session_root(tmp_path_factory) -> Path:
    """The temporary directory every worker of this pytest session shares."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def publish_build(tmp_path_factory, repo: Path | None, why: str = "") -> None:
    """Publish a copy of the built ``repo`` (``cp -a``: mtimes and Snakemake's metadata kept),
    or, with ``repo=None``, say that no build will come (``why``). Atomic: a rename."""
    root = session_root(tmp_path_factory)
    if repo is None:
        (root / f"{UNAVAILABLE}.tmp{os.getpid()}").write_text(why)
        (root / f"{UNAVAILABLE}.tmp{os.getpid()}").rename(root / UNAVAILABLE)
        return
    staging = root / f"{SNAPSHOT}.tmp{os.getpid()}"
    staging.mkdir()
    subprocess.run(["cp", "-a", str(repo), str(staging / "repo")], check=True)
    try:
        staging.rename(root / SNAPSHOT)
    except OSError:  # another worker built and published first (xdist without loadfile)
        shutil.rmtree(staging)


def quick_build_copy(request, tmp_path_factory, dest: Path) -> bool:
    """Copy this module's whole quick build to ``dest`` when this module's build runs in the
    session (it is ordered first, tests/conftest.py); False when it does not (the caller then
    builds its own targets). Waits for the build when another worker is still running it.

    A copy of the built repository, moved and run with another mirror and data home, has nothing
    to do (the paper modules assert it): Snakemake's metadata holds relative paths only."""
    if not any(item.path.name == Path(__file__).name for item in request.session.items):
        return False
    root = session_root(tmp_path_factory)
    deadline = time.monotonic() + TIMEOUT
    while not (root / SNAPSHOT).is_dir():
        if (root / UNAVAILABLE).exists():
            return False
        if time.monotonic() > deadline:
            pytest.fail(f"no quick build published in {root} after {TIMEOUT} s")
        time.sleep(1.0)
    subprocess.run(["cp", "-a", str(root / SNAPSHOT / "repo"), str(dest)], check=True)
    return True


def built_checkout(request, tmp_path_factory, name: str) -> tuple[Path, dict]:
    """``(repo, env)``: a checkout holding the whole quick build, for a module that tests on a
    built workflow (the change dry runs, the rebuild). A copy of this module's build
    (:func:`quick_build_copy`) when it runs in the session, else built here. Skips without the
    offline data mirror."""
    if not (MIRROR / IRIS).is_file():
        pytest.skip(f"no offline data mirror with {IRIS} ({MIRROR})")
    base = tmp_path_factory.mktemp(name)
    repo = base / "repo"
    env = clean_env(GRAPHDR_DATA_MIRROR=MIRROR, GRAPHDR_DATA_HOME=base / "home")
    if not quick_build_copy(request, tmp_path_factory, repo):
        copy_checkout(repo)
        snakemake(repo, env=env)
    return repo, env


def clean_env(**variables) -> dict:
    """This process's environment without any GRAPHDR_* setting, plus ``variables``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHDR_")}
    return env | {k: str(v) for k, v in variables.items()}


def incomplete_markers(repo: Path) -> set[str]:
    """Outputs Snakemake has marked incomplete (jobs started and not finished)."""
    markers = repo / ".snakemake" / "incomplete"
    if not markers.is_dir():
        return set()
    return {base64.b64decode(p.name).decode() for p in markers.iterdir() if p.is_file()}


def kill_while_running(repo: Path, env: dict, log: Path, prefix: str) -> None:
    """Start the quick run; SIGKILL its whole process group while a job writing ``prefix*`` runs.

    Waits for Snakemake's incomplete marker of such an output (set when the job starts), so the
    kill lands mid-job: a job imports numpy/scikit-learn for more than a second before any work.
    """
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [SNAKEMAKE, "--cores", "2", "--scheduler", "greedy", *QUICK],
            cwd=repo,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the jobs are in it too
        )
    deadline = time.monotonic() + TIMEOUT
    while not any(f.startswith(prefix) for f in incomplete_markers(repo)):
        assert proc.poll() is None, (
            f"the run ended before a {prefix} job:\n{log.read_text()[-3000:]}"
        )
        assert time.monotonic() < deadline, f"no {prefix} job started after {TIMEOUT} s"
        time.sleep(0.02)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for _ in range(100):  # until every job process of the group is gone
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """The quick run of every paper, built in three steps (see the module doc)."""
    if not (MIRROR / IRIS).is_file():
        publish_build(tmp_path_factory, None, "no offline data mirror")
        pytest.skip(f"no offline data mirror with {IRIS} ({MIRROR})")
    try:
        record = _build(tmp_path_factory)
    except BaseException as exc:
        publish_build(tmp_path_factory, None, f"the build failed: {exc!r}")
        raise
    return record


def _build(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("graphdr")
    repo = copy_checkout(base / "repo")
    mirror = base / "mirror"  # a copy (about 20 MB): tests add, replace and damage raw files
    shutil.copytree(MIRROR, mirror)
    env = clean_env(GRAPHDR_DATA_MIRROR=mirror, GRAPHDR_DATA_HOME=base / "home")
    record = {"repo": repo, "env": env, "base": base, "mirror": mirror}

    # 1. one figure: only its ancestors run
    out = snakemake(repo, str(FIGURE.with_suffix(".png")), env=env).stdout
    record["figure_jobs"] = jobs_in(out)
    record["after_figure"] = output_files(repo)

    # 2. the rest, killed while evaluation jobs run
    log = base / "killed.log"
    kill_while_running(repo, env, log, prefix=f"{RESULTS}/scores/")
    record["killed_log"] = log.read_text()
    record["incomplete"] = incomplete_markers(repo)
    record["after_kill"] = output_files(repo)
    record["unreadable_after_kill"] = []
    for f in record["after_kill"]:
        if f.name.startswith("."):  # a killed writer's temporary (graphdr._files.atomic_path):
            continue  # not an output; the resumed run removes it (hidden_after_resume)
        try:
            read_back(repo / f)
        except Exception as exc:  # collected, asserted empty by the test
            record["unreadable_after_kill"].append(f"{f}: {exc!r}")

    # 3. recovery: a plain rerun meets the stale lock; unlock; rerun the incomplete jobs
    record["locked"] = snakemake(repo, env=env, check=False)
    snakemake(repo, "--unlock", env=env)
    out = snakemake(repo, "--rerun-incomplete", env=env).stdout
    record["resumed_jobs"] = jobs_in(out)
    record["resumed_outputs"] = {  # every output of every job of the rerun, paper stages too
        f for line in re.findall(r"    output: (.*)", out) for f in line.split(", ")
    }
    record["markers_left"] = sorted(incomplete_markers(repo))
    record["hidden_after_resume"] = [f for f in output_files(repo) if f.name.startswith(".")]
    record["outside_quick_roots"] = outside_quick_roots(repo)
    publish_build(tmp_path_factory, repo)  # before any test edits the repository
    return record


@pytest.fixture(scope="module")
def repo(build) -> Path:
    return build["repo"]


@pytest.fixture(scope="module")
def env(build) -> dict:
    return build["env"]


def overlay(repo: Path, name: str, text: str) -> tuple[str]:
    """Write the config overlay ``config/<name>``; returns ``configs=`` for the run helpers."""
    (repo / "config" / name).write_text(text)
    return (f"config/{name}",)


# ------------------------------------------------------------------------------------------
# the build
# ------------------------------------------------------------------------------------------


def test_demo_table_and_figure_are_built(repo):
    long = pd.read_csv(repo / RESULTS / "tables/demo/demo_accuracy.csv")
    assert len(long) == len(DATASETS) * len(METHODS) and set(long["n"]) == {1}  # one seed
    assert long["value"].between(50, 100).all(), long
    lda_wine = long[(long["dataset"] == "wine") & (long["method"] == "LDA_GE")]["value"].item()
    assert lda_wine > 85  # wine is nearly separable by LDA
    shown = pd.read_csv(repo / TABLE.with_suffix(".csv"))
    assert list(shown.columns) == ["method", "Digits", "Wine", "Iris"]
    assert list(shown["method"]) == ["PCA-GE", "LDA-GE", "KDA-GE"]
    assert "| PCA-GE |" in (repo / TABLE.with_suffix(".md")).read_text()
    assert r"\toprule" in (repo / TABLE.with_suffix(".tex")).read_text()
    assert (repo / FIGURE.with_suffix(".pdf")).read_bytes().startswith(b"%PDF")
    assert (repo / FIGURE.with_suffix(".png")).read_bytes().startswith(b"\x89PNG")
    # the raw-file dataset went through retrieve_dataset, whose manifest pins the file
    manifest = json.loads((repo / retrieve("iris")).read_text())
    assert list(manifest["files"]) == [IRIS] and len(manifest["files"][IRIS]) == 64


def test_quick_run_writes_under_its_own_roots_only(build):
    """The quick roots differ from the full ones, and the quick run wrote nothing outside them
    (paper_figures/ holds the committed outputs of the full configuration)."""
    assert {RESULTS, FIGURES, LOGS}.isdisjoint(FULL_ROOTS.values())
    assert build["outside_quick_roots"] == []
    assert (build["repo"] / LOGS / "fit_embed").is_dir()


def test_second_run_does_nothing(repo, env):
    assert planned(repo, env=env) == set()


def test_target_builds_only_its_ancestors(build):
    """`snakemake <figures>/demo/demo_projection.png` ran exactly the figure's ancestors."""
    expected = {prepare(d) for d in FIGURE_DATASETS} | {split(d) for d in FIGURE_DATASETS}
    expected |= fits(FIGURE_DATASETS) | {FIGURE_JOB}
    assert build["figure_jobs"] == expected
    made = {str(f) for f in build["after_figure"] if stage(f) != "benchmarks"}
    assert not [f for f in made if "scores" in f or "iris" in f or "demo_accuracy" in f]


def test_killed_run_recovers_without_corrupt_output(build):
    """SIGKILL mid-run: every file left loads; Snakemake marked the jobs in flight; rerun redoes them."""
    assert "rule evaluate_embedding:" in build["killed_log"]
    assert build["unreadable_after_kill"] == []  # no truncated file under an output's name
    # Snakemake's incomplete markers name outputs of the jobs that were running
    assert [f for f in build["incomplete"] if f.startswith(f"{RESULTS}/scores/")]
    started = {
        f for line in re.findall(r"    output: (.*)", build["killed_log"]) for f in line.split(", ")
    }
    assert build["incomplete"] <= started
    # the stale lock stops a plain rerun, and the message gives the fix
    locked = build["locked"]
    assert locked.returncode != 0 and "--unlock" in locked.stdout, locked.stdout[-2000:]
    # after --unlock, the rerun redid every interrupted job (of every paper)
    assert build["incomplete"] <= build["resumed_outputs"]
    assert build["resumed_jobs"].isdisjoint(build["figure_jobs"])  # nothing finished ran twice
    assert build["markers_left"] == []
    assert build["hidden_after_resume"] == []  # temporaries of killed writers are gone


def _thread_limits(log: str) -> dict[str, int]:
    """The last thread report of a job log (the job's pools at its end: numba once loaded)."""
    last = re.findall(r"threads(?: at the end)?: (\{.*\})", log)[-1]
    return eval(last)  # noqa: S307 (a dict literal this workflow wrote)


def test_jobs_log_their_thread_limits(repo):
    config = yaml.safe_load((repo / "config/config.yaml").read_text())
    fit_threads = config["resources"]["fit_embed"]["threads"]
    fit_log = (repo / LOGS / "fit_embed/demo/wine/KDA_GE/seed0_fold0.log").read_text()
    limits = _thread_limits(fit_log)
    assert limits["numba"] == fit_threads and limits.get("openblas", fit_threads) == fit_threads
    prepare_log = (repo / LOGS / "prepare_dataset/wine.log").read_text()
    assert set(_thread_limits(prepare_log).values()) == {1}
    assert "NUMBA_CACHE_DIR: " in fit_log
    # jobs run the package of this checkout (the copy), not the installed one
    assert f"graphdr imported from {repo / 'src' / 'graphdr'}" in fit_log


def _keel_subset(source: Path, step: int) -> str:
    """A smaller KEEL file: the header, then every ``step``-th data row (all classes kept)."""
    header, rows = source.read_text().split("@data\n")
    kept = [row for i, row in enumerate(rows.splitlines()) if i % step == 0]
    return header + "@data\n" + "\n".join(kept) + "\n"


def _user_registry(path: Path, data_file: str, sha256: str) -> None:
    path.write_text(
        f'[files."{data_file}"]\nsha256 = "{sha256}"\nformat = "KEEL .dat"\n\n'
        f'[datasets.tiny]\nloader = "keel"\nfiles = ["{data_file}"]\n'
        'description = "Every other row of KEEL Iris (a user dataset)."\n'
    )


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_replaced_raw_file_reruns_exactly_its_dataset(build, repo, env):
    """A user dataset (user registry + file in the mirror): new bytes + new sha256 -> its chain."""
    data_file = "user/tiny.dat"
    raw = build["mirror"] / data_file
    raw.parent.mkdir(parents=True)
    raw.write_text(_keel_subset(build["mirror"] / IRIS, step=2))
    registry = build["base"] / "user_registry.toml"
    _user_registry(registry, data_file, _sha256(raw))
    env = env | {"GRAPHDR_EXTRA_REGISTRY": str(registry)}
    args = overlay(repo, "tiny.yaml", "datasets:\n  tiny: {source: tiny, label: Tiny}\n")
    target = score("tiny", "LDA_GE")
    snakemake(repo, prepare("tiny"), configs=args, env=env)
    below = {split("tiny"), fit("tiny", "LDA_GE"), target}
    assert planned(repo, "all", target, configs=args, env=env) == below  # the demo: untouched
    # replace the file's content and its registry sha256 together, as a user would
    raw.write_text(raw.read_text().replace("5.1, 3.5", "5.0, 3.5", 1))
    _user_registry(registry, data_file, _sha256(raw))
    chain = {retrieve("tiny"), prepare("tiny")} | below
    assert planned(repo, "all", target, configs=args, env=env) == chain


def test_damaged_raw_file_fails_its_checksum_and_writes_nothing(build, repo, env):
    damaged = build["base"] / "damaged_mirror"
    (damaged / IRIS).parent.mkdir(parents=True)
    (damaged / IRIS).write_text((build["mirror"] / IRIS).read_text().replace("5.1", "5.2", 1))
    home = build["base"] / "empty_home"
    env = env | {"GRAPHDR_DATA_MIRROR": str(damaged), "GRAPHDR_DATA_HOME": str(home)}
    args = overlay(repo, "copy.yaml", "datasets:\n  iris_copy: {source: iris}\n")
    proc = snakemake(repo, prepare("iris_copy"), configs=args, env=env, check=False)
    assert proc.returncode != 0 and "Error in rule retrieve_dataset" in proc.stdout
    log = (repo / LOGS / "retrieve_dataset/iris_copy.log").read_text()
    assert "ChecksumError" in log and "but the registry expects" in log, log[-2000:]
    assert str(damaged / IRIS) in log  # the message says which copy is bad
    written = [f for f in output_files(repo) if "iris_copy" in str(f)]
    assert written == [] and not home.exists()


def test_invalid_config_fails_before_any_rule(repo, env):
    args = overlay(repo, "typo.yaml", "experiments:\n  demo:\n    seedz: [1]\n")
    proc = snakemake(repo, "-n", configs=args, env=env, check=False)
    assert proc.returncode != 0 and "seedz" in proc.stdout
    args = overlay(
        repo, "badref.yaml", "experiments:\n  demo:\n    tables:\n      x: {classifier: svm}\n"
    )
    proc = snakemake(repo, "-n", configs=args, env=env, check=False)
    assert proc.returncode != 0 and "classifier 'svm' is not one of" in proc.stdout
    args = overlay(repo, "badsource.yaml", "datasets:\n  flowers: {source: iriss}\n")
    proc = snakemake(repo, "-n", configs=args, env=env, check=False)
    assert proc.returncode != 0 and "'iriss' is not in the dataset registry" in proc.stdout
    assert "did you mean iris" in proc.stdout
    args = overlay(repo, "badrule.yaml", "resources:\n  fit_embedd: {threads: 1}\n")
    proc = snakemake(repo, "-n", configs=args, env=env, check=False)
    assert proc.returncode != 0 and "resources for unknown rules ['fit_embedd']" in proc.stdout


# ------------------------------------------------------------------------------------------
# report, debugging by hand, determinism
# ------------------------------------------------------------------------------------------


def test_report_groups_outputs_by_paper_with_captions(repo, env):
    snakemake(repo, "--report", "report.zip", env=env)
    with zipfile.ZipFile(repo / "report.zip") as archive:
        names = archive.namelist()
        html = archive.read(next(n for n in names if n.endswith("report.html"))).decode()
    for output in ("demo_accuracy.csv", "demo_projection.pdf", "demo_projection.png"):
        assert any(n.endswith(output) for n in names), names
    # one category per paper, subcategories for tables and figures
    found = re.search(r'"demo": (\{"\w+": \[[^]]*\](?:, "\w+": \[[^]]*\])*\})', html)
    assert found, "no category for the paper in the report"
    assert json.loads(found.group(1)) == {
        "Tables": [f"{TABLE}.csv"],
        "Figures": [f"{FIGURE}.pdf", f"{FIGURE}.png"],
    }
    # captions: the table's caption from the config and the protocol; the figure's panels
    assert "Test accuracy (%) of 1-NN on the graph-embedding subspace" in html
    assert "Datasets: digits, wine, iris" in html
    assert "Digits / PCA-GE" in html and "Reproduction of the graphdr experiments" in html
    # every paper's category holds every table (a CSV with its Markdown twin), figure (PNG) and
    # the ledger's verdicts of its folder, each captioned with what it shows and where the paper's
    # numbers come from
    results = json.loads(re.search(r"var results = (\{.*?\});\n", html, re.S).group(1))
    for paper in ("akda", "dee", "ngeu", "qmi"):
        folder = repo / FIGURES / paper
        found = re.search(rf'"{paper}": (\{{"\w+": \[[^]]*\](?:, "\w+": \[[^]]*\])*\}})', html)
        assert found, f"no category for {paper} in the report"
        entries = {f for files in json.loads(found.group(1)).values() for f in files}
        expected = {
            f"{FIGURES}/{paper}/{f.name}"
            for f in folder.iterdir()
            if f.suffix == ".png"
            or (f.suffix == ".csv" and f.with_suffix(".md").exists() and "_verdicts" not in f.name)
            or (f.suffix == ".md" and "_verdicts" in f.name)
        }
        assert entries == expected, (paper, sorted(entries ^ expected))
        for entry in entries:
            caption = results[entry]["caption"]
            assert (
                "The paper&#x27;s numbers" in caption
                or "The paper's numbers" in caption
                or ("no number is compared" in caption)
            ), (entry, caption[:300])


def test_script_runs_by_hand_with_unwritable_numba_cache(repo, env):
    """`python workflow/scripts/fit_embed.py` rebuilds its example job of the full config (under
    the full results root, next to the quick outputs); same bytes as the quick run's job (wine is
    not subsampled and seed 0 draws the same split)."""
    job = "fit/demo/wine/LDA_GE/seed0_fold0.npz"
    splits = f"{FULL_ROOTS['results']}/splits/demo/wine/seed0.npz"  # its inputs, full config
    proc = subprocess.run(
        [SNAKEMAKE, "--cores", "2", splits],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    target = repo / FULL_ROOTS["results"] / job
    env = env | {"NUMBA_CACHE_DIR": "/dev/null/numba-cache"}  # cannot be created
    proc = subprocess.run(
        [sys.executable, "workflow/scripts/fit_embed.py"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert target.read_bytes() == (repo / RESULTS / job).read_bytes()
    assert planned(repo, env=env) == set()  # the quick run's files are untouched
