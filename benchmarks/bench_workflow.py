"""Workflow overhead: asking "is anything to do?", and the quick configuration end to end.

* **no-op dry run** — ``snakemake -n`` of the default config with every output up to date: what a
  user pays before every run and after every edit (Snakemake start-up, config schema, the code
  closure of every rule, the DAG, metadata and checksum checks). Target <= 3 s, best of 3.
* **quick end to end** — ``snakemake --cores <all> --configfile config/quick.yaml`` from a clean
  temporary copy of the checkout (context: it depends on the cores and the machine; most of it is
  the import time of numpy/scikit-learn in each job).
* **full end to end** — the default config from where the quick run left it (context).

Full mode runs all three in one temporary copy (quick first, then the default config, then the
dry runs). ``--quick`` only times the dry run: in this checkout when its outputs are up to date
for the default config, otherwise (nothing built here) with the jobs still pending, which costs
the same DAG work plus printing the job list; the row says which.

Raw files come from ``$GRAPHDR_DATA_MIRROR`` (the Makefile sets it), else ``../shared/datasets``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._util import row

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CHECKOUT = ("Snakefile", "workflow", "config", "envs", "profiles", "src")
DRY_RUN_TARGET = 3.0  # seconds
REPEAT = 3


def run(quick: bool) -> list[dict]:
    if quick:
        return _dry_run_rows(ROOT, "checkout")
    with tempfile.TemporaryDirectory(prefix="graphdr-bench-workflow-") as tmp:
        repo = _copy_checkout(Path(tmp) / "repo")
        rows = []
        seconds, n_jobs = _timed_run(repo, "--configfile", "config/quick.yaml")
        rows.append(
            row(
                "quick config from clean",
                "wall seconds",
                seconds,
                details=f"{n_jobs} jobs, --cores {os.cpu_count()}",
            )
        )
        seconds, n_jobs = _timed_run(repo)
        rows.append(
            row(
                "default config after the quick one",
                "wall seconds",
                seconds,
                details=f"{n_jobs} jobs, --cores {os.cpu_count()}",
            )
        )
        return rows + _dry_run_rows(repo, "temporary copy")


def _env() -> dict:
    env = dict(os.environ)
    if not env.get("GRAPHDR_DATA_MIRROR"):
        mirror = ROOT.parent / "shared" / "datasets"
        if mirror.is_dir():
            env["GRAPHDR_DATA_MIRROR"] = str(mirror)
    return env


def _copy_checkout(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    dest.mkdir(parents=True)
    for item in CHECKOUT:
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, dest / item, ignore=ignore)
        else:
            shutil.copy2(source, dest / item)
    return dest


def _snakemake(repo: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [SNAKEMAKE, "--cores", "all", "--scheduler", "greedy", *args],
        cwd=repo,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}")
    return proc


def _timed_run(repo: Path, *args: str) -> tuple[float, int]:
    start = time.perf_counter()
    out = _snakemake(repo, *args).stdout
    return time.perf_counter() - start, len(re.findall(r"^Finished jobid", out, re.MULTILINE))


def _dry_run_rows(repo: Path, where: str) -> list[dict]:
    """Best of REPEAT ``snakemake -n`` runs of the default config, with the DAG size."""
    n_total = _n_jobs(_snakemake(repo, "-n", "--forceall").stdout)
    best, pending = float("inf"), 0
    for _ in range(REPEAT):
        start = time.perf_counter()
        out = _snakemake(repo, "-n").stdout
        best = min(best, time.perf_counter() - start)
        pending = 0 if "Nothing to be done" in out else _n_jobs(out)
    case = "no-op dry run, default config" if not pending else "dry run, default config"
    state = "all up to date" if not pending else f"{pending} jobs pending (nothing built here)"
    return [
        row(
            case,
            "wall seconds",
            best,
            at_most=DRY_RUN_TARGET,
            details=f"{where}; DAG of {n_total} jobs; {state}; best of {REPEAT}",
        )
    ]


def _n_jobs(dry_run: str) -> int:
    found = re.search(r"^total\s+(\d+)$", dry_run, re.MULTILINE)
    return int(found.group(1)) if found else 0
