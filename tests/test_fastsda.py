"""FastSDA (Chumachenko et al. 2021), a baseline of paper 004, against independent references.

* one subclass per class: fastSDA's targets are the class indicators orthogonal to 1, i.e.
  spectral-regression KDA on the centred kernel (SRKDA(center=True), an independent code path
  with its own responses): same subspace;
* linear kernel, well-posed data (N > D, all H-1 directions): the span of
  ``(S_t + reg I)^-1 X_c^T T`` is the span of the top H-1 generalised eigenvectors of SDA's
  scatters ``S_bs v = lambda (S_t + reg I) v`` (range(S_bs) = X_c^T span(T)), for any reg,
  computed here by dense ``scipy.linalg.eigh`` from the textbook pairwise definition of
  ``S_bs``;
* the targets span the between-subclass Laplacian's range (built here from the pairwise graph);
* the directions are orthonormal (or unit-norm) in feature space.
"""

import numpy as np
import pytest
import scipy.linalg

from graphdr.methods import SRKDA, FastSDA

TINY = 1e-9


def _angle(A, B) -> float:
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


def _data(seed=0, n_classes=3, per_class=40, n_features=6, modes=2):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    mode = rng.integers(0, modes, y.size)
    centres = 3.0 * rng.standard_normal((n_classes, modes, n_features))
    X = centres[y, mode] + 0.7 * rng.standard_normal((y.size, n_features))
    return X, y, rng.standard_normal((25, n_features))


def test_one_subclass_per_class_is_centred_spectral_regression_kda():
    X, y, Xt = _data()
    for reg in (1e-3, 1.0):
        fast = FastSDA(n_subclasses=1, gamma=0.2, reg=reg).fit(X, y)
        srkda = SRKDA(center=True, gamma=0.2, reg=reg).fit(X, y)
        assert fast.n_components_ == 2
        assert _angle(fast.transform(Xt), srkda.transform(Xt)) < 1e-8


def _sda_scatters(X, y, sub):
    """Textbook SDA scatters: ``S_bs = sum_{u<v, different classes} p_u p_v (m_u - m_v)(..)^T``
    (times N, the KSDA convention; a constant factor does not move eigenvectors) and
    ``S_t = sum_i (x_i - m)(x_i - m)^T``."""
    n = len(y)
    subs = np.unique(sub)
    means = {u: X[sub == u].mean(axis=0) for u in subs}
    p = {u: np.mean(sub == u) for u in subs}
    cls = {u: y[sub == u][0] for u in subs}
    S_b = np.zeros((X.shape[1],) * 2)
    for i, u in enumerate(subs):
        for v in subs[i + 1 :]:
            if cls[u] != cls[v]:
                d = (means[u] - means[v])[:, None]
                S_b += n * p[u] * p[v] * (d @ d.T)
    Xc = X - X.mean(axis=0)
    return S_b, Xc.T @ Xc


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_kernel_matches_the_dense_sda_eigenproblem(seed):
    X, y, Xt = _data(seed, n_classes=3, per_class=50, n_features=8, modes=2)
    reg = 1e-3  # the dual solve of a singular linear kernel needs a ridge well above rounding
    fast = FastSDA(n_subclasses=2, kernel="linear", reg=reg, random_state=seed).fit(X, y)
    H = fast.n_subclasses_.sum()
    assert fast.n_components_ == H - 1 == 5
    S_b, S_t = _sda_scatters(X, y, fast.subclass_labels_)
    w, V = scipy.linalg.eigh(S_b, S_t + reg * np.eye(len(S_t)))
    W = V[:, ::-1][:, : H - 1]
    assert w[::-1][H - 2] > 1e-6 * w[-1]  # H-1 non-zero eigenvalues: a well-posed problem
    reference = (Xt - X.mean(axis=0)) @ W
    assert _angle(fast.transform(Xt), reference) < 1e-6
    # a wrong reference (the class-level LDA subspace, C-1 directions of it) is far away
    lda = SRKDA(center=True, kernel="linear", reg=reg).fit(X, y).transform(Xt)
    assert np.max(scipy.linalg.subspace_angles(fast.transform(Xt), lda)) < 1e-6  # LDA inside
    assert _angle(fast.transform(Xt)[:, :2], reference[:, 2:4]) > 0.1


