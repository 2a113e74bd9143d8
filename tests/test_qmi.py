"""Tests of the QMI estimators (KQMI, LQMI), the QMI graph, and the CKFD baseline (paper 001).

References are independent of the code under test: the paper's element-wise formula for M,
Torkkola's V_IN / V_ALL / V_BTW as pairwise sums of scipy's Gaussian density, scikit-learn's
kernels and KernelCenterer, scipy's generalised eigensolver, GDA (Baudat & Anouar), the generic
kernel GE estimator with the QMI graph, and a literal implementation of Yang et al.'s CKFD.
"""

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist, pdist
from scipy.stats import multivariate_normal
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr.methods.discriminant import GDA
from graphdr.methods.graph_embedding import KernelGraphEmbedding
from graphdr.methods.kernel_fisher import (
    CKFD,
    FusionDistanceClassifier,
    fusion_distances,
    mean_pairwise_distance,
)
from graphdr.methods.qmi import (
    KQMI,
    LQMI,
    QMIGraph,
    QMIOperator,
    qmi_matrix,
    quadratic_mutual_information,
)
from graphdr.solvers import leading_singular_vectors

# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------


def _blobs(counts, n_features=4, shift=1.5, seed=0):
    """Gaussian classes with unequal sizes; labels are strings in shuffled order."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(counts)), counts)
    centres = rng.normal(scale=shift, size=(len(counts), n_features))
    X = centres[y] + rng.normal(size=(y.size, n_features))
    perm = rng.permutation(y.size)
    labels = np.array([f"c{k}" for k in range(len(counts))])
    return X[perm], labels[y[perm]]


def _paper_M(y):
    """M_ij = C_ALL + C_IN [y_i = y_j] - C_BTW,y_i - C_BTW,y_j, entry by entry (paper eq. 19)."""
    y = np.asarray(y)
    n = y.size
    classes, counts = np.unique(y, return_counts=True)
    size = dict(zip(classes, counts, strict=True))
    c_all = np.sum(counts.astype(float) ** 2) / n**4
    c_in = 1.0 / n**2
    M = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            same = c_in if y[i] == y[j] else 0.0
            M[i, j] = c_all + same - size[y[i]] / n**3 - size[y[j]] / n**3
    return M


def _angles(A, B):
    return scipy.linalg.subspace_angles(A, B)


# --------------------------------------------------------------------------------------------
# The QMI graph matrix
# --------------------------------------------------------------------------------------------


def test_qmi_matrix_is_the_papers_formula():
    _, y = _blobs([7, 3, 5])
    np.testing.assert_allclose(qmi_matrix(y), _paper_M(y), rtol=1e-12, atol=1e-18)


def test_qmi_matrix_zero_row_sums_rank_and_psd():
    _, y = _blobs([9, 4, 6, 2])
    M = _paper_M(y)
    scale = np.abs(M).max()
    np.testing.assert_allclose(M.sum(axis=1), 0.0, atol=1e-14 * scale)
    assert np.linalg.matrix_rank(M, tol=1e-10 * scale) == 4 - 1
    assert scipy.linalg.eigvalsh(M).min() > -1e-14 * scale
    # M is the Laplacian of the QMI graph W = diag(M) - M: the degrees are the diagonal
    W = np.diag(np.diag(M)) - M
    np.testing.assert_allclose(W.sum(axis=1), np.diag(M), atol=1e-14 * scale)


def test_qmi_operator_products_equal_dense_products():
    X, y = _blobs([8, 5, 11])
    M = _paper_M(y)
    op = QMIOperator(y)
    V = np.random.default_rng(1).normal(size=(y.size, 3))
    np.testing.assert_allclose(op.matmat(V), M @ V, atol=1e-15)
    np.testing.assert_allclose(op @ V[:, 0], M @ V[:, 0], atol=1e-15)
    np.testing.assert_allclose(op.diagonal(), np.diag(M), rtol=1e-12)
    np.testing.assert_allclose(op.quadratic(X), X.T @ M @ X, rtol=1e-10, atol=1e-15)


def test_qmi_equals_torkkola_pairwise_sums():
    """sum_ij M_ij G_ij = V_IN + V_ALL - 2 V_BTW with G the density N(x_j - x_k; 0, 2 s^2 I)."""
    X, y = _blobs([6, 4, 9], n_features=3, shift=1.0)
    sigma = 0.8
    n = y.size
    pdf = multivariate_normal(mean=np.zeros(3), cov=2 * sigma**2 * np.eye(3)).pdf
    G = np.array([[pdf(X[j] - X[k]) for k in range(n)] for j in range(n)])
    classes, counts = np.unique(y, return_counts=True)
    v_in = sum(G[np.ix_(y == c, y == c)].sum() for c in classes) / n**2  # eq. 12
    v_all = np.sum((counts / n) ** 2) * G.sum() / n**2  # eq. 13
    v_btw = sum(N_c / n * G[:, y == c].sum() for c, N_c in zip(classes, counts, strict=True)) / n**2
    torkkola = v_in + v_all - 2 * v_btw
    assert torkkola > 0
    np.testing.assert_allclose(np.sum(_paper_M(y) * G), torkkola, rtol=1e-10)
    np.testing.assert_allclose(quadratic_mutual_information(X, y, sigma), torkkola, rtol=1e-10)


def test_lqmi_numerator_is_the_nc_squared_between_scatter():
    X, y = _blobs([10, 3, 7])  # not centred: M 1 = 0 makes the mean irrelevant
    n = y.size
    mu = X.mean(axis=0)
    S = np.zeros((X.shape[1], X.shape[1]))
    for c in np.unique(y):
        d = X[y == c].mean(axis=0) - mu
        S += np.sum(y == c) ** 2 * np.outer(d, d) / n**2
    np.testing.assert_allclose(QMIOperator(y).quadratic(X), S, rtol=1e-10, atol=1e-16)


# --------------------------------------------------------------------------------------------
# LQMI
# --------------------------------------------------------------------------------------------


def test_lqmi_solves_the_generalised_problem():
    X, y = _blobs([30, 12, 20, 18], n_features=5)
    Xc = X - X.mean(axis=0)
    A = Xc.T @ _paper_M(y) @ Xc
    w, V = scipy.linalg.eigh(A, Xc.T @ Xc)
    w, V = w[::-1][:3], V[:, ::-1][:, :3]
    model = LQMI(solver="range").fit(X, y)
    np.testing.assert_allclose(model.eigenvalues_, w, rtol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(model.components_, axis=1), 1.0)
    V /= np.linalg.norm(V, axis=0)
    np.testing.assert_allclose(np.abs(np.sum(model.components_.T * V, axis=0)), 1.0, rtol=1e-8)
    default = LQMI().fit(X, y)  # the regularised solver agrees to its ridge
    np.testing.assert_allclose(np.abs(default.components_), np.abs(model.components_), atol=1e-6)


def test_lqmi_more_features_than_samples():
    X, y = _blobs([6, 5, 4], n_features=40)
    model = LQMI().fit(X, y)
    Z = model.transform(X)
    assert Z.shape == (15, 2) and np.isfinite(Z).all()
    # the directions live in the span of the centred training data
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    basis = Vt[s > 1e-8 * s[0]]
    residual = model.components_ - (model.components_ @ basis.T) @ basis
    assert np.abs(residual).max() < 1e-10


# --------------------------------------------------------------------------------------------
# KQMI
# --------------------------------------------------------------------------------------------


def _centred_rbf(X, gamma):
    return KernelCenterer().fit_transform(rbf_kernel(X, gamma=gamma))


def test_kqmi_constraint_and_objective():
    """A^T K K A = I (Algorithm 1 as printed) and A^T K M K A = diag(eigenvalues)."""
    X, y = _blobs([25, 10, 15, 20])
    sigma = 1.3
    model = KQMI(sigma=sigma).fit(X, y)
    K = _centred_rbf(X, 1.0 / (4 * sigma**2))
    A = model.dual_coef_
    KA = K @ A
    np.testing.assert_allclose(KA.T @ KA, np.eye(3), atol=1e-8)
    np.testing.assert_allclose(KA.T @ _paper_M(y) @ KA, np.diag(model.eigenvalues_), atol=1e-12)
    assert np.all(np.diff(model.eigenvalues_) <= 0)
    wide = KQMI(sigma=sigma, unit_covariance=True).fit(X, y)
    KA = K @ wide.dual_coef_
    np.testing.assert_allclose(KA.T @ KA / y.size, np.eye(3), atol=1e-8)  # eq. 22


def test_kqmi_training_embedding_and_out_of_sample_centring():
    X, y = _blobs([20, 14, 9])
    model = KQMI()
    Z_fit = model.fit_transform(X, y)
    np.testing.assert_allclose(model.transform(X), Z_fit, atol=1e-8)
    K = _centred_rbf(X, 0.25)
    np.testing.assert_allclose(K @ model.dual_coef_, Z_fit, atol=1e-8)


def test_kqmi_out_of_sample_with_an_explicit_feature_map():
    """Linear kernel: phi(x) = x, so z = (x - mean)^T Xc^T A exactly."""
    X, y = _blobs([20, 14, 9], n_features=6)
    X_new = np.random.default_rng(5).normal(size=(7, 6))
    model = KQMI(kernel="linear").fit(X, y)
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(
        model.transform(X_new), (X_new - X.mean(axis=0)) @ Xc.T @ model.dual_coef_, atol=1e-10
    )


def test_kqmi_sigma_convention_and_kernel_constant():
    """sigma is the Parzen width (gamma = 1/(4 sigma^2)); the Gaussian constant cancels."""
    X, y = _blobs([12, 9, 15])
    X_new = np.random.default_rng(2).normal(size=(5, 4))
    a = KQMI(sigma=0.7).fit(X, y)
    b = KQMI(gamma=1.0 / (4 * 0.7**2)).fit(X, y)
    np.testing.assert_allclose(a.transform(X_new), b.transform(X_new), rtol=1e-12)
    const = (4 * np.pi * 0.7**2) ** (-2.0)  # N(.; 0, 2 sigma^2 I) in D = 4
    gamma = 1.0 / (4 * 0.7**2)
    c = KQMI(kernel="precomputed").fit(const * rbf_kernel(X, gamma=gamma), y)
    np.testing.assert_allclose(
        c.transform(const * rbf_kernel(X_new, X, gamma=gamma)), a.transform(X_new), atol=1e-9
    )


def test_kqmi_equals_gda_on_balanced_classes():
    """Centred K: KQMI is GDA with between-class weights N_c^2 instead of N_c."""
    X, y = _blobs([25, 25, 25, 25], n_features=3, shift=1.0)
    X_new = np.random.default_rng(3).normal(size=(30, 3))
    kw = {"gamma": 0.3}
    kqmi = KQMI(n_components=2, tol=1e-3, **kw).fit(X, y)
    gda = GDA(n_components=2, reg=0.0, rtol=1e-3, **kw).fit(X, y)
    assert _angles(kqmi.transform(X_new), gda.transform(X_new)).max() < 1e-6
    # unbalanced classes: the weights differ, and so do the subspaces (the test can fail)
    Xu, yu = _blobs([60, 10, 20, 10], n_features=3, shift=1.0)
    kqmi = KQMI(n_components=2, tol=1e-3, **kw).fit(Xu, yu)
    gda = GDA(n_components=2, reg=0.0, rtol=1e-3, **kw).fit(Xu, yu)
    assert _angles(kqmi.transform(X_new), gda.transform(X_new)).max() > 1e-2


def test_kqmi_equals_kernel_graph_embedding_with_the_qmi_graph():
    """Algorithm 1 and the generic kernel GE solver (eq. 23) give the same directions."""
    X, y = _blobs([30, 10, 20, 15], n_features=3)
    X_new = np.random.default_rng(4).normal(size=(20, 3))
    kqmi = KQMI(n_components=2, gamma=0.4, tol=1e-4).fit(X, y)
    ge = KernelGraphEmbedding(
        graph=QMIGraph(), n_components=2, kernel="rbf", gamma=0.4, solver="range", tol=1e-4
    ).fit(X, y)
    Z1, Z2 = kqmi.transform(X_new), ge.transform(X_new)
    corr = np.sum(Z1 * Z2, axis=0) / np.linalg.norm(Z1, axis=0) / np.linalg.norm(Z2, axis=0)
    np.testing.assert_allclose(np.abs(corr), 1.0, atol=1e-7)


def test_kqmi_smaller_dimensions_are_leading_columns():
    X, y = _blobs([20, 15, 10, 12])
    full = KQMI().fit_transform(X, y)
    np.testing.assert_allclose(KQMI(n_components=1).fit_transform(X, y), full[:, :1])
    np.testing.assert_allclose(
        LQMI(n_components=2).fit(X, y).transform(X), LQMI().fit(X, y).transform(X)[:, :2]
    )


def test_kqmi_degenerate_eigenvalues_get_a_deterministic_basis():
    """Balanced classes and a full-rank kernel make all C-1 eigenvalues equal; the basis must
    not depend on the order of the training samples (any rotation would be as optimal)."""
    X, y = _blobs([15, 15, 15, 15], n_features=3)
    X_new = np.random.default_rng(6).normal(size=(10, 3))
    a = KQMI(tol=1e-12).fit(X, y)
    assert np.ptp(a.eigenvalues_) < 1e-10 * a.eigenvalues_[0]  # the case under test
    perm = np.random.default_rng(7).permutation(y.size)
    b = KQMI(tol=1e-12).fit(X[perm], y[perm])
    np.testing.assert_allclose(a.transform(X_new), b.transform(X_new), atol=1e-6)


def test_leading_singular_vectors_fix_the_basis_of_a_degenerate_group():
    rng = np.random.default_rng(8)
    U0 = np.linalg.qr(rng.normal(size=(12, 4)))[0]
    V0 = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    A = U0 @ np.diag([3.0, 1.0, 1.0, 0.0]) @ V0.T
    s, U = leading_singular_vectors(A, 3)
    s2, U2 = leading_singular_vectors(A + 1e-14 * rng.normal(size=A.shape), 3)
    np.testing.assert_allclose(s, [3, 1, 1], atol=1e-12)
    # the group's vectors are pinned (LAPACK's choice would move freely in the 2-D group)
    np.testing.assert_allclose(np.abs(U2.T @ U), np.eye(3), atol=1e-8)


# --------------------------------------------------------------------------------------------
# CKFD
# --------------------------------------------------------------------------------------------


def _ckfd_reference(K, y, K_new, kpca_tol, null_tol):
    """Yang et al. (2005) literally: KPCA features, S_w eigenspaces, two LDA problems."""
    centerer = KernelCenterer().fit(K)
    Kc, Kc_new = centerer.transform(K), centerer.transform(K_new)
    lam, U = np.linalg.eigh(Kc)
    keep = lam > kpca_tol * lam.max()
    lam, U = lam[keep], U[:, keep]
    Y, Y_new = U * np.sqrt(lam), Kc_new @ U / np.sqrt(lam)  # KPCA coordinates
    classes = np.unique(y)
    means = np.array([Y[y == c].mean(axis=0) for c in classes])
    counts = np.array([np.sum(y == c) for c in classes])
    Sb = (means * counts[:, None]).T @ means
    R = Y - means[np.searchsorted(classes, y)]
    Sw = R.T @ R
    s, B = np.linalg.eigh(Sw)
    null = s <= null_tol * s.max()
    P1, P2 = B[:, ~null], B[:, null]
    d = classes.size - 1
    ratios, Ur = scipy.linalg.eigh(P1.T @ Sb @ P1, P1.T @ Sw @ P1)
    scatter, Ui = np.linalg.eigh(P2.T @ Sb @ P2)
    W_reg, W_irr = P1 @ Ur[:, ::-1][:, :d], P2 @ Ui[:, ::-1][:, :d]
    return {
        "null_dim": int(null.sum()),
        "ratios": ratios[::-1][:d],
        "scatter": scatter[::-1][:d],
        "regular": Y_new @ W_reg,
        "irregular": Y_new @ W_irr,
        "irregular_train": Y @ W_irr,
    }


@pytest.fixture(scope="module")
def ckfd_data():
    X, y = _blobs([16, 10, 13, 11], n_features=4, shift=1.0, seed=3)
    X_new = np.random.default_rng(9).normal(size=(25, 4))
    gamma = 0.5
    ref = _ckfd_reference(
        rbf_kernel(X, gamma=gamma), y, rbf_kernel(X_new, X, gamma=gamma), 1e-12, 1e-9
    )
    return X, y, X_new, gamma, ref


def test_ckfd_matches_a_literal_implementation(ckfd_data):
    X, y, X_new, gamma, ref = ckfd_data
    assert ref["null_dim"] == 3  # a full-rank kernel: the null space of S_w has dim C-1
    reg = CKFD(gamma=gamma, features="regular", tol=1e-12).fit(X, y)
    irr = CKFD(gamma=gamma, features="irregular", tol=1e-12).fit(X, y)
    assert reg.null_space_dim_ == irr.null_space_dim_ == 3
    np.testing.assert_allclose(reg.regular_ratios_, ref["ratios"], rtol=1e-6)
    np.testing.assert_allclose(irr.irregular_scatter_, ref["scatter"], rtol=1e-6)
    # regular: distinct eigenvalues, so the features agree column by column up to sign
    Z, Z_ref = reg.transform(X_new), ref["regular"]
    np.testing.assert_allclose(np.abs(Z), np.abs(Z_ref), rtol=1e-5, atol=1e-6 * np.abs(Z_ref).max())
    # irregular: compare subspaces (and the scatter values above)
    assert _angles(irr.transform(X_new), ref["irregular"]).max() < 1e-5


def test_ckfd_irregular_features_collapse_each_class(ckfd_data):
    X, y, _, gamma, ref = ckfd_data
    Z = CKFD(gamma=gamma, features="irregular", tol=1e-12).fit_transform(X, y)
    spread = max(np.ptp(Z[y == c], axis=0).max() for c in np.unique(y))
    assert spread < 1e-6 * np.ptp(Z, axis=0).max()  # infinite Fisher ratio: S_w w = 0


def test_ckfd_fused_layout_and_scaling(ckfd_data):
    X, y, _, gamma, _ = ckfd_data
    theta = 0.6
    model = CKFD(gamma=gamma, theta=theta, tol=1e-12).fit(X, y)
    kinds = model.feature_kinds_
    assert kinds.tolist() == ["regular", "irregular"] * 3
    Z = model.transform(X)
    # after scaling, the mean pairwise distance is theta (regular) and 1 (irregular)
    np.testing.assert_allclose(pdist(Z[:, kinds == "regular"]).mean(), theta, rtol=1e-8)
    np.testing.assert_allclose(pdist(Z[:, kinds == "irregular"]).mean(), 1.0, rtol=1e-8)
    regular = CKFD(gamma=gamma, features="regular", tol=1e-12).fit_transform(X, y)
    scale = pdist(regular).mean() / theta
    np.testing.assert_allclose(np.abs(Z[:, kinds == "regular"] * scale), np.abs(regular), atol=1e-8)


def test_mean_pairwise_distance_kernel():
    rng = np.random.default_rng(10)
    Z = rng.normal(size=(40, 3))
    Z[5] = Z[6]  # a duplicate pair
    np.testing.assert_allclose(mean_pairwise_distance(Z), pdist(Z).mean(), rtol=1e-12)
    assert mean_pairwise_distance(np.zeros((4, 2))) == 0.0
    assert mean_pairwise_distance(Z[:1]) == 0.0


def _fusion_reference(Zq, Zr, kinds, theta):
    reg, irr = kinds == "regular", kinds == "irregular"
    d1, d2 = cdist(Zq[:, reg], Zr[:, reg]), cdist(Zq[:, irr], Zr[:, irr])
    return theta * d1 / d1.sum(axis=1, keepdims=True) + d2 / d2.sum(axis=1, keepdims=True)


def test_fusion_distance_and_classifier():
    rng = np.random.default_rng(11)
    Z = rng.normal(size=(30, 4))
    y = rng.integers(0, 3, size=30)
    Zq = rng.normal(size=(9, 4))
    kinds = np.array(["regular", "irregular", "irregular", "regular"])
    g = fusion_distances(Zq, Z, kinds, theta=0.4)
    np.testing.assert_allclose(g, _fusion_reference(Zq, Z, kinds, 0.4), rtol=1e-10)
    # scaling a block leaves the fused distance unchanged (its normaliser scales with it)
    scaled = Z * np.array([3.0, 0.5, 0.5, 3.0])
    np.testing.assert_allclose(
        fusion_distances(Zq * np.array([3.0, 0.5, 0.5, 3.0]), scaled, kinds, 0.4), g, rtol=1e-10
    )
    knn = FusionDistanceClassifier(theta=0.4, n_neighbors=1, kinds=kinds).fit(Z, y)
    np.testing.assert_array_equal(knn.predict(Zq), y[np.argmin(g, axis=1)])
    centres = np.array([Z[y == c].mean(axis=0) for c in range(3)])
    ncc = FusionDistanceClassifier(theta=0.4, rule="ncc", kinds=kinds).fit(Z, y)
    np.testing.assert_array_equal(
        ncc.predict(Zq), np.argmin(_fusion_reference(Zq, centres, kinds, 0.4), axis=1)
    )
    # leading columns: kinds longer than the data are cut to the data's columns
    two = FusionDistanceClassifier(kinds=["regular", "irregular", "regular"]).fit(Z[:, :2], y)
    assert two.kinds_.tolist() == ["regular", "irregular"]


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [KQMI, LQMI, CKFD])
def test_input_errors(make):
    X, y = _blobs([8, 7, 6])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        make().fit(bad, y)
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        make().fit(bad, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        make().fit(X, np.zeros(y.size))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        make().fit(X, y[:-1])
    with pytest.raises(ValueError, match="features"):
        make().fit(X, y).transform(X[:, :3])


def test_too_many_components_errors():
    X, y = _blobs([8, 7, 6])
    with pytest.raises(ValueError, match=r"n_components=3 is larger than n_classes - 1 = 2: KQMI"):
        KQMI(n_components=3).fit(X, y)
    with pytest.raises(ValueError, match=r"n_components=3 is larger than n_classes - 1 = 2: LQMI"):
        LQMI(n_components=3).fit(X, y)
    with pytest.raises(ValueError, match=r"larger than 2 \(n_classes - 1\) = 4: CKFD"):
        CKFD(n_components=5).fit(X, y)
    with pytest.raises(ValueError, match=r"larger than n_classes - 1 = 2: CKFD"):
        CKFD(n_components=3, features="regular").fit(X, y)


def test_parameter_and_precomputed_errors():
    X, y = _blobs([8, 7, 6])
    with pytest.raises(ValueError, match="sigma"):
        KQMI(sigma=0.0).fit(X, y)
    with pytest.raises(ValueError, match="kernel must be"):
        KQMI(kernel="cosine").fit(X, y)
    with pytest.raises(ValueError, match="square training kernel"):
        KQMI(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="features must be"):
        CKFD(features="both").fit(X, y)
    with pytest.raises(ValueError, match="theta"):
        CKFD(theta=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="rule must be"):
        FusionDistanceClassifier(rule="svm").fit(X, y)
    for k in (0, 1.5, True):
        with pytest.raises(ValueError, match=r"n_neighbors must be an integer >= 1"):
            FusionDistanceClassifier(n_neighbors=k).fit(X, y)


# --------------------------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------------------------


@parametrize_with_checks(
    [
        # default instances: tests/test_common.py
        KQMI(kernel="precomputed"),
        CKFD(kernel="precomputed"),
        FusionDistanceClassifier(),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
