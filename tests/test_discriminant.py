"""AKDA/AKSDA (paper 002) and the KDA, GDA, SRKDA, KSDA, GSDA baselines.

References are independent of the code under test: scipy's generalised eigensolver, kernel scatter
matrices built sample by sample from their textbook definitions, scikit-learn's kernels, an explicit
Gram-Schmidt loop, and the paper's identities (eq. 30, 45-47, 49-51, 64). Subspaces are compared by
principal angles (``scipy.linalg.subspace_angles``): KDA's non-zero eigenvalues are all equal, so
any basis of the subspace is a valid answer.
"""

import numpy as np
import pytest
import scipy.linalg
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.utils.estimator_checks import parametrize_with_checks

import graphdr.kernels as kernels
import graphdr.methods.discriminant as disc
from graphdr.kernels import check_kernel_memory
from graphdr.methods.discriminant import (
    AKDA,
    GDA,
    KDA,
    KNDA,
    KODA,
    KUDA,
    SRKDA,
    IndefiniteKernelWarning,
    between_class_core,
    between_class_core_basis,
    between_class_kernel_factor,
    binary_core_vector,
    core_targets,
    spectral_regression_responses,
)
from graphdr.methods.subclass import (
    AKSDA,
    GSDA,
    KSDA,
    SubclassPartition,
    between_subclass_core,
    between_subclass_kernel_factor,
    between_subclass_kernel_scatter,
    canonical_eigenbasis,
    kernel_coordinates,
    nearest_neighbour_order,
    partition_subclasses,
    subclass_core_eigenpairs,
)

GAMMA = 0.5  # on the data below the RBF kernel is well conditioned (cond < 1e3)
TINY = 1e-10  # reg for the identities that hold as reg -> 0


def _data(n_classes=4, sizes=(14, 18, 15, 21), n_features=5, seed=0, n_test=0):
    rng = np.random.default_rng(seed)
    centers = 2.5 * rng.normal(size=(n_classes, n_features))
    y = np.repeat(np.arange(n_classes), sizes[:n_classes])
    X = centers[y] + rng.normal(size=(y.size, n_features))
    if not n_test:
        return X, y
    yt = rng.integers(n_classes, size=n_test)
    return X, y, centers[yt] + rng.normal(size=(n_test, n_features))


def _max_angle(A, B):
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


def _centred(Z):
    return Z - Z.mean(axis=0)


def _textbook_scatters(K, groups):
    """Between-group, within-group and total kernel scatters, sample by sample (eq. 7, 8, 20):
    columns ``k_i`` of K, group means ``m_g``, overall mean ``m``."""
    m = K.mean(axis=1)
    n = K.shape[0]
    Sb, Sw, St = (np.zeros((n, n)) for _ in range(3))
    for g in np.unique(groups):
        cols = K[:, groups == g]
        mg = cols.mean(axis=1)
        Sb += cols.shape[1] * np.outer(mg - m, mg - m)
        Sw += (cols - mg[:, None]) @ (cols - mg[:, None]).T
    St = (K - m[:, None]) @ (K - m[:, None]).T
    return Sb, Sw, St


def _pairwise_between_subclass(K, part):
    """``N * sum_{u<v, different classes} p_u p_v (m_u - m_v)(m_u - m_v)^T``, pair by pair."""
    n, H = K.shape[0], part.counts.size
    means = [K[:, part.labels == u].mean(axis=1) for u in range(H)]
    S = np.zeros((n, n))
    for u in range(H):
        for v in range(u + 1, H):
            if part.class_of[u] != part.class_of[v]:
                d = means[u] - means[v]
                S += part.counts[u] * part.counts[v] / n**2 * np.outer(d, d)
    return n * S


# --------------------------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------------------------


@parametrize_with_checks(
    [
        # default instances: tests/test_common.py
        AKDA(kernel="precomputed"),
        AKSDA(kernel="precomputed"),
        SRKDA(center=True),
        AKDA(dtype="float32"),
    ]
)
# sklearn feeds precomputed estimators an indefinite "kernel" (X - mean): the clip warning is right.
@pytest.mark.filterwarnings("ignore::graphdr.methods.discriminant.IndefiniteKernelWarning")
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------------
# Core matrices (paper 002 eq. 28-30, 49-51, 64)
# --------------------------------------------------------------------------------------------


def test_between_class_core_is_an_idempotent_projector_with_unit_eigenvalues():
    counts = np.array([3, 7, 5, 11, 2])
    O_b = between_class_core(counts)
    s = np.sqrt(counts / counts.sum())
    np.testing.assert_allclose(O_b @ O_b, O_b, atol=1e-14)
    np.testing.assert_allclose(O_b @ s, 0, atol=1e-14)
    np.testing.assert_allclose(scipy.linalg.eigvalsh(O_b), [0, 1, 1, 1, 1], atol=1e-13)
    V = between_class_core_basis(counts)
    np.testing.assert_allclose(V.T @ V, np.eye(4), atol=1e-13)
    np.testing.assert_allclose(O_b @ V, V, atol=1e-13)  # eigenvectors of eigenvalue 1


