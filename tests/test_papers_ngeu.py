"""Paper 004 (NGEU) pipeline: the nested-dimension grid, selection, per-sample test
correctness, tables, the results frame of the claims ledger, the claims file, Figure 3.

References are independent: the grid and the per-sample correctness against a brute-force refit
at every dimension, the toy directions against Fisher's closed form, the claims file by judging it
on a frame of the right shape. The tasks' split kinds are tested with the shared reader
(tests/test_pipeline.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import KNeighborsClassifier

from graphdr import ledger
from graphdr.methods import KDA_NGEU, KMFA_NGEU, KPCA_NGEU, LDA_GEU, MFA_GEU, PCA_GEU
from graphdr.pipeline import splits as split_files
from graphdr.pipeline.papers.ngeu import protocol as ngeu
from graphdr.pipeline.papers.ngeu import report as ngeu_report
from graphdr.pipeline.results import write_results


def _split(y, spec):
    """One fold of a shared split spec (graphdr.pipeline.splits) on labels alone."""
    (fold,) = split_files.split_indices(SimpleNamespace(y=y, split=None, name="test"), spec)
    return fold


def _blobs(n_per_class=12, n_classes=4, d=6, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = rng.normal(size=(y.size, d)) + 2.0 * rng.normal(size=(n_classes, d))[y]
    return X, y


# ---- one fit per grid point, every dimension read from it -------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda n: KDA_NGEU(n, kernel="rbf", gamma=0.1, uncertainty=None),
        lambda n: KMFA_NGEU(n, kernel="poly", gamma=0.2, uncertainty=None, k1=3, k2=5),
        lambda n: KPCA_NGEU(n, kernel="rbf", gamma=0.1, uncertainty=None),
        lambda n: LDA_GEU(n, uncertainty=None),
        lambda n: MFA_GEU(n, uncertainty=None, k1=3, k2=5),
        lambda n: PCA_GEU(n, uncertainty=None),
    ],
)
def test_leading_columns_of_the_largest_fit_equal_a_refit_at_that_dimension(make):
    X, y = _blobs()
    v = 0.05 * np.random.default_rng(1).uniform(0.5, 1.5, X.shape[0])
    Z = make(3).fit(X, y, sample_variance=v).transform(X)
    for d in (1, 2):
        Zd = make(d).fit(X, y, sample_variance=v).transform(X)
        np.testing.assert_allclose(Z[:, :d], Zd, rtol=1e-6, atol=1e-8 * np.abs(Zd).max())


def _brute_force(method, grid, X, y, fold, nn, dims):
    """Every (grid point, dim) refitted from scratch at that dimension."""
    rows = []
    tr = fold["train"]
    for g, point in enumerate(ngeu.method_grid(method, grid, X[tr])):
        variance = point["beta"] ** 2 * nn if "beta" in point else None
        for d in dims:
            model = ngeu._estimator(method, point, d)
            model.fit(X[tr], y[tr], **({} if variance is None else {"sample_variance": variance}))
            clf = KNeighborsClassifier(1).fit(model.transform(X[tr]), y[tr])
            acc = {
                f"{p}_accuracy": float(
                    np.mean(clf.predict(model.transform(X[fold[p]])) == y[fold[p]])
                )
                for p in ("val", "test")
            }
            rows.append({"point": g, "dim": d} | acc)
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("KDA_NGEU", {"estimator": "KDA_NGEU", "label": "KDA", "uncertainty": "nn"}),
        ("KMFA_GE", {"estimator": "KMFA_GE", "label": "KMFA", "params": {"k1": 3, "k2": 5}}),
        ("KPCA_NGEU_N", {"estimator": "KPCA_NGEU", "label": "KPCA-N", "uncertainty": "constant"}),
        # a method's own grids: fastSDA's subclasses, an uncertainty-width grid of its own
        (
            "fastSDA",  # orthonormalised directions: not nested either
            {
                "estimator": "FastSDA",
                "label": "fastSDA",
                "grid": {"n_subclasses": [2, 3]},
                "nested": False,
                "dims": [2, 3],
                "params": {"random_state": 0},
            },
        ),
        (
            "KDA_NGEU_b",
            {"estimator": "KDA_NGEU", "label": "KDA", "uncertainty": "nn", "beta": [0.5]},
        ),
        # iterative baselines, not nested in the dimension: one fit per dimension
        (
            "TRPCA",
            {
                "estimator": "TRPCA",
                "label": "TRPCA",
                "family": "linear",
                "nested": False,
                "dims": [1, 3],
                "params": {"n_init": 2, "random_state": 0},
            },
        ),
        (
            "RSLDA",
            {
                "estimator": "RSLDA",
                "label": "RSLDA",
                "family": "linear",
                "nested": False,
                "dims": [2, 3],
                "grid": {"lambda1": [1e-4, 1e-2]},
                "params": {"max_iter": 300},
            },
        ),
    ],
)
def test_grid_scores_and_selection_equal_a_brute_force_refit(name, method):
    X, y = _blobs(n_per_class=15)
    fold = _split(y, {"kind": "sequential", "train": 32, "val": 14, "test": 14})
    grid = {
        "kernels": ["linear", "rbf"],
        "gamma_scale": [0.5, 2.0],
        "coef0": 1.0,
        "beta": [0.02, 0.2],
        "s0": [0.01, 0.3],
        "dims": [1, 2, 4],
    }
    d2 = ngeu.estimate_nn_sq_distances(X[fold["train"]], y[fold["train"]])
    nn = {"nn0": d2["nn"], "nn_supervised0": d2["nn_supervised"]}
    rows, samples, cost = ngeu._method_rows(name, method, grid, X, y, [fold], nn, k=1, seed=0)
    ours = pd.DataFrame(rows)
    dims = ngeu._dimension_grid(method, grid, 4)
    reference = _brute_force(method, grid, X, y, fold, nn["nn0"], dims)
    merged = reference.merge(ours, on=["point", "dim"], suffixes=("_ref", ""))
    assert len(merged) == len(reference) == len(ours)
    np.testing.assert_array_equal(merged["val_accuracy"], merged["val_accuracy_ref"])
    np.testing.assert_array_equal(merged["test_accuracy"], merged["test_accuracy_ref"])
    n_points = len(ngeu.method_grid(method, grid, X[fold["train"]]))
    if method.get("nested", True):
        assert cost["fits"] == n_points  # one fit per model-changing grid point
    else:
        assert cost["fits"] == n_points * len(dims)  # and per dimension
    assert cost["grid_cells"] == n_points * len(dims)
    if "GE" in method["estimator"]:
        # shared across the dimensions: the same count with a one-dimension grid
        _, _, cost_1 = ngeu._method_rows(
            name, method, dict(grid, dims=[1]), X, y, [fold], nn, k=1, seed=0
        )
        assert 0 < cost["eigendecompositions"] == cost_1["eigendecompositions"]
    # selection: the best validation accuracy, ties to the first grid point then the smaller dim
    chosen = ngeu_report.select(ours.assign(method=name, fold=0)).iloc[0]
    best = reference[reference["val_accuracy"] == reference["val_accuracy"].max()]
    best = best.sort_values(["point", "dim"]).iloc[0]
    assert (chosen["point"], chosen["dim"]) == (best["point"], best["dim"])
    # per-sample test correctness of the selected model: overall, and with each kernel fixed
    points = ngeu.method_grid(method, grid, X[fold["train"]])
    per = pd.concat(samples, ignore_index=True)
    kernels = sorted({p["kernel"] for p in points if "kernel" in p})
    assert set(per["variant"]) == {"primary"} | {f"kernel={k}" for k in kernels}
    for variant, part in per.groupby("variant"):
        ref = reference
        if variant != "primary":
            kernel = variant.removeprefix("kernel=")
            ref = ref[[points[g].get("kernel") == kernel for g in ref["point"]]]
        top = ref[ref["val_accuracy"] == ref["val_accuracy"].max()].sort_values(["point", "dim"])
        g, d = int(top.iloc[0]["point"]), int(top.iloc[0]["dim"])
        np.testing.assert_array_equal(part["sample"], fold["test"])
        np.testing.assert_array_equal(
            part["correct"], _refit_correct(method, points[g], X, y, fold, nn["nn0"], d)
        )
        assert part["correct"].mean() == top.iloc[0]["test_accuracy"]


def _refit_correct(method, point, X, y, fold, nn, dim):
    """1/0 per test sample of one grid cell refitted from scratch at its dimension."""
    tr, te = fold["train"], fold["test"]
    variance = point["beta"] ** 2 * nn if "beta" in point else None
    model = ngeu._estimator(method, point, dim)
    model.fit(X[tr], y[tr], **({} if variance is None else {"sample_variance": variance}))
    clf = KNeighborsClassifier(1).fit(model.transform(X[tr]), y[tr])
    return (clf.predict(model.transform(X[te])) == y[te]).astype(int)


def test_raw_baselines_keep_their_test_predictions():
    X, y = _blobs(n_per_class=15)
    fold = _split(y, {"kind": "sequential", "train": 32, "val": 14, "test": 14})
    method, grid = {"estimator": "svm"}, {"svm_C": [0.01, 10.0]}
    rows, samples, cost = ngeu._method_rows("svm", method, grid, X, y, [fold], {}, k=1, seed=0)
    (part,) = samples
    assert set(part["variant"]) == {"primary"}
    chosen = ngeu.select(pd.DataFrame(rows).assign(method="svm")).iloc[0]
    from sklearn.svm import SVC

    clf = SVC(C=grid["svm_C"][int(chosen["point"])], gamma="scale")
    expected = clf.fit(X[fold["train"]], y[fold["train"]]).predict(X[fold["test"]])
    np.testing.assert_array_equal(part["correct"], (expected == y[fold["test"]]).astype(int))


def test_select_breaks_ties_by_grid_order():
    scores = pd.DataFrame(
        {
            "method": ["m"] * 4,
            "fold": [0] * 4,
            "point": [1, 0, 0, 1],
            "dim": [1, 2, 1, 2],
            "val_accuracy": [0.9, 0.9, 0.5, 0.9],
            "test_accuracy": [0.1, 0.2, 0.3, 0.4],
        }
    )
    chosen = ngeu_report.select(scores)
    assert (chosen["point"].item(), chosen["dim"].item()) == (0, 2)


# ---- tables ----------------------------------------------------------------------------------


def test_tables_compare_with_the_paper_and_mark_missing_rows(tmp_path):
    scores = pd.DataFrame(
        {
            "method": ["a", "a", "b", "b"],
            "fold": [0, 1, 0, 1],
            "point": [0, 0, 0, 0],
            "dim": [2, 2, 3, 3],
            "kernel": ["rbf", "rbf", "linear", "linear"],
            "val_accuracy": [0.5, 0.6, 0.7, 0.8],
            "test_accuracy": [0.80, 0.90, 0.60, 0.70],
        }
    )
    scores.to_csv(tmp_path / "s.csv", index=False)
    cost = {"a": {"fits": 2, "eigendecompositions": 4, "grid_cells": 2}} | {
        "b": {"fits": 2, "eigendecompositions": 2, "grid_cells": 2}
    }
    (tmp_path / "c.json").write_text(json.dumps(cost))
    reference = pd.DataFrame(
        {"row": ["A", "B", "Other"], "column": ["D"] * 3, "value": [80.0, 70.0, 50.0]}
    )
    reference.to_csv(tmp_path / "ref.csv", index=False)
    table = {"methods": ["a", "b"], "reference": str(tmp_path / "ref.csv"), "claims": [["B", "A"]]}
    out = {k: str(tmp_path / k) for k in ("table", "selected", "grid", "by_kernel")}
    out |= {"long": str(tmp_path / "long.csv")}
    tasks = {"t": {"label": "D", "scores": tmp_path / "s.csv", "cost": tmp_path / "c.json"}}
    methods = {"a": {"label": "A"}, "b": {"label": "B"}}
    ngeu_report.make_tables(tasks, table, methods, out)
    long = pd.read_csv(tmp_path / "long.csv").set_index("row")
    assert long.loc["A", "ours"] == pytest.approx(85.0)  # mean over folds
    assert long.loc["A", "ours_std"] == pytest.approx(5.0)
    assert long.loc["B", "diff"] == pytest.approx(-5.0)
    assert long.loc["Other", "status"] == "not reproduced"
    grid = pd.read_csv(tmp_path / "grid.csv")
    assert grid.iloc[-1]["eigendecompositions"] == 6
    by_kernel = pd.read_csv(tmp_path / "by_kernel.csv").set_index("method")
    assert by_kernel.loc["A", "D rbf"] == pytest.approx(85.0)
    assert by_kernel.loc["B", "D linear"] == pytest.approx(65.0)
    assert not list(tmp_path.glob("*claims*"))  # verdicts belong to the ledger


# ---- the results frame of the claims ledger --------------------------------------------------

METHODS = {
    "a": {"estimator": "KDA_NGEU", "label": "A"},
    "b": {"estimator": "KDA_GE", "label": "B"},
    "c": {"estimator": "knn", "label": "C"},
}


def _task_files(tmp_path, name, test_acc, samples):
    """Score and per-sample files of one task: ``test_acc[method]`` per fold (selected rows
    are the ones with val_accuracy 1; a worse decoy row per fold)."""
    rows = []
    for m, accs in test_acc.items():
        for f, acc in enumerate(accs):
            rows.append({"method": m, "fold": f, "point": 0, "dim": 3, "val_accuracy": 1.0})
            rows[-1]["test_accuracy"] = acc
            rows.append({"method": m, "fold": f, "point": 1, "dim": 5, "val_accuracy": 0.5})
            rows[-1]["test_accuracy"] = 0.0
    pd.DataFrame(rows).to_csv(tmp_path / f"{name}_scores.csv", index=False)
    pd.DataFrame(samples).to_csv(tmp_path / f"{name}_samples.csv", index=False)
    return {
        "scores": tmp_path / f"{name}_scores.csv",
        "samples": tmp_path / f"{name}_samples.csv",
    }


def _samples(method, variant, fold, samples, correct):
    return [
        {"method": method, "variant": variant, "fold": fold, "sample": s, "correct": c}
        for s, c in zip(samples, correct, strict=True)
    ]


def test_results_frame_has_the_ledger_units(tmp_path):
    one = _task_files(
        tmp_path,
        "one",
        {"a": [0.75], "b": [0.5], "c": [0.25]},
        _samples("a", "primary", 0, [9, 3, 5, 7], [1, 1, 0, 1])
        + _samples("a", "kernel=rbf", 0, [9, 3, 5, 7], [0, 1, 0, 1])
        + _samples("b", "primary", 0, [9, 3, 5, 7], [1, 0, 0, 1])
        + _samples("c", "primary", 0, [9, 3, 5, 7], [0, 0, 0, 1])
        # a sensitivity copy of "a" (another diagonal), its own selection and kernel=rbf
        + _samples("a@diagonal=mean_embedding", "primary", 0, [9, 3, 5, 7], [0, 0, 0, 1])
        + _samples("a@diagonal=mean_embedding", "kernel=rbf", 0, [9, 3, 5, 7], [1, 0, 0, 1])
        # a copy of a row no claim pair compares (RSLDA under the authors' demo settings)
        + _samples("c@demo=authors", "primary", 0, [9, 3, 5, 7], [1, 1, 0, 1]),
    )
    cv = _task_files(
        tmp_path,
        "cv",
        {"a": [0.5, 1.0], "b": [0.5, 0.5], "c": [1.0, 1.0]},
        _samples("a", "primary", 0, [0, 2], [1, 0])
        + _samples("a", "primary", 1, [1, 3], [1, 1])
        + _samples("b", "primary", 0, [0, 2], [0, 1])
        + _samples("b", "primary", 1, [1, 3], [1, 0])
        + _samples("a@diagonal=mean_embedding", "primary", 0, [0, 2], [0, 0])
        + _samples("a@diagonal=mean_embedding", "primary", 1, [1, 3], [1, 0]),
    )
    table = {"methods": ["a", "b", "c"], "claims": [["B", "A"]]}
    tables = {
        "table1": {"table": table, "tasks": {"one": one | {"label": "D1"}}},
        "table2": {"table": table, "tasks": {"cv": cv | {"label": "D2"}}},
    }
    toy = tmp_path / "toy.json"
    runs = {
        "regularized": {"angle_degrees": {"LDA": 2.5, "MFA": 30.0}, "directions": {}},
        "positive": {"angle_degrees": {"LDA": 3.0, "MFA": 15.0}, "directions": {}},
    }
    # the record's keys come back sorted: "solver" names the primary run's rule
    toy.write_text(json.dumps(runs["regularized"] | {"solver": "regularized", "solvers": runs}))
    variants = {"diagonal=mean_embedding": {"params": {"diagonal": "mean_embedding"}}}
    frame = ngeu_report.results_frame(tables, METHODS, toy, variants)
    assert tuple(frame.columns) == ledger.RESULT_COLUMNS
    ledger.check_results(frame)
    assert set(frame["paper"]) == {"ngeu"}

    def pick(**kw):
        mask = np.ones(len(frame), bool)
        for k, v in kw.items():
            mask &= frame[k] == v
        return frame[mask]

    # accuracy (%): one row per fold for every method, the selected model's dimension
    acc = pick(study="table2", metric="accuracy", method="A", variant="primary")
    assert list(acc["split"]) == ["0", "1"] and list(acc["value"]) == [50.0, 100.0]
    assert set(acc["dimension"]) == {"3"}
    c = pick(study="table1", metric="accuracy", method="C", variant="primary")
    assert c["value"].item() == 25.0 and c["classifier"].item() == "knn"
    # fold_std only where there are several folds (ddof 0, as in the tables)
    assert pick(study="table2", metric="fold_std", method="A")["value"].item() == 25.0
    assert pick(study="table1", metric="fold_std").empty
    # per-sample correctness only for the methods the claims compare; split = the sample's row
    correct = pick(study="table1", metric="correct")
    assert set(correct["method"]) == {"A", "B"}
    a = pick(study="table1", metric="correct", method="A", variant="primary")
    assert list(a["split"]) == ["3", "5", "7", "9"]  # sorted by sample
    assert list(a["value"]) == [1.0, 0.0, 1.0, 1.0]
    # the sensitivity copy under its variant; "b" (GE: no diagonal) keeps its rows under it
    assert set(correct["variant"]) == {
        "primary",
        "kernel=rbf",
        "diagonal=mean_embedding",
        "diagonal=mean_embedding+kernel=rbf",
    }
    assert set(
        pick(study="table1", metric="correct", variant="diagonal=mean_embedding")["method"]
    ) == {
        "A",
        "B",
    }
    b_copy = pick(study="table1", metric="correct", method="B", variant="diagonal=mean_embedding")
    assert list(b_copy["value"]) == [0.0, 0.0, 1.0, 1.0]  # b's primary rows, by sample
    # several splits: the claims use the per-split accuracies; no per-sample rows
    assert pick(study="table2", metric="correct").empty
    # the sensitivity variants' per-split accuracy, from the same per-sample rows
    variant = pick(study="table1", metric="accuracy", method="A", variant="kernel=rbf")
    assert list(variant["split"]) == ["0"] and variant["value"].item() == 50.0
    variant = pick(study="table1", metric="accuracy", method="A", variant="diagonal=mean_embedding")
    assert variant["value"].item() == 25.0
    variant = pick(study="table2", metric="accuracy", method="A", variant="diagonal=mean_embedding")
    assert list(variant["split"]) == ["0", "1"] and list(variant["value"]) == [0.0, 50.0]
    copied = pick(study="table2", metric="accuracy", method="B", variant="diagonal=mean_embedding")
    assert list(copied["value"]) == [50.0, 50.0]
    # a copy of an unpaired row: its accuracy under its variant, as run (its number claims are
    # judged there), no per-sample rows, and no other method copied into that variant
    demo = frame[frame["variant"] == "demo=authors"]
    assert list(zip(demo["method"], demo["metric"], demo["value"], strict=True)) == [
        ("C", "accuracy", 75.0)
    ]
    # a setting the baseline has (KDA_GE's solver rule): not re-run, so not judged there
    other = {"diagonal=mean_embedding": {"params": {"solver": "positive"}}}
    frame2 = ngeu_report.results_frame(tables, METHODS, toy, other)
    under = frame2[frame2["variant"] == "diagonal=mean_embedding"]
    assert set(under["method"]) == {"A"}
    # Figure 3's angles, under both solver rules
    toy_rows = pick(study="figure3", variant="primary")
    assert list(toy_rows["method"]) == ["LDA", "MFA"] and list(toy_rows["value"]) == [2.5, 30.0]
    toy_rows = pick(study="figure3", variant="solver=positive")
    assert list(toy_rows["value"]) == [3.0, 15.0]
    # deterministic bytes
    path1, path2 = tmp_path / "r1.csv", tmp_path / "r2.csv"
    write_results(frame, path1)
    write_results(ngeu_report.results_frame(tables, METHODS, toy, variants), path2)
    assert path1.read_bytes() == path2.read_bytes()
    back = pd.read_csv(path1, dtype={"split": str, "dimension": str}, keep_default_na=False)
    pd.testing.assert_series_equal(back["value"], frame["value"], check_names=False)
    # runs written before the per-sample output: accuracy rows only
    tables["table1"]["tasks"]["one"]["samples"] = None
    older = ngeu_report.results_frame(tables, METHODS)
    assert older[(older["study"] == "table1") & (older["metric"] == "correct")].empty
    assert not older[(older["study"] == "table1") & (older["metric"] == "accuracy")].empty


def test_a_sensitivity_run_of_a_table_goes_in_under_its_variant_with_the_other_datasets(tmp_path):
    """A table with ``variant_of`` (Table I's USPS at 2000 training images): its own primary
    selection goes in as the study's rows under the variant (its kernel-fixed selections do
    not), the study's primary rows of the other datasets are copied under it, and a method it
    did not run stays absent there (its claims are then not judged on the variant)."""
    correct = [1, 0, 1, 1]
    coil = _task_files(
        tmp_path,
        "coil",
        {"a": [0.75], "b": [0.5], "c": [0.25]},
        _samples("a", "primary", 0, [0, 1, 2, 3], correct)
        + _samples("b", "primary", 0, [0, 1, 2, 3], [1, 0, 0, 1]),
    )
    usps = _task_files(
        tmp_path,
        "usps",
        {"a": [0.6, 0.7], "b": [0.6, 0.6], "c": [0.9, 0.9]},
        _samples("a", "primary", 0, [4, 5], [1, 0]) + _samples("b", "primary", 0, [4, 5], [1, 1]),
    )
    small = _task_files(
        tmp_path,
        "usps_small",
        {"a": [0.9, 0.8], "b": [0.7, 0.6]},
        _samples("a", "primary", 0, [4, 5], [1, 1])
        + _samples("a", "primary", 1, [4, 5], [1, 0])
        + _samples("a", "kernel=rbf", 0, [4, 5], [0, 0])
        + _samples("b", "primary", 0, [4, 5], [1, 0])
        + _samples("b", "primary", 1, [4, 5], [1, 0]),
    )
    table = {"methods": ["a", "b", "c"], "claims": [["B", "A"]]}
    rerun = {"methods": ["a", "b"], "claims": [["B", "A"]]}
    rerun["variant_of"] = {"study": "table1", "variant": "usps=2000"}
    tables = {
        "table1": {
            "table": table,
            "tasks": {"coil": coil | {"label": "COIL"}, "usps": usps | {"label": "USPS"}},
        },
        "table1_usps2000": {"table": rerun, "tasks": {"usps_small": small | {"label": "USPS"}}},
    }
    frame = ngeu_report.results_frame(tables, METHODS)
    ledger.check_results(frame)
    assert set(frame["study"]) == {"table1"}  # the run's rows are the study's
    run = frame[frame["variant"] == "usps=2000"]
    primary = frame[frame["variant"] == "primary"]
    # its own USPS rows: the selected models' accuracies per split, a and b only
    usps_rows = run[(run["dataset"] == "USPS") & (run["metric"] == "accuracy")]
    assert set(usps_rows["method"]) == {"A", "B"}  # C (not run at that size) stays absent
    a = usps_rows[usps_rows["method"] == "A"]
    assert list(a["split"]) == ["0", "1"] and list(a["value"]) == [90.0, 80.0]
    assert run[run["dataset"] == "USPS"]["metric"].isin(["accuracy", "fold_std"]).all()
    # the other dataset's primary rows, copied whole (accuracies and per-sample rows)
    columns = ["dataset", "method", "metric", "split", "value"]
    coil_run = run[run["dataset"] == "COIL"][columns].reset_index(drop=True)
    coil_primary = primary[primary["dataset"] == "COIL"][columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(coil_run, coil_primary)
    assert "correct" in set(coil_run["metric"])
    # the primary USPS rows are untouched; no kernel-fixed variant of the run
    a0 = primary[(primary["dataset"] == "USPS") & (primary["method"] == "A")]
    assert list(a0[a0["metric"] == "accuracy"]["value"]) == [60.0, 70.0]
    assert not any(v.startswith("usps=2000+") for v in frame["variant"])


def test_a_table_shows_only_the_columns_of_its_tasks(tmp_path):
    """A table that runs one of the paper's columns (the usps=2000 run) compares that column
    only: the others are not printed as "not reproduced"; the selected values are flagged
    against the task's own grid."""
    scores = pd.DataFrame(
        {"method": ["a"], "fold": [0], "point": [0], "dim": [2], "kernel": ["rbf"]}
        | {"gamma_scale": [4.0], "val_accuracy": [0.5], "test_accuracy": [0.8]}
    )
    scores.to_csv(tmp_path / "s.csv", index=False)
    cost = {"a": {"fits": 1, "eigendecompositions": 1, "grid_cells": 1}}
    (tmp_path / "c.json").write_text(json.dumps(cost))
    reference = pd.DataFrame(
        {"row": ["A", "A", "Z"], "column": ["D", "E", "D"], "value": [80.0, 60.0, 50.0]}
    )
    reference.to_csv(tmp_path / "ref.csv", index=False)
    table = {"methods": ["a"], "reference": str(tmp_path / "ref.csv")}
    table["not_reproduced_reason"] = "not run here"
    out = {k: str(tmp_path / k) for k in ("table", "selected", "grid")}
    out |= {"long": str(tmp_path / "long.csv")}
    tasks = {"t": {"label": "D", "scores": tmp_path / "s.csv", "cost": tmp_path / "c.json"}}
    tasks["t"]["grid"] = {"gamma_scale": [1.0, 4.0]}  # the task's own grid: its edges flagged
    ngeu_report.make_tables(tasks, table, {"a": {"label": "A"}}, out)
    selected = pd.read_csv(tmp_path / "selected.csv")
    assert selected["grid_edge"].tolist() == ["gamma_scale=4 (upper edge)"]
    long = pd.read_csv(tmp_path / "long.csv")
    assert set(long["column"]) == {"D"}
    assert long.set_index("row").loc["Z", "status"] == "not reproduced"
    assert "not run here" in (tmp_path / "table.md").read_text()
    assert "E" not in pd.read_csv(tmp_path / "table.csv").columns.str.split().str[0].tolist()


