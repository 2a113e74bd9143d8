"""Checks for run_slurm_test.sh: the jobs really went through SLURM, and SLURM = local outputs.

Usage (the shell script calls these; each prints what it checked and exits 1 on a failure):

    check_slurm_run.py jobs LOG [--env NAME=VALUE ...] [--min-jobs N] [--group NAME]
    check_slurm_run.py compare LOCAL_DIR SLURM_DIR SUMMARY_FILE
    check_slurm_run.py default-resources PROFILE_YAML PARTITION
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

# "Job 3 has been submitted with SLURM jobid 5 (log: /abs/.snakemake/slurm_logs/.../5.log)."
SUBMITTED = re.compile(r"has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.?$", re.M)
# Rule blocks in a Snakemake log print "    threads: N" only when N > 1.
THREADS = re.compile(r"^\s+threads: (\d+)$", re.M)
# A rule job of the SLURM job's own Snakemake: "rule NAME:" and its indented lines (the srun step
# that runs it prints "localrule NAME:", not matched); its resources line has "runtime=MINUTES".
MEMBER = re.compile(r"^rule (\w+):\n((?:[ \t]+.*\n)+)", re.M)
RUNTIME = re.compile(r"\bruntime=(\d+)")
# Fit info files carry measured durations; they are the only fields allowed to differ.
TIMING_KEY = re.compile(r".*_seconds$")


def scontrol_job(jobid: str) -> dict[str, str]:
    """``scontrol show job`` as a flat dict (works for MinJobAge seconds after the job ended)."""
    out = subprocess.run(
        ["scontrol", "show", "job", "--oneliner", jobid],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return dict(item.split("=", 1) for item in out.split() if "=" in item)


def _minutes(limit: str) -> float:
    """SLURM's TimeLimit ([D-]HH:MM:SS, or UNLIMITED) in minutes."""
    if limit in ("UNLIMITED", "Partition_Limit"):
        return float("inf")
    days, _, clock = limit.rpartition("-")
    h, m, s = (int(x) for x in clock.split(":"))
    return (int(days or 0) * 24 + h) * 60 + m + s / 60


def check_jobs(args) -> list[str]:
    """Every submitted job: COMPLETED, exit 0, env passed through, and sized as it runs.

    The members of a group job run one after another (the plugin starts its Snakemake with
    ``--jobs 1``), so the job must hold as many CPUs as its largest member's threads (not the
    sum over members: CPUs held and not used) and a time limit of at least the sum of its
    members' runtimes (not the longest chain's: the job would be killed part-way).
    """
    text = Path(args.log).read_text()
    submitted = SUBMITTED.findall(text)
    failures = []
    if len(submitted) < args.min_jobs:
        failures.append(
            f"{len(submitted)} SLURM submissions in the log, expected >= {args.min_jobs}"
        )
    for jobid, slurm_log in submitted:
        info = scontrol_job(jobid)
        log_path = Path(slurm_log)
        job_log = log_path.read_text() if log_path.is_file() else ""
        threads = max([1] + [int(n) for n in THREADS.findall(job_log)])
        members = MEMBER.findall(job_log)
        runtime = sum(int(m[1]) for _, block in members if (m := RUNTIME.search(block)))
        line = (
            f"  SLURM job {jobid}: {info.get('JobState')} exit={info.get('ExitCode')} "
            f"cpus={info.get('NumCPUs')} (threads {threads}) mem={info.get('MinMemoryNode')} "
            f"time_limit={info.get('TimeLimit')} (members {len(members)}, runtimes {runtime} min) "
            f"{info.get('StartTime')} -> {info.get('EndTime')} "
            f"{info.get('Comment', '')}"
        )
        print(line)
        if info.get("JobState") != "COMPLETED" or info.get("ExitCode") != "0:0":
            failures.append(f"job {jobid} did not complete cleanly: {line}")
        if not job_log:
            failures.append(f"job {jobid}: no SLURM log at {slurm_log}")
            continue
        if info.get("NumCPUs") != str(threads):
            failures.append(
                f"job {jobid}: SLURM gave {info.get('NumCPUs')} CPUs for {threads} threads"
            )
        if not members:
            failures.append(f"job {jobid}: no rule job in its log")
        elif _minutes(info.get("TimeLimit", "0:0:0")) < runtime:
            failures.append(
                f"job {jobid}: time limit {info.get('TimeLimit')} < the {runtime} min its "
                f"{len(members)} rule jobs ask for, which run one after another"
            )
        if "srun -n1" not in job_log:
            failures.append(f"job {jobid}: the rule did not run as an srun step inside the job")
        for pair in args.env:
            name, value = pair.split("=", 1)
            if f"'{name}': '{value}'" not in job_log:
                failures.append(f"job {jobid}: {name}={value} not in the job environment")
    if args.group:
        groups = [log for _, log in submitted if f"/group_{args.group}" in log]
        print(f"  group '{args.group}' jobs: {len(groups)}")
        if not groups:
            failures.append(f"no SLURM job for group {args.group}")
    return failures


def _without_timings(obj):
    if isinstance(obj, dict):
        return {k: _without_timings(v) for k, v in obj.items() if not TIMING_KEY.match(k)}
    if isinstance(obj, list):
        return [_without_timings(v) for v in obj]
    return obj


def check_compare(args) -> list[str]:
    """Every output in the summary exists in both trees with the same bytes.

    Exception: a JSON file may differ in keys named ``*_seconds`` (measured durations); the
    rest of it must be equal.
    """
    local, slurm = Path(args.local), Path(args.slurm)
    lines = Path(args.summary).read_text().splitlines()
    outputs = [line.split("\t")[0] for line in lines[1:] if line.strip()]
    failures = []
    if not outputs:
        failures.append(f"no outputs listed in {args.summary}")
    for name in outputs:
        a, b = local / name, slurm / name
        if not a.is_file() or not b.is_file():
            failures.append(f"{name}: missing (local {a.is_file()}, slurm {b.is_file()})")
            continue
        if a.read_bytes() == b.read_bytes():
            print(f"  identical bytes  {name}")
        elif a.suffix == ".json" and _without_timings(json.loads(a.read_text())) == (
            _without_timings(json.loads(b.read_text()))
        ):
            print(f"  equal except *_seconds timings  {name}")
        else:
            failures.append(f"{name}: SLURM output differs from the local run")
    return failures


def default_resources(args) -> list[str]:
    """The profile's default-resources as NAME=VALUE words, partition replaced, no account.

    A command-line --default-resources replaces the profile's whole block, so the test passes
    the profile's own values back with only the cluster-specific placeholders changed.
    """
    import yaml

    profile = yaml.safe_load(Path(args.profile).read_text())
    resources = dict(profile.get("default-resources") or {})
    resources.pop("slurm_account", None)  # the test cluster has no accounts
    resources["slurm_partition"] = args.partition
    for name, value in resources.items():
        print(f"{name}={value!r}" if isinstance(value, str) else f"{name}={value}")
    return []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    jobs = sub.add_parser("jobs")
    jobs.add_argument("log")
    jobs.add_argument("--env", action="append", default=[])
    jobs.add_argument("--min-jobs", type=int, default=1)
    jobs.add_argument("--group")
    jobs.set_defaults(run=check_jobs)
    compare = sub.add_parser("compare")
    compare.add_argument("local")
    compare.add_argument("slurm")
    compare.add_argument("summary")
    compare.set_defaults(run=check_compare)
    res = sub.add_parser("default-resources")
    res.add_argument("profile")
    res.add_argument("partition")
    res.set_defaults(run=default_resources)
    args = parser.parse_args(argv)
    failures = args.run(args)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