def test_targets_span_the_between_subclass_laplacian_range():
    """Regressing onto the Laplacian's own eigenvectors gives the same fit as onto fastSDA's
    targets: the solved directions coincide as a subspace."""
    X, y, Xt = _data(3)
    fast = FastSDA(n_subclasses=2, gamma=0.3, reg=1e-2, random_state=0).fit(X, y)
    sub = fast.subclass_labels_
    n = len(y)
    subs = np.unique(sub)
    cls_of = {u: y[sub == u][0] for u in subs}
    # S_bs = X^T L_b X with L_b = sum_{u<v, different classes} p_u p_v d_uv d_uv^T,
    # d_uv = z_u / N_u - z_v / N_v (z the subclass indicators): the between-subclass "Laplacian"
    L = np.zeros((n, n))
    for i, u in enumerate(subs):
        for v in subs[i + 1 :]:
            if cls_of[u] != cls_of[v]:
                d = (sub == u) / np.sum(sub == u) - (sub == v) / np.sum(sub == v)
                L += np.mean(sub == u) * np.mean(sub == v) * np.outer(d, d)
    w, U = scipy.linalg.eigh(L)
    T = U[:, w > 1e-10 * w.max()]
    assert T.shape[1] == fast.n_components_
    # the same regression by hand, on the centred kernel
    from graphdr.kernels import pairwise_kernel

    K = pairwise_kernel(X, kernel="rbf", gamma=fast.gamma_)
    H = np.eye(n) - 1.0 / n
    A = np.linalg.solve(H @ K @ H + 1e-2 * np.eye(n), T)
    Kt = pairwise_kernel(Xt, X, kernel="rbf", gamma=fast.gamma_)
    Kt_c = (Kt - Kt.mean(axis=1, keepdims=True) - K.mean(axis=0) + K.mean()) @ A
    assert _angle(fast.transform(Xt), Kt_c) < 1e-8


@pytest.mark.parametrize("normalize", ["orthonormal", "unit"])
def test_directions_are_normalised_in_feature_space(normalize):
    X, y, _ = _data(4)
    fast = FastSDA(gamma=0.2, normalize=normalize, random_state=0).fit(X, y)
    Z = fast.transform(X)  # centred training projections: Z^T Z = A^T K_c K_c A, not A^T K_c A
    from graphdr.kernels import pairwise_kernel

    n = len(y)
    K = pairwise_kernel(X, kernel="rbf", gamma=fast.gamma_)
    H = np.eye(n) - 1.0 / n
    A = fast.dual_coef_
    G = A.T @ H @ K @ H @ A
    if normalize == "unit":
        np.testing.assert_allclose(np.diag(G), 1.0, rtol=1e-6)
        assert np.max(np.abs(G - np.diag(np.diag(G)))) > 1e-3  # not orthonormal
    else:
        np.testing.assert_allclose(G, np.eye(G.shape[0]), atol=1e-6)
    assert Z.shape == (n, fast.n_components_)


def test_deterministic_and_seeded():
    X, y, Xt = _data(5)
    a = FastSDA(random_state=3).fit(X, y).transform(Xt)
    b = FastSDA(random_state=3).fit(X, y).transform(Xt)
    np.testing.assert_array_equal(a, b)


def test_errors_state_the_bound():
    X, y, _ = _data(6, n_classes=3)
    with pytest.raises(ValueError, match=r"n_components=6 is larger than n_subclasses - 1 = 5"):
        FastSDA(n_components=6, n_subclasses=2).fit(X, y)
    with pytest.raises(ValueError, match="normalize must be one of"):
        FastSDA(normalize="l2").fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        FastSDA().fit(X, np.zeros(len(y)))
