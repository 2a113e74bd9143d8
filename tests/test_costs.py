"""graphdr.pipeline.costs: sums of Snakemake benchmark files, against hand-computed totals."""

import pandas as pd
import pytest

from graphdr.pipeline import costs

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path, s, rss, cpu, repeats=1):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{s * (r + 1)}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu * (r + 1)}\n"
             for r in range(repeats)]  # fmt: skip
    path.write_text(HEADER + "".join(lines))


def test_costs_sum_jobs_per_rule_and_per_rule_file(tmp_path, capsys):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "paper_akda.smk").write_text(
        "rule run_akda_method:\n    input: 'a'\n\n# rule in_a_comment:\nif True:\n\n    rule run_akda_group:\n"
    )
    (rules / "datasets.smk").write_text("rule prepare_dataset:\n    output: 'x'\n")
    bench = tmp_path / "benchmarks"
    _bench(bench / "run_akda_group/usps/10Ex.tsv", 10.0, 300.0, 9.0)
    _bench(bench / "run_akda_group/coil20/100Ex.tsv", 30.0, 700.0, 29.0)
    _bench(bench / "run_akda_method/usps/10Ex/LDA.tsv", 2.0, 150.0, 1.5, repeats=3)  # the last line
    _bench(bench / "prepare_dataset/usps.tsv", 4.0, 120.0, 3.0)
    _bench(bench / "orphan/x.tsv", 1.0, 10.0, 1.0)

    parts = costs.rule_parts(rules)
    assert parts == {
        "run_akda_group": "akda",
        "run_akda_method": "akda",
        "prepare_dataset": "datasets",
    }
    jobs = costs.read_benchmarks(bench)
    assert len(jobs) == 5
    run = jobs[jobs["rule"] == "run_akda_method"].iloc[0]
    assert (run["job"], run["wall_s"], run["cpu_s"]) == ("usps/10Ex/LDA", 6.0, 4.5)

    per_rule, per_part = costs.summarise(jobs, parts)
    group = per_rule[per_rule["rule"] == "run_akda_group"].iloc[0]
    found = (group["jobs"], group["cpu_s"], group["longest_s"], group["max_rss_mb"])
    assert found == (2, 38.0, 30.0, 700.0)
    akda = per_part.set_index("part").loc["akda"]
    assert (akda["jobs"], akda["cpu_s"]) == (3, 42.5)
    assert akda["cpu_share"] == pytest.approx(42.5 / 46.5)
    assert per_part["part"].tolist() == ["akda", "datasets", "(unknown rule)"]  # by CPU
    assert costs.main([str(bench), "--rules", str(rules)]) == 0
    assert "total: 5 jobs, 46 CPU-s" in capsys.readouterr().out


def test_costs_refuse_an_empty_folder_and_a_file_that_is_not_a_benchmark(tmp_path):
    with pytest.raises(ValueError, match="no benchmark file"):
        costs.read_benchmarks(tmp_path)
    (tmp_path / "r").mkdir()
    pd.DataFrame({"s": [1.0]}).to_csv(tmp_path / "r" / "x.tsv", sep="\t", index=False)
    with pytest.raises(ValueError, match="not a Snakemake benchmark file"):
        costs.read_benchmarks(tmp_path)


def test_costs_prefer_the_cpu_of_the_jobs_logs(tmp_path, capsys):
    """A job's log ends with runtime.job's done record: its CPU replaces the benchmark's
    sampled figure (which misses the CPU after Snakemake's last 30-s sample)."""
    from graphdr.pipeline import runtime

    bench, logs, rules = tmp_path / "benchmarks", tmp_path / "logs", tmp_path / "rules"
    rules.mkdir()
    (rules / "paper_akda.smk").write_text("rule run_akda_group:\n    input: 'a'\n")
    _bench(bench / "run_akda_group/usps/10Ex.tsv", 100.0, 300.0, 75.0)
    _bench(bench / "run_akda_group/coil20/10Ex.tsv", 10.0, 300.0, 9.0)
    done = runtime.USAGE_FORMAT.format(cpu=99.5, user=98.0, system=1.5, rss=300)
    (logs / "run_akda_group/usps").mkdir(parents=True)
    (logs / "run_akda_group/usps/10Ex.log").write_text(
        "2026-11-27 10:00:00,000 INFO graphdr.pipeline: rule run_akda_group\n"
        f"2026-11-27 10:01:40,000 INFO graphdr.pipeline: done: {done}\n"
    )
    (logs / "run_akda_group/coil20").mkdir(parents=True)
    (logs / "run_akda_group/coil20/10Ex.log").write_text("... ERROR graphdr.pipeline: job failed\n")
    assert costs.read_job_logs(logs) == {("run_akda_group", "usps/10Ex"): 99.5}
    jobs = costs.with_log_cpu(costs.read_benchmarks(bench), costs.read_job_logs(logs))
    by_job = jobs.set_index("job")
    assert by_job.loc["usps/10Ex", ["cpu_s", "cpu_from"]].tolist() == [99.5, "log"]
    assert by_job.loc["coil20/10Ex", ["cpu_s", "cpu_from"]].tolist() == [9.0, "benchmark"]
    assert costs.main([str(bench), "--rules", str(rules), "--logs", str(logs)]) == 0
    out = capsys.readouterr().out
    assert "total: 2 jobs, 108 CPU-s" in out and "logs for 1 of 2 jobs" in out


def test_job_done_record_states_this_process_cpu(tmp_path):
    """runtime.process_usage is getrusage's user + system time: it grows with work done."""
    import re
    import resource

    from graphdr.pipeline import runtime

    text = runtime.process_usage()
    cpu = float(re.match(r"([0-9.]+) CPU-s", text).group(1))
    own = resource.getrusage(resource.RUSAGE_SELF)
    assert cpu >= own.ru_utime + own.ru_stime - 0.05
    sum(i * i for i in range(2_000_000))  # about 0.1 s of CPU
    assert float(re.match(r"([0-9.]+) CPU-s", runtime.process_usage()).group(1)) > cpu


def test_every_rule_logs_where_its_benchmark_is():
    """costs.with_log_cpu finds a job's log by its benchmark's path: ``logs/<rule>/<x>.log``
    beside ``results/benchmarks/<rule>/<x>.tsv``, in every rule of the workflow."""
    import re
    from pathlib import Path

    rules = Path(__file__).resolve().parents[1] / "workflow" / "rules"
    checked = 0
    for smk in sorted(rules.glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for name, block in re.findall(r"^rule (\w+):\n((?:    .*\n|\n)+)", text, flags=re.M):
            log = re.search(r'logs\(\s*f?"([^"]+)\.log"', block)
            bench = re.search(r'results\(\s*f?"benchmarks/([^"]+)\.tsv"', block)
            if log or bench:
                assert log and bench, f"{smk.name}: rule {name} has a log or a benchmark only"
                assert log.group(1) == bench.group(1), (smk.name, name)
                checked += 1
    assert checked >= 30
