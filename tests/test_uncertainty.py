"""Uncertainty estimators against a brute-force nearest-neighbour reference (scipy's cdist)."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr import uncertainty as unc
from graphdr.uncertainty import (
    ConstantUncertainty,
    NearestNeighborUncertainty,
    check_sample_variance,
    make_uncertainty,
    nearest_neighbor_distances,
)


def awkward(seed=0, n=40, d=5):
    """Exact duplicates (also across classes), a triplicate, a near-duplicate, a far point."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 3, n)
    X[1] = X[0]
    y[1] = y[0]  # same-class duplicate
    X[3] = X[2]
    y[3] = (y[2] + 1) % 3  # duplicate in another class
    X[5] = X[6] = X[4]  # triplicate
    X[7] = X[8] + 1e-9  # near-duplicate (distinct)
    y[7] = y[8]
    X[9] *= 40.0
    return X, y


def brute_force(X, y=None, reference=None, duplicates="distinct"):
    """Nearest admissible neighbour distance from the full distance matrix."""
    ref = X if reference is None else reference
    D = cdist(X, ref)
    same = (X[:, None, :] == ref[None, :, :]).all(axis=2)
    bad = np.zeros_like(D, dtype=bool)
    if reference is None:
        np.fill_diagonal(bad, True)
    if duplicates == "distinct":
        bad |= same
    out = np.zeros(len(X))
    for i in range(len(X)):
        ok = ~bad[i]
        if y is not None and np.any(ok & (y == y[i])):
            ok &= y == y[i]
        if np.any(ok):
            out[i] = D[i, ok].min()
    return out


@pytest.mark.parametrize("duplicates", ["distinct", "zero"])
@pytest.mark.parametrize("supervised", [False, True])
def test_nearest_neighbor_distances_match_brute_force(duplicates, supervised, monkeypatch):
    monkeypatch.setattr(unc, "_BLOCK_BYTES", 8 * 40 * 7)  # several blocks of 7 rows
    X, y = awkward()
    labels = y if supervised else None
    d, idx = nearest_neighbor_distances(X, labels, duplicates=duplicates)
    np.testing.assert_allclose(d, brute_force(X, labels, duplicates=duplicates), rtol=1e-12)
    np.testing.assert_allclose(d, np.linalg.norm(X - X[idx], axis=1), rtol=1e-15)  # direct
    assert np.all(idx != np.arange(len(X)))
    if duplicates == "zero":
        assert d[0] == d[1] == d[4] == 0.0
    else:
        assert d.min() > 0 and d[7] == pytest.approx(1e-9 * np.sqrt(5), rel=1e-3)


def test_new_points_against_the_training_set():
    X, _ = awkward()
    Q = np.r_[X[:3], np.random.default_rng(1).normal(size=(6, 5))]
    for duplicates in ("distinct", "zero"):
        d, _ = nearest_neighbor_distances(Q, reference=X, duplicates=duplicates)
        np.testing.assert_allclose(d, brute_force(Q, reference=X, duplicates=duplicates))
    assert nearest_neighbor_distances(Q, reference=X, duplicates="zero")[0][0] == 0.0


def test_one_sample_class_falls_back_to_any_class_with_a_warning():
    X, y = awkward()
    y[10] = 7  # a class of its own
    with pytest.warns(UserWarning, match="1 sample"):
        d, idx = nearest_neighbor_distances(X, y)
    np.testing.assert_allclose(d, brute_force(X, y))
    assert y[idx[10]] != 7


def test_identical_samples_have_no_neighbour():
    X = np.ones((4, 3))
    d, idx = nearest_neighbor_distances(X)
    np.testing.assert_array_equal(d, 0.0)
    np.testing.assert_array_equal(idx, -1)


def test_nn_uncertainty_is_beta_times_distance_squared():
    X, y = awkward()
    est = NearestNeighborUncertainty(beta=0.3).fit(X)
    np.testing.assert_allclose(est.nn_distances_, brute_force(X))
    np.testing.assert_allclose(est.sample_variance_, (0.3 * brute_force(X)) ** 2)
    np.testing.assert_allclose(est.sample_variance(), est.sample_variance_)
    Q = np.random.default_rng(2).normal(size=(5, 5))
    np.testing.assert_allclose(est.sample_variance(Q), (0.3 * brute_force(Q, reference=X)) ** 2)
    sup = NearestNeighborUncertainty(beta=0.3, supervised=True).fit(X, y)
    np.testing.assert_allclose(sup.sample_variance_, (0.3 * brute_force(X, y)) ** 2)
    assert np.all(sup.sample_variance_ >= est.sample_variance_)
    assert not NearestNeighborUncertainty(beta=0.0).fit(X).sample_variance_.any()


