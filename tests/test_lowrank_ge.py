"""Class-graph solvers: the span Ritz step and the low-rank (Cholesky) kernel path give the
subspace, the eigenvalues and the scaling of the dense default solver."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.metrics.pairwise import rbf_kernel

import graphdr.methods.graph_embedding as ge
from graphdr.graphs import lda_graph
from graphdr.kernels import center_kernel_train
from graphdr.methods import KDA_GE, KMFA_GE, LDA_GE
from graphdr.methods.graph_embedding import (
    DEFAULT_KERNEL_REG,
    DEFAULT_KERNEL_TOL,
    KernelGraphEmbedding,
    class_directions,
    kernel_feature_map,
    solve_class_graph_kernel,
    solve_class_graph_kernel_positive,
    solve_graph_embedding,
)
from graphdr.methods.uncertain import KDA_NGEU
from graphdr.solvers import SharedCholesky


def _blobs(n=300, d=20, c=5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % c
    return rng.standard_normal((c, d))[y] * 0.7 + rng.standard_normal((n, d)), y


def _dense_reference(Kc, y, k, reg=DEFAULT_KERNEL_REG, solver="regularized"):
    """The default solver (or ``solver``) on the dense scatters of the exact feature map
    (independent route: explicit ``Z^T L Z`` and ``Z^T H Z``, LAPACK's generalised eigensolver;
    for "positive" the full eigendecomposition of the intrinsic scatter)."""
    U, root = kernel_feature_map(Kc.copy(), DEFAULT_KERNEL_TOL)
    Z = U * root
    g = lda_graph(y)
    lam, W = solve_graph_embedding(
        g.intrinsic.quadratic(Z),
        g.penalty.quadratic(Z),
        k,
        reg=reg,
        tol=DEFAULT_KERNEL_TOL,
        solver=solver,
    )
    return lam, U @ (W / root[:, None])


@pytest.mark.parametrize(
    ("gamma", "reg", "n_solves"),
    [(0.05, DEFAULT_KERNEL_REG, 2), (0.2, 1e-3, 2), (0.02, 1e-3, 3), (0.05, 1e-2, 3)],
)
def test_lowrank_kernel_path_adds_a_krylov_block_only_when_needed(
    monkeypatch, gamma, reg, n_solves
):
    """Two powers of A^-1 pass the residual check when the discriminants' ratios mu are large
    (small reg: one Cholesky solve saved); a larger reg makes mu small, the check fails on two
    blocks and a third is added: the solution is still the dense solver's."""
    X, y = _blobs()
    Kc, _ = center_kernel_train(rbf_kernel(X, gamma=gamma))
    widths = []
    solve = SharedCholesky.solve
    monkeypatch.setattr(
        SharedCholesky, "solve", lambda self, B: (widths.append(B.shape[1]), solve(self, B))[1]
    )
    lam, A, why = solve_class_graph_kernel(Kc.copy(), lda_graph(y), 4, reg=reg)
    assert why == "lowrank"
    # C - 1 class directions first, with the condition estimate's probes beside the first two
    assert len(widths) == n_solves and widths[0] == 4 + ge.CONDITION_PROBES
    lam_ref, A_ref = _dense_reference(Kc, y, 4, reg=reg)
    assert np.max(scipy.linalg.subspace_angles(A, A_ref)) < 1e-6
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)


@pytest.mark.parametrize("gamma", [0.02, 0.05, 0.2])
def test_lowrank_kernel_path_equals_dense_default(gamma):
    X, y = _blobs()
    Kc, _ = center_kernel_train(rbf_kernel(X, gamma=gamma))
    lam_ref, A_ref = _dense_reference(Kc, y, 4)
    lam, A, why = solve_class_graph_kernel(Kc.copy(), lda_graph(y), 4)  # consumes its input
    assert why == "lowrank"
    assert np.max(scipy.linalg.subspace_angles(A, A_ref)) < 1e-6
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)
    # column by column (distinct eigenvalues), same scaling w^T S_t w = ||Kc a||^2 = 1
    for j in range(4):
        cos = abs(A[:, j] @ Kc @ Kc @ A_ref[:, j])
        assert cos == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(np.linalg.norm(Kc @ A, axis=0), 1.0, rtol=1e-8)


