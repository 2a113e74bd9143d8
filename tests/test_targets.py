"""Targets a user types: one rule per paper, and any output path without flags.

Dry runs of the full configuration in a temporary copy of the checkout (nothing built there, so
Snakemake plans every job below the target). The reference for "that paper's outputs" is the
committed folder ``paper_figures/<paper>/`` of this repository (every file but NOTES.md), which
the full configuration writes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
FIGURES = ROOT / "paper_figures"
PAPERS = sorted(p.name for p in FIGURES.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("targets")
    for item in ("Snakefile", "workflow", "config", "envs", "profiles", "src"):
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
        if (ROOT / item).is_dir():
            shutil.copytree(ROOT / item, dest / item, ignore=ignore)
        else:
            shutil.copy2(ROOT / item, dest / item)
    return dest


def run(checkout: Path, *args: str) -> str:
    """Snakemake with exactly ``args`` (no --cores: the default profile must supply it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHDR_")}
    env["GRAPHDR_DATA_HOME"] = str(checkout / "data-home")  # nothing of the user's cache
    proc = subprocess.run(
        [SNAKEMAKE, *args],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"snakemake {' '.join(args)}:\n{proc.stdout[-4000:]}"
    return proc.stdout


def planned_outputs(log: str) -> set[str]:
    return {f for line in re.findall(r"^    output: (.*)$", log, re.M) for f in line.split(", ")}


def test_the_committed_papers_are_the_five():
    assert PAPERS == ["akda", "dee", "demo", "ngeu", "qmi"]


def test_every_paper_has_a_target_rule(checkout):
    listed = set(run(checkout, "--list-target-rules").split())
    assert set(PAPERS) | {"all"} <= listed, listed


def _overlays() -> dict[str, dict]:
    """Overlay config -> its ``overlay:`` section (a sensitivity run whose outputs are committed
    under ``paper_figures/<paper>/<folder>/``, not part of a paper's target)."""
    found = {}
    for path in sorted((ROOT / "config").glob("*.yaml")):
        section = yaml.safe_load(path.read_text(encoding="utf-8")).get("overlay")
        if section:
            found[f"config/{path.name}"] = section
    return found


OVERLAYS = _overlays()


def test_the_committed_overlay_folders_are_the_published_ones():
    published = {Path(s["folder"]) for s in OVERLAYS.values()}
    committed = {d.relative_to(ROOT) for p in PAPERS for d in (FIGURES / p).iterdir() if d.is_dir()}
    assert published == committed and len(published) == 3


@pytest.mark.parametrize("paper", PAPERS)
def test_paper_target_plans_exactly_that_papers_outputs(checkout, paper):
    log = run(checkout, "-n", paper)
    planned = {f for f in planned_outputs(log) if f.startswith("paper_figures/")}
    committed = {
        f"paper_figures/{paper}/{f.name}"
        for f in (FIGURES / paper).iterdir()
        if f.name != "NOTES.md" and not f.is_dir()
    }
    assert planned == committed, (sorted(planned - committed), sorted(committed - planned))
    if paper == "dee":  # the optimiser study (config optimizer_studies, not papers.dee)
        assert any("dee_optimizers_" in f for f in planned)


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_an_overlay_publishes_exactly_its_committed_folder(checkout, overlay):
    """`snakemake copy_overlay_outputs --configfile <overlay>` plans the overlay's own run and
    writes, under paper_figures/, exactly the files committed in its folder, named
    <paper>_<name>_<file>."""
    section = OVERLAYS[overlay]
    log = run(checkout, "-n", "copy_overlay_outputs", "--configfile", overlay)
    planned = {f for f in planned_outputs(log) if f.startswith("paper_figures/")}
    folder = ROOT / section["folder"]
    committed = {f"{section['folder']}/{f.name}" for f in folder.iterdir()}
    assert planned == committed, (sorted(planned - committed), sorted(committed - planned))
    prefix = f"{section['paper']}_{section['name']}_"
    assert all(Path(f).name.startswith(prefix) for f in planned)
    assert "rule judge_claims:" in log or "localrule judge_claims:" in log


def test_one_figure_without_flags(checkout):
    """`snakemake <path>` as the README writes it: the default profile supplies the cores."""
    log = run(checkout, "-n", "paper_figures/demo/demo_projection.pdf")
    assert "Using workflow specific profile profiles/default" in log
    assert "paper_figures/demo/demo_projection.pdf" in planned_outputs(log)
    # and for real (one cheap job: a bundled scikit-learn dataset, no raw file)
    log = run(checkout, "results/prepared/wine.npz")
    assert "Using workflow specific profile profiles/default" in log
    assert (checkout / "results/prepared/wine.npz").is_file()


def _job_headers(log: str) -> list[dict]:
    """``{"rule": ..., "wildcards": ..., "priority": int}`` of every job a dry run plans."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", log):
        head = re.match(r"(?:local)?rule (\w+):", block)
        if head:
            wildcards = re.search(r"^    wildcards: (.*)$", block, re.M)
            priority = re.search(r"^    priority: (\d+)$", block, re.M)
            jobs.append(
                {
                    "rule": head.group(1),
                    "wildcards": wildcards.group(1) if wildcards else "",
                    "priority": int(priority.group(1)) if priority else 0,
                }
            )
    return jobs


def test_the_long_jobs_inputs_start_first(checkout):
    """The data jobs of the prioritised rules carry the priority of their readers (Snakemake
    passes none on to the jobs a job waits for), and only those."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    papers, resources = config["papers"], config["resources"]
    ngeu = {t["dataset"] for t in papers["ngeu"]["tasks"].values()}
    akda = set(papers["akda"]["datasets"])
    dee = set(papers["dee"]["recognition"]["datasets"])
    select = resources["select_ngeu_models"]
    by_task = {
        t: select.get("priority_by", {}).get(t, select["priority"]) for t in papers["ngeu"]["tasks"]
    }
    assert len(set(by_task.values())) > 1  # the longest task first: the case under test
    expected = {}
    for task, spec in papers["ngeu"]["tasks"].items():
        expected[spec["dataset"]] = max(expected.get(spec["dataset"], 0), by_task[task])
    for d in dee:
        expected[d] = max(expected.get(d, 0), resources["run_dee_recognition"]["priority"])
    for d in akda:
        expected[d] = max(expected.get(d, 0), resources["run_akda_group"]["priority"])
    qmi_by_dataset = resources["run_qmi_sweep"]["priority_by"]  # the longest sweeps first
    assert {"qmi_yeast", "qmi_segment"} <= set(qmi_by_dataset)
    studies = papers["qmi"]["studies"]
    one_job = {name: s["datasets"] for name, s in studies.items() if s.get("one_job")}
    assert set(one_job) & set(qmi_by_dataset)  # a one_job study keyed by its name: under test
    for name, spec in studies.items():
        for d in spec["datasets"]:
            priority = qmi_by_dataset.get(name if name in one_job else d, 0)
            expected[d] = max(expected.get(d, 0), priority)
    jobs = _job_headers(run(checkout, "-n", "ngeu", "akda", "dee", "qmi"))
    data_jobs = [j for j in jobs if j["rule"] in ("retrieve_dataset", "prepare_dataset")]
    seen = {j["wildcards"].removeprefix("dataset=") for j in data_jobs}
    assert ngeu | akda | dee <= seen and seen - (ngeu | akda | dee)  # QMI's own datasets too
    for job in data_jobs:
        dataset = job["wildcards"].removeprefix("dataset=")
        assert job["priority"] == expected.get(dataset, 0), job
    ngeu_jobs = [
        j
        for j in jobs
        if j["rule"] in ("make_ngeu_splits", "estimate_uncertainty", "select_ngeu_models")
    ]
    assert {j["rule"] for j in ngeu_jobs} == {
        "make_ngeu_splits",
        "estimate_uncertainty",
        "select_ngeu_models",
    }
    for job in ngeu_jobs:
        assert job["priority"] == by_task[job["wildcards"].removeprefix("task=")], job
    sweeps = [j for j in jobs if j["rule"] == "run_qmi_sweep"]
    assert sweeps
    for job in sweeps:
        dataset = dict(w.split("=") for w in job["wildcards"].split(", "))["dataset"]
        assert job["priority"] == qmi_by_dataset.get(dataset, 0), job
    study_jobs = {j["rule"]: j["priority"] for j in jobs if j["rule"].startswith("run_qmi_sweep_")}
    assert study_jobs == {
        "run_qmi_sweep_" + re.sub(r"\W", "_", name): qmi_by_dataset.get(name, 0) for name in one_job
    }
