"""DCV, MMPA and LFDA (baselines of paper 003) against independent references."""

import numpy as np
import pytest
import scipy.linalg

from graphdr.methods.common_vectors import DCV
from graphdr.methods.local_fisher import LFDA, lfda_weights, local_scaling_affinity
from graphdr.methods.patch_alignment import MMPA, min_max_patch_weights


def faces_like(n_per=4, n_classes=5, n_features=40, seed=0):
    """Small-sample-size data (n_features > n_samples - n_classes), the regime DCV is built for."""
    rng = np.random.default_rng(seed)
    centres = 3.0 * rng.standard_normal((n_classes, n_features))
    X = np.vstack([c + rng.standard_normal((n_per, n_features)) for c in centres])
    return X, np.repeat(np.arange(n_classes), n_per)


def projector(V):
    Q, _ = np.linalg.qr(V)
    return Q @ Q.T


# --------------------------------------------------------------------------------------------
# DCV
# --------------------------------------------------------------------------------------------


def test_dcv_maps_each_training_class_to_one_point():
    X, y = faces_like()
    est = DCV().fit(X, y)
    assert est.n_components_ == 4 and est.components_.shape == (4, 40) and est.exact_null_space_
    Y = est.transform(X)
    spread = np.ptp(Y, axis=0).max()
    for c in range(5):
        assert np.ptp(Y[y == c], axis=0).max() < 1e-8 * spread
    # distinct classes stay apart
    points = np.array([Y[y == c][0] for c in range(5)])
    dist = np.linalg.norm(points[:, None] - points[None], axis=-1)
    assert dist[~np.eye(5, dtype=bool)].min() > 1e-3 * spread
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(4), atol=1e-10)


def test_dcv_subspace_matches_explicit_null_space_reference():
    """Reference: scipy's null space of S_w (D x D), projected class means, their PCA."""
    X, y = faces_like(seed=1)
    Xc = X - X.mean(0)
    means = np.array([Xc[y == c].mean(0) for c in range(5)])
    Xw = Xc - means[y]
    N0 = scipy.linalg.null_space(Xw.T @ Xw, rcond=1e-10)
    common = means @ N0 @ N0.T
    _, _, Vt = np.linalg.svd(common - common.mean(0))
    est = DCV().fit(X, y)
    np.testing.assert_allclose(projector(est.components_.T), projector(Vt[:4].T), atol=1e-8)


def test_dcv_smallest_eigenvalue_variant_against_eigh_reference():
    """k smallest-eigenvalue directions of S_w (numpy eigh of the D x D scatter, within the
    total-scatter range), projected class means, their PCA."""
    # N = 24, C = 4: S_w spans 20 of the 23 total-scatter dimensions, its null space there 3
    X, y = faces_like(n_per=6, n_classes=4, n_features=30, seed=2)
    Xc = X - X.mean(0)
    means = np.array([Xc[y == c].mean(0) for c in range(4)])
    Xw = Xc - means[y]
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    B = Vt[s > 1e-8 * s[0]].T
    for k in (3, 15):
        _, V = np.linalg.eigh(B.T @ Xw.T @ Xw @ B)
        N0 = B @ V[:, :k]
        common = means @ N0 @ N0.T
        _, _, Wt = np.linalg.svd(common - common.mean(0))
        est = DCV(n_smallest=k).fit(X, y)
        assert not est.exact_null_space_
        np.testing.assert_allclose(projector(est.components_.T), projector(Wt[:3].T), atol=1e-7)
        Y = est.transform(X)
        spread = max(np.ptp(Y[y == c], axis=0).max() for c in range(4))
        # within the null space (k <= 3) every class is still one point; beyond it, not
        assert (spread < 1e-8 * np.ptp(Y, axis=0).max()) == (k <= 3)
    with pytest.raises(ValueError, match="n_smallest must be None"):
        DCV(n_smallest=0).fit(X, y)