def test_new_points_are_searched_once_inside_reuse_kernels(monkeypatch):
    """A grid fits models of several beta on one training part and transforms one test part
    with each: inside reuse_kernels each neighbour search runs once, and every variance equals
    the one computed outside the block."""
    from graphdr.kernels import reuse_kernels

    rng = np.random.default_rng(3)
    X, X_new = rng.normal(size=(40, 5)), rng.normal(size=(15, 5))
    fresh = [NearestNeighborUncertainty(b).fit(X).sample_variance(X_new) for b in (0.1, 0.5)]
    calls = []
    real = unc.nearest_neighbor_distances
    monkeypatch.setattr(
        unc, "nearest_neighbor_distances", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    with reuse_kernels():
        shared = [
            NearestNeighborUncertainty(b).fit(X).sample_variance(X_new) for b in (0.1, 0.5, 0.1)
        ]
    assert len(calls) == 2  # the training part's search and the new points' search, once each
    for a, b in zip(fresh + fresh[:1], shared, strict=True):
        np.testing.assert_array_equal(a, b)


def test_diagonal_uncertainty_is_beta_times_the_neighbour_difference_squared():
    """Per feature: ``beta^2 (x_ik - x_n(i)k)^2`` with the neighbour from a brute-force search
    (cdist); the row sums are the isotropic variances (same neighbour, same total)."""
    X, y = awkward()
    beta = 0.3
    for supervised in (False, True):
        iso = NearestNeighborUncertainty(beta=beta, supervised=supervised).fit(X, y)
        diag = NearestNeighborUncertainty(beta=beta, supervised=supervised, covariance="diagonal")
        diag.fit(X, y)
        D = cdist(X, X)
        D[D == 0.0] = np.inf  # itself and exact copies (duplicates="distinct")
        if supervised:
            D[y[:, None] != y[None, :]] = np.inf
        nearest = np.argmin(D, axis=1)
        assert diag.sample_variance_.shape == X.shape
        np.testing.assert_allclose(diag.sample_variance_, (beta * (X - X[nearest])) ** 2)
        np.testing.assert_allclose(diag.sample_variance_.sum(axis=1), iso.sample_variance_)
    Q = np.random.default_rng(2).normal(size=(5, 5))
    to_train = np.argmin(cdist(Q, X), axis=1)
    np.testing.assert_allclose(
        diag.sample_variance(Q), (beta * (Q - X[to_train])) ** 2, rtol=1e-12, atol=0
    )
    # no admissible neighbour (every sample identical): zero variance, as the isotropic scheme
    same = NearestNeighborUncertainty(covariance="diagonal").fit(np.ones((4, 3)))
    np.testing.assert_array_equal(same.sample_variance_, np.zeros((4, 3)))
    assert make_uncertainty("nn_diagonal", beta=0.2).get_params()["covariance"] == "diagonal"
    with pytest.raises(ValueError, match="covariance must be one of"):
        NearestNeighborUncertainty(covariance="full").fit(X)


def test_training_set_is_owned():
    X, _ = awkward()
    est = NearestNeighborUncertainty().fit(X)
    X[:] = 0.0
    assert est.X_fit_.any()


def test_constant_uncertainty():
    X, _ = awkward()
    est = ConstantUncertainty(s0=0.25).fit(X)
    np.testing.assert_array_equal(est.sample_variance_, np.full(40, 0.25))
    np.testing.assert_array_equal(est.sample_variance(X[:3]), np.full(3, 0.25))
    assert est.fit_sample_variance(X).shape == (40,)


def test_check_sample_variance():
    assert check_sample_variance(None, 3, 2) is None
    np.testing.assert_array_equal(check_sample_variance(0.5, 3, 2), [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(check_sample_variance([[1], [2], [3]], 3, 2), [1, 2, 3])
    assert check_sample_variance(np.ones((3, 2), dtype=int), 3, 2).dtype == np.float64
    for bad, match in [
        (np.ones(4), r"shape \(4,\); expected \(3,\)"),
        (np.ones((3, 3)), r"or \(3, 2\) for diagonal"),
        (np.ones((3, 2, 1)), "shape"),
        (np.ones((3, 2, 2)), "full covariance matrices are not supported"),
        ([1.0, -0.5, 1.0], "non-negative .* -0.5 at index \\(1,\\)"),
        ([1.0, np.nan, 1.0], "NaN"),
        ([1.0, np.inf, 1.0], "infinity"),
        (np.array(["a", "b", "c"]), "real numbers"),
    ]:
        with pytest.raises(ValueError, match=match):
            check_sample_variance(bad, 3, 2)


def test_make_uncertainty():
    assert make_uncertainty(None) is None
    nn = make_uncertainty("nn", beta=0.2)
    assert isinstance(nn, NearestNeighborUncertainty) and nn.beta == 0.2 and not nn.supervised
    assert make_uncertainty("nn_supervised").supervised
    assert make_uncertainty("constant", s0=3.0).s0 == 3.0
    given = NearestNeighborUncertainty(beta=0.7)
    made = make_uncertainty(given)
    assert made is not given and made.get_params() == given.get_params()
    with pytest.raises(ValueError, match="not a known scheme"):
        make_uncertainty("gaussian")
    with pytest.raises(ValueError, match="uncertainty must be"):
        make_uncertainty(3.0)


def test_parameter_errors():
    X, _ = awkward()
    with pytest.raises(ValueError, match="beta"):
        NearestNeighborUncertainty(beta=-1).fit(X)
    with pytest.raises(ValueError, match="requires y"):
        NearestNeighborUncertainty(supervised=True).fit(X)
    with pytest.raises(ValueError, match="duplicates"):
        NearestNeighborUncertainty(duplicates="drop").fit(X)
    with pytest.raises(ValueError, match="s0"):
        ConstantUncertainty(s0="big").fit(X)
    with pytest.raises(ValueError, match="NaN"):
        clone(NearestNeighborUncertainty()).fit(np.r_[X[:-1], [[np.nan] * 5]])


@parametrize_with_checks(
    [
        NearestNeighborUncertainty(),
        NearestNeighborUncertainty(supervised=True),
        NearestNeighborUncertainty(duplicates="zero"),
        NearestNeighborUncertainty(covariance="diagonal"),
        ConstantUncertainty(),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