# ---- the claims file -------------------------------------------------------------------------

CLAIMS = Path(__file__).resolve().parents[1] / "config" / "references" / "ngeu_claims.csv"


def _frame_for(claims, seed=0):
    """A results frame of the right shape for every checked claim: per-sample rows for
    ``correct`` (60 samples), 6 splits for ``accuracy`` (the protocol's repeated splits: fewer
    leave a Wilcoxon claim "not checked, too few units"), one row for ``fold_std`` and
    ``angle_degrees``."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in claims:
        if c.status != "check":
            continue
        for d in c.datasets:
            for m in (*c.subject, *c.versus):
                if c.metric == "correct":
                    splits = [str(i) for i in range(60)]
                    values = rng.integers(0, 2, len(splits)).astype(float)
                elif c.metric == "accuracy":
                    splits = [str(i) for i in range(6)]
                    values = rng.uniform(60, 100, len(splits))
                else:
                    splits, values = [""], rng.uniform(0.5, 40, 1)
                for s, v in zip(splits, values, strict=True):
                    rows.append(
                        {"paper": "ngeu", "study": c.study, "variant": "primary", "dataset": d}
                        | {"method": m, "classifier": "knn", "dimension": "", "split": s}
                        | {"metric": c.metric, "value": float(v)}
                    )
    return pd.DataFrame(rows).drop_duplicates(["study", "dataset", "method", "metric", "split"])


def test_every_claim_parses_and_every_checked_claim_selects_data():
    claims = ledger.read_claims(CLAIMS, paper="ngeu")
    assert len({c.claim for c in claims}) == len(claims)
    checked = [c for c in claims if c.status == "check"]
    assert checked and all(c.datasets for c in checked)  # every checked claim names its data
    verdicts = ledger.judge(claims, _frame_for(claims))
    primary = verdicts[verdicts["variant"] == "primary"].set_index("claim")["verdict"]
    for c in claims:
        if c.status == "check":
            assert primary[c.claim] != "not checked", (c.claim, primary[c.claim])
        else:
            assert primary[c.claim] == "not checked"


def test_claims_use_the_methods_and_datasets_of_the_workflow():
    """Subjects of the checked claims are method labels of the config (or Figure 3's graphs),
    datasets are the tables' labels: a typo would silently leave a claim without data."""
    import yaml

    root = CLAIMS.parents[2]
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    ngeu_cfg = config["papers"]["ngeu"]
    labels = {m["label"] for m in ngeu_cfg["methods"].values()} | {"LDA", "MFA"}
    datasets = {"toy"} | {
        config["datasets"][t["dataset"]]["label"] for t in ngeu_cfg["tasks"].values()
    }
    pairs = {label for t in ngeu_cfg["tables"].values() for p in t["claims"] for label in p}
    for c in ledger.read_claims(CLAIMS, paper="ngeu"):
        if c.status != "check":
            continue
        assert set(c.subject + c.versus) <= labels, c.claim
        assert set(c.datasets) <= datasets, c.claim
        if c.metric == "correct":  # per-sample rows exist only for the compared methods
            assert set(c.subject + c.versus) <= pairs, c.claim


# ---- Figure 3 --------------------------------------------------------------------------------


def test_toy_directions_reduce_to_fisher_lda_without_uncertainty():
    from graphdr.datasets.synthetic import make_uncertain_toy

    X, y, S = make_uncertain_toy(30, random_state=0)
    params = {"k1": 5, "k2": 20}
    w = ngeu_report.toy_directions(X, y, np.zeros_like(S), params)
    m0, m1 = X[y == 0].mean(0), X[y == 1].mean(0)
    Sw = sum(np.cov(X[y == c].T, bias=True) * np.sum(y == c) for c in (0, 1))
    fisher = np.linalg.solve(Sw, m1 - m0)
    fisher /= np.linalg.norm(fisher)
    assert abs(w[("LDA", "GE")] @ fisher) == pytest.approx(1.0, abs=1e-6)
    assert abs(w[("LDA", "NGEU")] @ fisher) == pytest.approx(1.0, abs=1e-6)
    # with the toy's uncertainty the NGEU direction moves
    w_u = ngeu_report.toy_directions(X, y, S, params)
    assert abs(w_u[("LDA", "NGEU")] @ fisher) < 1 - 1e-4


def test_notes_quote_the_generated_verdicts():
    from graphdr.ledger import scorecard

    figures = CLAIMS.parents[2] / "paper_figures" / "ngeu"
    verdicts = pd.read_csv(figures / "ngeu_verdicts.csv", dtype=str, keep_default_na=False)
    notes = (figures / "NOTES.md").read_text(encoding="utf-8")
    assert scorecard.NOTES_PATTERN.search(notes)  # the notes do quote the ledger
    assert scorecard.notes_mismatches(notes, verdicts) == []


def test_validation_redraws_share_the_fits():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 30)
    X = rng.normal(size=(90, 4)) + y[:, None]
    pre = {"train": np.arange(0, 90, 2), "test": np.arange(1, 90, 2)}
    spec = {"kind": "sequential", "pool": "train", "train": 30, "val": 9, "test": "predefined",
            "draws": 3, "fixed_train": True}  # fmt: skip
    folds = split_files.split_indices(SimpleNamespace(y=y, split=pre, name="t"), spec)
    nn = {f"nn{f}": np.ones(30) for f in range(3)}
    grid = {"kernels": ["rbf"], "gamma_scale": [1.0], "beta": [0.1], "dims": [1, 2]}
    method = {"estimator": "KDA_NGEU", "uncertainty": "nn"}
    rows, _, cost = ngeu._method_rows("m", method, grid, X, y, folds, nn, k=1, seed=0)
    assert cost["fits"] == 1 and cost["grid_cells"] == 3 * 2  # one fit, every draw scored
    scores = pd.DataFrame(rows)
    test = scores.groupby("dim")["test_accuracy"].nunique()
    assert (test == 1).all()  # same model, same test set: the same test accuracy per dim
    # the task's loop (fold by fold, kernel order) shares them too
    _, _, costs = ngeu.run_methods({"m": method}, grid, X, y, folds, nn)
    assert costs["m"]["fits"] == 1
    # fits are kept only for a next fold with the same training rows: after the last fold, or
    # before one that trains on other rows, nothing is held (memory: a task's fits together)
    assert ngeu._next_fold_same_training(folds, 0) and ngeu._next_fold_same_training(folds, 1)
    assert not ngeu._next_fold_same_training(folds, 2)
    run = ngeu._MethodRun("m", method, grid, X, y, nn, 1, 0)
    run.fold(0, folds[0], keep_fits=False)
    assert run.shared == {} and run.cost["fits"] == 1
    run.fold(1, folds[1], keep_fits=True)
    assert len(run.shared) == 1 and run.cost["fits"] == 2
    run.fold(2, folds[2], keep_fits=False)  # reuses fold 1's fit, then lets it go
    assert run.shared == {} and run.cost["fits"] == 2


