"""What a run cost, per rule and per part of the workflow, from Snakemake's benchmark files.

Every rule writes ``results/benchmarks/<rule>/<wildcards>.tsv`` (Snakemake's ``benchmark:``
directive: wall seconds ``s``, ``max_rss`` in MB, ``cpu_time`` in CPU-seconds of the job's
process tree). Snakemake samples ``cpu_time`` every 0.5 s for a job's first 15 s and every 30 s
after, and writes the last sample: a long job's CPU after it is missing (up to 30 s times its
threads). So where the job's log at ``logs/<rule>/<wildcards>.log`` ends with the ``done``
record of :func:`graphdr.pipeline.runtime.job` (the process's own CPU time from
``getrusage``), that figure is used instead (column ``cpu_from``: ``log`` or ``benchmark``).
This module sums them: per rule (jobs, CPU-s, longest job, largest resident
memory) and per part (the rule file a rule is written in: ``paper_akda.smk`` is ``akda``,
``datasets.smk`` is ``datasets``), the numbers the README's budget lines and the ``resources:``
table of the config are sized from. Read with pandas; the rule-to-file map is read from the rule
files as text.

Command line (the full run's files by default)::

    python -m graphdr.pipeline.costs [results/benchmarks] [--rules workflow/rules] [--logs logs]
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import pandas as pd

#: a rule definition, indented too (a rule inside an ``if`` or ``for`` block)
_RULE = re.compile(r"^[ \t]*(?:rule|checkpoint)\s+(\w+)\s*:", re.MULTILINE)
_COLUMNS = {"s": "wall_s", "max_rss": "max_rss_mb", "cpu_time": "cpu_s"}
#: the CPU figure of runtime.job's ``done`` record (runtime.USAGE_FORMAT)
_DONE = re.compile(r"INFO graphdr\.pipeline: done: ([0-9.]+) CPU-s")


def rule_parts(rules_dir: str | os.PathLike) -> dict[str, str]:
    """``{rule: part}`` for every rule of the ``*.smk`` files of ``rules_dir``: the part is the
    file's stem without its ``paper_`` prefix."""
    parts = {}
    for path in sorted(Path(rules_dir).glob("*.smk")):
        part = path.stem.removeprefix("paper_")
        for name in _RULE.findall(path.read_text(encoding="utf-8")):
            parts[name] = part
    return parts


def read_benchmarks(bench_dir: str | os.PathLike) -> pd.DataFrame:
    """One row per job: ``rule``, ``job`` (the file's path below the rule's folder), ``wall_s``,
    ``max_rss_mb`` and ``cpu_s`` (the last line of a file that holds repeats). Raises
    ``ValueError`` when there is no benchmark file: a run that wrote none cannot be costed."""
    bench_dir = Path(bench_dir)
    rows = []
    for path in sorted(bench_dir.rglob("*.tsv")):
        rel = path.relative_to(bench_dir)
        frame = pd.read_csv(path, sep="\t")
        missing = [c for c in _COLUMNS if c not in frame.columns]
        if frame.empty or missing:
            raise ValueError(
                f"{path}: not a Snakemake benchmark file (columns {missing} missing or no row)."
            )
        last = frame.iloc[-1]
        rows.append(
            {"rule": rel.parts[0], "job": str(Path(*rel.parts[1:]).with_suffix(""))}
            | {new: float(last[old]) for old, new in _COLUMNS.items()}
        )
    if not rows:
        raise ValueError(f"no benchmark file (*.tsv) below {bench_dir}: run the workflow first.")
    return pd.DataFrame(rows)


def read_job_logs(logs_dir: str | os.PathLike) -> dict[tuple[str, str], float]:
    """``{(rule, job): CPU-s}`` from the ``done`` record that ends each successful job's log
    below ``logs_dir`` (``<rule>/<job>.log``); logs without it (a failed job, a job of a version
    that did not write it) are left out."""
    logs_dir = Path(logs_dir)
    found = {}
    for path in sorted(logs_dir.rglob("*.log")):
        rel = path.relative_to(logs_dir)
        if len(rel.parts) < 2:
            continue
        matches = _DONE.findall(path.read_text(encoding="utf-8", errors="replace"))
        if matches:
            found[(rel.parts[0], str(Path(*rel.parts[1:]).with_suffix("")))] = float(matches[-1])
    return found


def with_log_cpu(jobs: pd.DataFrame, logged: dict[tuple[str, str], float]) -> pd.DataFrame:
    """``jobs`` with ``cpu_s`` taken from the logs where a log has it (column ``cpu_from``)."""
    keys = list(zip(jobs["rule"], jobs["job"], strict=True))
    from_log = [k in logged for k in keys]
    cpu = [logged.get(k, c) for k, c in zip(keys, jobs["cpu_s"], strict=True)]
    return jobs.assign(cpu_s=cpu, cpu_from=["log" if f else "benchmark" for f in from_log])


def summarise(jobs: pd.DataFrame, parts: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(per rule, per part)``: jobs, total CPU-s, total wall-s, the longest job's wall time and
    the largest resident memory; rows by decreasing CPU, with each part's share of all CPU."""
    jobs = jobs.assign(part=jobs["rule"].map(parts).fillna("(unknown rule)"))
    agg = {
        "jobs": ("job", "size"),
        "cpu_s": ("cpu_s", "sum"),
        "wall_s": ("wall_s", "sum"),
        "longest_s": ("wall_s", "max"),
        "max_rss_mb": ("max_rss_mb", "max"),
    }
    per_rule = jobs.groupby(["part", "rule"]).agg(**agg).reset_index()
    per_part = jobs.groupby("part").agg(**agg).reset_index()
    total = float(jobs["cpu_s"].sum())

    def ordered(frame):
        frame = frame.assign(cpu_share=frame["cpu_s"] / total if total > 0 else 0.0)
        return frame.sort_values("cpu_s", ascending=False, kind="stable").reset_index(drop=True)

    return ordered(per_rule), ordered(per_part)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m graphdr.pipeline.costs",
        description="CPU, wall time and memory of a run, per rule and per part of the workflow.",
    )
    parser.add_argument("benchmarks", nargs="?", default="results/benchmarks")
    parser.add_argument("--rules", default="workflow/rules")
    parser.add_argument("--logs", default="logs", help="the run's log folder (default: logs)")
    args = parser.parse_args(argv)
    jobs = read_benchmarks(args.benchmarks)
    if Path(args.logs).is_dir():
        jobs = with_log_cpu(jobs, read_job_logs(args.logs))
    per_rule, per_part = summarise(jobs, rule_parts(args.rules))
    pd.set_option("display.width", 200)
    for title, frame in (("per part", per_part), ("per rule", per_rule)):
        print(f"# {title}\n{frame.round({'cpu_s': 0, 'wall_s': 0, 'cpu_share': 3}).to_string()}\n")
    print(f"total: {per_part['jobs'].sum()} jobs, {per_part['cpu_s'].sum():.0f} CPU-s of jobs")
    if "cpu_from" in jobs:
        n_log = int((jobs["cpu_from"] == "log").sum())
        print(f"CPU from the jobs' logs for {n_log} of {len(jobs)} jobs, the rest sampled")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
