"""DEE, EE and DSNE: kernels against numpy, gradients against finite differences, optimisers,
determinism, out-of-sample, errors, scikit-learn compatibility."""

import warnings

import numba
import numpy as np
import pytest

from graphdr.kernels import squared_distances
from graphdr.methods._elastic_kernels import (
    dsne_objective,
    elastic_objective,
    entropic_affinities,
    place_out_of_sample,
)
from graphdr.methods.elastic import (
    DEE,
    DSNE,
    EE,
    UnboundedObjectiveWarning,
    dee_direction_matrix,
    dsne_affinities,
    within_class_gaussian_weights,
)
from graphdr.optim import WINDOW

# --------------------------------------------------------------------------------------------
# data and plain numpy references
# --------------------------------------------------------------------------------------------


def blobs(n_per=20, n_classes=3, n_features=5, seed=0, spread=3.0):
    rng = np.random.default_rng(seed)
    centres = spread * rng.standard_normal((n_classes, n_features))
    X = np.vstack([c + rng.standard_normal((n_per, n_features)) for c in centres])
    return X, np.repeat(np.arange(n_classes), n_per)


def sqdist_ref(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)


def elastic_ref(Y, Wp, Wn, lam):
    """E = sum Wp D + lam sum Wn exp(-D); grad = 4 (L+ - lam L~-) Y, written with N x N arrays."""
    D = sqdist_ref(Y)
    K = Wp - lam * Wn * np.exp(-D)
    L = np.diag(K.sum(1)) - K
    return (Wp * D).sum() + lam * (Wn * np.exp(-D)).sum(), 4 * L @ Y


def dsne_ref(Y, P, y):
    """C = sum_{P>0} P log(P/Q), Q normalised over same-class and different-class pairs."""
    U = 1.0 / (1.0 + sqdist_ref(Y))
    np.fill_diagonal(U, 0.0)
    same = (y[:, None] == y[None, :]) & ~np.eye(y.size, dtype=bool)
    diff = y[:, None] != y[None, :]
    Q = np.where(same, U / U[same].sum(), 0.0) + np.where(diff, U / U[diff].sum(), 0.0)
    nz = P > 0
    return float(np.sum(P[nz] * np.log(P[nz] / Q[nz])))


def weights(X, y, kind="constant", sigma=2.0):
    D2 = squared_distances(X)
    Wp = within_class_gaussian_weights(D2, y, sigma)
    diff = (y[:, None] != y[None, :]).astype(float)
    Wn = diff / diff.sum() if kind == "constant" else D2 * diff / (D2 * diff).sum()
    return Wp, Wn


