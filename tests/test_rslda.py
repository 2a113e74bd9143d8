"""RSLDA (Wen et al., IEEE TCSVT 2019), a baseline of paper 004: its ADMM against the problem's
own optimality conditions.

* every block update is the exact minimiser of its subproblem, checked against independent
  references (scipy's polar decomposition; the l1 prox by brute force on a grid), and lowers
  the augmented Lagrangian for the fixed multiplier (the Q-step through its l2,1 majoriser);
* at convergence the point satisfies the KKT conditions of
  ``min tr(Q^T A Q) + lambda1 ||Q||_2,1 + lambda2 ||E||_1 s.t. X = P Q^T X + E, P^T P = I``:
  feasibility, Q-stationarity ``2 A Q + lambda1 D Q = X Y^T P``, P-stationarity on the Stiefel
  manifold ``Y X^T Q = P Lambda`` with ``Lambda`` symmetric, ``|Y| <= lambda2``;
* ADMM's objective is NOT monotone over iterations (only the augmented Lagrangian per block is);
  this is stated, and measured here, rather than tested as a property;
* on training data with sparse gross corruptions RSLDA's 1-NN accuracy on clean test data beats
  LDA's on average over seeded cases (the paper's robustness claim on a constructed case).
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KNeighborsClassifier

from graphdr.methods import LDA_GE, RSLDA
from graphdr.methods.sparse_discriminant import (
    _error_multiplier_pass,
    _error_multiplier_step,
    _procrustes,
    _scatters,
    _soft_threshold,
    rslda_admm,
    rslda_augmented_lagrangian,
)

PARAMS = dict(lambda1=1e-2, lambda2=1e-2, lambda_b=1e-5, mu=0.1, rho=1.05, mu_max=1e5)


def _scaled(seed=0, n_classes=3, per_class=15, n_features=6):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    X = 2.0 * rng.standard_normal((n_classes, n_features))[y] + rng.standard_normal(
        (y.size, n_features)
    )
    X -= X.mean(axis=0)
    X /= np.sqrt((X**2).sum() / len(y))
    return X.T.copy(), y


def test_block_steps_are_exact_minimisers():
    rng = np.random.default_rng(1)
    B = rng.standard_normal((7, 3))
    P = _procrustes(B)
    # max tr(P^T B) over P^T P = I: the polar factor of B (scipy), beaten by no random point
    U, _, Vt = np.linalg.svd(B, full_matrices=False)
    np.testing.assert_allclose(P, U @ Vt, atol=1e-12)
    np.testing.assert_allclose(P.T @ P, np.eye(3), atol=1e-12)
    best = np.trace(P.T @ B)
    for _ in range(200):
        Z, _ = np.linalg.qr(rng.standard_normal((7, 3)))
        assert np.trace(Z.T @ B) <= best + 1e-12
    polar, _ = scipy.linalg.polar(B)
    np.testing.assert_allclose(P, polar, atol=1e-10)
    # the l1 prox: argmin_e t|e| + (e - v)^2 / 2, by brute force on a fine grid
    v = np.array([-2.0, -0.3, 0.0, 0.2, 0.5, 3.0])
    t = 0.4
    grid = np.linspace(-4, 4, 800001)
    brute = np.array([grid[np.argmin(t * np.abs(grid) + 0.5 * (grid - vi) ** 2)] for vi in v])
    np.testing.assert_allclose(_soft_threshold(v, t), brute, atol=1e-5)


def test_fused_error_and_multiplier_step_equals_the_numpy_expressions_bitwise():
    """The numba pass writes E, Y and the next M exactly as the numpy expressions of the ADMM
    (the same operations per entry), with entries at the threshold, zero and both signs."""
    rng = np.random.default_rng(3)
    X, PQtX, Y = (rng.standard_normal((6, 40)) for _ in range(3))
    mu, mu_next = 0.37, 0.37 * 1.01
    t = 0.25
    X[0, :4] = PQtX[0, :4]  # v = Y / mu exactly ...
    Y[0, :4] = [0.0, -0.0, t * mu, -t * mu]  # ... zero, or on the threshold
    E, Y_next, M = (np.empty_like(X) for _ in range(3))
    residual = _error_multiplier_step(X, PQtX, Y, mu, t, mu_next, E, Y_next, M)
    E_ref = _soft_threshold(X - PQtX + Y / mu, t)
    R = X - PQtX - E_ref
    Y_ref = Y + mu * R
    for got, want in [(E, E_ref), (Y_next, Y_ref), (M, X - E_ref + Y_ref / mu_next)]:
        assert got.tobytes() == want.tobytes()
    assert residual == np.abs(R).max()


@pytest.mark.parametrize("layout", ["F", "C"])
def test_error_pass_in_memory_order_writes_the_same_bits(layout):
    """The pass in the memory order of X (Fortran-ordered X as RSLDA hands it over, with a
    C-ordered P Q^T X) writes the same E, Y, M and residual as the kernel on C-ordered copies,
    and returns them laid out as X."""
    rng = np.random.default_rng(4)
    X, PQtX, Y = (np.asfortranarray(rng.standard_normal((7, 30))) for _ in range(3))
    if layout == "C":
        X, Y = np.ascontiguousarray(X), np.ascontiguousarray(Y)
    PQtX = np.ascontiguousarray(PQtX)
    mu, mu_next, t = 0.37, 0.37 * 1.01, 0.25
    E, Y_next, M, residual = _error_multiplier_pass(X, PQtX, Y, mu, t, mu_next)
    Xc, Pc, Yc = (np.ascontiguousarray(a) for a in (X, PQtX, Y))
    want = [np.empty_like(Xc) for _ in range(3)]
    want_residual = _error_multiplier_step(Xc, Pc, Yc, mu, t, mu_next, *want)
    for got, ref in zip((E, Y_next, M), want, strict=True):
        assert got.flags.f_contiguous == (layout == "F")
        assert np.ascontiguousarray(got).tobytes() == ref.tobytes()
    assert residual == want_residual


def test_every_block_lowers_the_augmented_lagrangian():
    X, y = _scaled()
    S_w, S_b = _scatters(X, y, 3)
    A = S_w - PARAMS["lambda_b"] * S_b
    state = {}
    checked = []

    def callback(stage, P, Q, E, Y, mu):
        if stage == "Y":  # the multiplier and the penalty change: a new subproblem starts
            state.clear()
            return
        value = rslda_augmented_lagrangian(
            X, P, Q, E, Y, mu, A, PARAMS["lambda1"], PARAMS["lambda2"]
        )
        if "last" in state:  # compared with the previous block of the same subproblem
            assert value <= state["last"] + 1e-9 * max(1.0, abs(state["last"])), stage
            checked.append(stage)
        state["last"] = value

    rslda_admm(X, y, 2, max_iter=60, tol=1e-12, callback=callback, **PARAMS)
    assert checked.count("E") >= 59 and checked.count("Q") >= 58


def test_objective_is_not_required_to_be_monotone_but_settles():
    X, y = _scaled(2)
    *_, objectives, converged = rslda_admm(X, y, 2, max_iter=3000, tol=1e-9, **PARAMS)
    assert converged
    # the documented fact: ADMM's objective goes up as well as down (the constraint is only
    # met at the end), so monotonicity is not a property to test
    assert np.any(np.diff(objectives) > 0)
    # it settles: the last value is within 1 % of the smallest of the second half
    assert objectives[-1] <= 1.01 * objectives[objectives.size // 2 :].min()


@pytest.mark.parametrize("seed", [0, 3])
def test_converged_point_satisfies_the_kkt_conditions(seed):
    X, y = _scaled(seed)
    S_w, S_b = _scatters(X, y, 3)
    A = S_w - PARAMS["lambda_b"] * S_b
    last = {}

    def callback(stage, P, Q, E, Y, mu):
        if stage == "Q":
            last["Y_before"] = Y.copy()  # the multiplier the Q-step used
        if stage == "Y":
            last["Y"] = Y.copy()

    P, Q, E, _, converged = rslda_admm(
        X, y, 2, max_iter=5000, tol=1e-10, callback=callback, **PARAMS
    )
    assert converged
    Y = last["Y"]
    # feasibility
    assert np.abs(X - P @ Q.T @ X - E).max() < 1e-9
    # |Y| <= lambda2, and Y = lambda2 sign(E) on the support of E
    lam2 = PARAMS["lambda2"]
    assert np.abs(Y).max() <= lam2 * (1 + 1e-9)
    support = E != 0
    np.testing.assert_allclose(Y[support], lam2 * np.sign(E[support]), rtol=1e-6)
    # Q-stationarity: 2 A Q + lambda1 diag(1/||q_i||) Q = X Y^T P
    norms = np.linalg.norm(Q, axis=1)
    lhs = 2 * A @ Q + PARAMS["lambda1"] * Q / norms[:, None]
    rhs = X @ Y.T @ P
    # 1e-3: the growing penalty makes late iterations crawl, and the stopping rule (residual
    # and objective change, as the authors') stops with ~1e-4 relative stationarity left
    assert np.linalg.norm(lhs - rhs) <= 1e-3 * np.linalg.norm(rhs)
    # P-stationarity on the Stiefel manifold: Y X^T Q = P Lambda, Lambda symmetric
    G = Y @ X.T @ Q
    Lam = P.T @ G
    scale = np.linalg.norm(G)
    assert np.linalg.norm(G - P @ Lam) <= 1e-3 * scale
    assert np.linalg.norm(Lam - Lam.T) <= 1e-3 * scale
    # a wrong condition (Q-stationarity without the l2,1 term) is violated at the same point
    assert np.linalg.norm(2 * A @ Q - rhs) > 3e-2 * np.linalg.norm(rhs)


def _corrupted(seed, n_features=30, per_class=40, n_classes=3):
    """Two informative features; 10 % of the training entries get gross N(0, 30^2) errors."""
    rng = np.random.default_rng(seed)
    spread = np.r_[1.0, 1.0, np.full(n_features - 2, 0.5)]
    centres = np.zeros((n_classes, n_features))
    centres[:, :2] = 3.0 * rng.standard_normal((n_classes, 2))
    y = np.repeat(np.arange(n_classes), per_class)
    yt = np.repeat(np.arange(n_classes), 100)
    X = centres[y] + rng.standard_normal((y.size, n_features)) * spread
    Xt = centres[yt] + rng.standard_normal((yt.size, n_features)) * spread
    mask = rng.random(X.shape) < 0.1
    X[mask] += 30.0 * rng.standard_normal(mask.sum())
    return X, y, Xt, yt


def test_sparse_corruption_hurts_rslda_less_than_lda():
    def accuracy(est, X, y, Xt, yt):
        return KNeighborsClassifier(1).fit(est.transform(X), y).score(est.transform(Xt), yt)

    lda, rslda = [], []
    for seed in range(5):
        X, y, Xt, yt = _corrupted(seed)
        lda.append(accuracy(LDA_GE().fit(X, y), X, y, Xt, yt))
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)  # these fits converge
            est = RSLDA(n_components=2, lambda2=1e-2).fit(X, y)
        rslda.append(accuracy(est, X, y, Xt, yt))
    # measured: LDA 0.59, RSLDA 0.68 (mean over the five cases)
    assert np.mean(rslda) > np.mean(lda) + 0.05


def test_non_convergence_warns_and_is_recorded():
    X, y = _scaled()
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=3"):
        est = RSLDA(max_iter=3).fit(X.T, y)
    assert not est.converged_ and est.n_iter_ == 3


def test_deterministic_label_free_and_errors():
    X, y = _scaled(4)
    X = X.T
    a = RSLDA().fit(X, y).transform(X)
    np.testing.assert_array_equal(a, RSLDA().fit(X, y).transform(X))
    b = RSLDA().fit(X, np.array(["c", "a", "b"])[y]).transform(X)
    assert np.max(scipy.linalg.subspace_angles(a, b)) < 1e-8
    with pytest.raises(ValueError, match=r"n_components=7 is larger than n_features = 6"):
        RSLDA(n_components=7).fit(X, y)
    with pytest.raises(ValueError, match="rho must be >= 1"):
        RSLDA(rho=0.5).fit(X, y)
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1, got 0"):
        RSLDA(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="lambda2 must be a finite number > 0"):
        RSLDA(lambda2=0.0).fit(X, y)
    with pytest.raises(ValueError, match="identical"):
        RSLDA().fit(np.ones_like(X), y)


def test_unit_norm_follows_the_authors_demo():
    """normalize="unit_norm" (the authors' demo_RSLDA.m): the ADMM on the unit-norm, uncentred
    samples (compared with a direct call), projections scaled to unit norm, a sample's
    embedding independent of its length, a zero sample rejected in training and kept zero
    at transform."""
    X, y = _scaled(5)
    X = X.T + 3.0  # off-centre: the demo does not centre
    est = RSLDA(n_components=2, normalize="unit_norm", max_iter=40, **PARAMS)
    with pytest.warns(ConvergenceWarning):
        Z = est.fit(X, y).transform(X)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    _, Q, *_ = rslda_admm(U.T, y, 2, max_iter=40, tol=1e-6, **PARAMS)
    # the estimator's sign rule may flip columns of Q: compare up to each column's sign
    ref = U @ Q
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    signs = np.sign(np.sum(Z * ref, axis=0))
    np.testing.assert_allclose(Z, ref * signs, atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
    np.testing.assert_allclose(est.transform(7.5 * X[:4]), Z[:4], atol=1e-12)
    np.testing.assert_array_equal(est.transform(np.zeros((1, X.shape[1]))), 0.0)
    with pytest.raises(ValueError, match="training sample 3 is zero"):
        RSLDA(normalize="unit_norm").fit(np.where(np.arange(len(X))[:, None] == 3, 0.0, X), y)
    with pytest.raises(ValueError, match="normalize must be one of"):
        RSLDA(normalize="l2").fit(X, y)