def test_grid_edges_flag_the_grid_ends():
    grid = {"beta": [0.01, 0.1, 0.3], "gamma_scale": [0.25, 1.0, 4.0], "s0": [0.1]}
    assert ngeu_report.grid_edges({"beta": 0.01, "gamma_scale": 1.0}, grid) == (
        "beta=0.01 (lower edge)"
    )
    assert ngeu_report.grid_edges({"beta": 0.1, "gamma_scale": 4.0}, grid) == (
        "gamma_scale=4 (upper edge)"
    )
    assert ngeu_report.grid_edges({"s0": 0.1, "beta": float("nan")}, grid) == ""


def test_paired_tests_give_mcnemar_per_split_and_wilcoxon_over_splits(tmp_path):
    from scipy.stats import binomtest, wilcoxon

    rng = np.random.default_rng(1)
    records = []
    for fold in range(6):
        a = rng.integers(0, 2, 40)
        b = np.where(rng.random(40) < 0.3, 1 - a, a)
        records += _samples("a", "primary", fold, range(40), a)
        records += _samples("b", "primary", fold, range(40), b)
    path = tmp_path / "samples.csv"
    frame = pd.DataFrame(records)
    frame.to_csv(path, index=False)
    table = {"claims": [["B", "A"]]}
    out = ngeu_report.paired_tests({"t": {"label": "D", "samples": path}}, table, METHODS)
    per_split = out[out["test"] == "McNemar (exact)"]
    assert len(per_split) == 6
    first = frame[frame["fold"] == 0].pivot(index="sample", columns="method", values="correct")
    n01 = int(((first["a"] == 1) & (first["b"] == 0)).sum())
    n10 = int(((first["a"] == 0) & (first["b"] == 1)).sum())
    assert per_split["p_value"].iloc[0] == pytest.approx(binomtest(n01, n01 + n10).pvalue)
    acc = frame.groupby(["method", "fold"])["correct"].mean().unstack("method") * 100
    (over,) = out[out["test"] == "Wilcoxon over splits"].to_dict("records")
    assert over["p_value"] == pytest.approx(wilcoxon(acc["a"], acc["b"]).pvalue)
    assert over["gain"] == pytest.approx((acc["a"] - acc["b"]).mean())


