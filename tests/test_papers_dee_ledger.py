"""Paper 003 (DEE) in the claims ledger: the results frame builder and the claims file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphdr import ledger
from graphdr.pipeline import io
from graphdr.pipeline.papers.dee import report as dee_report
from graphdr.pipeline.results import write_results

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "config" / "references" / "dee_claims.csv"
DATASETS = ("COIL20", "ORL", "Yale", "USPS")


def _optimizer_run(root: Path, name: str, objective, *, seed=0, n=30, classes=3) -> tuple:
    """A hand-made optimiser run: objective history, a 2-D embedding, per-iteration seconds."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(classes), n // classes)
    Z = rng.normal(size=(y.size, 2)) + 3.0 * np.c_[y, -y]
    E = np.asarray(objective, dtype=float)
    npz, timing = root / f"{name}.npz", root / f"{name}.timing.json"
    io.write_npz(
        npz,
        {
            "Z": Z,
            "y": y,
            "class_names": np.asarray(["a", "b", "c"][:classes]),
            "objective": E,
            "step": np.ones(E.size),
            "n_evals": np.ones(E.size, dtype=int),
            "n_iter": np.asarray(E.size - 1),
            "converged": np.asarray(True),
            "stop_message": np.asarray("test"),
        },
    )
    record = {
        "fit_seconds": 0.5 + 0.1 * E.size,
        "phases": {"setup": 0.5, "direction": 0.25, "iterations": 0.1 * E.size},
        "iteration_seconds": [0.1] * E.size,
    }
    timing.write_text(json.dumps(record))
    return npz, timing


def _recognition_run(path: Path, curve: dict, *, n_classes=4, nested=False, seeds=(0, 1)):
    rows = [
        {
            "seed": s,
            "dim": d,
            "accuracy": a / 100 + 0.01 * s,
            "n_iter": np.nan if nested else 10 + s,
            "converged": True,
            "n_classes": n_classes,
        }
        for s in seeds
        for d, a in curve.items()
    ]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_optimizer_rows_equal_accuracy_and_ratios(tmp_path):
    # LD reaches E* = 1.0 at iteration 2; FP gets within 1e-3 of it at iteration 4
    ld = _optimizer_run(tmp_path, "ld", [10.0, 2.0, 1.0])
    fp = _optimizer_run(tmp_path, "fp", [10.0, 5.0, 3.0, 1.5, 1.0005, 1.0004])
    gd = _optimizer_run(tmp_path, "gd", [10.0, 9.0])  # never gets there: one past its last
    runs = {("primary", "Toy", "LD"): ld, ("primary", "Toy", "FP"): fp}
    runs[("primary", "Toy", "GD")] = gd
    frame = dee_report.results_frame(optimizer_runs=runs, baseline="LD")
    assert list(frame.columns) == list(ledger.RESULT_COLUMNS)
    value = frame.set_index(["method", "metric"])["value"]
    assert value[("LD", "iterations_to_1e-3")] == 2
    assert value[("FP", "iterations_to_1e-3")] == 4
    assert value[("GD", "iterations_to_1e-3")] == 2  # 1 iteration run: counted as 2
    assert value[("FP", "iterations")] == 5 and value[("FP", "objective")] == 1.0004
    assert value[("FP", "log2_iterations")] == pytest.approx(np.log2(5))
    assert set(frame["study"]) == {"optimizers"} and set(frame["split"]) == {"0"}
    scores = dee_report.separation_scores(io.read_npz(ld[0])["Z"], io.read_npz(ld[0])["y"])
    assert value[("LD", "loo_1nn")] == pytest.approx(scores["loo_1nn"])
    assert not frame["metric"].str.contains("seconds").any()  # deterministic frame
    timing = dee_report.results_frame(optimizer_runs=runs, baseline="LD", timing=True)
    t = timing.set_index(["method", "metric"])["value"]
    # the optimiser's own set-up (0.25 s) + iterations 0..k (0.1 s each); shared set-up excluded
    assert t[("LD", "seconds_to_1e-3")] == pytest.approx(0.25 + 0.3)
    assert t[("FP", "seconds_to_1e-3")] == pytest.approx(0.25 + 0.5)
    assert t[("FP", "seconds_to_1e-3_ratio_ld")] == pytest.approx(0.75 / 0.55)
    assert t[("LD", "seconds_ratio_ld")] == 1.0
    assert t[("FP", "seconds_per_iteration")] == pytest.approx(0.1)


