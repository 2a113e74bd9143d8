"""graphdr.evaluation against scikit-learn and explicit loops."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import make_classification
from sklearn.decomposition import PCA
from sklearn.metrics import accuracy_score, average_precision_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from graphdr import evaluation as ev


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=240, n_features=12, n_informative=6, n_classes=4, random_state=0
    )
    return X[:160], y[:160], X[160:], y[160:]


@pytest.fixture(scope="module")
def embedding(data):
    X_tr, y_tr, X_te, y_te = data
    pca = PCA(n_components=8, svd_solver="full").fit(X_tr)
    return pca.transform(X_tr), y_tr, pca.transform(X_te), y_te


# ---------------------------------------------------------------- classifiers


def test_make_classifier_builds_the_named_estimators():
    assert ev.make_classifier("1nn").n_neighbors == 1
    assert ev.make_classifier("knn", k=3).n_neighbors == 3
    svm = ev.make_classifier("linear_svm", C=100)
    assert isinstance(svm, SVC) and svm.kernel == "linear" and svm.C == 100
    fast = ev.make_classifier("linear_svm", C=2, solver="liblinear", random_state=3)
    assert isinstance(fast, LinearSVC) and fast.loss == "hinge" and fast.random_state == 3
    assert ev.make_classifier("rbf_svm", C=100, sigma=2.0).gamma == pytest.approx(1 / 8)
    assert ev.make_classifier("rbf_svm", gamma=0.3).gamma == 0.3
    tree = ev.make_classifier("tree", random_state=7, max_depth=3)
    assert isinstance(tree, DecisionTreeClassifier) and tree.random_state == 7
    assert tree.max_depth == 3
    # random_state is accepted for every name, even where nothing is random
    assert ev.make_classifier("ncc", random_state=1) is not None


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("svm", {}, "Unknown classifier 'svm'"),
        ("rbf_svm", {"sigma": 1.0, "gamma": 0.5}, "Give sigma or gamma"),
        ("rbf_svm", {"sigma": 0.0}, "must be positive"),
        ("1nn", {"k": 3}, "use name='knn'"),
        ("knn", {"bogus": 1}, "Invalid parameter"),
        ("linear_svm", {"solver": "sag"}, "solver='sag'"),
    ],
)
def test_make_classifier_errors(name, params, match):
    with pytest.raises(ValueError, match=match):
        ev.make_classifier(name, **params)


def test_rbf_sigma_is_the_gaussian_width(embedding):
    """sigma means k(a, b) = exp(-||a - b||^2 / (2 sigma^2)): compare to a precomputed kernel."""
    Z_tr, y_tr, Z_te, _ = embedding
    sigma = 1.7

    def gauss(A, B):
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        return np.exp(-d2 / (2 * sigma**2))

    ours = ev.make_classifier("rbf_svm", C=10, sigma=sigma).fit(Z_tr, y_tr)
    ref = SVC(kernel="precomputed", C=10).fit(gauss(Z_tr, Z_tr), y_tr)
    np.testing.assert_allclose(
        ours.decision_function(Z_te), ref.decision_function(gauss(Z_te, Z_tr)), atol=1e-6
    )


def test_ncc_is_the_nearest_class_mean(embedding):
    Z_tr, y_tr, Z_te, _ = embedding
    classes = np.unique(y_tr)
    means = np.stack([Z_tr[y_tr == c].mean(0) for c in classes])
    expected = classes[((Z_te[:, None, :] - means[None]) ** 2).sum(-1).argmin(1)]
    np.testing.assert_array_equal(ev.make_classifier("ncc").fit(Z_tr, y_tr).predict(Z_te), expected)


def test_tree_is_deterministic(embedding):
    Z_tr, y_tr, Z_te, _ = embedding
    a = ev.make_classifier("tree").fit(Z_tr, y_tr).predict(Z_te)
    b = ev.make_classifier("tree").fit(Z_tr, y_tr).predict(Z_te)
    np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    ("solver", "reference"),
    [
        ("libsvm", SVC(kernel="linear", C=0.5)),
        ("liblinear", LinearSVC(C=0.5, loss="hinge", dual=True, max_iter=10_000, random_state=0)),
    ],
)
def test_ovr_scores_match_sklearn_one_vs_rest(embedding, solver, reference):
    Z_tr, y_tr, Z_te, _ = embedding
    scores = ev.ovr_linear_svm_scores(Z_tr, y_tr, Z_te, C=0.5, solver=solver)
    expected = OneVsRestClassifier(reference).fit(Z_tr, y_tr).decision_function(Z_te)
    assert scores.shape == (Z_te.shape[0], 4)
    np.testing.assert_allclose(scores, expected, rtol=1e-6, atol=1e-6)


def test_ovr_scores_need_negatives(embedding):
    Z_tr, y_tr, Z_te, _ = embedding
    with pytest.raises(ValueError, match="needs both positive and negative"):
        ev.ovr_linear_svm_scores(Z_tr, np.zeros_like(y_tr), Z_te)
    with pytest.raises(ValueError, match="same fitted model"):
        ev.ovr_linear_svm_scores(Z_tr, y_tr, Z_te[:, :3])


# ---------------------------------------------------------------- metrics


def test_accuracy_and_error_match_sklearn():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 5, 97), rng.integers(0, 5, 97)
    assert ev.accuracy(y, p) == pytest.approx(accuracy_score(y, p))
    assert ev.error_rate(y, p) == pytest.approx(1 - accuracy_score(y, p))
    with pytest.raises(ValueError, match="has 96 labels"):
        ev.accuracy(y, p[:-1])


@pytest.mark.parametrize("seed", range(5))
def test_average_precision_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    classes = np.array([3, 5, 8, 9])
    y = rng.choice(classes, 150)
    scores = np.round(rng.normal(size=(150, 4)), 1)  # rounding makes many ties
    scores[:, 1] += 1.5 * (y == 5)
    ap = ev.average_precision_per_class(y, scores, classes)
    expected = [average_precision_score(y == c, scores[:, k]) for k, c in enumerate(classes)]
    np.testing.assert_allclose(ap, expected, rtol=1e-12)
    assert ev.mean_average_precision(y, scores, classes) == pytest.approx(np.mean(expected))
    # ties enter together: the AP is the same bit for bit in any sample order (the sort need
    # not be stable)
    for _ in range(5):
        perm = rng.permutation(y.size)
        np.testing.assert_array_equal(
            ev.average_precision_per_class(y[perm], scores[perm], classes), ap
        )


def test_average_precision_edge_cases():
    y = np.array([0, 0, 1, 1])
    perfect = np.array([[1.0, 0.0], [0.9, 0.1], [0.2, 0.8], [0.1, 0.9]])
    np.testing.assert_allclose(ev.average_precision_per_class(y, perfect, [0, 1]), [1.0, 1.0])
    with pytest.raises(ValueError, match="class 2 has no sample"):
        ev.average_precision_per_class(y, perfect, [0, 2])
    with pytest.raises(ValueError, match=r"shape \(n_samples, 3\)"):
        ev.average_precision_per_class(y, perfect, [0, 1, 2])


# ---------------------------------------------------------------- splits


def _assert_disjoint_cover(parts, n=None):
    joined = np.concatenate(parts)
    assert np.unique(joined).size == joined.size, "parts overlap"
    if n is not None:
        np.testing.assert_array_equal(np.sort(joined), np.arange(n))


def test_per_class_index_split_coil20_protocol():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(20), 72)[rng.permutation(1440)]  # classes interleaved
    split = ev.per_class_index_split(y, {"train": (0, 55), "val": (55, 60), "test": (60, 72)})
    assert {k: v.size for k, v in split.items()} == {"train": 1100, "val": 100, "test": 240}
    _assert_disjoint_cover(list(split.values()), 1440)
    for c in range(20):
        members = np.flatnonzero(y == c)  # order of appearance within the class
        np.testing.assert_array_equal(np.intersect1d(split["train"], members), members[:55])
        np.testing.assert_array_equal(np.intersect1d(split["test"], members), members[60:])
    open_end = ev.per_class_index_split(y, {"test": (60, None)})
    np.testing.assert_array_equal(open_end["test"], split["test"])


def test_per_class_index_split_errors():
    y = np.repeat([0, 1], [10, 8])
    with pytest.raises(ValueError, match="overlap"):
        ev.per_class_index_split(y, {"a": (0, 5), "b": (4, 6)})
    with pytest.raises(ValueError, match="class 1 has 8"):
        ev.per_class_index_split(y, {"a": (0, 9)})


def _usps_like_labels():
    counts = [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]  # USPS training counts
    return np.repeat(np.arange(10), counts)  # sorted by label, like the mirror's file


def test_stratified_split_exact_totals_and_proportional_classes():
    y = _usps_like_labels()
    assert y.size == 7291
    split = ev.stratified_split(y, {"train": 6000, "val": 1000}, random_state=0)
    assert split["train"].size == 6000 and split["val"].size == 1000
    _assert_disjoint_cover(list(split.values()))
    n_c = np.bincount(y)
    for name, total in (("train", 6000), ("val", 1000)):
        # largest-remainder rounding: every class within one sample of its exact share
        assert np.all(np.abs(np.bincount(y[split[name]], minlength=10) - total * n_c / 7291) < 1)


def test_stratified_split_is_reproducible_from_the_seed():
    y = _usps_like_labels()
    a = ev.stratified_split(y, {"train": 0.3, "rest": None}, random_state=5)
    b = ev.stratified_split(y, {"train": 0.3, "rest": None}, random_state=5)
    c = ev.stratified_split(y, {"train": 0.3, "rest": None}, random_state=6)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert not np.array_equal(a["train"], c["train"])
    assert a["train"].size == round(0.3 * 7291)
    _assert_disjoint_cover(list(a.values()), 7291)


def test_stratified_split_fractions_and_errors():
    y = np.repeat([0, 1, 2], [5, 5, 5])
    halves = ev.stratified_split(y, {"a": 0.5, "b": 0.5}, random_state=0)
    assert halves["a"].size + halves["b"].size == 15  # rounding never asks for 16
    _assert_disjoint_cover(list(halves.values()), 15)
    with pytest.raises(ValueError, match="ask for 20 samples but y has only 15"):
        ev.stratified_split(y, {"a": 10, "b": 10}, random_state=0)
    with pytest.raises(ValueError, match="only one part may be None"):
        ev.stratified_split(y, {"a": None, "b": None}, random_state=0)


def test_per_class_count_split_akda_rule():
    y = np.repeat([0, 1, 2, 3], [50, 19, 20, 3])
    train, test = ev.per_class_count_split(y, 10, random_state=0)
    # 10 per class, except classes with fewer than 2 * 10 samples, which use half (floored)
    np.testing.assert_array_equal(np.bincount(y[train]), [10, 9, 10, 1])
    _assert_disjoint_cover([train, test], y.size)
    again = ev.per_class_count_split(y, 10, random_state=0)
    np.testing.assert_array_equal(train, again[0])
    with pytest.raises(ValueError, match="cannot be both trained and tested"):
        ev.per_class_count_split(np.array([0, 0, 1]), 1, random_state=0)


def test_stratified_kfold_partitions_and_stratifies():
    y = _usps_like_labels()[::7]
    folds = ev.stratified_kfold(y, 5, random_state=0)
    _assert_disjoint_cover([test for _, test in folds], y.size)
    for train, test in folds:
        _assert_disjoint_cover([train, test], y.size)
        assert np.all(np.abs(np.bincount(y[test], minlength=10) - np.bincount(y) / 5) < 1)
    again = ev.stratified_kfold(y, 5, random_state=0)
    for (a, b), (c, d) in zip(folds, again, strict=True):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_stratified_shuffle_splits_are_independent_and_reproducible():
    y = _usps_like_labels()[::5]
    splits = ev.stratified_shuffle_splits(y, 3, 0.3, random_state=1)
    assert len(splits) == 3
    for train, val in splits:
        _assert_disjoint_cover([train, val], y.size)
        assert train.size == round(0.3 * y.size)
    assert not np.array_equal(splits[0][0], splits[1][0])
    again = ev.stratified_shuffle_splits(y, 3, 0.3, random_state=1)
    for (a, _), (b, _) in zip(splits, again, strict=True):
        np.testing.assert_array_equal(a, b)


def _labels_with_a_small_class(seed=0):
    """Ten classes of unequal sizes, one of them (3 samples) smaller than 10 folds, shuffled."""
    sizes = [50, 37, 12, 80, 25, 3, 60, 44, 19, 8]
    y = np.repeat(np.arange(10), sizes)
    return y[np.random.default_rng(seed).permutation(y.size)]


@pytest.mark.filterwarnings("ignore:The least populated class")  # the reference's warning
def test_stratified_kfold_is_scikit_learns_and_repeats_reseed():
    from sklearn.model_selection import StratifiedKFold

    y = _labels_with_a_small_class()
    folds = ev.stratified_kfold(y, 10, random_state=4, n_repeats=3)
    assert len(folds) == 30
    for r in range(3):  # repeat r is scikit-learn's k-fold with the seed 4 + r
        ref = StratifiedKFold(10, shuffle=True, random_state=4 + r).split(np.zeros(y.size), y)
        for (train, test), (ref_train, ref_test) in zip(
            folds[10 * r : 10 * r + 10], list(ref), strict=True
        ):
            np.testing.assert_array_equal(train, ref_train)
            np.testing.assert_array_equal(test, ref_test)
        _assert_disjoint_cover([test for _, test in folds[10 * r : 10 * r + 10]], y.size)
    assert not np.array_equal(folds[0][1], folds[10][1])
    one = ev.stratified_kfold(y, 10, random_state=5)  # a repeat reproduced alone
    for a, b in zip(one, folds[10:20], strict=True):
        np.testing.assert_array_equal(a[1], b[1])


def test_stratified_kfold_spreads_a_class_smaller_than_the_folds_quietly():
    y = _labels_with_a_small_class()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scikit-learn's "least populated class" is silenced
        folds = ev.stratified_kfold(y, 10, random_state=0)
    holding = [int(np.sum(y[test] == 5)) for _, test in folds]
    assert sorted(holding) == [0] * 7 + [1] * 3  # its 3 samples in 3 folds, one each


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_splits": 1, "random_state": 0}, "n_splits=1 must be an integer of at least 2"),
        ({"n_splits": 3, "random_state": 0, "n_repeats": 0}, "n_repeats=0 must be a positive"),
        ({"n_splits": 3, "random_state": None, "n_repeats": 2}, "needs an integer random_state"),
    ],
)
def test_stratified_kfold_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ev.stratified_kfold(np.repeat([0, 1], 10), **kwargs)


def test_stratified_kfold_validation_against_a_written_out_loop():
    from sklearn.model_selection import StratifiedKFold, train_test_split

    y = np.random.default_rng(2).integers(0, 4, 150)
    folds = ev.stratified_kfold_validation(y, 3, 0.2, random_state=7, n_repeats=2)
    assert len(folds) == 6
    for r in range(2):
        cv = StratifiedKFold(3, shuffle=True, random_state=7 + r)
        ref = list(cv.split(np.zeros(150), y))
        for fold, (learn, test) in zip(folds[3 * r : 3 * r + 3], ref, strict=True):
            train, val = train_test_split(
                learn, test_size=0.2, stratify=y[learn], random_state=7 + r
            )
            np.testing.assert_array_equal(fold["train"], np.sort(train))
            np.testing.assert_array_equal(fold["val"], np.sort(val))
            np.testing.assert_array_equal(fold["test"], test)
            _assert_disjoint_cover(list(fold.values()), 150)
    with pytest.raises(ValueError, match="val_fraction=1.0 must lie in"):
        ev.stratified_kfold_validation(y, 3, 1.0, random_state=0)


def test_stratified_halves_are_scikit_learns_in_its_order():
    from sklearn.model_selection import StratifiedShuffleSplit

    y = np.repeat([0, 1, 2], [20, 14, 7])
    halves = ev.stratified_halves(y, 4, random_state=3)
    ref = StratifiedShuffleSplit(4, test_size=0.5, random_state=3).split(np.zeros(y.size), y)
    for (train, test), (ref_train, ref_test) in zip(halves, ref, strict=True):
        np.testing.assert_array_equal(train, ref_train)  # same order, not sorted
        np.testing.assert_array_equal(test, ref_test)
        _assert_disjoint_cover([train, test], y.size)
        assert abs(train.size - test.size) <= 1
        assert np.all(np.abs(np.bincount(y[test]) - np.bincount(y) / 2) <= 1)
    assert any(np.any(np.diff(test) < 0) for _, test in halves)


def test_per_class_split_counts_and_fractions_rounding_down():
    y = np.repeat(np.arange(5), [10, 11, 72, 7, 2])
    train, test = ev.per_class_split(y, train_fraction=0.5, random_state=3)
    # floor(0.5 n_c), at least one: ORL and Yale's rule
    assert np.bincount(y[train]).tolist() == [5, 5, 36, 3, 1]
    _assert_disjoint_cover([train, test], y.size)
    train, _ = ev.per_class_split(y, train_fraction=0.3, random_state=3)
    assert np.bincount(y[train]).tolist() == [3, 3, 21, 2, 1]  # 3.3, 21.6, 2.1 and 0.6 round down
    train, _ = ev.per_class_split(y, train_per_class=4, random_state=3)
    assert np.bincount(y[train]).tolist() == [4, 4, 4, 3, 1]  # small classes: half
    ref, _ = ev.per_class_count_split(y, 4, random_state=3)
    np.testing.assert_array_equal(train, ref)
    other, _ = ev.per_class_split(y, train_per_class=4, random_state=4)
    assert not np.array_equal(train, other)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "exactly one of train_per_class and train_fraction"),
        ({"train_per_class": 3, "train_fraction": 0.5}, "exactly one"),
        ({"train_fraction": 1.0}, r"train_fraction=1.0 must lie in \(0, 1\)"),
        ({"train_fraction": 0.0}, "both to train and to test"),
        ({"train_per_class": 0}, "n_per_class=0 must be a positive integer"),
    ],
)
def test_per_class_split_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ev.per_class_split(np.repeat([0, 1], 6), random_state=0, **kwargs)


def test_per_class_ordered_split_takes_consecutive_samples_of_each_class():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), [12, 9, 15, 9])[rng.permutation(45)]
    split = ev.per_class_ordered_split(y, {"train": 5, "val": 2, "test": None})
    ref = {"train": [], "val": [], "test": []}
    for c in range(4):  # brute force: walk each class in file order
        rows = [i for i in range(y.size) if y[i] == c]
        ref["train"] += rows[:5]
        ref["val"] += rows[5:7]
        ref["test"] += rows[7:]
    for part in ref:
        np.testing.assert_array_equal(split[part], sorted(ref[part]))
    capped = ev.per_class_ordered_split(y, {"train": 5, "val": 2, "test": 2})
    assert capped["test"].size == 8
    same = ev.per_class_index_split(y, {"train": (0, 5), "val": (5, 7), "test": (7, 9)})
    for part in same:
        np.testing.assert_array_equal(capped[part], same[part])


@pytest.mark.parametrize(
    ("counts", "match"),
    [
        (
            {"train": 7, "val": 2, "test": 1},
            "needs 10 samples per class, but the smallest class has 9",
        ),
        ({"train": 8, "val": 1, "test": None}, "needs 10 samples per class"),
        ({"train": None, "test": 2}, "only the last part may be None"),
        ({"train": 0, "test": 2}, "count train=0 must be a positive integer"),
        ({}, "counts is empty"),
    ],
)
def test_per_class_ordered_split_errors(counts, match):
    y = np.repeat([0, 1], [12, 9])
    with pytest.raises(ValueError, match=match):
        ev.per_class_ordered_split(y, counts)


def test_sequential_stratified_split_draws_part_after_part():
    from sklearn.model_selection import train_test_split

    y = np.tile(np.arange(4), 60)
    pool = np.arange(0, 200)
    test_pool = np.arange(200, 240)
    parts = ev.sequential_stratified_split(
        y, 80, 40, 20, random_state=1, pool=pool, test_pool=test_pool
    )
    assert [parts[p].size for p in ("train", "val", "test")] == [80, 40, 20]
    _assert_disjoint_cover(list(parts.values()))
    assert np.isin(parts["train"], pool).all() and np.isin(parts["test"], test_pool).all()
    assert np.bincount(y[parts["train"]]).tolist() == [20] * 4  # stratified
    # the training draw is scikit-learn's stratified train_test_split of the pool
    ref, _ = train_test_split(np.arange(200), train_size=80, stratify=y[pool], random_state=1)
    np.testing.assert_array_equal(parts["train"], np.sort(pool[ref]))
    rest = ev.sequential_stratified_split(y, 80, 40, None, random_state=1, pool=pool)
    np.testing.assert_array_equal(rest["val"], parts["val"])
    _assert_disjoint_cover(list(rest.values()), 200)  # test: every sample left in the pool
    kept = ev.sequential_stratified_split(y, 80, 40, 20, random_state=2, train_random_state=1)
    moved = ev.sequential_stratified_split(y, 80, 40, 20, random_state=2)
    np.testing.assert_array_equal(
        kept["train"], ev.sequential_stratified_split(y, 80, 40, 20, random_state=1)["train"]
    )
    assert not np.array_equal(kept["train"], moved["train"])


@pytest.mark.parametrize(
    ("sizes", "match"),
    [
        ((200, 50, 10), "the train part asks for 200 samples, but only 120 remain"),
        ((60, 50, 20), "the test part asks for 20 samples, but only 10 remain"),
        ((60, 0, None), "the val part asks for 0 samples: a part needs at least 1"),
    ],
)
def test_sequential_stratified_split_refuses_more_than_is_left(sizes, match):
    y = np.tile(np.arange(3), 40)
    with pytest.raises(ValueError, match=match):
        ev.sequential_stratified_split(y, *sizes, random_state=0)


def test_stratified_split_of_a_pool_is_the_split_of_its_labels():
    y = _usps_like_labels()[::3]
    pool = np.arange(0, y.size, 2)
    parts = ev.stratified_split(y, {"train": None, "val": 0.25}, random_state=3, pool=pool)
    sub = ev.stratified_split(y[pool], {"train": None, "val": 0.25}, random_state=3)
    for k in parts:
        np.testing.assert_array_equal(parts[k], pool[sub[k]])
    _assert_disjoint_cover(list(parts.values()))
    assert np.isin(np.concatenate(list(parts.values())), pool).all()


# ---------------------------------------------------------------- the papers' fast scorers


def test_ncc_and_knn_by_dimension_match_scikit_learn():
    rng = np.random.default_rng(0)
    Z_tr, Z_te = rng.normal(size=(80, 6)), rng.normal(size=(30, 6))
    y_tr, y_te = rng.integers(0, 4, 80), rng.integers(0, 4, 30)
    dims = [1, 2, 4, 6]
    ncc = ev.ncc_error_by_dimension(Z_tr, y_tr, Z_te, y_te, dims)
    for k in (1, 3, 5):
        knn = ev.knn_error_by_dimension(Z_tr, y_tr, Z_te, y_te, dims, k=k)
        for i, d in enumerate(dims):
            ref = KNeighborsClassifier(k).fit(Z_tr[:, :d], y_tr).predict(Z_te[:, :d])
            assert knn[i] == pytest.approx(np.mean(ref != y_te))
    for i, d in enumerate(dims):
        ref = NearestCentroid().fit(Z_tr[:, :d], y_tr).predict(Z_te[:, :d])
        assert ncc[i] == pytest.approx(np.mean(ref != y_te))
    # dims in any order, each scored once: the values follow the order asked
    np.testing.assert_array_equal(
        ev.ncc_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [6, 1]), ncc[[3, 0]]
    )


def test_ncc_ties_go_to_the_first_class_as_scikit_learn():
    Z_tr = np.array([[-1.5, 1.0], [-0.5, -1.0], [1.5, 1.0], [0.5, -1.0]])
    y_tr = np.array([7, 7, 3, 3])  # centroids (-1, 0) and (1, 0)
    Z_te = np.array([[0.0, 5.0], [0.0, -2.0]])  # equidistant from both
    for y_te, expected in ((np.array([3, 3]), 0.0), (np.array([7, 7]), 1.0)):
        ours = ev.ncc_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [1, 2])
        ref = NearestCentroid().fit(Z_tr, y_tr).predict(Z_te)
        assert np.mean(ref != y_te) == expected
        np.testing.assert_array_equal(ours, [expected, expected])


def test_knn_vote_ties_go_to_the_smallest_class():
    # 4 test rows, 4 training samples of classes (codes) 2, 0, 1, 0
    codes = np.array([2, 0, 1, 0])
    d2 = np.array(
        [
            [0.0, 1.0, 5.0, 6.0],  # k=2: classes 2 and 0 tie -> 0
            [5.0, 6.0, 0.0, 1.0],  # classes 1 and 0 tie -> 0
            [0.0, 5.0, 1.0, 6.0],  # classes 2 and 1 tie -> 1
            [9.0, 0.0, 5.0, 1.0],  # class 0 twice
        ]
    )
    np.testing.assert_array_equal(ev.knn_vote(d2, codes, 2, 3), [0, 0, 1, 0])
    np.testing.assert_array_equal(ev.knn_vote(d2, codes, 1, 3), [2, 1, 2, 0])
    # k as large as the training set: every sample votes (the argsort branch)
    np.testing.assert_array_equal(ev.knn_vote(d2, codes, 4, 3), [0, 0, 0, 0])
    # the same vote as scikit-learn's on even k (its mode: smallest label among the tied)
    rng = np.random.default_rng(3)
    Z_tr, Z_te = rng.normal(size=(40, 3)), rng.normal(size=(50, 3))
    y_tr, y_te = rng.integers(0, 3, 40), rng.integers(0, 3, 50)
    ref = KNeighborsClassifier(2).fit(Z_tr, y_tr).predict(Z_te)
    ours = ev.knn_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [3], k=2)
    assert ours[0] == pytest.approx(np.mean(ref != y_te))


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_svm_error_by_dimension_is_libsvm_on_the_leading_columns(embedding, kernel):
    Z_tr, y_tr, Z_te, y_te = embedding
    dims = [1, 3, 8]
    errors, capped = ev.svm_error_by_dimension(Z_tr, y_tr, Z_te, y_te, dims, kernel, 10.0, 0.2)
    assert capped == 0
    for e, d in zip(errors, dims, strict=True):
        gamma = 0.2 if kernel == "rbf" else "scale"
        ref = SVC(kernel=kernel, C=10.0, gamma=gamma).fit(Z_tr[:, :d], y_tr)
        assert e == np.mean(ref.predict(Z_te[:, :d]) != y_te)


def test_svm_fits_stopped_at_the_iteration_cap_are_counted(embedding, monkeypatch):
    from graphdr.evaluation import dimensions

    Z_tr, y_tr, Z_te, y_te = embedding
    monkeypatch.setattr(dimensions, "SVM_MAX_ITER", 1)
    _, capped = ev.svm_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [2, 4], "linear", 100.0, 0.5)
    assert capped == 2


def test_one_nn_accuracy_by_dimension_equals_sklearn_1nn():
    rng = np.random.default_rng(1)
    Z_train, Z_test = rng.normal(size=(60, 7)), rng.normal(size=(3000, 7))  # > one test block
    y_train, y_test = rng.integers(0, 4, 60), rng.integers(0, 4, 3000)
    dims = [1, 3, 7]
    ours = ev.one_nn_accuracy_by_dimension(Z_train, y_train, Z_test, y_test, dims)
    ref = [
        KNeighborsClassifier(1).fit(Z_train[:, :d], y_train).score(Z_test[:, :d], y_test)
        for d in dims
    ]
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-15)
    full = ev.one_nn_accuracy(Z_train, y_train, Z_test, y_test)
    assert full == ours[-1]


def test_one_nn_ties_go_to_the_lowest_training_index():
    Z_train = np.array([[1.0], [1.0], [-1.0]])  # two copies of one point, different labels
    y_train = np.array([5, 6, 6])
    Z_test = np.array([[1.0], [0.0]])  # the second equidistant from all three
    assert ev.one_nn_accuracy(Z_train, y_train, Z_test, np.array([5, 5])) == 1.0
    np.testing.assert_array_equal(
        ev.one_nn_accuracy_by_dimension(Z_train, y_train, Z_test, np.array([6, 6]), [1]), [0.0]
    )


def test_loo_one_nn_error_matches_scikit_learn_leave_one_out():
    from sklearn.model_selection import LeaveOneOut, cross_val_score

    rng = np.random.default_rng(0)
    Z, y = rng.normal(size=(60, 2)), rng.integers(0, 3, 60)
    ref = 1 - cross_val_score(KNeighborsClassifier(1), Z, y, cv=LeaveOneOut()).mean()
    assert ev.loo_one_nn_error(Z, y) == pytest.approx(ref)
    blobs = np.repeat([[0.0, 0.0], [9.0, 9.0]], 5, axis=0)
    assert ev.loo_one_nn_error(blobs, np.repeat([0, 1], 5)) == 0
    # ties go to the lower index: point 1 is as near to point 0 (label 0) as to point 2 (label 1)
    line = np.array([[0.0], [1.0], [2.0]])
    assert ev.loo_one_nn_error(line, np.array([0, 0, 1])) == pytest.approx(1 / 3)
    assert ev.loo_one_nn_error(line, np.array([1, 0, 0])) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("scorer", "kwargs"),
    [
        (ev.ncc_error_by_dimension, {}),
        (ev.knn_error_by_dimension, {"k": 3}),
        (ev.one_nn_accuracy_by_dimension, {}),
    ],
)
@pytest.mark.parametrize("dims", [[0, 2], [2, 9], [], [1.5]])
def test_scorers_refuse_dimensions_the_embedding_lacks(embedding, scorer, kwargs, dims):
    Z_tr, y_tr, Z_te, y_te = embedding
    with pytest.raises(ValueError, match=r"dims must be integers in 1\.\.8"):
        scorer(Z_tr, y_tr, Z_te, y_te, dims, **kwargs)


def test_fusion_scorer_refuses_bad_arguments(embedding):
    from graphdr.evaluation.fusion import fusion_error_by_dimension

    Z_tr, y_tr, Z_te, y_te = embedding
    kinds = np.array(["regular"] * 8)
    with pytest.raises(ValueError, match=r"dims must be integers in 1\.\.8"):
        fusion_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [9], kinds, "ncc")
    with pytest.raises(ValueError, match="rule must be 'ncc' or 'knn'"):
        fusion_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [1], kinds, "svm")
    with pytest.raises(ValueError, match="k=0 must be an integer in 1..160"):
        fusion_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [1], kinds, "knn", k=0)


def test_svm_and_knn_argument_errors(embedding):
    Z_tr, y_tr, Z_te, y_te = embedding
    with pytest.raises(ValueError, match="dims must be integers in 1..8"):
        ev.svm_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [9], "linear", 1.0, 0.5)
    for k in (0, 161, 2.5):
        with pytest.raises(ValueError, match=f"k={k} must be an integer in 1..160"):
            ev.knn_error_by_dimension(Z_tr, y_tr, Z_te, y_te, [1], k=k)


# ---------------------------------------------------------------- scoring every dimension


@pytest.mark.parametrize(
    ("classifier", "reference"),
    [
        ("1nn", lambda: KNeighborsClassifier(n_neighbors=1)),
        (KNeighborsClassifier(n_neighbors=3), lambda: KNeighborsClassifier(n_neighbors=3)),
        ("ncc", NearestCentroid),
    ],
)
def test_score_dimensions_equals_refitting_on_leading_columns(embedding, classifier, reference):
    Z_tr, y_tr, Z_te, y_te = embedding
    table = ev.score_dimensions(Z_tr, y_tr, Z_te, y_te, [5, 1, 3, 8], classifier)
    assert table["dim"].tolist() == [1, 3, 5, 8]
    for d, score in zip(table["dim"], table["score"], strict=True):
        expected = reference().fit(Z_tr[:, :d], y_tr).score(Z_te[:, :d], y_te)
        assert score == expected


def test_score_dimensions_defaults_and_errors(embedding):
    Z_tr, y_tr, Z_te, y_te = embedding
    assert ev.score_dimensions(Z_tr, y_tr, Z_te, y_te)["dim"].tolist() == list(range(1, 9))
    with pytest.raises(
        ValueError, match=r"fit the DR model once at n_components = max\(dims\) = 9"
    ):
        ev.score_dimensions(Z_tr, y_tr, Z_te, y_te, [2, 9])
    bad = Z_te.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="Z_eval contains NaN"):
        ev.score_dimensions(Z_tr, y_tr, bad, y_te, [1])


def test_score_dimensions_with_a_map_scorer(embedding):
    Z_tr, y_tr, Z_te, y_te = embedding
    table = ev.score_dimensions(Z_tr, y_tr, Z_te, y_te, [2, 4], ev.ovr_svm_map)
    for d, score in zip(table["dim"], table["score"], strict=True):
        svm = OneVsRestClassifier(SVC(kernel="linear")).fit(Z_tr[:, :d], y_tr)
        scores = svm.decision_function(Z_te[:, :d])
        ref = np.mean([average_precision_score(y_te == c, scores[:, c]) for c in range(4)])
        assert score == pytest.approx(ref)


# ---------------------------------------------------------------- selection


class CountingPCA(TransformerMixin, BaseEstimator):
    """PCA that records every fit, its keyword arguments and the transform keywords."""

    def __init__(self, n_components=6, whiten=False, log=None):
        self.n_components = n_components
        self.whiten = whiten
        self.log = log

    def fit(self, X, y=None, sample_weight=None):
        self.log.append({"whiten": self.whiten, "n": len(X), "sample_weight": sample_weight})
        self.pca_ = PCA(self.n_components, whiten=self.whiten, svd_solver="full").fit(X)
        return self

    def transform(self, X, scale=1.0):
        return scale * self.pca_.transform(X)


def test_dr_model_is_fit_once_per_grid_point(data):
    X_tr, y_tr, X_va, y_va = data
    log = []
    sel = ev.select_hyperparameters(
        lambda **p: CountingPCA(log=log, **p),
        {"whiten": [False, True]},
        X_tr,
        y_tr,
        X_va,
        y_va,
        dims=range(1, 7),
        classifier="knn",
        classifier_grid={"k": [1, 3, 5]},
    )
    assert [entry["whiten"] for entry in log] == [False, True]  # 2 fits, not 2 x 6 x 3
    assert len(sel.table) == 2 * 3 * 6
    assert list(sel.table.columns) == [
        "grid_index",
        "whiten",
        "classifier_index",
        "classifier__k",
        "dim",
        "score",
    ]


def test_selection_picks_what_an_explicit_loop_picks(data):
    X_tr, y_tr, X_va, y_va = data
    grid = {"with_std": [False, True], "whiten": [False, True]}

    def make(with_std, whiten):
        return make_pipeline(
            StandardScaler(with_std=with_std), PCA(6, whiten=whiten, svd_solver="full")
        )

    sel = ev.select_hyperparameters(make, grid, X_tr, y_tr, X_va, y_va, [1, 2, 4, 6], "1nn")
    # explicit loop: refit the DR model at each dimension d (PCA's leading columns are the
    # smaller fits; 1-NN ignores the sign of a column) and keep the first strict improvement
    best, best_key = -1.0, None
    for params in [
        {"with_std": False, "whiten": False},
        {"with_std": False, "whiten": True},
        {"with_std": True, "whiten": False},
        {"with_std": True, "whiten": True},
    ]:
        for d in [1, 2, 4, 6]:
            pipe = make_pipeline(
                StandardScaler(with_std=params["with_std"]),
                PCA(d, whiten=params["whiten"], svd_solver="full"),
                KNeighborsClassifier(n_neighbors=1),
            )
            score = pipe.fit(X_tr, y_tr).score(X_va, y_va)
            key = (-score, d)
            if best_key is None or key < best_key:
                best, best_key, best_params, best_dim = score, key, params, d
    assert (sel.params, sel.dim, sel.score) == (best_params, best_dim, best)
    assert sel.best["score"] == sel.table["score"].max()


def test_ties_go_to_the_smallest_dim_then_grid_order(data):
    X_tr, y_tr, X_va, y_va = data
    values = {1: 0.5, 2: 0.9, 3: 0.9, 4: 0.7}

    def scorer(Z_tr, y_tr, Z_ev, y_ev):
        return values[Z_tr.shape[1]]  # the same for every grid point

    sel = ev.select_hyperparameters(
        lambda **p: CountingPCA(log=[], **p),
        [{"whiten": True}, {"whiten": False}],  # explicit order: whiten=True first
        X_tr,
        y_tr,
        X_va,
        y_va,
        [1, 2, 3, 4],
        scorer,
    )
    assert sel.dim == 2 and sel.params == {"whiten": True} and sel.score == 0.9


def test_classifier_grid_and_kwargs_reach_the_right_calls(data):
    X_tr, y_tr, X_va, y_va = data
    log = []
    w = np.arange(len(X_tr), dtype=float)
    sel = ev.select_hyperparameters(
        lambda: CountingPCA(log=log),
        None,
        X_tr,
        y_tr,
        X_va,
        y_va,
        [3],
        "knn",
        classifier_grid={"k": [1, 7]},
        fit_kwargs={"sample_weight": w},
        transform_kwargs={"scale": 2.0},
    )
    assert log[0]["sample_weight"] is w
    pca = PCA(6, svd_solver="full").fit(X_tr)
    for k in (1, 7):
        # transform keywords reach the evaluation data only (the training embedding comes
        # from fit_transform)
        knn = KNeighborsClassifier(k).fit(pca.transform(X_tr)[:, :3], y_tr)
        expected = knn.score(2 * pca.transform(X_va)[:, :3], y_va)
        assert sel.table.loc[sel.table["classifier__k"] == k, "score"].item() == expected
    assert sel.classifier_params["k"] in (1, 7)


def test_selection_rejects_too_few_columns(data):
    X_tr, y_tr, X_va, y_va = data
    with pytest.raises(ValueError, match="max\\(dims\\) = 7"):
        ev.select_hyperparameters(
            lambda: CountingPCA(log=[]), {}, X_tr, y_tr, X_va, y_va, [7], "1nn"
        )


def test_cv_selection_averages_the_folds_and_subsets_sample_kwargs(data):
    X, y = np.vstack(data[::2]), np.concatenate(data[1::2])
    splits = ev.stratified_shuffle_splits(y, 3, 0.3, random_state=0)
    log = []
    weights = np.arange(y.size, dtype=float)
    sel = ev.select_hyperparameters_cv(
        lambda **p: CountingPCA(log=log, **p),
        {"whiten": [False, True]},
        X,
        y,
        splits,
        [1, 3, 5],
        "1nn",
        fit_kwargs={"sample_weight": weights},
    )
    assert len(log) == 3 * 2
    for entry, (train, _) in zip(log[::2], splits, strict=True):
        np.testing.assert_array_equal(entry["sample_weight"], weights[train])
    manual = []
    for train, val in splits:
        one = ev.select_hyperparameters(
            lambda **p: CountingPCA(log=[], **p),
            {"whiten": [False, True]},
            X[train],
            y[train],
            X[val],
            y[val],
            [1, 3, 5],
            "1nn",
        )
        manual.append(one.table["score"].to_numpy())
    np.testing.assert_allclose(sel.table["score"], np.mean(manual, axis=0))
    np.testing.assert_allclose(sel.table["score_std"], np.std(manual, axis=0))
    assert (sel.table["n_folds"] == 3).all() and len(sel.fold_table) == 3 * 2 * 3
    assert sel.score == sel.table["score"].max()


def test_min_error_over_dimensions_from_cross_validation(data):
    X, y = np.vstack(data[::2]), np.concatenate(data[1::2])
    folds = ev.stratified_kfold(y, 4, random_state=0)
    scores = ev.cross_validate_dimensions(
        lambda: PCA(5, svd_solver="full"), X, y, folds, None, "ncc"
    )
    assert len(scores) == 4 * 5
    opt = ev.min_error_over_dimensions(scores)
    errors = np.zeros(5)
    for train, test in folds:
        pca = PCA(5, svd_solver="full").fit(X[train])
        for d in range(1, 6):
            pred = ev.make_classifier("ncc").fit(pca.transform(X[train])[:, :d], y[train])
            errors[d - 1] += 1 - accuracy_score(
                y[test], pred.predict(pca.transform(X[test])[:, :d])
            )
    errors /= 4
    assert opt.dim == int(np.argmin(errors)) + 1
    assert opt.error == pytest.approx(errors.min())
    np.testing.assert_allclose(opt.curve["error"], errors)


def test_min_error_over_dimensions_ties_and_lists():
    a = pd.DataFrame({"dim": [1, 2, 3], "score": [0.6, 0.8, 0.8]})
    b = pd.DataFrame({"dim": [1, 2, 3], "score": [0.6, 0.7, 0.7]})
    opt = ev.min_error_over_dimensions([a, b])
    assert opt.dim == 2 and opt.error == pytest.approx(0.25) and opt.std == pytest.approx(0.05)
    with pytest.raises(ValueError, match="same number of folds"):
        ev.min_error_over_dimensions(pd.concat([a, b.iloc[:2]]))


def test_standardised_ovr_svm_scores_scale_by_the_training_part():
    """Standardiser: the training part gets zero mean and unit variance, a constant column keeps
    scale 1 (no division by ~0); the scores are the Newton SVM's on the standardised data."""
    from graphdr.evaluation.classifiers import (
        Standardiser,
        fit_ovr_linear_svm,
        standardised_ovr_svm_scores,
    )

    X, y = make_classification(n_samples=90, n_features=5, n_informative=3, n_classes=3,
                               random_state=0)  # fmt: skip
    X[:, 4] = 7.0
    scale = Standardiser(X[:60])
    Z = scale(X[:60])
    np.testing.assert_allclose(Z[:, :4].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z[:, :4].std(axis=0), 1.0, rtol=1e-12)
    assert scale.scale[4] == 1.0 and np.all(Z[:, 4] == 0.0)
    reference = StandardScaler().fit(X[:60, :4])
    np.testing.assert_allclose(Z[:, :4], reference.transform(X[:60, :4]), atol=1e-12)
    classes = np.unique(y)
    W, b = fit_ovr_linear_svm(Z, y[:60], classes, 0.5)
    np.testing.assert_array_equal(
        standardised_ovr_svm_scores(X[:60], y[:60], X[60:], classes, 0.5), scale(X[60:]) @ W + b
    )