def central_difference(f, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def rel_err(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


# --------------------------------------------------------------------------------------------
# kernels against numpy
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("kind", ["constant", "distance"])
def test_elastic_kernel_matches_numpy(d, kind):
    X, y = blobs(n_per=9, n_classes=4)
    Wp, Wn = weights(X, y, kind)
    Y = np.random.default_rng(1).standard_normal((X.shape[0], d))
    E_ref, G_ref = elastic_ref(Y, Wp, Wn, lam=1.7)
    if kind == "constant":
        E, G = elastic_objective(Y, Wp, 1.7, labels=y.astype(np.int64), wn=Wn.max())
    else:
        E, G = elastic_objective(Y, Wp, 1.7, Wn=Wn)
    np.testing.assert_allclose(E, E_ref, rtol=1e-10)
    np.testing.assert_allclose(G, G_ref, rtol=1e-10, atol=1e-12 * np.abs(G_ref).max())


def test_elastic_kernel_awkward_data():
    """Duplicated points (zero distances) and a singleton class."""
    X, y = blobs(n_per=5, n_classes=3)
    X = np.vstack([X, X[:3], [[10.0] * 5]])
    y = np.concatenate([y, y[:3], [7]])
    Wp, Wn = weights(X, y)
    Y = np.random.default_rng(0).standard_normal((X.shape[0], 2))
    Y[-4:-1] = Y[:3]
    E_ref, G_ref = elastic_ref(Y, Wp, Wn, lam=0.5)
    E, G = elastic_objective(Y, Wp, 0.5, labels=y.astype(np.int64), wn=Wn.max())
    np.testing.assert_allclose(E, E_ref, rtol=1e-10)
    np.testing.assert_allclose(G, G_ref, rtol=1e-10, atol=1e-13)


def test_dsne_objective_matches_numpy_and_gradient_formula():
    X, y = blobs(n_per=8, n_classes=3)
    P, const = dsne_affinities(squared_distances(X), y, 2.5)
    assert np.isclose(P[(y[:, None] == y[None, :])].sum(), 1) and np.isclose(P.sum(), 2)
    Y = np.random.default_rng(3).standard_normal((X.shape[0], 2))
    C, G = dsne_objective(Y, P, y.astype(np.int64), const)
    np.testing.assert_allclose(C, dsne_ref(Y, P, y), rtol=1e-10)
    G_fd = central_difference(lambda Z: dsne_ref(Z, P, y), Y)
    assert rel_err(G, G_fd) < 1e-6


@pytest.mark.parametrize("d", [1, 4, 12])
def test_gram_forms_match_numpy(d):
    """The Gram-form evaluations (wide embeddings) against the numpy references, with a
    duplicated point (zero distance: the clipped Gram distance) and a singleton class."""
    from graphdr.methods.elastic import _dsne_gram, _elastic_gram

    X, y = blobs(n_per=7, n_classes=3)
    X = np.vstack([X, X[:1], [[9.0] * 5]])
    y = np.concatenate([y, y[:1], [5]])
    codes = np.unique(y, return_inverse=True)[1].astype(np.int64)
    Wp, Wn = weights(X, codes)
    Y = np.random.default_rng(4).standard_normal((X.shape[0], d))
    Y[-2] = Y[0]
    E_ref, G_ref = elastic_ref(Y, Wp, Wn, lam=1.3)
    E, G = _elastic_gram(Y, Wp, 1.3, codes, Wn.max())
    np.testing.assert_allclose(E, E_ref, rtol=1e-10)
    np.testing.assert_allclose(G, G_ref, rtol=1e-9, atol=1e-12 * np.abs(G_ref).max())
    P, const = dsne_affinities(squared_distances(X), codes, 2.5)
    C, G = _dsne_gram(Y, P, codes, const, True, True)
    C_ref, G_fused = dsne_objective(Y, P, codes, const)
    np.testing.assert_allclose(C, dsne_ref(Y, P, codes), rtol=1e-10)
    np.testing.assert_allclose(C, C_ref, rtol=1e-12)
    np.testing.assert_allclose(G, G_fused, rtol=1e-9, atol=1e-12 * np.abs(G_fused).max())


def test_fit_uses_the_gram_form_for_wide_embeddings_with_the_same_result():
    """A DSNE/DEE fit at d >= _GRAM_MIN_DIM (Gram form) ends where the fused kernels end."""
    import graphdr.methods.elastic as el

    X, y = blobs(n_per=10, n_classes=4, n_features=8)
    fits = {}
    for threshold in (1, 10**6):  # Gram form always / never
        old = el._GRAM_MIN_DIM, el._GRAM_WIDE_DIM
        el._GRAM_MIN_DIM = el._GRAM_WIDE_DIM = threshold
        try:
            fits[threshold] = [
                est(4, random_state=0, max_iter=60).fit(X, y) for est in (el.DSNE, el.DEE)
            ]
        finally:
            el._GRAM_MIN_DIM, el._GRAM_WIDE_DIM = old
    for a, b in zip(fits[1], fits[10**6], strict=True):
        np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-8)
        np.testing.assert_allclose(
            a.history_["objective"][:20], b.history_["objective"][:20], rtol=1e-8
        )


def test_entropic_affinities_reach_the_perplexity():
    X, _ = blobs(n_per=15)
    P, beta = entropic_affinities(squared_distances(X), 7.0)
    np.testing.assert_allclose(P.sum(1), 1.0, rtol=1e-12)
    assert np.all(np.diag(P) == 0) and np.all(beta > 0)
    H = -np.sum(np.where(P > 0, P * np.log(np.where(P > 0, P, 1)), 0), axis=1)
    np.testing.assert_allclose(np.exp(H), 7.0, rtol=1e-6)


def test_out_of_sample_kernel_reaches_a_stationary_point():
    """Numpy reference: E_x(y) = sum a ||y - y_n||^2 + lam sum b exp(-||y - y_n||^2)."""
    rng = np.random.default_rng(4)
    Ytr = rng.standard_normal((30, 2))
    Wp, Wn = rng.random((5, 30)) / 30, np.full((5, 30), 1e-2)
    Y0 = Ytr[:5] + 0.5

    def energy_grad(y, a, b):
        diff = y - Ytr
        e = np.exp(-(diff**2).sum(1))
        return (a * (diff**2).sum(1)).sum() + 2.0 * (b * e).sum(), 2 * ((a - 2.0 * b * e) @ diff)

    Y = place_out_of_sample(Y0, Ytr, Wp, Wn, 2.0, max_iter=500, tol=1e-14)
    for i in range(5):
        e0, g0 = energy_grad(Y0[i], Wp[i], Wn[i])
        e1, g1 = energy_grad(Y[i], Wp[i], Wn[i])
        assert e1 < e0 and np.linalg.norm(g1) < 1e-6 * np.linalg.norm(g0)


def test_kernels_bitwise_identical_for_any_thread_count():
    X, y = blobs(n_per=400, n_classes=3, n_features=4)  # 1200 rows
    Wp, _ = weights(X, y)
    Y = np.random.default_rng(0).standard_normal((X.shape[0], 2))
    old = numba.get_num_threads()
    try:
        out = []
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            out.append(elastic_objective(Y, Wp, 1.0, labels=y.astype(np.int64), wn=1e-6))
    finally:
        numba.set_num_threads(old)
    assert all(E == out[0][0] and np.array_equal(G, out[0][1]) for E, G in out)


# --------------------------------------------------------------------------------------------
# gradients against central finite differences
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["constant", "distance"])
def test_dee_gradient_finite_differences(kind):
    X, y = blobs(n_per=7, n_classes=3, n_features=4)
    Xc = X - X.mean(0)
    Wp, Wn = weights(Xc, y, kind)
    A = 0.3 * np.random.default_rng(0).standard_normal((4, 2))

    def E(A):
        return elastic_objective(Xc @ A, Wp, 2.0, Wn=Wn)[0]

    grad = Xc.T @ elastic_objective(Xc @ A, Wp, 2.0, Wn=Wn)[1]
    np.testing.assert_allclose(grad, Xc.T @ elastic_ref(Xc @ A, Wp, Wn, 2.0)[1], rtol=1e-10)
    assert rel_err(grad, central_difference(E, A)) < 1e-6