def test_recognition_rows_units_derived_metrics_and_variant(tmp_path):
    curves = {
        "DEE": ({1: 60, 2: 80, 5: 90, 10: 90}, False),
        "DSNE": ({1: 50, 2: 70, 5: 65, 10: 85}, False),
        "DCV": ({1: 55, 2: 70, 3: 82}, True),
        "MMPA": ({1: 50, 2: 72, 5: 70, 10: 91}, True),
    }
    runs = [
        ("primary", "USPS", m, _recognition_run(tmp_path / f"{m}.csv", c, nested=nested))
        for m, (c, nested) in curves.items()
    ]
    lam10 = _recognition_run(tmp_path / "lam10.csv", {1: 70, 2: 85, 5: 92, 10: 92})
    runs.append(("lam=10", "USPS", "DEE", lam10))
    frame = dee_report.results_frame(recognition_runs=runs)
    assert set(frame["variant"]) == {"primary", "lam=10"}
    # one accuracy row per (method, seed, dimension); splits are the seeds
    acc = frame[(frame["metric"] == "accuracy") & (frame["variant"] == "primary")]
    assert len(acc) == 2 * (4 + 4 + 3 + 4) and set(acc["split"]) == {"0", "1"}
    assert set(acc["classifier"]) == {"1nn"}
    v = frame.set_index(["variant", "method", "split", "metric"])["value"]
    assert v[("primary", "DEE", "1", "accuracy")].tolist() == pytest.approx([61, 81, 91, 91])
    assert v[("primary", "DCV", "0", "max_dim_minus_c1")] == 0  # 3 = C - 1
    assert v[("primary", "DCV", "1", "best_accuracy")] == pytest.approx(83)
    assert v[("primary", "DEE", "0", "near_best_dim")] == 5
    # fluctuation on the dimensions DEE, DSNE and MMPA share (DCV: its own)
    assert v[("primary", "DSNE", "0", "fluctuation")] == pytest.approx(10.0)
    assert v[("primary", "MMPA", "0", "fluctuation")] == pytest.approx(4.0)
    assert v[("primary", "DEE", "0", "mean_iterations")] == 10
    assert ("primary", "MMPA", "0", "mean_iterations") not in v.index  # nested: no iterations
    # the sensitivity variant: its own DEE, the other methods copied unchanged
    assert v[("lam=10", "DEE", "0", "best_accuracy")] == pytest.approx(92)
    assert (
        v[("lam=10", "MMPA", "0", "best_accuracy")] == v[("primary", "MMPA", "0", "best_accuracy")]
    )
    assert set(frame.loc[frame["variant"] == "lam=10", "method"]) == set(curves)
    # a grid that ends below C-1 cannot show DCV's cap: no such rows
    short = _recognition_run(tmp_path / "short.csv", {1: 60, 10: 70}, n_classes=20)
    short = dee_report.results_frame(recognition_runs=[("primary", "USPS", "DEE", short)])
    assert "max_dim_minus_c1" not in set(short["metric"])
    wide = _recognition_run(tmp_path / "wide.csv", {1: 60, 20: 70}, n_classes=4)
    wide = dee_report.results_frame(recognition_runs=[("primary", "USPS", "DEE", wide)])
    assert set(wide.loc[wide["metric"] == "max_dim_minus_c1", "value"]) == {17}


def test_visualisation_rows_and_written_bytes(tmp_path):
    rng = np.random.default_rng(1)
    paths = []
    for m in ("DEE", "t-SNE"):
        path = tmp_path / f"{m}.npz"
        y = np.repeat(np.arange(3), 10)
        io.write_npz(
            path, {"Z": rng.normal(size=(30, 2)), "y": y, "class_names": np.asarray(list("abc"))}
        )
        paths.append(("primary", "Yale", m, path))
    frame = dee_report.results_frame(embedding_runs=paths)
    assert sorted(frame["metric"].unique()) == ["loo_1nn", "within_between"]
    assert len(frame) == 4 and set(frame["study"]) == {"visualisation"}
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    write_results(frame, first)
    write_results(dee_report.results_frame(embedding_runs=paths[::-1]), second)
    assert first.read_bytes() == second.read_bytes()  # sorted rows, fixed float format


# ---- the claims file ---------------------------------------------------------------------------


