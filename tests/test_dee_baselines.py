"""DCV and MMPA (baselines of paper 003) against independent references."""

import numpy as np
import pytest
import scipy.linalg

from graphdr.methods.common_vectors import DCV
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
    with pytest.raises(ValueError, match="n_between"):
        MMPA(n_between=0).fit(X, y)


# --------------------------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------------------------


# scikit-learn checks of the default instances: tests/test_common.py