def test_ee_gradient_finite_differences():
    X, _ = blobs(n_per=6)
    P, _ = entropic_affinities(squared_distances(X), 4.0)
    Wp = (P + P.T) / (2 * X.shape[0])
    labels = np.arange(X.shape[0], dtype=np.int64)
    Y = np.random.default_rng(5).standard_normal((X.shape[0], 2))

    def E(Y):
        return elastic_objective(Y, Wp, 3.0, labels=labels, wn=0.01)[0]

    G = elastic_objective(Y, Wp, 3.0, labels=labels, wn=0.01)[1]
    assert rel_err(G, central_difference(E, Y)) < 1e-6


def test_dsne_gradient_finite_differences_in_A():
    X, y = blobs(n_per=6, n_classes=3, n_features=4)
    Xc = X - X.mean(0)
    P, const = dsne_affinities(squared_distances(Xc), y, 2.0)
    codes = y.astype(np.int64)
    A = 0.5 * np.random.default_rng(2).standard_normal((4, 2))

    def C(A):
        return dsne_objective(Xc @ A, P, codes, const)[0]

    grad = Xc.T @ dsne_objective(Xc @ A, P, codes, const)[1]
    assert rel_err(grad, central_difference(C, A)) < 1e-6


# --------------------------------------------------------------------------------------------
# optimisers on DEE
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2])
def test_all_optimisers_decrease_monotonically_and_agree(d):
    X, y = blobs()
    finals = {}
    for opt in ("ld", "fp", "cg", "gd"):
        est = DEE(d, optimizer=opt, init="pca", tol=1e-12, max_iter=5000).fit(X, y)
        E = est.history_["objective"]
        assert np.all(np.diff(E) <= 0), opt
        assert len(E) == est.n_iter_ + 1 and E[-1] == est.objective_
        finals[opt] = est.objective_
    ref = finals["ld"]
    assert all(abs(v - ref) <= 1e-7 * abs(ref) for v in finals.values()), finals