def test_select_task_shares_kernels_across_methods_and_changes_no_number(tmp_path):
    """The task runs fold by fold with the fold's kernel matrices shared between methods
    (graphdr.kernels.reuse_kernels); every score, per-sample row and cost must equal running
    each method alone, and the shared matrices must actually be reused."""
    from graphdr.datasets.prepared import Dataset, save_npz

    X, y = _blobs(n_per_class=15, n_classes=3, d=5, seed=3)
    prepared, splits, unc = tmp_path / "p.npz", tmp_path / "s.npz", tmp_path / "u.npz"
    save_npz(Dataset("blobs", X, y, ["a", "b", "c"]), prepared)
    spec = {"kind": "sequential", "train": 24, "val": 9, "test": 9, "seed": 0, "draws": 2}
    split_files.make_splits(prepared, splits, spec=spec)
    ngeu.estimate_uncertainty(prepared, splits, unc)
    grid = {"kernels": ["linear", "rbf"], "gamma_scale": [1.0], "coef0": 1.0, "beta": [0.1],
            "s0": [0.01], "dims": [1, 2]}  # fmt: skip
    methods = {
        "KDA_GE": {"estimator": "KDA_GE"},
        "KMFA_GE": {"estimator": "KMFA_GE", "params": {"k1": 3, "k2": 5}},
        "KPCA_GE": {"estimator": "KPCA_GE"},
        "KDA_NGEU": {"estimator": "KDA_NGEU", "uncertainty": "nn"},
        "KMFA_NGEU": {"estimator": "KMFA_NGEU", "uncertainty": "nn", "params": {"k1": 3, "k2": 5}},
        "KPCA_NGEU": {"estimator": "KPCA_NGEU", "uncertainty": "nn"},
        # a kernel method of another family (its own kernel code, a dtype argument)
        "fastSDA": {
            "estimator": "FastSDA",
            "grid": {"n_subclasses": [2]},
            "nested": False,
            "dims": [2],
            "params": {"random_state": 0},
        },  # fmt: skip
    }
    paths = [tmp_path / n for n in ("scores.csv", "cost.json", "samples.csv")]

    class Log:
        lines = []

        def info(self, message, *args):
            self.lines.append(message % args)

    log = Log()
    scores = ngeu.select_task(prepared, splits, unc, methods, grid, *paths, logger=log)
    reused = [line for line in log.lines if "kernel matrices reused" in line]
    assert len(reused) == 2  # one line per fold
    # every matrix of a fold (per kernel setting and family: training, training rows against
    # the fit, validation, test) is asked for by the 3 methods of its family (GE, NGEU): one
    # computation, two reuses
    for line in reused:
        hits, misses = int(line.split()[2]), int(line.split()[6])
        assert misses >= 2 * 2 * 4 and hits >= 2 * 2 * 2 * 4, line

    data = ngeu.load_npz(prepared)
    folds, nn = split_files.read_folds(splits), ngeu.io.read_npz(unc)
    alone, samples, costs = [], [], {}
    for name, method in methods.items():  # each method alone, nothing shared
        rows, s, costs[name] = ngeu._method_rows(
            name, method, grid, data.X, data.y, folds, nn, 1, 0
        )
        alone.append(pd.DataFrame(rows).assign(method=name))
        samples += s
    alone = pd.concat(alone, ignore_index=True)[scores.columns]
    pd.testing.assert_frame_equal(scores, alone)
    pd.testing.assert_frame_equal(
        pd.read_csv(paths[2]), pd.concat(samples, ignore_index=True), check_dtype=False
    )
    shared = json.loads(paths[1].read_text())
    # the centred kernel's decomposition is shared too (graph_embedding.kernel_feature_map):
    # KPCA reads its leading pairs from the first full decomposition of the same matrix, one
    # eigendecomposition fewer per fit (4 fits: 2 folds x 2 kernels); KMFA_GE reads KDA_GE's
    # at the linear kernel (rank 5 < N - 1: KDA's low-rank path declines the matrix, restores
    # its lower triangle and decomposes it first), one fewer per fold; nothing else changes
    saved = {
        n: costs[n]["eigendecompositions"] - c["eigendecompositions"] for n, c in shared.items()
    }
    assert saved == {n: 0 for n in costs} | {"KPCA_GE": 4, "KPCA_NGEU": 4, "KMFA_GE": 2}
    for name in costs:
        assert shared[name]["fits"] == costs[name]["fits"]
        assert shared[name]["grid_cells"] == costs[name]["grid_cells"]
    # and fold by fold without the store: the same frames and costs as each method alone
    frames, _, no_reuse_costs = ngeu.run_methods(
        methods, grid, data.X, data.y, folds, nn, reuse=False
    )
    pd.testing.assert_frame_equal(pd.concat(frames, ignore_index=True)[scores.columns], scores)
    assert no_reuse_costs == costs