def test_dcv_bounds_and_leading_columns():
    X, y = faces_like()
    with pytest.raises(ValueError, match="n_components=5 is larger than n_classes - 1 = 4"):
        DCV(n_components=5).fit(X, y)
    full = DCV().fit(X, y)
    two = DCV(n_components=2).fit(X, y)
    np.testing.assert_allclose(two.components_, full.components_[:2], atol=1e-10)
    with pytest.raises(ValueError, match="at least 2 classes"):
        DCV().fit(X, np.zeros(len(y)))


def test_dcv_falls_back_with_a_warning_when_sw_is_nonsingular():
    X, y = faces_like(n_per=20, n_features=6)
    with pytest.warns(UserWarning, match="smallest-eigenvalue directions"):
        est = DCV().fit(X, y)
    assert not est.exact_null_space_ and est.components_.shape == (4, 6)
    assert np.all(np.isfinite(est.transform(X)))


# --------------------------------------------------------------------------------------------
# MMPA
# --------------------------------------------------------------------------------------------


def _patch_reference(D2, y, k_within, k_between, tw, tb):
    """Loop-by-loop patch construction (the documented reconstruction)."""
    n = y.size
    Aw, Ab = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        same = [j for j in range(n) if j != i and y[j] == y[i]]
        other = [j for j in range(n) if y[j] != y[i]]
        far = sorted(same, key=lambda j: (-D2[i, j], j))
        far = far if k_within is None else far[:k_within]
        near = sorted(other, key=lambda j: (D2[i, j], j))[:k_between]
        for j in far:
            Aw[i, j] = np.exp(-D2[i, j] / (2 * tw**2))
        for j in near:
            Ab[i, j] = np.exp(-D2[i, j] / (2 * tb**2))
    return Aw + Aw.T, Ab + Ab.T


@pytest.mark.parametrize("k_within", [None, 2])
def test_mmpa_patches_match_loop_reference(k_within):
    X, y = faces_like(n_per=5, n_features=3)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    got = min_max_patch_weights(D2, y, k_within, 3, 1.5, 2.5)
    ref = _patch_reference(D2, y, k_within, 3, 1.5, 2.5)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12)


def test_mmpa_solves_the_generalised_eigenproblem():
    """With D < N the scatters are nonsingular: compare with scipy's eigh(S_b, S_w + eps I)."""
    X, y = faces_like(n_per=15, n_features=6, seed=2)
    est = MMPA(n_components=3, n_between=5, reg=1e-6).fit(X, y)
    Xc = X - X.mean(0)
    D2 = ((Xc[:, None] - Xc[None]) ** 2).sum(-1)
    Ww, Wb = min_max_patch_weights(D2, y, None, 5, est.t_within_, est.t_between_)
    Sw = Xc.T @ (np.diag(Ww.sum(1)) - Ww) @ Xc
    Sb = Xc.T @ (np.diag(Wb.sum(1)) - Wb) @ Xc
    Sw_reg = Sw + 1e-6 * np.trace(Sw) / 6 * np.eye(6)
    w, V = scipy.linalg.eigh(Sb, Sw_reg)
    np.testing.assert_allclose(est.eigenvalues_, w[::-1][:3], rtol=1e-8)
    np.testing.assert_allclose(
        projector(est.components_.T), projector(V[:, ::-1][:, :3]), atol=1e-8
    )
    np.testing.assert_allclose(np.linalg.norm(est.components_, axis=1), 1.0)


