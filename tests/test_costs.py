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
        "rule akda_run:\n    input: 'a'\n\n# rule in_a_comment:\nif True:\n\n    rule akda_group:\n"
    )
    (rules / "datasets.smk").write_text("rule prepare_dataset:\n    output: 'x'\n")
    bench = tmp_path / "benchmarks"
    _bench(bench / "akda_group/usps/10Ex.tsv", 10.0, 300.0, 9.0)
    _bench(bench / "akda_group/coil20/100Ex.tsv", 30.0, 700.0, 29.0)
    _bench(bench / "akda_run/usps/10Ex/LDA.tsv", 2.0, 150.0, 1.5, repeats=3)  # the last line
    _bench(bench / "prepare_dataset/usps.tsv", 4.0, 120.0, 3.0)
    _bench(bench / "orphan/x.tsv", 1.0, 10.0, 1.0)

    parts = costs.rule_parts(rules)
    assert parts == {"akda_group": "akda", "akda_run": "akda", "prepare_dataset": "datasets"}
    jobs = costs.read_benchmarks(bench)
    assert len(jobs) == 5
    run = jobs[jobs["rule"] == "akda_run"].iloc[0]
    assert (run["job"], run["wall_s"], run["cpu_s"]) == ("usps/10Ex/LDA", 6.0, 4.5)

    per_rule, per_part = costs.summarise(jobs, parts)
    group = per_rule[per_rule["rule"] == "akda_group"].iloc[0]
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