def test_every_claim_parses():
    claims = ledger.read_claims(CLAIMS)
    assert len(claims) >= 30 and {c.paper for c in claims} == {"dee"}
    assert {c.study for c in claims} == {"optimizers", "recognition", "visualisation"}
    columns = pd.read_csv(CLAIMS, nrows=0).columns.tolist()
    from graphdr.ledger.engine import CLAIM_COLUMNS

    assert columns == list(CLAIM_COLUMNS)


@pytest.fixture(scope="module")
def full_shape_frame(tmp_path_factory):
    """Hand-made runs of every study on the paper's four datasets, through the builder."""
    root = tmp_path_factory.mktemp("dee_ledger")
    rng = np.random.default_rng(0)
    optimizer_runs = {}
    for d in DATASETS:
        for i, o in enumerate(("LD", "FP", "CG", "GD")):
            E = 1.0 + np.geomspace(10.0, 1e-4 * (i + 1), 5 + 10 * i)
            optimizer_runs[("primary", d, o)] = _optimizer_run(root, f"{d}_{o}", E, seed=i)
    recognition = []
    methods = {"DEE": False, "DSNE": False, "DCV": True, "MMPA": True, "DEE_lam10": False}
    for d in DATASETS:
        for m, nested in methods.items():
            dims = (1, 2, 3) if m == "DCV" else (1, 2, 5, 10)
            curve = {k: 50 + 5 * j + rng.uniform(0, 3) for j, k in enumerate(dims)}
            path = _recognition_run(root / f"{d}_{m}.csv", curve, nested=nested, seeds=range(6))
            if m == "DEE_lam10":
                recognition.append(("lam=10", d, "DEE", path))
            else:
                recognition.append(("primary", d, m, path))
    embeddings = []
    for d in DATASETS:
        for m in ("DEE", "DSNE", "EE", "t-SNE", "DCV", "LFDA", "MMPA"):
            path = root / f"{d}_{m}.npz"
            y = np.repeat(np.arange(3), 10)
            Z = rng.normal(size=(30, 2)) + rng.uniform(0, 4) * np.c_[y, y]
            io.write_npz(path, {"Z": Z, "y": y, "class_names": np.asarray(list("abc"))})
            embeddings.append(("primary", d, m, path))
    kwargs = {
        "optimizer_runs": optimizer_runs,
        "baseline": "LD",
        "recognition_runs": recognition,
        "embedding_runs": embeddings,
    }
    files = {}
    for timing in (False, True):
        path = root / f"results{'_timing' if timing else ''}.csv"
        write_results(dee_report.results_frame(**kwargs, timing=timing), path)
        files["timing" if timing else "results"] = path
    return files


def test_every_checked_claim_selects_data(full_shape_frame, tmp_path):
    from graphdr.pipeline.claims import judge_paper

    verdicts = judge_paper(
        paper="dee",
        claims=CLAIMS,
        results=full_shape_frame["results"],
        timing=full_shape_frame["timing"],
        csv_output=tmp_path / "v.csv",
        md_output=tmp_path / "v.md",
        title="test",
    )
    claims = {c.claim: c for c in ledger.read_claims(CLAIMS)}
    primary = verdicts[verdicts["variant"] == "primary"].set_index("claim")
    assert list(primary.index) == list(claims)
    for name, claim in claims.items():
        verdict = primary.loc[name, "verdict"]
        if claim.status == "check":
            assert verdict != "not checked", (name, primary.loc[name, "evidence"])
        else:
            assert verdict == "not checked"
    # the recognition claims are also judged on the lambda = 10 variant
    lam10 = set(verdicts.loc[verdicts["variant"] == "lam=10", "claim"])
    recognition = {n for n, c in claims.items() if c.study == "recognition" and c.status == "check"}
    assert lam10 == recognition


def test_deterministic_frame_leaves_the_timing_claims_unjudged(full_shape_frame, tmp_path):
    from graphdr.pipeline import claims as pipeline_claims

    verdicts = pipeline_claims.judge_paper(
        paper="dee",
        claims=CLAIMS,
        results=full_shape_frame["results"],
        csv_output=tmp_path / "v.csv",
        md_output=tmp_path / "v.md",
        title="test",
    )
    timed = {
        c.claim for c in ledger.read_claims(CLAIMS) if c.status == "check" and "seconds" in c.metric
    }
    assert timed  # the paper's claims on times
    primary = verdicts[verdicts["variant"] == "primary"].set_index("claim")["verdict"]
    assert (primary[sorted(timed)] == "not checked").all()
    assert (primary.drop(sorted(timed)) != "not checked").sum() > 20