def test_kernel_order_groups_grid_points_by_kernel_then_uncertainty_stably():
    """The fold's grid points run grouped by kernel setting (first appearance order), then by
    uncertainty scheme and width, each group keeping the methods' order."""
    ge, ngeu_nn, ngeu_c = {}, {"uncertainty": "nn"}, {"uncertainty": "constant"}
    lin, rbf = {"kernel": "linear"}, {"kernel": "rbf", "gamma": 0.5}
    tasks = [
        (ge, lin, "KMFA_GE", 0), (ge, rbf, "KMFA_GE", 1),
        (ngeu_nn, lin | {"beta": 0.1}, "KMFA_NGEU", 0), (ngeu_nn, rbf | {"beta": 0.1}, "KMFA_NGEU", 1),
        (ngeu_c, rbf | {"s0": 0.1}, "KMFA_NGEU_N", 0),
        (ge, lin, "KDA_GE", 0), (ge, rbf, "KDA_GE", 1),
        (ngeu_nn, rbf | {"beta": 0.1}, "KDA_NGEU", 1), (ngeu_nn, rbf | {"beta": 0.3}, "KDA_NGEU", 2),
        ({}, {}, "LDA_GEU", 0),
    ]  # fmt: skip
    order = [(t[2], t[3]) for t in ngeu.kernel_order(tasks)]
    assert order == [
        ("KMFA_GE", 0), ("KDA_GE", 0), ("KMFA_NGEU", 0),  # linear
        ("KMFA_GE", 1), ("KDA_GE", 1), ("KMFA_NGEU", 1), ("KDA_NGEU", 1),  # rbf: GE, beta 0.1
        ("KMFA_NGEU_N", 0), ("KDA_NGEU", 2),  # rbf: s0 = 0.1, then beta = 0.3
        ("LDA_GEU", 0),  # no kernel
    ]  # fmt: skip
