"""Paper 002 (AKDA): the MAP / speed-up protocol against independent references.

average precision against scikit-learn, the condition split's counts, the one-against-the-rest
linear SVM against LIBLINEAR (LinearSVC), the cross-validation against a brute-force loop with
the estimators' own RBF kernels, and the tables' paper-average rows.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.svm import LinearSVC

from graphdr.methods import AKDA
from graphdr.pipeline.papers import akda, akda_report


@pytest.mark.parametrize("seed", range(4))
def test_average_precision_equals_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = 200
    scores = rng.integers(0, 15, n) / 3.0  # many ties
    positive = rng.random(n) < 0.2
    positive[0] = True
    assert akda.average_precision(scores, positive) == pytest.approx(
        average_precision_score(positive, scores), abs=1e-12
    )


def test_mean_average_precision_per_class():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 120)
    scores = rng.standard_normal((120, 4)) + np.eye(4)[y]
    mean, ap = akda.mean_average_precision(scores, y, np.arange(4))
    ref = [average_precision_score(y == c, scores[:, c]) for c in range(4)]
    np.testing.assert_allclose(ap, ref, atol=1e-12)
    assert mean == pytest.approx(np.mean(ref))


def test_condition_split_counts_and_half_rule():
    y = np.repeat([0, 1, 2], [30, 15, 7])
    train, test = akda.condition_split(y, 10, seed=0)
    assert np.intersect1d(train, test).size == 0
    assert train.size + test.size == y.size
    assert np.bincount(y[train]).tolist() == [10, 7, 3]  # 30 >= 20; 15 and 7 < 20: half
    again, _ = akda.condition_split(y, 10, seed=0)
    np.testing.assert_array_equal(train, again)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_ovr_linear_svm_equals_liblinear(C):
    rng = np.random.default_rng(1)
    n, d, k = 240, 12, 4
    y = np.arange(n) % k
    Z = rng.standard_normal((n, d)) + 1.5 * np.eye(k, d)[y]
    W, b = akda.fit_ovr_linear_svm(Z, y, np.arange(k), C, tol=1e-9)
    ref = LinearSVC(C=C, dual=False, tol=1e-12, max_iter=100000).fit(Z, y)
    np.testing.assert_allclose(Z @ W + b, ref.decision_function(Z), atol=1e-5)


def _tiny():
    rng = np.random.default_rng(3)
    k, per = 4, 24
    y = np.repeat(np.arange(k), per)
    X = rng.standard_normal((k * per, 6)) + 1.2 * rng.standard_normal((k, 6))[y]
    return X, y


def test_cross_validation_equals_brute_force():
    X, y = _tiny()
    cv = {"folds": 3, "learn_fraction": 0.3, "gamma_factors": [0.5, 2.0], "C": [0.1, 10.0]}
    best, table = akda.cross_validate("AKDA", X, y, cv=cv, reg=1e-3, seed=5)
    classes = np.unique(y)
    splitter = StratifiedShuffleSplit(
        n_splits=3, train_size=int(round(0.3 * y.size)), test_size=y.size - int(round(0.3 * y.size)),
        random_state=5,
    )  # fmt: skip
    ref = {}
    for learn, val in splitter.split(X, y):
        learn, val = np.sort(learn), np.sort(val)
        mean_d2 = np.mean(euclidean_distances(X[learn], squared=True))
        for g in cv["gamma_factors"]:
            model = AKDA(kernel="rbf", gamma=g / mean_d2, reg=1e-3).fit(X[learn], y[learn])
            Zl, Zv = model.transform(X[learn]), model.transform(X[val])
            mu, sd = Zl.mean(0), Zl.std(0)
            for C in cv["C"]:
                W, b = akda.fit_ovr_linear_svm((Zl - mu) / sd, y[learn], classes, C)
                S = ((Zv - mu) / sd) @ W + b
                aps = [average_precision_score(y[val] == c, S[:, j]) for j, c in enumerate(classes)]
                ref.setdefault((g, C), []).append(np.mean(aps))
    for row in table.itertuples(index=False):
        assert row.map == pytest.approx(np.mean(ref[(row.gamma_factor, row.C)]), abs=1e-6)
    key = max(ref, key=lambda k: np.mean(ref[k]))
    assert (best["gamma_factor"], best["C"]) == key


def test_tables_show_paper_averages_and_differences(tmp_path):
    runs = {}
    for d in ("a", "b"):
        for m, v in (("KDA", 0.5), ("AKDA", 0.6)):
            res, tim = tmp_path / f"{d}{m}.json", tmp_path / f"{d}{m}.timing.json"
            res.write_text(json.dumps({"n_train": 10, "n_test": 5, "map": v, "selected": {}}))
            tim.write_text(
                json.dumps({"train_seconds": 2.0 if m == "KDA" else 0.5, "test_seconds": 1.0})
            )
            if (d, m) != ("b", "AKDA"):
                runs[(d, "10Ex", m)] = (res, tim)
    ref = tmp_path / "ref.csv"
    pd.DataFrame(
        {
            "table": ["map", "map", "train_speedup", "test_speedup"],
            "row": ["10Ex"] * 4,
            "column": ["KDA", "AKDA", "AKDA", "AKDA"],
            "value": [58.87, 61.29, 8.26, 1.0],
            "source": ["t"] * 4,
        }
    ).to_csv(ref, index=False)
    shown = akda_report.akda_tables(
        runs, {("b", "10Ex", "AKDA"): "not run: test"}, reference=ref, labels={"a": "A"},
        map_stem=tmp_path / "map", timing_stem=tmp_path / "speed_timing",
        runs_output=tmp_path / "runs.csv", claims_output=tmp_path / "claims_timing.md",
    )  # fmt: skip
    table = shown["map_10Ex"].set_index("dataset")
    assert table.loc["A", "AKDA"] == "60.00"
    assert table.loc["paper average", "AKDA"] == "61.29"
    assert table.loc["Δ (first average - paper)", "KDA"] == "-8.87"
    assert table.loc["b", "AKDA"] == "not run [1]"
    assert table.loc["b", "notes"] == "[1] not run: test"
    assert table.loc["our average (1 complete rows)", "KDA"] == "50.00"
    speed = shown["timing_10Ex"].set_index("dataset")
    assert speed.loc["A", "AKDA"].startswith("4.00 / 1.00")
    assert "KDA / AKDA training time: 4.00" in (tmp_path / "claims_timing.md").read_text()


def test_method_modules_define_the_estimators():
    import importlib

    for method, module in akda.METHOD_MODULES.items():
        assert hasattr(importlib.import_module(module), method)
    assert set(akda.METHOD_MODULES) == set(akda.KERNEL_DR)