@pytest.mark.parametrize("counts", [(5, 5), (3, 17), (40, 9)])
def test_binary_closed_form_equals_general_path(counts):
    counts = np.asarray(counts)
    v = binary_core_vector(counts)
    np.testing.assert_allclose(v, between_class_core_basis(counts), atol=1e-14)
    n1, n2 = counts
    n = n1 + n2
    np.testing.assert_allclose(v.ravel(), [np.sqrt(n2 / n), -np.sqrt(n1 / n)], atol=1e-15)  # eq. 49
    y = np.repeat([0, 1], counts)
    theta = core_targets(y, counts, v).ravel()
    expected = np.where(y == 0, np.sqrt(n2 / (n * n1)), -np.sqrt(n1 / (n * n2)))  # eq. 50
    np.testing.assert_allclose(theta, expected, atol=1e-15)
    assert np.isclose(np.linalg.norm(theta), 1.0)


def test_binary_akda_equals_the_general_path(monkeypatch):
    X, y, Xt = _data(n_classes=2, sizes=(13, 20), n_test=9)
    closed = AKDA(gamma=GAMMA).fit(X, y).transform(Xt)
    monkeypatch.setattr(disc, "binary_core_vector", between_class_core_basis)
    general = AKDA(gamma=GAMMA).fit(X, y).transform(Xt)
    np.testing.assert_allclose(closed, general, rtol=1e-12, atol=1e-14)
    assert closed.shape == (9, 1)


def _random_partition(rng, class_sizes, per_class):
    labels, class_of, counts, offset = [], [], [], 0
    for c, (n_c, h) in enumerate(zip(class_sizes, per_class, strict=True)):
        sub = np.sort(np.concatenate([np.arange(h), rng.integers(h, size=n_c - h)]))
        labels.append(offset + sub)
        class_of += [c] * h
        counts += list(np.bincount(sub))
        offset += h
    return SubclassPartition(np.concatenate(labels), np.array(class_of), np.array(counts))


def test_between_subclass_core_equals_the_direct_scatter_formula_entry_by_entry():
    rng = np.random.default_rng(0)
    part = _random_partition(rng, class_sizes=[9, 12, 7], per_class=[2, 3, 1])
    n, H = part.labels.size, part.counts.size
    # Direct formula in sample space: N sum_{u<v, diff. class} p_u p_v (e_u/N_u - e_v/N_v)(...)^T.
    E = np.eye(H)[part.labels]  # N x H indicators
    C_bs = _pairwise_between_subclass(np.eye(n), part)
    assert C_bs.shape == (n, n) and E.shape == (n, H)
    R = E / np.sqrt(part.counts)
    np.testing.assert_allclose(between_subclass_core(part), R.T @ C_bs @ R, atol=1e-14)
    # And the kernel scatter: K R_s O_bs R_s^T K = pair-by-pair sum = KSDA's Laplacian route.
    X = rng.normal(size=(n, 4))
    K = rbf_kernel(X, gamma=0.3)
    direct = _pairwise_between_subclass(K, part)
    np.testing.assert_allclose(K @ R @ between_subclass_core(part) @ R.T @ K, direct, atol=1e-12)
    np.testing.assert_allclose(between_subclass_kernel_scatter(K, part), direct, atol=1e-12)
    # the low-rank solver's factor: F F^T is the same pair-by-pair sum, F has H columns
    F = between_subclass_kernel_factor(K, part)
    assert F.shape == (n, H)
    np.testing.assert_allclose(F @ F.T, direct, atol=1e-12)


def test_between_subclass_core_has_h_minus_1_nonzero_eigenvalues_with_known_values():
    rng = np.random.default_rng(1)
    sizes, per_class = [9, 12, 7, 20], [2, 3, 1, 4]
    part = _random_partition(rng, sizes, per_class)
    w = scipy.linalg.eigvalsh(between_subclass_core(part))
    H = part.counts.size
    assert np.sum(w > 1e-10) == H - 1 and abs(w[0]) < 1e-12
    # [derived] eigenvalue 1 (C-1 times: the AKDA directions), 1 - N_c/N (H_c - 1 times).
    shares = np.array(sizes) / sum(sizes)
    expected = [1.0] * (len(sizes) - 1)
    for share, h in zip(shares, per_class, strict=True):
        expected += [1 - share] * (h - 1)
    np.testing.assert_allclose(np.sort(w[1:]), np.sort(expected), atol=1e-12)
    lam, V = subclass_core_eigenpairs(between_subclass_core(part), H - 1)
    np.testing.assert_allclose(lam, np.sort(expected)[::-1], atol=1e-12)
    np.testing.assert_allclose(V.T @ V, np.eye(H - 1), atol=1e-12)


def test_one_subclass_per_class_core_is_the_class_core():
    counts = np.array([4, 9, 6])
    part = SubclassPartition(np.repeat(np.arange(3), counts), np.arange(3), counts)
    np.testing.assert_allclose(between_subclass_core(part), between_class_core(counts), atol=1e-15)


def test_canonical_eigenbasis_does_not_depend_on_the_basis_lapack_returns():
    rng = np.random.default_rng(2)
    part = _random_partition(rng, class_sizes=[10, 10, 12], per_class=[3, 3, 2])
    w, U = scipy.linalg.eigh(between_subclass_core(part))
    w, U = w[::-1][:-1], U[:, ::-1][:, :-1]
    V = canonical_eigenbasis(w, U)
    # Rotate every eigenspace by a random orthogonal matrix: the canonical basis must not move.
    U_rot = U.copy()
    start = 0
    while start < w.size:
        stop = start + int(np.sum(np.abs(w[start:] - w[start]) < 1e-9))
        Q, _ = np.linalg.qr(rng.normal(size=(stop - start, stop - start)))
        U_rot[:, start:stop] = U[:, start:stop] @ Q
        start = stop
    np.testing.assert_allclose(canonical_eigenbasis(w, U_rot), V, atol=1e-12)
    np.testing.assert_allclose(V.T @ between_subclass_core(part) @ V, np.diag(w), atol=1e-12)