@pytest.mark.parametrize("make", [KDA_GE, KDA_NGEU])
def test_estimators_auto_path_equals_full_path(make):
    X, y = _blobs(seed=1)
    low = make(gamma=0.05).fit(X, y)
    full = make(gamma=0.05, path="full").fit(X, y)
    assert (low.solver_path_, full.solver_path_) == ("lowrank", "full")
    assert np.max(scipy.linalg.subspace_angles(low.dual_coef_, full.dual_coef_)) < 1e-6
    np.testing.assert_allclose(low.eigenvalues_, full.eigenvalues_, rtol=1e-8)
    Xt = X[:40] + 0.1
    np.testing.assert_allclose(low.transform(Xt), full.transform(Xt), atol=1e-6)


def test_full_path_span_ritz_equals_dense_reference():
    X, y = _blobs(seed=2)
    Kc, _ = center_kernel_train(rbf_kernel(X, gamma=0.05))
    _, A_ref = _dense_reference(Kc, y, 4)
    est = KDA_GE(kernel="precomputed", path="full").fit(rbf_kernel(X, gamma=0.05), y)
    angles = scipy.linalg.subspace_angles(est.dual_coef_, A_ref)
    assert np.max(angles) < 1e-6


def test_linear_kernel_with_d_less_than_n_falls_back_to_full():
    """A rank-deficient kernel: the full path solves on its D-dimensional span, the low-rank
    path does not apply ("auto" falls back; "lowrank" warns and falls back)."""
    X, y = _blobs(d=10)
    auto = KDA_GE(kernel="linear").fit(X, y)
    assert auto.solver_path_ == "full"
    with pytest.warns(RuntimeWarning, match="ill-conditioned"):
        forced = KDA_GE(kernel="linear", path="lowrank").fit(X, y)
    assert forced.solver_path_ == "full"
    np.testing.assert_array_equal(forced.dual_coef_, auto.dual_coef_)
    # the failed attempt leaves nothing behind: bitwise the fit that never tried it
    full = KDA_GE(kernel="linear", path="full").fit(X, y)
    np.testing.assert_array_equal(full.dual_coef_, auto.dual_coef_)


def test_lowrank_rejects_graphs_without_class_structure_and_bad_path():
    X, y = _blobs(n=120)
    with pytest.raises(ValueError, match="class graph"):
        KMFA_GE(path="lowrank").fit(X, y) if "path" in KMFA_GE().get_params() else (
            KernelGraphEmbedding(graph="mfa", path="lowrank").fit(X, y)
        )
    with pytest.raises(ValueError, match="class graph"):
        KDA_GE(solver="range", path="lowrank").fit(X, y)
    with pytest.raises(ValueError, match="path must be one of"):
        KDA_GE(path="cholesky").fit(X, y)
    assert KernelGraphEmbedding(graph="mfa").fit(X, y).solver_path_ == "full"


def test_lda_ge_span_path_matches_dense_solver():
    """LDA_GE (tall and wide data) against the dense generalised eigenproblem."""
    for n, d in ((300, 20), (40, 60)):
        X, y = _blobs(n=n, d=d)
        est = LDA_GE().fit(X, y)
        Xc = X - X.mean(axis=0)
        g = lda_graph(y)
        lam, W = solve_graph_embedding(g.intrinsic.quadratic(Xc), g.penalty.quadratic(Xc), 4)
        assert np.max(scipy.linalg.subspace_angles(est.components_.T, W)) < 1e-6
        if n > d:  # D < N: the same space (wide data: null-space ratios depend on eps ~ 1/r)
            np.testing.assert_allclose(est.eigenvalues_, lam, rtol=1e-6)


def test_class_directions_are_orthonormal_centred_and_class_constant():
    y = np.array([0, 0, 1, 2, 2, 2, 1, 0, 2])
    T = class_directions(lda_graph(y).intrinsic)
    assert T.shape == (9, 2)
    np.testing.assert_allclose(T.T @ T, np.eye(2), atol=1e-14)
    np.testing.assert_allclose(T.sum(axis=0), 0.0, atol=1e-14)
    for c in range(3):
        assert np.ptp(T[y == c], axis=0).max() < 1e-15


def test_flat_spectrum_expected_kernel_stays_on_the_lowrank_path():
    """An expected kernel of many classes has a flat spectrum: the powers (Kc + eps I)^-k Theta
    are nearly collinear, and the Krylov basis must still resolve them (regression: the raw
    powers failed the residual check and fell back to the full path)."""
    rng = np.random.default_rng(0)
    y = np.arange(600) % 20
    X = (rng.standard_normal((20, 256)) * 0.5)[y] + rng.standard_normal((600, 256))
    low = KDA_NGEU(gamma=1 / 256).fit(X, y)
    full = KDA_NGEU(gamma=1 / 256, path="full").fit(X, y)
    assert low.solver_path_ == "lowrank"
    assert np.max(scipy.linalg.subspace_angles(low.dual_coef_, full.dual_coef_)) < 1e-6
    np.testing.assert_allclose(low.eigenvalues_, full.eigenvalues_, rtol=1e-8)