def _dee_objective(X, y, **params):
    """DEE's objective over A (flat-vector version for scipy) on centred data."""
    est = DEE(**params)
    Z = X - X.mean(0)
    objective, _ = est._problem(Z, np.unique(y, return_inverse=True)[1].astype(np.int64))
    return objective, Z


def test_cg_and_gd_steps_satisfy_strong_wolfe_on_dee():
    from graphdr.optim import wolfe_line_search

    X, y = blobs(n_per=15, n_classes=3, n_features=5, seed=7)
    objective, Z = _dee_objective(X, y)
    rng = np.random.default_rng(0)
    for c2 in (0.1, 0.9):
        A = 0.1 * rng.standard_normal((5, 2))
        E, G = objective(A)
        a, _, E_new, G_new, _ = wolfe_line_search(objective, A, E, G, -G, 1e-2, c2=c2)
        slope = -np.vdot(G, G)
        assert a > 0 and E_new <= E + 1e-4 * a * slope
        assert abs(np.vdot(G_new, -G)) <= c2 * abs(slope) * (1 + 1e-12)


def test_dee_cg_reaches_scipy_cg_and_ld_objective():
    import scipy.optimize

    X, y = blobs(n_per=20, n_classes=4, n_features=6, seed=2)
    objective, Z = _dee_objective(X, y)
    ld = DEE(optimizer="ld", init="pca", tol=1e-12, max_iter=5000).fit(X, y)
    cg = DEE(optimizer="cg", init="pca", tol=1e-12, max_iter=5000).fit(X, y)
    A0 = DEE(optimizer="cg", init="pca", max_iter=1).fit(X, y)  # the same start, one step
    start = DEE(init="pca")._start(Z, 2, None)

    def flat(a):
        E, G = objective(a.reshape(start.shape))
        return E, G.ravel()

    ref = scipy.optimize.minimize(
        flat, start.ravel(), jac=True, method="CG", options={"gtol": 1e-12}
    )
    assert A0.n_iter_ == 1
    np.testing.assert_allclose(cg.objective_, ref.fun, rtol=1e-6)
    np.testing.assert_allclose(cg.objective_, ld.objective_, rtol=1e-6)
    # a real CG: far fewer iterations than steepest descent to the same accuracy
    gd = DEE(optimizer="gd", init="pca", tol=1e-12, max_iter=5000).fit(X, y)
    target = ld.objective_ * (1 + 1e-6)
    first = {e.optimizer: int(np.argmax(e.history_["objective"] <= target)) for e in (cg, gd)}
    assert 0 < first["cg"] < first["gd"], first