# --------------------------------------------------------------------------------------------
# AKDA against KDA and the textbook scatters
# --------------------------------------------------------------------------------------------


def test_akda_spans_the_kda_subspace_of_scipy_generalised_eigh():
    X, y = _data()
    K = rbf_kernel(X, gamma=GAMMA)
    n, C = K.shape[0], 4
    Sb, _, _ = _textbook_scatters(K, y)
    # Independent reference: scipy's generalised solver on K_b a = lambda K K a (full spectrum).
    w, A = scipy.linalg.eigh(Sb, K @ K + TINY * np.eye(n))
    ref = A[:, -(C - 1) :]
    np.testing.assert_allclose(w[-(C - 1) :], 1.0, atol=1e-7)
    akda = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    # Coefficient matrices (they define transform on new data), then training projections K Psi.
    assert _max_angle(akda.dual_coef_, ref) < 1e-6
    assert _max_angle(K @ akda.dual_coef_, K @ ref) < 1e-6
    kda = KDA(gamma=GAMMA, reg=TINY).fit(X, y)
    assert _max_angle(akda.dual_coef_, kda.dual_coef_) < 1e-6
    np.testing.assert_allclose(kda.eigenvalues_, 1.0, atol=1e-7)


@pytest.mark.parametrize("scatter, reg, tol", [("total", TINY, 1e-6), ("within", 1e-9, 1e-5)])
def test_kda_variants_span_the_akda_training_projections(scatter, reg, tol):
    # With the total or within scatter, K^{-1} 1 is a 0/0 direction of the pencil: the
    # coefficients may gain a component along it, which moves training projections by a constant.
    X, y = _data()
    akda = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    kda = KDA(gamma=GAMMA, reg=reg, scatter=scatter).fit(X, y)
    assert _max_angle(_centred(akda.transform(X)), _centred(kda.transform(X))) < tol


@pytest.mark.parametrize("solver", ["full", "lowrank"])
@pytest.mark.parametrize("scatter", ["gram", "within"])
def test_kda_solvers_equal_the_subset_solver(scatter, solver):
    """Paper 002's KDA (every eigenpair by sygv's symmetric QR), the low-rank path (Cholesky and
    thin SVD of K_b's factor) and the subset solver (sygvx): the same leading eigenvalues,
    subspace and normalisation a^T (B + reg I) a = 1, checked against a dense numpy reference."""
    X, y = _data()
    reg = 1e-3
    other = KDA(gamma=GAMMA, reg=reg, scatter=scatter, eigen_solver=solver).fit(X, y)
    subset = KDA(gamma=GAMMA, reg=reg, scatter=scatter).fit(X, y)
    np.testing.assert_allclose(other.eigenvalues_, subset.eigenvalues_, rtol=1e-8)
    assert _max_angle(other.dual_coef_, subset.dual_coef_) < 1e-6
    # independent reference: B^-1 A by numpy's non-symmetric eigensolver
    K = rbf_kernel(X, gamma=GAMMA)
    Sb, Sw, _ = _textbook_scatters(K, y)
    B = (K @ K if scatter == "gram" else Sw) + reg * np.eye(K.shape[0])
    w = np.sort(np.linalg.eigvals(np.linalg.solve(B, Sb)).real)[::-1][: other.eigenvalues_.size]
    np.testing.assert_allclose(other.eigenvalues_, w, rtol=1e-6)
    gram = other.dual_coef_.T @ B @ other.dual_coef_
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-8)
    with pytest.raises(ValueError, match="eigen_solver must be 'subset'"):
        KDA(eigen_solver="qr").fit(X, y)


@pytest.mark.parametrize("Est", [KDA, KSDA])
def test_a_reg_grid_reuses_the_denominator_and_gives_the_fresh_fits(Est):
    """Inside reuse_kernels, fits at several reg on one kernel compute K C K once and give,
    bit for bit, the fits made outside the block (what AKDA's cross-validation relies on)."""
    from graphdr.kernels import reuse_kernels

    X, y = _data()
    regs = (1e-3, 1e-1, 1e-3)
    fresh = [Est(gamma=GAMMA, reg=r).fit(X, y) for r in regs]
    with reuse_kernels() as store:
        shared = [Est(gamma=GAMMA, reg=r).fit(X, y) for r in regs]
    # computed once each: the kernel and K C K; every later fit finds both
    assert (store.misses, store.hits) == (2, 2 * (len(regs) - 1))
    for a, b in zip(fresh, shared, strict=True):
        np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
        np.testing.assert_array_equal(a.eigenvalues_, b.eigenvalues_)
    np.testing.assert_array_equal(shared[0].dual_coef_, shared[2].dual_coef_)