@pytest.mark.parametrize("n", [1, 2, 7, 64])
def test_shared_cholesky_solves_multiplies_and_restores_like_numpy(n):
    """One buffer for K and the factor of K + c 11^T + eps I: each operation against numpy's,
    and the restored matrix keeps K's lower triangle and diagonal bitwise (all eigh reads)."""
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 3))
    K = X @ X.T
    K += rng.standard_normal(K.shape) * 1e-14  # not exactly symmetric, as a centred kernel
    original = K.copy()
    c, eps = 0.3, 0.05
    A_upper = np.triu(original) + np.triu(original, 1).T + c + eps * np.eye(n)
    chol = SharedCholesky(K, c, eps)
    assert chol.ok
    B = rng.standard_normal((n, 3))
    np.testing.assert_allclose(chol.solve(B), np.linalg.solve(A_upper, B), rtol=1e-10)
    sym_lower = np.tril(original) + np.tril(original, -1).T
    np.testing.assert_allclose(chol.kernel_product(B), sym_lower @ B, rtol=1e-12, atol=1e-12)
    restored = chol.restore()
    assert restored is K
    assert np.array_equal(np.tril(restored), np.tril(original))
    assert np.array_equal(restored, restored.T)


@pytest.mark.parametrize("n", [1, 5, 130])
def test_shared_cholesky_kernel_product_reads_only_the_lower_triangle_and_keeps_the_factor(n):
    """Against numpy's product with the full symmetric matrix: NaN written over the factor's
    strict upper triangle proves it is never read; the factor's diagonal (swapped out for the
    call) is bitwise back afterwards."""
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, n + 2))
    S = X @ X.T
    chol = SharedCholesky(S.copy(), 0.1, 0.01)
    assert chol.ok
    chol.K[np.triu_indices(n, 1)] = np.nan
    factor_diag = chol.K.diagonal().copy()
    B = rng.standard_normal((n, 7))
    np.testing.assert_allclose(chol.kernel_product(B), S @ B, rtol=1e-12, atol=1e-12)
    assert np.array_equal(chol.K.diagonal(), factor_diag)


@pytest.mark.parametrize(
    "spectrum",
    [
        np.geomspace(1.0, 1e-6, 299),  # an RBF kernel's decay
        1.0 / np.arange(1, 300) ** 2,
        np.linspace(1.0, 1e-4, 299),  # no gap at the bottom
        1.0 + 0.1 * np.random.default_rng(0).random(299),  # flat (an expected kernel)
        np.r_[np.ones(298), 1e-7],  # one near-null direction (duplicated points)
        np.r_[np.ones(250), np.full(49, 1e-5)],  # a near-null cluster
    ],
    ids=["geometric", "power", "uniform", "flat", "one-outlier", "cluster"],
)
def test_condition_estimate_is_never_below_the_smallest_eigenvalue_and_close_to_it(spectrum):
    """The probes' block Lanczos estimate against the exact smallest eigenvalue of A = Q diag Q^T
    + c 11^T (Q centred and orthonormal, the lifted constant direction off the estimate): never
    below it (up to rounding), and within 1.5x (LOWRANK_MARGIN is 10)."""
    n = spectrum.size + 1
    rng = np.random.default_rng(n)
    Q = scipy.linalg.orth((np.eye(n) - 1.0 / n) @ rng.standard_normal((n, n - 1)))
    A = (Q * spectrum) @ Q.T + 5.0 / n
    factor = scipy.linalg.cho_factor(A)
    probed = ge._ProbedSolve(lambda B: scipy.linalg.cho_solve(factor, B), n)
    theta = probed(Q[:, :3])  # two Krylov solves, as the kernel path does
    probed(theta)
    ratio = probed.smallest_eigenvalue() / spectrum.min()
    assert 1.0 - 1e-8 <= ratio <= 1.5