def test_mmpa_separates_classes_and_checks_bounds():
    X, y = faces_like(n_per=10, n_features=20, seed=3)
    Y = MMPA(n_components=4).fit(X, y).transform(X)
    cent = np.array([Y[y == c].mean(0) for c in range(5)])
    pred = np.argmin(((Y[:, None] - cent[None]) ** 2).sum(-1), axis=1)
    assert np.mean(pred == y) == 1.0
    with pytest.raises(ValueError, match="n_components=21 is larger than n_features = 20"):
        MMPA(n_components=21).fit(X, y)
    Xs, ys = faces_like(n_per=2, n_features=20)  # 10 samples: rank 9
    with pytest.raises(ValueError, match="rank of the centred training data = 9"):
        MMPA(n_components=12).fit(Xs, ys)
    for params, message in (
        ({"n_between": 0}, "n_between must be an integer >= 1, got 0"),
        ({"n_within": 2.5}, "n_within must be an integer >= 1 or None, got 2.5"),
        ({"t_within": "median"}, "t_within must be a number > 0 or 'auto', got 'median'"),
        ({"t_between": -1.0}, "t_between must be a finite number > 0, got -1.0"),
        ({"reg": np.nan}, "reg must be a finite number > 0, got nan"),
    ):
        with pytest.raises(ValueError, match=message):
            MMPA(**params).fit(X, y)


# --------------------------------------------------------------------------------------------
# LFDA
# --------------------------------------------------------------------------------------------


def _pair_scatter(X, W):
    """``1/2 sum_ij W_ij (x_i - x_j)(x_i - x_j)^T``, pair by pair (the JMLR definition)."""
    S = np.zeros((X.shape[1], X.shape[1]))
    for i in range(X.shape[0]):
        for j in range(X.shape[0]):
            diff = X[i] - X[j]
            S += 0.5 * W[i, j] * np.outer(diff, diff)
    return S


def _lfda_reference(X, y, k, reg, ridge_dim):
    """LFDA from the JMLR paper, loop by loop, in the feature space: per-pair affinities with
    the local scale of each sample's k-th nearest same-class neighbour, the two local scatters,
    scipy's ``eigh(S_lb, S_lw + ridge)`` and the weighted eigenvectors."""
    n = y.size
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    sigma = np.empty(n)
    for i in range(n):
        within = sorted(D2[i, j] for j in range(n) if y[j] == y[i] and j != i)
        sigma[i] = np.sqrt(within[min(k, len(within)) - 1])
    Ww, Wb = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if y[i] == y[j]:
                a = np.exp(-D2[i, j] / (sigma[i] * sigma[j]))
                nc = np.sum(y == y[i])
                Ww[i, j], Wb[i, j] = a / nc, a * (1 / n - 1 / nc)
            else:
                Wb[i, j] = 1 / n
    Sw, Sb = _pair_scatter(X, Ww), _pair_scatter(X, Wb)
    Sw_reg = Sw + reg * np.trace(Sw) / ridge_dim * np.eye(X.shape[1])
    w, V = scipy.linalg.eigh(Sb, Sw_reg)
    return w[::-1], V[:, ::-1] * np.sqrt(np.clip(w[::-1], 0, None))


def _same_columns_up_to_sign(A, B, atol):
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A, B * signs, atol=atol * np.abs(B).max())


def test_lfda_with_unit_affinity_is_fisher():
    """Sugiyama's remark: with every affinity 1 the local scatters are Fisher's within- and
    between-class scatters (textbook formulas from the class means)."""
    X, y = faces_like(n_per=6, n_classes=4, n_features=5, seed=4)
    Ww, Wb = lfda_weights(np.ones((y.size, y.size)), y)
    mu = X.mean(0)
    Sw = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in range(4))
    Sb = sum(
        np.sum(y == c) * np.outer(X[y == c].mean(0) - mu, X[y == c].mean(0) - mu) for c in range(4)
    )
    np.testing.assert_allclose(_pair_scatter(X, Ww), Sw, atol=1e-10)
    np.testing.assert_allclose(_pair_scatter(X, Wb), Sb, atol=1e-10)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_lfda_matches_the_loop_reference(k):
    """D < N: the fitted eigenvalues and weighted directions equal the feature-space reference
    (classes of 6: k = 7 takes each class's farthest sample as the scale)."""
    X, y = faces_like(n_per=6, n_classes=4, n_features=5, seed=5)
    est = LFDA(n_components=3, n_neighbors=k, reg=1e-6).fit(X, y)
    w, T = _lfda_reference(X - X.mean(0), y, k, 1e-6, ridge_dim=5)
    np.testing.assert_allclose(est.eigenvalues_, w[:3], rtol=1e-8)
    _same_columns_up_to_sign(est.components_.T, T[:, :3], atol=1e-7)


