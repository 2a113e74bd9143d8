"""Paper 003 (DEE) workflow stages: optimiser runs, their figures and tables, the config plan."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from graphdr import datasets
from graphdr.methods import DEE
from graphdr.pipeline import io, plan
from graphdr.pipeline.papers import dee, dee_runs

PARAMS = {"n_components": 2, "max_iter": 40, "random_state": 0}
OPTIMIZERS = {"ld": "LD", "fp": "FP", "gd": "GD"}


def toy_dataset(seed=0) -> datasets.Dataset:
    """Three Gaussian classes in 6-D, class means along the first two axes."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), [15, 12, 10])
    means = np.array([[0, 0], [3, 0], [0, 3]], dtype=float)
    X = rng.normal(size=(y.size, 6))
    X[:, :2] += means[y]
    return datasets.Dataset(name="toy", X=X, y=y, class_names=["a", "b", "c"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One run per optimiser on the toy set: {label: (npz, timing json)}."""
    root = tmp_path_factory.mktemp("dee")
    prepared = root / "toy.npz"
    datasets.save_npz(toy_dataset(), prepared)
    out = {}
    for opt, label in OPTIMIZERS.items():
        paths = (root / f"{opt}.npz", root / f"{opt}.timing.json")
        dee_runs.optimizer_run(
            prepared,
            estimator="DEE",
            params=PARAMS,
            optimizer=opt,
            result_path=paths[0],
            timing_path=paths[1],
        )
        out[label] = paths
    return out


def test_run_records_the_direct_fit(runs):
    data = toy_dataset()
    ref = DEE(**PARAMS, optimizer="fp").fit(data.X, data.y)
    run = dee.read_run(*runs["FP"])
    np.testing.assert_array_equal(run["Z"], ref.transform(data.X))
    np.testing.assert_array_equal(run["objective"], ref.history_["objective"])
    np.testing.assert_array_equal(run["y"], data.y)
    assert int(run["n_iter"]) == ref.n_iter_ and bool(run["converged"]) == ref.converged_
    # the objective never increases (line search) and the record starts at iteration 0
    assert run["objective"].size == ref.n_iter_ + 1
    assert np.all(np.diff(run["objective"]) <= 1e-12 * abs(run["objective"][0]))
    timing = run["timing"]
    assert len(timing["iteration_seconds"]) == ref.n_iter_ + 1
    assert set(timing["phases"]) == set(ref.timings_) and timing["fit_seconds"] > 0


def test_run_file_is_deterministic_and_timing_is_separate(runs, tmp_path):
    prepared = tmp_path / "toy.npz"
    datasets.save_npz(toy_dataset(), prepared)
    again = (tmp_path / "ld.npz", tmp_path / "ld.timing.json")
    dee_runs.optimizer_run(
        prepared,
        estimator="DEE",
        params=PARAMS,
        optimizer="ld",
        result_path=again[0],
        timing_path=again[1],
    )
    assert again[0].read_bytes() == runs["LD"][0].read_bytes()
    assert not any("time" in key for key in io.read_npz(again[0]))  # no measurement in the npz
    assert dee_runs.is_timing_output(again[1]) and not dee_runs.is_timing_output(again[0])
    assert dee_runs.is_timing_output("paper_figures/dee/x_objective_timing.png")


def test_tables_against_paper(runs, tmp_path):
    reference = tmp_path / "ref.csv"
    pd.DataFrame(
        {
            "table": ["iterations", "times_baseline"],
            "row": ["LD", "FP"],
            "column": ["Toy", "Toy"],
            "value": [13, 38],
        }
    ).to_csv(reference, index=False)
    shown = dee.optimizer_tables(
        {("Toy", label): paths for label, paths in runs.items()},
        reference=reference,
        baseline="LD",
        iterations_stem=tmp_path / "it",
        objective_stem=tmp_path / "obj",
        timing_stem=tmp_path / "timing",
        long_output=tmp_path / "long.csv",
        claims_output=tmp_path / "claims_timing.md",
    )
    long = pd.read_csv(tmp_path / "long.csv")
    for label, paths in runs.items():
        run = dee.read_run(*paths)
        row = long[long["optimizer"] == label].iloc[0]
        assert row["iterations"] == int(run["n_iter"])
        assert row["objective"] == pytest.approx(float(run["objective"][-1]), rel=1e-15)
    it = shown["iterations"]
    assert list(it["optimiser"][it["optimiser"] != ""]) == ["LD", "FP", "GD"]
    ld = it.index[it["optimiser"] == "LD"][0]
    n_ld = int(dee.read_run(*runs["LD"])["n_iter"])
    assert list(it.loc[ld : ld + 2, "Toy"]) == ["13", str(n_ld), f"{n_ld - 13:+d}"]
    assert it.loc[ld + 3, "Toy"] == dee.NOT_REPORTED  # FP iterations: not in the paper
    timing = shown["timing"]
    # the baseline's ratio to itself is 1; FP's ratio is compared with the paper's 38
    assert timing.loc[ld + 1, "Toy (x LD)"] == "1.00"
    assert timing.loc[ld + 3, "Toy (x LD)"] == "38.00"
    assert (tmp_path / "timing.md").read_text().count("not reported in the paper") > 0
    claims = (tmp_path / "claims_timing.md").read_text()
    fewest = min(runs, key=lambda k: int(dee.read_run(*runs[k])["n_iter"]))
    verdict = "reproduced on 1/1" if fewest == "LD" else "not reproduced on 0/1"
    assert f"LD needs the fewest iterations: {verdict}" in claims
    assert f"Toy, LD iterations: paper 13, ours {n_ld}" in claims
    objective = pd.read_csv(tmp_path / "obj.csv")
    assert list(objective.columns) == ["optimiser", "Toy"] and len(objective) == 3


def test_figures_deterministic_except_timing(runs, tmp_path):
    stems = {k: tmp_path / k for k in ("emb", "obj", "obj_timing")}
    kwargs = dict(
        dataset="Toy",
        embeddings_stem=stems["emb"],
        objective_stem=stems["obj"],
        timing_stem=stems["obj_timing"],
    )
    dee.plot_optimizer_study(runs, **kwargs)
    first = {k: (v.with_suffix(".png")).read_bytes() for k, v in stems.items()}
    dee.plot_optimizer_study(runs, **kwargs)
    for key in ("emb", "obj"):
        assert stems[key].with_suffix(".png").read_bytes() == first[key]
        assert stems[key].with_suffix(".pdf").read_bytes().startswith(b"%PDF")
    assert first["obj_timing"].startswith(b"\x89PNG")


def test_elapsed_time_adds_setup_before_iterations():
    timing = {
        "phases": {"setup": 0.5, "direction": 0.25, "iterations": 3.0},
        "iteration_seconds": [0.0, 1.0, 2.0],
    }
    np.testing.assert_allclose(dee._elapsed(timing), [0.75, 1.75, 3.75])


def test_study_plan_and_checks():
    config = {
        "datasets": {"a": {"source": "x"}, "b": {"source": "y"}},
        "experiments": {},
        "optimizer_studies": {
            "s": {
                "paper": "p",
                "datasets": ["a", "b"],
                "estimator": "DEE",
                "optimizers": {"ld": "LD", "fp": "FP"},
                "baseline": "ld",
                "reference": "r.csv",
            }
        },
    }
    jobs = plan.optimizer_study_outputs(config)
    assert jobs[0] == {"kind": "tables", "paper": "p", "study": "s"}
    assert [j.get("dataset") for j in jobs[1:]] == ["a", "b"]
    plan.check_config(config)
    bad = json.loads(json.dumps(config))
    study = bad["optimizer_studies"]["s"]
    study |= {"datasets": ["a", "zz"], "baseline": "cg", "params": {"optimizer": "gd"}}
    with pytest.raises(ValueError) as err:
        plan.check_config(bad)
    for fragment in ("'zz' is not in datasets", "'cg' is not one of", "not in params"):
        assert fragment in str(err.value)