def test_ovr_kernel_svm_is_libsvm_one_class_against_the_rest():
    """fit_ovr_kernel_svm + ovr_decision_function: column k is the decision value of scikit-learn's
    SVC trained with class k positive, on the same precomputed kernel."""
    from graphdr.evaluation.classifiers import fit_ovr_kernel_svm, ovr_decision_function

    X, y = make_classification(n_samples=80, n_features=6, n_informative=4, n_classes=3,
                               random_state=1)  # fmt: skip
    K = X[:50] @ X[:50].T
    Kt = X[50:] @ X[:50].T
    classes = np.unique(y)
    scores = ovr_decision_function(fit_ovr_kernel_svm(K, y[:50], classes, 2.0), Kt)
    assert scores.shape == (30, 3)
    for k, c in enumerate(classes):
        svm = SVC(kernel="linear", C=2.0).fit(X[:50], y[:50] == c)
        np.testing.assert_allclose(scores[:, k], svm.decision_function(X[50:]), atol=1e-6)


@pytest.mark.parametrize(
    ("value", "tried", "side"),
    [
        (0.1, [0.1, 1.0, 10.0], "low"),
        (10.0, [1.0, 10.0, 0.1], "high"),
        (1.0, [0.1, 1.0, 10.0], None),
        (1.0 + 1e-12, [1.0, 2.0], "low"),
        (3.0, [3.0, 3.0], None),  # one distinct value: no edge
        (5.0, [], None),
    ],
)
def test_grid_edge(value, tried, side):
    assert ev.grid_edge(value, tried) == side