def test_condition_estimate_of_a_centred_rbf_kernel_matches_eigvalsh():
    X, _ = _blobs()
    Kc, _ = center_kernel_train(rbf_kernel(X, gamma=0.05))
    n, eps = Kc.shape[0], 1e-4
    A = Kc + eps * np.eye(n) + np.trace(Kc) / n**2
    factor = scipy.linalg.cho_factor(A)
    probed = ge._ProbedSolve(lambda B: scipy.linalg.cho_solve(factor, B), n)
    exact = scipy.linalg.eigvalsh(Kc)[1] + eps  # [0]: the constant direction, lifted in A
    assert exact <= probed.smallest_eigenvalue() * (1 + 1e-8) <= 1.5 * exact * (1 + 1e-8)


def test_shared_cholesky_flags_an_indefinite_matrix_and_needs_c_order():
    K = -np.eye(4)
    chol = SharedCholesky(K, 0.0, 0.0)
    assert not chol.ok
    assert np.array_equal(chol.restore(), -np.eye(4))
    with pytest.raises(ValueError, match="C-contiguous float64"):
        SharedCholesky(np.asfortranarray(np.ones((3, 2)) @ np.ones((2, 3))), 0.0, 1.0)


def test_fallback_leaves_the_kernel_as_the_full_path_needs_it():
    """Ill-conditioned kernel: the low-rank path gives up and hands back a kernel whose eigh
    (the full path) is bitwise the one of the untouched kernel."""
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((80, 3)), np.repeat(np.arange(4), 20)
    Kc, _ = center_kernel_train(X @ X.T)  # rank 3 < N - 1
    before = scipy.linalg.eigh(Kc)
    lam, alpha, why = solve_class_graph_kernel(Kc, lda_graph(y), 3)
    assert alpha is None and "ill-conditioned" in why
    after = scipy.linalg.eigh(Kc)
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])


@pytest.mark.parametrize(
    ("gamma", "sizes"),
    [(0.02, None), (0.05, None), (0.2, None), (0.05, (10, 25, 60, 95, 110))],
)
def test_positive_lowrank_kernel_path_equals_the_dense_rule(gamma, sizes):
    """The minimal-positive-eigenvalue rule from one Cholesky and a thin SVD: the dense rule's
    directions column by column (distinct eigenvalues), its eigenvalues (all in (0, 1): the
    null-space directions are skipped) and its scaling ``w^T S_t w = ||Kc a||^2 = 1``; balanced
    and unbalanced classes."""
    X, y = _blobs()
    if sizes is not None:
        y = np.repeat(np.arange(len(sizes)), sizes)
    Kc, _ = center_kernel_train(rbf_kernel(X, gamma=gamma))
    lam_ref, A_ref = _dense_reference(Kc, y, 4, solver="positive")
    lam, A, why = solve_class_graph_kernel_positive(Kc.copy(), lda_graph(y), 4)
    assert why == "lowrank"
    assert np.all((lam > 0) & (lam < 1))
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)
    for j in range(4):
        cos = abs(A[:, j] @ Kc @ Kc @ A_ref[:, j])
        assert cos == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(np.linalg.norm(Kc @ A, axis=0), 1.0, rtol=1e-8)
    # the constraint that defines the rule: no component in the intrinsic null space
    # (w orthogonal to Z^+ Theta, i.e. Theta^T a = 0 for a = Kc^+ v)
    theta = class_directions(lda_graph(y).intrinsic)
    assert np.max(np.abs(theta.T @ A)) < 1e-8 * np.max(np.abs(A))


@pytest.mark.parametrize("make", [KDA_GE, KDA_NGEU])
def test_positive_solver_auto_path_equals_full_path(make):
    X, y = _blobs(seed=1)
    low = make(gamma=0.05, solver="positive").fit(X, y)
    full = make(gamma=0.05, solver="positive", path="full").fit(X, y)
    assert (low.solver_path_, full.solver_path_) == ("lowrank", "full")
    assert np.max(scipy.linalg.subspace_angles(low.dual_coef_, full.dual_coef_)) < 1e-8
    np.testing.assert_allclose(low.eigenvalues_, full.eigenvalues_, rtol=1e-8)
    Xt = X[:40] + 0.1
    np.testing.assert_allclose(low.transform(Xt), full.transform(Xt), atol=1e-8)
    # the rule differs from the default one (null-space directions first, eigenvalues ~ 0)
    default = make(gamma=0.05).fit(X, y)
    assert np.max(default.eigenvalues_) < 1e-3 < np.min(low.eigenvalues_)