def test_akda_simultaneously_diagonalises_the_three_scatters():
    X, y = _data()
    K = rbf_kernel(X, gamma=GAMMA)
    Psi = AKDA(gamma=GAMMA, reg=TINY).fit(X, y).dual_coef_
    Sb, Sw, St = _textbook_scatters(K, y)
    eye = np.eye(Psi.shape[1])
    np.testing.assert_allclose(Psi.T @ Sb @ Psi, eye, atol=1e-8)  # eq. 45
    np.testing.assert_allclose(Psi.T @ Sw @ Psi, 0 * eye, atol=1e-8)  # eq. 46
    np.testing.assert_allclose(Psi.T @ St @ Psi, eye, atol=1e-8)  # eq. 47


def test_akda_training_projection_is_theta_and_needs_no_centring():
    X, y = _data()
    est = AKDA(gamma=GAMMA, reg=1e-3).fit(X, y)
    Z = est.transform(X)
    K = rbf_kernel(X, gamma=GAMMA)
    # (K + reg I) Psi = Theta exactly, so K Psi = Theta - reg Psi; Theta has zero column means.
    theta = Z + 1e-3 * est.dual_coef_
    np.testing.assert_allclose(K @ est.dual_coef_, Z, atol=1e-10)
    np.testing.assert_allclose(theta.sum(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(theta.T @ theta, np.eye(3), atol=1e-10)


def test_precomputed_kernel_gives_the_same_projection_as_the_rbf_kernel():
    X, y, Xt = _data(n_test=7)
    ref = AKDA(gamma=GAMMA).fit(X, y).transform(Xt)
    pre = AKDA(kernel="precomputed").fit(rbf_kernel(X, gamma=GAMMA), y)
    np.testing.assert_allclose(pre.transform(rbf_kernel(Xt, X, gamma=GAMMA)), ref, atol=1e-10)


def test_float32_kernel_is_close_to_float64():
    X, y, Xt = _data(n_test=20)
    Z64 = AKDA().fit(X, y).transform(Xt)
    est = AKDA(dtype="float32").fit(X, y)
    Z32 = est.transform(Xt)
    assert Z32.dtype == np.float64 and est.dual_coef_.dtype == np.float64
    assert np.linalg.norm(Z32 - Z64) / np.linalg.norm(Z64) < 1e-4
    Z32s = AKSDA(dtype="float32", random_state=0).fit(X, y).transform(Xt)
    Z64s = AKSDA(random_state=0).fit(X, y).transform(Xt)
    assert np.linalg.norm(Z32s - Z64s) / np.linalg.norm(Z64s) < 1e-4


# --------------------------------------------------------------------------------------------
# Baselines against AKDA
# --------------------------------------------------------------------------------------------


def test_srkda_responses_are_gram_schmidt_of_one_and_the_indicators():
    _, y = _data()
    Z = np.eye(4)[y]
    basis = [np.ones(y.size) / np.sqrt(y.size)]
    for c in range(3):  # classical Gram-Schmidt, by hand
        v = Z[:, c] - sum((b @ Z[:, c]) * b for b in basis)
        basis.append(v / np.linalg.norm(v))
    np.testing.assert_allclose(
        spectral_regression_responses(y, 4), np.array(basis[1:]).T, atol=1e-14
    )


def test_srkda_spans_akda_subspace_with_the_same_regularisation():
    X, y = _data()
    akda = AKDA(gamma=GAMMA).fit(X, y)
    srkda = SRKDA(gamma=GAMMA).fit(X, y)  # both reg = 1e-3: identical linear system
    assert _max_angle(akda.dual_coef_, srkda.dual_coef_) < 1e-10
    K = rbf_kernel(X, gamma=GAMMA)
    np.testing.assert_allclose(
        np.einsum("ij,ij->j", srkda.dual_coef_, K @ srkda.dual_coef_), 1.0, rtol=1e-10
    )
    centred = SRKDA(gamma=GAMMA, reg=TINY, center=True).fit(X, y)  # paper 002's description
    assert _max_angle(_centred(akda.transform(X)), _centred(centred.transform(X))) < 1e-3
    tiny = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    assert _max_angle(_centred(tiny.transform(X)), _centred(centred.transform(X))) < 1e-6


def test_gda_spans_akda_training_projections_and_has_unit_feature_space_norm():
    X, y = _data()
    gda = GDA(gamma=GAMMA, reg=TINY).fit(X, y)
    akda = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    assert _max_angle(_centred(akda.transform(X)), _centred(gda.transform(X))) < 1e-6
    K = rbf_kernel(X, gamma=GAMMA)
    H = np.eye(K.shape[0]) - 1 / K.shape[0]
    A = gda.dual_coef_
    np.testing.assert_allclose(np.einsum("ij,ij->j", A, H @ K @ H @ A), 1.0, rtol=1e-6)
    np.testing.assert_allclose(gda.eigenvalues_, 1.0, atol=1e-8)


def _primal_null_space_lda(X, y, n_components):
    """Reference KNDA for the linear kernel, in input space (Ye & Xiong's null-space LDA): the
    range of the total scatter by an SVD, the null space of the within-class scatter in it by
    another, then the between-class scatter's leading eigenvectors there; D x n_components."""
    Xc = X - X.mean(axis=0)
    _, sv, Vt = np.linalg.svd(Xc, full_matrices=False)
    B = Vt[sv > 1e-10 * sv[0]].T  # orthonormal basis of the range of S_t
    means = np.array([Xc[y == c].mean(axis=0) for c in np.unique(y)])
    Xw = Xc - means[np.searchsorted(np.unique(y), y)]
    _, sw, Wt = np.linalg.svd(Xw @ B, full_matrices=True)
    null = Wt[np.concatenate([sw, np.zeros(Wt.shape[0] - sw.size)]) <= 1e-10 * sv[0]].T
    counts = np.bincount(np.searchsorted(np.unique(y), y))
    M = (means @ B @ null) * np.sqrt(counts)[:, None]
    _, V = np.linalg.eigh(M.T @ M)
    return B @ null @ V[:, ::-1][:, :n_components]


def test_knda_is_null_space_lda_and_collapses_classes():
    """Linear kernel, more features than samples (linearly independent samples): KNDA's
    projections are those of null-space LDA computed in input space, every training class maps
    to one point and the null space has C - 1 dimensions."""
    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(3), [6, 7, 5])
    X = rng.normal(size=(3, 40))[y] + rng.normal(size=(y.size, 40))
    Xt = rng.normal(size=(9, 40))
    knda = KNDA(kernel="linear").fit(X, y)
    assert knda.null_space_dim_ == 2 and knda.n_components_ == 2
    W = _primal_null_space_lda(X, y, 2)
    assert _max_angle(_centred(knda.transform(Xt)), _centred(Xt @ W)) < 1e-7
    Z = knda.transform(X)
    for c in range(3):
        assert np.ptp(Z[y == c], axis=0).max() < 1e-9 * np.abs(Z).max()
    # the leading direction carries the largest between-class scatter
    between = [np.var([Z[y == c, j].mean() for c in range(3)]) for j in range(2)]
    assert knda.eigenvalues_[0] >= knda.eigenvalues_[1] and between[0] > 0


def test_knda_equivalence_with_akda_and_gda():
    """Paper 002, Sec. 5: AKDA (reg -> 0) spans KNDA's subspace on the training samples. On new
    samples AKDA's uncentred projections differ from KNDA's (and GDA's, which equals KNDA at
    reg -> 0) by the kernel interpolation of the constant function, u(x) = k(x)^T K^{-1} 1 (equal
    to 1 on every training sample): KNDA's test projections lie in span(AKDA's, u, 1)."""
    X, y, Xt = _data(n_test=40)
    knda = KNDA(gamma=GAMMA).fit(X, y)
    assert knda.null_space_dim_ == 3
    akda = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    gda = GDA(gamma=GAMMA, reg=TINY).fit(X, y)
    assert _max_angle(_centred(akda.transform(X)), _centred(knda.transform(X))) < 1e-6
    assert _max_angle(_centred(gda.transform(Xt)), _centred(knda.transform(Xt))) < 1e-6
    test_angle = _max_angle(_centred(akda.transform(Xt)), _centred(knda.transform(Xt)))
    assert test_angle > 1e-3  # not equal on new samples ...
    K, Kt = rbf_kernel(X, gamma=GAMMA), rbf_kernel(Xt, X, gamma=GAMMA)
    u = Kt @ np.linalg.solve(K, np.ones(len(K)))
    ones = np.ones((len(Xt), 1))
    augmented = np.column_stack([akda.transform(Xt), u, ones])
    # ... but equal up to the interpolated constant
    assert _max_angle(augmented, np.column_stack([knda.transform(Xt), ones])) < 1e-6


def test_knda_warns_without_a_null_space():
    X, y = _data()
    X = np.vstack([X, X])  # duplicates: the within-class scatter has no null space
    y = np.concatenate([y, y])
    with pytest.warns(UserWarning, match="null space of dimension 0"):
        est = KNDA(kernel="linear").fit(X, y)
    assert est.null_space_dim_ == 0 and est.n_components_ == 3
    with pytest.raises(ValueError, match="rtol"):
        KNDA(rtol=0.0).fit(X, y)


def _primal_ulda(X, y, orthogonal=False):
    """Reference ULDA / OLDA in input space, as Ye (2005) states them: the reduced SVD of the
    total-scatter factor ``H_t = U_t Sigma_t V_t^T``, ``B = Sigma_t^{-1} U_t^T H_b`` and its
    left singular vectors ``P``, ``G = U_t Sigma_t^{-1} P_q``; OLDA: ``Q`` of ``G = QR``."""
    classes, y_enc = np.unique(y, return_inverse=True)
    Ht = (X - X.mean(axis=0)).T
    Hb = np.column_stack(
        [np.sqrt(np.sum(y_enc == c)) * (X[y_enc == c].mean(axis=0) - X.mean(axis=0))
         for c in range(classes.size)]
    )  # fmt: skip
    U, s, _ = np.linalg.svd(Ht, full_matrices=False)
    U, s = U[:, s > 1e-10 * s[0]], s[s > 1e-10 * s[0]]
    P, sb, _ = np.linalg.svd((U.T @ Hb) / s[:, None], full_matrices=False)
    G = U @ (P[:, : classes.size - 1] / s[:, None])
    return np.linalg.qr(G)[0] if orthogonal else G


@pytest.mark.parametrize("n_features", [40, 4])
@pytest.mark.parametrize("Est", [KUDA, KODA])
def test_kuda_koda_are_ulda_olda_in_input_space(Est, n_features):
    """Linear kernel: KUDA's and KODA's projections of new samples are those of Ye's ULDA and
    OLDA computed in input space, column by column up to sign with fewer features than samples;
    with more, the samples are linearly independent, every between-class singular value is 1 and
    any basis of the subspace is an answer: the spans agree."""
    rng = np.random.default_rng(5)
    y = np.repeat(np.arange(4), [6, 7, 5, 8])
    X = rng.normal(size=(4, n_features))[y] + rng.normal(size=(y.size, n_features))
    Xt = rng.normal(size=(9, n_features))
    est = Est(kernel="linear").fit(X, y)
    G = _primal_ulda(X, y, orthogonal=Est is KODA)
    Z, Zref = est.transform(Xt), (Xt - X.mean(axis=0)) @ G
    if n_features > y.size:
        np.testing.assert_allclose(est.eigenvalues_, 1.0, rtol=1e-8)
        assert _max_angle(Z, Zref) < 1e-7
    else:
        signs = np.sign(np.sum(Z * Zref, axis=0))
        np.testing.assert_allclose(Z, Zref * signs, atol=1e-9 * np.abs(Zref).max())
    assert est.between_rank_ == 3 and est.n_components_ == 3


def test_kuda_uncorrelated_koda_orthonormal_same_span_equal_to_knda():
    """KUDA's training features are uncorrelated with unit scatter (``G^T S_t G = I``) and carry
    the between-class scatter ``eigenvalues_`` (``G^T S_b G``); KODA's directions are
    orthonormal in feature space and span KUDA's subspace; with linearly independent samples
    (RBF kernel) both equal KNDA on any sample (Ye & Xiong 2006, paper 002 Sec. 5), and AKDA
    (reg -> 0) on the training samples."""
    X, y, Xt = _data(n_test=30)
    kuda, koda = KUDA(gamma=GAMMA).fit(X, y), KODA(gamma=GAMMA).fit(X, y)
    Z = _centred(kuda.transform(X))
    np.testing.assert_allclose(Z.T @ Z, np.eye(3), atol=1e-6)
    counts = np.bincount(y)
    means = np.array([Z[y == c].mean(axis=0) for c in range(4)])
    np.testing.assert_allclose(
        np.diag((means * counts[:, None]).T @ means), kuda.eigenvalues_, rtol=1e-6
    )
    assert np.all(np.diff(kuda.eigenvalues_) <= 0) and kuda.eigenvalues_[0] <= 1 + 1e-8
    K = rbf_kernel(X, gamma=GAMMA)
    H = np.eye(len(K)) - 1 / len(K)
    A = koda.dual_coef_
    np.testing.assert_allclose(A.T @ H @ K @ H @ A, np.eye(3), atol=1e-6)
    knda = KNDA(gamma=GAMMA).fit(X, y)
    akda = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    for data in (X, Xt):
        assert _max_angle(_centred(koda.transform(data)), _centred(kuda.transform(data))) < 1e-6
        assert _max_angle(_centred(knda.transform(data)), _centred(kuda.transform(data))) < 1e-6
    assert _max_angle(_centred(akda.transform(X)), _centred(kuda.transform(X))) < 1e-6


def test_kuda_warns_when_classes_coincide_and_checks_rtol():
    X, y = _data()
    X = np.vstack([X, X[:5]])
    y = np.concatenate([y, np.full(5, 4)])  # class 4 duplicates samples of class 0
    X[y == 0] = X[y == 0].mean(axis=0)  # class 0 one point, class 4 partly the same point
    X[y == 4] = X[y == 0][0]
    with pytest.warns(UserWarning, match="between-class scatter has rank 3"):
        est = KUDA(kernel="linear").fit(X, y)
    assert est.between_rank_ == 3 and est.n_components_ == 4
    for bad in (KODA(rtol=1.5), GDA(rtol=0.0)):  # the family's shared parameter check
        with pytest.raises(ValueError, match="rtol must be a number in"):
            bad.fit(X, y)


def test_centred_transform_matches_explicit_centring_of_the_test_kernel():
    X, y, Xt = _data(n_test=6)
    est = GDA(gamma=GAMMA).fit(X, y)
    K, Kt = rbf_kernel(X, gamma=GAMMA), rbf_kernel(Xt, X, gamma=GAMMA)
    n = K.shape[0]
    one = np.full((n, n), 1 / n)
    Kt_c = Kt - np.full((Kt.shape[0], n), 1 / n) @ K - Kt @ one + np.full(Kt.shape, 1 / n) @ K @ one
    np.testing.assert_allclose(est.transform(Xt), Kt_c @ est.dual_coef_, atol=1e-12)


# --------------------------------------------------------------------------------------------
# AKSDA and the subclass baselines
# --------------------------------------------------------------------------------------------


def test_aksda_with_one_subclass_per_class_is_akda():
    X, y, Xt = _data(n_test=10)
    akda = AKDA(gamma=GAMMA).fit(X, y)
    aksda = AKSDA(gamma=GAMMA, n_subclasses=1).fit(X, y)
    np.testing.assert_allclose(aksda.transform(Xt), akda.transform(Xt), atol=1e-10)
    np.testing.assert_allclose(aksda.eigenvalues_, 1.0, atol=1e-12)


def test_aksda_simultaneously_diagonalises_and_extends_akda():
    X, y = _data()
    est = AKSDA(gamma=GAMMA, reg=TINY, n_subclasses=[2, 3, 1, 2], random_state=0).fit(X, y)
    assert list(est.n_subclasses_) == [2, 3, 1, 2] and est.n_components_ == 7
    K = rbf_kernel(X, gamma=GAMMA)
    labels = est.subclass_labels_
    part = SubclassPartition(labels, np.repeat(np.arange(4), [2, 3, 1, 2]), np.bincount(labels))
    Psi, lam = est.dual_coef_, est.eigenvalues_
    Sbs = _pairwise_between_subclass(K, part)
    _, Sws, St = _textbook_scatters(K, est.subclass_labels_)
    # Paper eq. 80-82 with Theta = R_s V Lambda^1/2: between Lambda^2, within-subclass 0, total
    # Lambda (not I: the eigenvalues differ, and between + within != total).
    np.testing.assert_allclose(Psi.T @ Sbs @ Psi, np.diag(lam**2), atol=1e-8)
    np.testing.assert_allclose(Psi.T @ Sws @ Psi, 0 * np.eye(7), atol=1e-8)
    np.testing.assert_allclose(Psi.T @ St @ Psi, np.diag(lam), atol=1e-8)
    # [derived] the eigenvalue-1 directions are AKDA's subspace.
    akda = AKDA(gamma=GAMMA, reg=TINY).fit(X, y)
    assert _max_angle(Psi[:, :3], akda.dual_coef_) < 1e-8


def test_between_class_kernel_factor_is_the_textbook_scatter_factor():
    X, y = _data()
    K = rbf_kernel(X, gamma=GAMMA)
    Sb, _, _ = _textbook_scatters(K, y)
    _, labels, counts = np.unique(y, return_inverse=True, return_counts=True)
    F = between_class_kernel_factor(K, labels, counts)
    assert F.shape == (K.shape[0], counts.size)
    np.testing.assert_allclose(F @ F.T, Sb, atol=1e-10 * np.abs(Sb).max())


@pytest.mark.parametrize("scatter", ["total", "within"])
def test_ksda_lowrank_solver_equals_the_subset_solver(scatter):
    """KSDA's numerator K_bs = F F^T (F N x H): the Cholesky and thin-SVD path gives sygvx's
    eigenvalues and subspace, and its eigenvalues are those of the dense pencil (numpy)."""
    X, y = _data()
    common = dict(gamma=GAMMA, reg=1e-2, n_subclasses=2, scatter=scatter)
    subset = KSDA(**common).fit(X, y)
    lowrank = KSDA(**common, eigen_solver="lowrank").fit(X, y)
    np.testing.assert_array_equal(subset.subclass_labels_, lowrank.subclass_labels_)
    np.testing.assert_allclose(lowrank.eigenvalues_, subset.eigenvalues_, rtol=1e-8)
    assert _max_angle(lowrank.dual_coef_, subset.dual_coef_) < 1e-6
    K = rbf_kernel(X, gamma=GAMMA)
    _, labels, counts = np.unique(subset.subclass_labels_, return_inverse=True, return_counts=True)
    Z = np.eye(counts.size)[labels]
    B = K @ K - (K @ Z / counts) @ (Z.T @ K) if scatter == "within" else K @ K - np.outer(
        K.sum(1), K.sum(1)) / K.shape[0]  # fmt: skip
    part = SubclassPartition(
        labels, np.repeat(np.arange(lowrank.n_subclasses_.size), lowrank.n_subclasses_), counts
    )
    A = between_subclass_kernel_scatter(K, part)
    w = np.sort(np.linalg.eigvals(np.linalg.solve(B + 1e-2 * np.eye(len(B)), A)).real)[::-1]
    np.testing.assert_allclose(lowrank.eigenvalues_, w[: lowrank.eigenvalues_.size], rtol=1e-6)


def test_ksda_with_one_subclass_per_class_is_kda():
    X, y = _data()
    kda = KDA(gamma=GAMMA, reg=TINY, scatter="gram").fit(X, y)
    ksda = KSDA(gamma=GAMMA, reg=TINY, scatter="gram", n_subclasses=1).fit(X, y)
    assert _max_angle(kda.dual_coef_, ksda.dual_coef_) < 1e-8
    np.testing.assert_allclose(ksda.eigenvalues_, kda.eigenvalues_, atol=1e-9)


@pytest.mark.parametrize("Baseline", [KSDA, GSDA])
def test_subclass_baselines_span_aksda_training_projections(Baseline):
    X, y = _data()
    common = dict(gamma=GAMMA, reg=TINY, n_subclasses=3, clustering="kmeans", random_state=3)
    aksda = AKSDA(**common).fit(X, y)
    base = Baseline(**common).fit(X, y)
    np.testing.assert_array_equal(base.subclass_labels_, aksda.subclass_labels_)
    assert _max_angle(_centred(aksda.transform(X)), _centred(base.transform(X))) < 1e-6
    np.testing.assert_allclose(base.eigenvalues_, aksda.eigenvalues_, atol=1e-6)


def test_aksda_is_deterministic_for_a_seed():
    X, y = _data()
    a = AKSDA(random_state=7).fit(X, y)
    b = AKSDA(random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)


def test_kernel_coordinates_reproduce_feature_space_distances():
    X = np.random.default_rng(4).normal(size=(12, 3))
    K = rbf_kernel(X, gamma=0.7)
    Y = kernel_coordinates(K)
    d2 = np.sum((Y[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    expected = np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K
    np.testing.assert_allclose(d2, expected, atol=1e-10)


def test_nearest_neighbour_split_recovers_two_separated_blobs():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(10, 2)), 20 + rng.normal(size=(10, 2))])
    y = np.zeros(20, dtype=int)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    order = nearest_neighbour_order(D2)
    assert sorted(order) == list(range(20))
    part = partition_subclasses(X, y, np.array([2]), clustering="nn")
    truth = np.repeat([0, 1], 10)
    assert abs(np.corrcoef(part.labels, truth)[0, 1]) > 0.999
    assert list(part.counts) == [10, 10]


# --------------------------------------------------------------------------------------------
# Errors, memory guard, indefinite kernels
# --------------------------------------------------------------------------------------------


def test_n_components_bounds_use_the_template():
    X, y = _data()
    with pytest.raises(
        ValueError,
        match=r"n_components=4 is larger than n_classes - 1 = 3: KDA has at most C-1 discriminant",
    ):
        KDA(n_components=4).fit(X, y)
    with pytest.raises(ValueError, match=r"n_classes - 1 = 3: AKDA has at most C-1"):
        AKDA(n_components=4).fit(X, y)
    with pytest.raises(
        ValueError,
        match=r"n_components=8 is larger than n_subclasses - 1 = 7: AKSDA has at most H-1",
    ):
        AKSDA(n_components=8, n_subclasses=2).fit(X, y)
    assert AKSDA(n_components=7, n_subclasses=2, random_state=0).fit(X, y).n_components_ == 7


@pytest.mark.parametrize("Estimator", [AKDA, AKSDA, SRKDA])
def test_invalid_inputs_raise_clear_errors(Estimator):
    X, y = _data()
    Xbad = X.copy()
    Xbad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Estimator().fit(Xbad, y)
    Xbad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Estimator().fit(Xbad, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        Estimator().fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Estimator().fit(X, y[:-1])
    est = Estimator().fit(X, y)
    with pytest.raises(ValueError, match="X has 4 features, but .* is expecting 5"):
        est.transform(X[:, :4])
    with pytest.raises(ValueError, match="square"):
        Estimator(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="reg must be a finite number"):
        Estimator(reg=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="kernel must be one of"):
        Estimator(kernel="sigmoid").fit(X, y)


def test_invalid_subclass_numbers():
    X, y = _data()
    with pytest.raises(ValueError, match="one int per class"):
        AKSDA(n_subclasses=[2, 2]).fit(X, y)
    with pytest.raises(ValueError, match=">= 1"):
        AKSDA(n_subclasses=0).fit(X, y)
    with pytest.raises(ValueError, match="clustering must be one of"):
        KSDA(clustering="spectral").fit(X, y)


def test_memory_error_is_raised_before_the_kernel_is_allocated(monkeypatch):
    X, y = _data()

    def no_allocation(*args, **kwargs):
        raise AssertionError("the kernel matrix was allocated")

    monkeypatch.setattr(kernels, "_available_memory", lambda: 10_000)
    monkeypatch.setattr(disc, "pairwise_kernel", no_allocation)
    with pytest.raises(MemoryError, match=r"AKDA with n_samples=68 needs about .*GiB.*float32"):
        AKDA().fit(X, y)
    with pytest.raises(MemoryError, match=r"4 x 68 x 68 float64"):
        KDA().fit(X, y)
    with pytest.raises(MemoryError, match="AKSDA"):
        AKSDA().fit(X, y)
    # The size is what N x N float arrays take; float32 halves it and is not suggested again.
    monkeypatch.setattr(kernels, "_available_memory", lambda: 2**40)
    need = check_kernel_memory(100_000, n_matrices=1, dtype=np.float32, method="AKDA")
    assert need == 4 * 10**10
    monkeypatch.setattr(kernels, "_available_memory", lambda: 2**30)
    with pytest.raises(MemoryError) as info:
        check_kernel_memory(20_000, n_matrices=1, dtype=np.float32, method="AKDA")
    assert "float32'" not in str(info.value) and "1.5 GiB" in str(info.value)


def test_indefinite_precomputed_kernel_is_clipped_with_a_warning():
    X, y = _data()
    K = rbf_kernel(X, gamma=GAMMA)
    w, U = np.linalg.eigh(K)
    w[:3] = [-0.5, -0.2, -0.1]  # an indefinite "kernel"
    K_bad = (U * w) @ U.T
    with pytest.warns(IndefiniteKernelWarning, match="smallest kernel eigenvalue -0.5, 3 negative"):
        est = AKDA(kernel="precomputed", reg=1e-3).fit(K_bad, y)
    wc = np.clip(w, 0, None) + 1e-3
    theta = core_targets(y, np.bincount(y), between_class_core_basis(np.bincount(y)))
    ref = U @ ((U.T @ theta) / wc[:, None])
    assert _max_angle(est.dual_coef_, ref) < 1e-10
    assert np.all(np.isfinite(est.transform(K_bad)))


def test_singular_linear_kernel_without_ridge_falls_back_to_the_pseudo_inverse():
    X, y = _data(n_features=3)  # 68 samples in 3 dimensions: the linear kernel has rank 3
    with pytest.warns(IndefiniteKernelWarning, match="reg=0"):
        est = AKDA(kernel="linear", reg=0.0).fit(X, y)
    K = linear_kernel(X)
    theta = core_targets(y, np.bincount(y), between_class_core_basis(np.bincount(y)))
    ref = np.linalg.pinv(K, rtol=1e-12, hermitian=True) @ theta
    assert _max_angle(est.dual_coef_, ref) < 1e-8
