"""graphdr.pipeline.scheduling: one pending re-evaluation timer in Snakemake's scheduler.

The reference is Snakemake's own method: one timer (one semaphore release) per call, and a real
run in which the scheduler's threads pile up with the finished jobs; patched, the calls collapse
to one release and the run's thread count stays flat."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from snakemake.scheduling.job_scheduler import JobScheduler

from graphdr.pipeline import scheduling

SNAKEMAKE = Path(sys.executable).with_name("snakemake")


class FakeScheduler:
    """What the patched method touches: the semaphore the scheduling loop waits on."""

    _schedule_reevalutation = JobScheduler._schedule_reevalutation  # Snakemake's own

    def __init__(self):
        self._open_jobs = threading.Semaphore(0)


def releases(scheduler, within: float) -> int:
    """How many times the scheduler's semaphore is released within ``within`` seconds."""
    n, deadline = 0, time.monotonic() + within
    while scheduler._open_jobs.acquire(timeout=max(deadline - time.monotonic(), 0.0)):
        n += 1
    return n


@pytest.fixture
def patched(monkeypatch):
    """FakeScheduler with the patch (restored afterwards)."""
    monkeypatch.setattr(FakeScheduler, scheduling.METHOD, FakeScheduler._schedule_reevalutation)
    assert scheduling.coalesce_reevaluations(FakeScheduler) is None
    return FakeScheduler()


def test_snakemake_arms_one_timer_per_call_and_the_patch_one_in_all():
    unpatched = FakeScheduler()
    for _ in range(10):
        unpatched._schedule_reevalutation(0.05)
    assert releases(unpatched, 0.6) == 10  # the upstream behaviour the patch exists for


def test_requests_while_pending_collapse_and_a_later_one_arms_again(patched):
    for _ in range(10):
        patched._schedule_reevalutation(0.05)
    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
    assert timers and all(t.daemon for t in timers)  # the exit never waits for them
    assert releases(patched, 0.6) == 1
    patched._schedule_reevalutation(0.05)  # after the release: a new request is served
    assert releases(patched, 0.6) == 1


def test_a_request_is_served_within_its_delay(patched):
    start = time.monotonic()
    patched._schedule_reevalutation(0.1)
    assert patched._open_jobs.acquire(timeout=2.0)
    assert 0.09 <= time.monotonic() - start < 1.0


def test_the_pinned_snakemake_is_patched_and_patching_twice_changes_nothing(monkeypatch):
    monkeypatch.setattr(JobScheduler, scheduling.METHOD, JobScheduler._schedule_reevalutation)
    assert scheduling.coalesce_reevaluations(JobScheduler) is None
    patched = getattr(JobScheduler, scheduling.METHOD)
    assert scheduling.coalesce_reevaluations(JobScheduler) is None
    assert getattr(JobScheduler, scheduling.METHOD) is patched


def test_another_snakemake_is_left_alone_with_the_reason():
    class Missing:
        pass

    class OtherSignature:
        def _schedule_reevalutation(self, delay, jitter):
            pass

    assert "has no _schedule_reevalutation" in scheduling.coalesce_reevaluations(Missing)
    assert "is not (self, delay)" in scheduling.coalesce_reevaluations(OtherSignature)
    assert OtherSignature._schedule_reevalutation.__name__ == "_schedule_reevalutation"


SNAKEFILE = """
import importlib.util
if {patch}:
    from snakemake.scheduling.job_scheduler import JobScheduler
    spec = importlib.util.spec_from_file_location("scheduling", {module!r})
    patch = importlib.util.module_from_spec(spec)  # ("module" is a Snakemake keyword)
    spec.loader.exec_module(patch)
    assert patch.coalesce_reevaluations(JobScheduler) is None

rule all:
    input: expand("step/{{i}}.txt", i=range(10))

rule step:  # 10 jobs on 2 cores: most wait while others run; each records the scheduler's
    # threads as it starts (its shell's parent is Snakemake)
    output: "step/{{i}}.txt"
    shell: "ls /proc/$PPID/task | wc -l > {{output}}; sleep 0.2"
"""


def scheduler_threads(tmp_path: Path, patch: bool) -> int:
    work = tmp_path / ("patched" if patch else "upstream")
    work.mkdir()
    module = str(Path(scheduling.__file__).resolve())
    (work / "Snakefile").write_text(SNAKEFILE.format(patch=patch, module=module))
    subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", "--quiet", "--workflow-profile", "none"],
        cwd=work,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return max(int(f.read_text()) for f in (work / "step").iterdir())


def test_a_real_run_keeps_its_thread_count_flat(tmp_path):
    upstream = scheduler_threads(tmp_path, patch=False)
    patched = scheduler_threads(tmp_path, patch=True)
    # upstream: one more live timer chain per finished step while steps wait for a core
    assert upstream >= patched + 4, (upstream, patched)