def test_ld_direction_is_a_descent_direction():
    X, y = blobs(n_features=6)
    Xc = X - X.mean(0)
    Wp, _ = weights(Xc, y)
    B = dee_direction_matrix(Xc, Wp, "ld", 1e-6)
    # B = 4 X^T L+ X + ridge: symmetric positive definite
    L = np.diag(Wp.sum(1)) - Wp
    np.testing.assert_allclose(
        B - 1e-6 * np.trace(B) / 6 * np.eye(6), 4 * Xc.T @ L @ Xc, rtol=1e-6, atol=1e-10
    )
    assert np.linalg.eigvalsh(B).min() > 0
    rng = np.random.default_rng(0)
    for _ in range(5):
        A = rng.standard_normal((6, 2))
        _, G = elastic_objective(Xc @ A, Wp, 1.0, labels=y.astype(np.int64), wn=1e-3)
        g = Xc.T @ G
        p = -np.linalg.solve(B, g)
        assert np.vdot(g, p) < 0


def test_ld_needs_fewer_iterations_than_fp_and_gd():
    # anisotropic features (scales 1-30): the conditioning LD's Laplacian preconditioner fixes
    X, y = blobs(n_per=30, n_classes=4, n_features=8, seed=3)
    X = X * np.geomspace(1.0, 30.0, 8)
    fits = {
        o: DEE(optimizer=o, random_state=0, tol=1e-9, max_iter=3000).fit(X, y)
        for o in ("ld", "fp", "gd")
    }
    best = min(f.objective_ for f in fits.values())
    # iterations to a relative 1e-6 of the best objective (equal accuracy)
    first = {
        o: int(np.argmax(f.history_["objective"] <= best * (1 + 1e-6))) for o, f in fits.items()
    }
    assert first["ld"] < first["fp"] and first["ld"] < first["gd"], first


# --------------------------------------------------------------------------------------------
# DEE estimator behaviour
# --------------------------------------------------------------------------------------------


def test_dee_is_deterministic_and_separates_classes():
    X, y = blobs(n_per=15, n_classes=4, n_features=6, seed=1)
    a = DEE(random_state=7).fit(X, y)
    b = DEE(random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert a.components_.shape == (2, 6) and a.n_components_ == 2
    Y = a.transform(X)
    np.testing.assert_allclose(Y, (X - X.mean(0)) @ a.components_.T)
    # nearest class centroid on the embedding recovers the labels of well separated blobs
    cent = np.array([Y[y == c].mean(0) for c in range(4)])
    pred = np.argmin(((Y[:, None] - cent[None]) ** 2).sum(-1), axis=1)
    assert np.mean(pred == y) > 0.95


def test_dee_history_records_every_iteration():
    X, y = blobs()
    est = DEE(max_iter=7, tol=0.0, random_state=0).fit(X, y)
    assert est.n_iter_ == 7 and not est.converged_
    assert set(est.history_) == {"objective", "step", "time", "n_evals"}
    assert all(len(v) == 8 for v in est.history_.values())


def test_dee_warm_start_continues_from_the_previous_fit():
    X, y = blobs()
    est = DEE(tol=1e-10, random_state=0, warm_start=True).fit(X, y)
    first = est.objective_
    est.fit(X, y)
    assert est.n_iter_ <= WINDOW + 1 and est.objective_ <= first


def test_dee_pca_option_and_unbounded_warning():
    rng = np.random.default_rng(0)
    X, y = blobs(n_per=5, n_classes=4, n_features=30)  # 30 features > 20 - 4
    X += 0.1 * rng.standard_normal(X.shape)
    with pytest.warns(UnboundedObjectiveWarning, match="no minimiser"):
        DEE(max_iter=20, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnboundedObjectiveWarning)
        est = DEE(pca=5, random_state=0).fit(X, y)
    assert est.n_fit_features_ == 5 and est.components_.shape == (2, 30)
    # the projection lies in the span of the 5 leading principal axes
    _, _, Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)
    resid = est.components_ - (est.components_ @ Vt[:5].T) @ Vt[:5]
    assert np.abs(resid).max() < 1e-10 * np.abs(est.components_).max()
    assert DEE(pca=0.9, max_iter=5).fit(X, y).n_fit_features_ <= 19
    with pytest.raises(ValueError, match="larger than the 1 principal axes kept by pca=1"):
        DEE(pca=1).fit(X, y)