def test_multi_start_runs_give_one_split_per_start_and_a_per_start_best(tmp_path):
    from graphdr import datasets
    from graphdr.methods import DEE
    from graphdr.pipeline.papers.dee import optimisers as dee_optimisers

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 12)
    X = rng.normal(size=(y.size, 5)) + 3.0 * np.eye(5)[y]
    prepared = tmp_path / "toy.npz"
    datasets.save_npz(datasets.Dataset(name="toy", X=X, y=y, class_names=list("abc")), prepared)
    params = {"n_components": 2, "max_iter": 200, "random_state": 3, "tol": 1e-9}
    runs = {}
    for o in ("ld", "gd"):
        paths = (tmp_path / f"{o}.npz", tmp_path / f"{o}.timing.json")
        dee_optimisers.optimizer_run(
            prepared, estimator="DEE", params=params, optimizer=o, result_path=paths[0],
            timing_path=paths[1], starts=3,
        )  # fmt: skip
        runs[("primary", "Toy", o.upper())] = paths
    records = dee_optimisers.start_records(dee_report.read_run(*runs[("primary", "Toy", "GD")]))
    assert [r["seed"] for r in records] == [3, 4, 5]
    # each start is the plain fit with that seed
    for r in records:
        ref = DEE(**(params | {"optimizer": "gd", "random_state": r["seed"]})).fit(X, y)
        np.testing.assert_array_equal(r["objective"], ref.history_["objective"])
        assert len(r["timing"]["iteration_seconds"]) == ref.n_iter_ + 1
    frame = dee_report.results_frame(optimizer_runs=runs, baseline="LD")
    assert set(frame["split"]) == {"3", "4", "5"}
    v = frame.set_index(["method", "split", "metric"])["value"]
    for seed in ("3", "4", "5"):
        E = {
            o: dee_optimisers.start_records(dee_report.read_run(*runs[("primary", "Toy", o)]))[
                int(seed) - 3
            ]["objective"]
            for o in ("LD", "GD")
        }
        best = min(e.min() for e in E.values())
        for o, e in E.items():
            k = int(v[(o, seed, "iterations_to_1e-4")])
            assert e[k] - best <= 1e-4 * abs(best) and (k == 0 or e[k - 1] - best > 1e-4 * best)
    with pytest.raises(ValueError, match="starts must be an integer >= 1"):
        dee_optimisers.optimizer_run(
            prepared, estimator="DEE", params=params, optimizer="ld",
            result_path=tmp_path / "x.npz", timing_path=tmp_path / "x.json", starts=0,
        )  # fmt: skip
    timing = dee_report.results_frame(optimizer_runs=runs, baseline="LD", timing=True)
    table = dee_report.equal_accuracy_table(frame, timing)
    assert list(table["optimiser"]) == ["GD", "LD"] or set(table["optimiser"]) == {"GD", "LD"}
    assert (table["starts"] == 3).all()
    assert table["iterations_to_1e-3"].str.match(r"^\d+ \[\d+-\d+\]").all()


def test_visualisation_variant_copies_the_unchanged_methods(tmp_path):
    rng = np.random.default_rng(2)
    y = np.repeat(np.arange(3), 10)
    runs = []
    for variant, m in (("primary", "DEE"), ("primary", "t-SNE"), ("pca=100", "DEE")):
        path = tmp_path / f"{variant}_{m}.npz"
        io.write_npz(
            path, {"Z": rng.normal(size=(30, 2)), "y": y, "class_names": np.asarray(list("abc"))}
        )
        runs.append((variant, "Yale", m, path))
    frame = dee_report.results_frame(embedding_runs=runs)
    v = frame.set_index(["variant", "method", "metric"])["value"]
    assert set(frame["variant"]) == {"primary", "pca=100"}
    # the variant's own DEE, and t-SNE copied from the primary run
    assert v[("pca=100", "t-SNE", "loo_1nn")] == v[("primary", "t-SNE", "loo_1nn")]
    assert v[("pca=100", "DEE", "loo_1nn")] == pytest.approx(
        dee_report.separation_scores(io.read_npz(runs[2][3])["Z"], y)["loo_1nn"]
    )
    assert len(frame) == 8  # 2 metrics x (2 primary + 2 variant) rows