def test_positive_lowrank_path_falls_back_and_restores_the_kernel():
    """A rank-deficient kernel (linear, D < N - 1): the path gives up, the kernel's eigh is
    bitwise that of the untouched kernel, and the estimator ("lowrank" asked) warns and solves
    on the full path, bitwise as "auto"; more components than groups - 1 are refused."""
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((80, 3)), np.repeat(np.arange(4), 20)
    Kc, _ = center_kernel_train(X @ X.T)
    before = scipy.linalg.eigh(Kc)
    lam, alpha, why = solve_class_graph_kernel_positive(Kc, lda_graph(y), 3)
    # singular up to rounding: the factorisation fails, or succeeds on rounding and the
    # condition estimate rejects it
    assert alpha is None and ("ill-conditioned" in why or "Cholesky" in why)
    after = scipy.linalg.eigh(Kc)
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
    Xb, yb = _blobs(d=10)
    auto = KDA_GE(kernel="linear", solver="positive").fit(Xb, yb)
    with pytest.warns(RuntimeWarning, match="low-rank path does not apply"):
        forced = KDA_GE(kernel="linear", solver="positive", path="lowrank").fit(Xb, yb)
    assert auto.solver_path_ == forced.solver_path_ == "full"
    np.testing.assert_array_equal(forced.dual_coef_, auto.dual_coef_)
    Kr, _ = center_kernel_train(rbf_kernel(Xb, gamma=0.05))
    lam, alpha, why = solve_class_graph_kernel_positive(Kr, lda_graph(yb), 5)
    assert alpha is None and "groups - 1" in why


@pytest.mark.parametrize("solver", ["regularized", "positive"])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_mfa_penalty_factor_path_equals_the_dense_solve(solver, kernel, monkeypatch):
    """MFA's penalty (marginal pairs: 4 classes x k2 = 8, at most 32 edges, against r = 100 or
    239 directions) is solved from its incidence factor; the fitted embedding equals the dense
    generalised solve's (the path switched off)."""

    X, y = _blobs(n=240, d=100, c=4)
    make = lambda: KMFA_GE(kernel=kernel, n_components=6, k2=8, solver=solver)  # noqa: E731
    calls = []
    lowrank = ge.eigh_generalized_lowrank
    monkeypatch.setattr(
        ge, "eigh_generalized_lowrank", lambda *a, **k: calls.append(1) or lowrank(*a, **k)
    )
    fast = make().fit(X, y)
    assert calls == [1]
    monkeypatch.setattr(ge, "penalty_factor", lambda *a: None)
    dense = make().fit(X, y)
    assert calls == [1]
    Zf, Zd = fast.transform(X), dense.transform(X)
    assert np.degrees(scipy.linalg.subspace_angles(Zf, Zd).max()) < 1e-5
    np.testing.assert_allclose(fast.eigenvalues_, dense.eigenvalues_, rtol=1e-7)
    np.testing.assert_allclose(Zf, Zd, rtol=1e-6, atol=1e-8 * np.abs(Zd).max())


def test_penalty_factor_only_for_few_edges():
    """The factor is used when the penalty graph has at most half as many edges as directions."""
    from graphdr.graphs import lda_graph, mfa_graph
    from graphdr.methods.graph_embedding import penalty_factor

    X, y = _blobs(n=240, d=100, c=4)
    pen = mfa_graph(y, X, k2=8).penalty
    Z = np.random.default_rng(0).standard_normal((240, 100))
    F = penalty_factor(pen, Z)
    np.testing.assert_allclose(F @ F.T, pen.quadratic(Z), rtol=1e-12, atol=1e-10)
    assert penalty_factor(pen, Z[:, :20]) is None  # 32 edges > 10
    assert penalty_factor(lda_graph(y).penalty, Z) is None  # no incidence
    assert penalty_factor(None, Z) is None


def test_positive_lowrank_path_ignores_class_names_and_sample_order():
    """Renamed classes and shuffled samples: the same training embedding (up to the signs the
    sign rule fixes per column, and the order of the samples), on the low-rank path."""
    X, y = _blobs(n=200, seed=3)
    ref = KDA_GE(gamma=0.05, solver="positive").fit(X, y)
    perm = np.random.default_rng(0).permutation(y.size)
    names = np.array(["e", "a", "d", "b", "c"])[y]
    moved = KDA_GE(gamma=0.05, solver="positive").fit(X[perm], names[perm])
    assert ref.solver_path_ == moved.solver_path_ == "lowrank"
    Z, Zm = ref.transform(X), moved.transform(X)
    np.testing.assert_allclose(np.abs(Zm), np.abs(Z), atol=1e-8)