def test_dee_small_lambda_collapses_and_distance_repulsion_runs():
    X, y = blobs()
    est = DEE(lam=1e-3, random_state=0).fit(X, y)
    assert np.abs(est.transform(X)).max() < 1e-1
    est = DEE(repulsive="distance", random_state=0).fit(X, y)
    assert np.isfinite(est.objective_)


def test_callback_and_verbose():
    X, y = blobs()
    est = DEE(callback=lambda it, A, E, g: it >= 2, verbose=True, tol=0.0).fit(X, y)
    assert est.n_iter_ == 2 and est.stop_message_ == "stopped by callback"


@pytest.mark.parametrize("Est", [DEE, DSNE])
def test_clear_errors(Est):
    X, y = blobs(n_features=3)
    with pytest.raises(ValueError, match="n_components=4 is larger than n_features = 3"):
        Est(n_components=4).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        Est().fit(X, np.zeros(len(y)))
    Xnan = X.copy()
    Xnan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Est().fit(Xnan, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Est().fit(X, y[:-1])
    est = Est(max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        est.transform(X[:, :2])
    with pytest.raises(ValueError, match="optimizer"):
        Est(optimizer="newton").fit(X, y)
    with pytest.raises(ValueError, match="pca"):
        Est(pca=1.5).fit(X, y)


# --------------------------------------------------------------------------------------------
# DSNE and EE
# --------------------------------------------------------------------------------------------


def test_dsne_fits_and_decreases():
    X, y = blobs(n_per=12)
    est = DSNE(random_state=0).fit(X, y)
    assert np.all(np.diff(est.history_["objective"]) <= 0)
    assert est.objective_ < est.history_["objective"][0]
    b = DSNE(random_state=0).fit(X, y)
    np.testing.assert_array_equal(est.components_, b.components_)


@pytest.mark.parametrize("opt", ["ld", "fp", "cg", "gd"])
def test_ee_optimisers_decrease(opt):
    X, _ = blobs(n_per=10)
    est = EE(optimizer=opt, random_state=0, max_iter=200).fit(X)
    assert np.all(np.diff(est.history_["objective"]) <= 0)
    np.testing.assert_allclose(est.embedding_.mean(0), 0, atol=1e-12)


def test_ee_transform_training_points_and_neighbours():
    X, y = blobs(n_per=15, n_classes=3)
    est = EE(random_state=0, tol=1e-9).fit(X)
    np.testing.assert_array_equal(est.transform(X), est.embedding_)
    # a slightly perturbed training point lands next to it (its own stationary point)
    Xn = X[:10] + 1e-4
    Yn = est.transform(Xn)
    spread = np.ptp(est.embedding_, axis=0).max()
    assert np.abs(Yn - est.embedding_[:10]).max() < 1e-2 * spread
    # far-away class structure is kept: new points land nearest their own class
    cent = np.array([est.embedding_[y == c].mean(0) for c in range(3)])
    Xnew, ynew = blobs(n_per=5, n_classes=3)
    Xnew = Xnew + 0.3 * np.random.default_rng(9).standard_normal(Xnew.shape)
    pred = np.argmin(((est.transform(Xnew)[:, None] - cent[None]) ** 2).sum(-1), axis=1)
    assert np.mean(pred == ynew) > 0.9


# --------------------------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------------------------


# scikit-learn checks of the default instances: tests/test_common.py