def test_lfda_in_the_span_equals_the_feature_space_solution():
    """D > N (raw pixels): solving in the span of the centred data gives the feature-space
    solution whose ridge is the same multiple of I (directions outside the span have ratio 0)."""
    X, y = faces_like(n_per=4, n_classes=5, n_features=40, seed=6)
    est = LFDA(n_components=4, reg=1e-3).fit(X, y)
    w, T = _lfda_reference(X - X.mean(0), y, 7, 1e-3, ridge_dim=y.size - 1)
    np.testing.assert_allclose(est.eigenvalues_, w[:4], rtol=1e-7)
    _same_columns_up_to_sign(est.components_.T, T[:, :4], atol=1e-6)
    Q = LFDA(n_components=4, metric="orthonormalized", reg=1e-3).fit(X, y).components_
    np.testing.assert_allclose(Q @ Q.T, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(projector(Q.T), projector(est.components_.T), atol=1e-8)


def test_lfda_keeps_the_modes_of_a_multimodal_class():
    """Sugiyama's motivating case: class 0 in two clusters on either side of class 1 along the
    first axis, a small class offset along the second. Fisher's criterion sees equal class means
    on axis 0 and picks axis 1; LFDA, which does not pull the two far clusters of class 0
    together, keeps axis 0, along which the classes do not overlap."""
    rng = np.random.default_rng(7)
    c0 = np.vstack([rng.normal([-4, 0], 0.3, (40, 2)), rng.normal([4, 0], 0.3, (40, 2))])
    c1 = rng.normal([0, 0.6], 0.3, (80, 2))
    X, y = np.vstack([c0, c1]), np.repeat([0, 1], 80)
    direction = LFDA(n_components=1).fit(X, y).components_[0]
    assert abs(direction[0]) / np.linalg.norm(direction) > 0.99
    Ww, Wb = lfda_weights(np.ones((160, 160)), y)  # Fisher (unit affinities)
    Sw, Sb = _pair_scatter(X, Ww), _pair_scatter(X, Wb)
    fisher = scipy.linalg.eigh(Sb, Sw)[1][:, -1]
    assert abs(fisher[1]) / np.linalg.norm(fisher) > 0.99


def test_lfda_affinity_ignores_duplicates_and_other_classes():
    X = np.array([[0.0, 0], [0, 0], [1, 0], [5, 5], [6, 5]])
    y = np.array([0, 0, 0, 1, 1])
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    A = local_scaling_affinity(D2, y, n_neighbors=1)
    assert A[0, 1] == 0.0 and A[0, 0] == 0.0  # sigma = 0 for the duplicated pair
    assert np.all(A[:3, 3:] == 0) and np.all(A[3:, :3] == 0)
    np.testing.assert_allclose(A[3, 4], np.exp(-1.0))  # sigma = 1 for both


def test_lfda_checks_its_parameters():
    X, y = faces_like(n_per=5, n_features=8)
    for params, message in (
        ({"n_neighbors": 0}, "n_neighbors must be an integer >= 1, got 0"),
        ({"metric": "cosine"}, "metric must be one of"),
        ({"reg": 0.0}, "local within-class scatter is singular"),
        ({"n_components": 9}, "n_components=9 is larger than n_features = 8"),
    ):
        with pytest.raises(ValueError, match=message):
            LFDA(**params).fit(X, y)
    Xs, ys = faces_like(n_per=2, n_features=20)  # 10 samples: rank 9
    with pytest.raises(ValueError, match="rank of the centred training data = 9"):
        LFDA(n_components=12).fit(Xs, ys)


# --------------------------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------------------------


# scikit-learn checks of the default instances: tests/test_common.py
