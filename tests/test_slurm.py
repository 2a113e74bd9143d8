"""The SLURM workflow profile (profiles/slurm) against the workflow and a real SLURM cluster.

The first tests are static and fast: the profile parses, names existing rules, and a dry run with
it forms the group jobs. The last test runs tests/slurm/run_slurm_test.sh, which starts a real
one-node SLURM cluster on this machine (installing slurm-wlm and munge with apt-get when missing),
runs a small target through sbatch and compares the outputs with a local run. Because it changes
the machine (system packages, daemons), it runs only when asked: GRAPHDR_TEST_SLURM=1 (set by
.ci/run, so CI keeps it; `make test` alone never installs anything). It needs root and takes a
few minutes; it skips, saying why, when it cannot run (not asked, not root, neither SLURM nor
apt-get present, a real SLURM installation on the machine).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "profiles" / "slurm" / "config.yaml"
SCRIPT = ROOT / "tests" / "slurm" / "run_slurm_test.sh"
SKIP_STATUS = 77  # run_slurm_test.sh: "cannot run here"


@pytest.fixture(scope="module")
def profile() -> dict:
    return yaml.safe_load(PROFILE.read_text())


def rule_names() -> set[str]:
    names = set()
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        names |= set(re.findall(r"^rule (\w+):", smk.read_text(), flags=re.MULTILINE))
    return names


def test_profile_settings(profile):
    assert profile["executor"] == "slurm"
    assert profile["latency-wait"] >= 60  # NFS attribute caching (docs/hpc.md)
    assert profile["retries"] >= 1
    resources = profile["default-resources"]
    assert {"slurm_partition", "slurm_account", "mem_mb", "runtime"} <= set(resources)
    # threads become --cpus-per-task only while no cpus_per_task resource overrides them
    assert "cpus_per_task" not in resources
    # A group job's members run one after another (the plugin's inner Snakemake has --jobs 1):
    # every job takes the one slot of a per-submitted-job pool, so Snakemake sizes a group one
    # member per layer (largest member's CPUs and memory, runtimes summed). The real-SLURM test
    # checks the sizes that result; this checks that the three pieces stay together.
    assert resources["jobstep_slots"] == 1
    assert profile["resources"] == {"jobstep_slots": 1}
    assert profile["set-resource-scopes"] == {"jobstep_slots": "local"}


def test_profile_groups_name_rules_of_the_workflow(profile):
    rules = rule_names()
    assert set(profile["groups"]) <= rules, set(profile["groups"]) - rules
    assert set(profile["group-components"]) <= set(profile["groups"].values())
    assert profile["groups"]["fit_embed"] == profile["groups"]["evaluate_embedding"]


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory) -> str:
    """`snakemake -n --workflow-profile profiles/slurm` of the full protocols in a fresh copy
    (nothing built, so every job is planned). A dry run needs no sbatch: none is installed here."""
    tmp_path = tmp_path_factory.mktemp("slurm-dry-run")
    for item in ("Snakefile", "workflow", "config", "envs", "profiles", "src"):
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, tmp_path / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tmp_path / item)
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--workflow-profile", "profiles/slurm"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    return proc.stdout


def _job_counts(log: str) -> dict[str, int]:
    stats = log[log.index("Job stats:") :]
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", stats, flags=re.M)}


def test_dry_run_with_the_profile_forms_group_jobs(dry_run, profile):
    """Every key is a valid option, and each group bundles its jobs as group-components says."""
    counts = _job_counts(dry_run)
    size = profile["group-components"]
    # groups of independent jobs: one component per job
    per_group = {"fit_evaluate": counts["fit_embed"], "akda": counts["run_akda_method"]}
    per_group["paper_runs"] = sum(
        counts[rule] for rule, group in profile["groups"].items() if group == "paper_runs"
    )
    per_group["ngeu"] = counts["select_ngeu_models"]  # one chain per NGEU task
    for group, components in per_group.items():
        assert components > 0, group
        found = dry_run.count(f"Group job {group} ")
        assert found == -(-components // size[group]), (group, found, components)
    # the paper-specific compute rules are grouped: what remains single is small, or (AKDA's
    # kernel-method groups: minutes and up to 14 GB each) big enough to be a SLURM job alone,
    # as is each `one_job` QMI study (rule run_qmi_sweep_<study>: all its datasets, 1-5 CPU-min)
    single = {"run_akda_toy", "plot_ngeu_toy", "run_akda_group"}
    single |= {rule for rule in counts if rule.startswith("run_qmi_sweep_")}
    assert counts.get("run_qmi_sweep_scale_unit_variance") == 1  # one job for the study's datasets
    local = {
        name
        for smk in (ROOT / "workflow" / "rules").glob("*.smk")
        for name, block in re.findall(
            r"^rule (\w+):\n((?:    .*\n|\n)+)", smk.read_text(), flags=re.M
        )
        if "    localrule: True" in block
    }
    computed = set(counts) - {"all", "total"} - local - set(profile["groups"])
    assert computed <= single, computed - single


def _akda_memory(log: str) -> dict[tuple[str, str], set[int]]:
    """(dataset, condition) -> mem_mb of its run_akda_method jobs in a dry-run log."""
    found: dict[tuple[str, str], set[int]] = {}
    # a job's lines are indented 4 spaces more than its `rule` line (group members: 4 + 4)
    for _, block in re.findall(r"^( *)rule run_akda_method:\n((?:\1    .*\n)+)", log, flags=re.M):
        wildcards = dict(re.findall(r"(\w+)=([\w.]+)", re.search(r"wildcards: (.*)", block)[1]))
        memory = int(re.search(r"mem_mb=(\d+)", block)[1])
        found.setdefault((wildcards["dataset"], wildcards["condition"]), set()).add(memory)
    return found


def test_akda_memory_grows_with_the_kernel_size(dry_run):
    """Each run_akda_method cell asks memory for its N_train x N kernel entries, not 12 GB for all."""
    memory = _akda_memory(dry_run)
    assert all(len(m) == 1 for m in memory.values()), memory  # one size per cell
    memory = {cell: m.pop() for cell, m in memory.items()}
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["resources"]
    spec = config["run_akda_method"]
    # the 200-class stand-in at 100Ex: N_train = 200 x 100 of N = 200 x 200 samples (NOTES.md)
    largest = spec["mem_mb"] + spec["mem_mb_per_mega_entries"] * 20000 * 40000 / 1e6
    assert memory[("akda_decaf200", "100Ex")] == largest
    assert largest > 9800  # the measured peak of that cell (paper_figures/akda/NOTES.md)
    # USPS 10Ex: 100 training samples of 11000 -> the base plus 1.1 million entries
    assert memory[("akda_usps", "10Ex")] == int(
        -(-(spec["mem_mb"] + spec["mem_mb_per_mega_entries"] * 100 * 11000 / 1e6) // 1)
    )
    assert sorted(memory.values())[-2] < largest / 4  # every other cell is far smaller


def _cannot_run_reason() -> str | None:
    if os.environ.get("GRAPHDR_TEST_SLURM") != "1":
        return (
            "set GRAPHDR_TEST_SLURM=1 to run it (it may apt-get install slurm-wlm and munge and "
            "starts SLURM daemons; .ci/run sets it)"
        )
    if not sys.platform.startswith("linux"):
        return "the SLURM test cluster needs Linux"
    if os.geteuid() != 0:
        return "needs root to start slurmctld/slurmd/munged (and to apt-get install slurm-wlm)"
    if shutil.which("slurmctld") is None and shutil.which("apt-get") is None:
        return "SLURM is not installed and there is no apt-get to install slurm-wlm and munge"
    return None


@pytest.mark.slow
@pytest.mark.workflow
def test_workflow_runs_through_a_real_slurm_cluster():
    reason = _cannot_run_reason()
    if reason:
        pytest.skip(f"real-SLURM test skipped: {reason}")
    # Own session, so that on a timeout the whole script gets TERM and its EXIT trap stops the
    # daemons it started (subprocess.run would SIGKILL the shell alone and leave them running).
    proc = subprocess.Popen(
        ["bash", str(SCRIPT)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=180)
        pytest.fail(f"run_slurm_test.sh timed out after 30 min:\n{out[-6000:]}")
    if proc.returncode == SKIP_STATUS:
        lines = [line for line in out.splitlines() if line.startswith("SKIP:")]
        pytest.skip(f"real-SLURM test skipped: {lines[-1] if lines else out[-500:]}")
    assert proc.returncode == 0, out[-6000:]
    assert "PASSED" in out
