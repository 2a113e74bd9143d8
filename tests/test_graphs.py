"""Graphs of graph embedding against dense references built the naive way."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphdr.graphs import (
    DiagonalOperator,
    GroupCenteringOperator,
    LDAGraph,
    LPPGraph,
    MFAGraph,
    PCAGraph,
    SparseLaplacianOperator,
    k_smallest,
    kernel_sq_distances,
    lda_graph,
    lpp_graph,
    make_graph,
    mfa_graph,
    pca_graph,
)

# ------------------------------------------------------------------ naive references


def _sqdist(X):
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def _laplacian(W):
    return np.diag(W.sum(axis=1)) - W


def _knn_same_class(X, y, k):
    """A[i, j] = 1 if j is among the k nearest same-class points of i (i excluded)."""
    D2, n = _sqdist(X), len(y)
    A = np.zeros((n, n))
    for i in range(n):
        same = [j for j in np.argsort(D2[i], kind="stable") if y[j] == y[i] and j != i]
        A[i, same[:k]] = 1
    return A


def _naive_mfa(X, y, k1, k2, variant):
    D2, n = _sqdist(X), len(y)
    A = _knn_same_class(X, y, k1)
    W = np.maximum(A, A.T)
    Wp = np.zeros((n, n))
    if variant == "pairs":
        for c in np.unique(y):
            pairs = [
                (D2[i, j], i, j) for i in np.flatnonzero(y == c) for j in np.flatnonzero(y != c)
            ]
            for _, i, j in sorted(pairs)[:k2]:
                Wp[i, j] = Wp[j, i] = 1
    else:
        for i in range(n):
            other = [j for j in np.argsort(D2[i], kind="stable") if y[j] != y[i]]
            Wp[i, other[:k2]] = 1
        Wp = np.maximum(Wp, Wp.T)
    return W, Wp


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = rng.integers(0, 3, size=40)
    y[:3] = [0, 1, 2]
    return X, y


# ------------------------------------------------------------------ operators


def _check_operator(op, A_ref, X):
    n = A_ref.shape[0]
    M = np.random.default_rng(1).standard_normal((n, 2))
    np.testing.assert_allclose(op.toarray(), A_ref, atol=1e-12)
    np.testing.assert_allclose(op.matmat(M), A_ref @ M, atol=1e-12)
    np.testing.assert_allclose(op @ M[:, 0], A_ref @ M[:, 0], atol=1e-12)
    np.testing.assert_allclose(op.diagonal(), np.diag(A_ref), atol=1e-12)
    Q = op.quadratic(X)
    np.testing.assert_allclose(Q, X.T @ A_ref @ X, atol=1e-10)
    assert np.array_equal(Q, Q.T)


def test_group_centering_is_h_and_lda_within_laplacian(data):
    X, y = data
    n = len(y)
    # PCA: W_ij = 1/N -> L = D - W = H
    _check_operator(GroupCenteringOperator(np.zeros(n, int)), _laplacian(np.full((n, n), 1 / n)), X)
    # LDA: W_ij = [y_i = y_j] / N_{y_i}
    counts = np.bincount(y)
    W = (y[:, None] == y[None, :]) / counts[y][:, None]
    _check_operator(GroupCenteringOperator(y), _laplacian(W), X)


def test_lda_quadratic_is_within_class_scatter(data):
    X, y = data
    Sw = sum(
        (X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in np.unique(y)
    )
    np.testing.assert_allclose(lda_graph(y).intrinsic.quadratic(X), Sw, atol=1e-10)
    Xc = X - X.mean(0)
    np.testing.assert_allclose(lda_graph(y).penalty.quadratic(X), Xc.T @ Xc, atol=1e-10)


def test_sparse_and_diagonal_operators(data):
    X, _ = data
    rng = np.random.default_rng(2)
    W = sp.random(40, 40, density=0.1, random_state=3).toarray()
    W = W + W.T
    _check_operator(SparseLaplacianOperator(sp.csr_array(W)), _laplacian(W), X)
    d = rng.random(40)
    _check_operator(DiagonalOperator(d), np.diag(d), X)


# ------------------------------------------------------------------ graph builders


@pytest.mark.parametrize("variant", ["pairs", "per_point"])
@pytest.mark.parametrize("k1, k2", [(3, 4), (1, 30), (50, 2)])
def test_mfa_matches_naive_graph(data, variant, k1, k2):
    X, y = data
    g = mfa_graph(y, X, k1=k1, k2=k2, variant=variant)
    W, Wp = _naive_mfa(X, y, k1, k2, variant)
    np.testing.assert_array_equal(g.intrinsic.toarray(), _laplacian(W))
    np.testing.assert_array_equal(g.penalty.toarray(), _laplacian(Wp))
    assert g.meta["n_intrinsic_edges"] == np.count_nonzero(np.triu(W))
    assert g.meta["n_penalty_edges"] == np.count_nonzero(np.triu(Wp))


def test_lpp_matches_naive_graph(data):
    X, y = data
    t = 2.5
    A = _knn_same_class(X, y, 4)
    W = np.maximum(A, A.T) * np.exp(-_sqdist(X) / t)
    g = lpp_graph(y, X, n_neighbors=4, heat_t=t)
    np.testing.assert_allclose(g.intrinsic.toarray(), _laplacian(W), atol=1e-12)
    np.testing.assert_allclose(g.penalty.toarray(), np.diag(W.sum(1)), atol=1e-12)
    # binary weights (t = inf) and unsupervised LPP (y = None: one class)
    np.testing.assert_array_equal(
        lpp_graph(y, X, n_neighbors=4, heat_t=np.inf).intrinsic.toarray(),
        _laplacian(np.maximum(A, A.T)),
    )
    A0 = _knn_same_class(X, np.zeros(40, int), 4)
    W0 = np.maximum(A0, A0.T) * np.exp(-_sqdist(X) / t)
    g0 = lpp_graph(None, X, n_neighbors=4, heat_t=t)
    np.testing.assert_allclose(g0.intrinsic.toarray(), _laplacian(W0), atol=1e-12)


def test_lpp_default_width_is_mean_squared_edge(data):
    X, y = data
    A = _knn_same_class(X, y, 3)
    expected = _sqdist(X)[A > 0].mean()
    assert lpp_graph(y, X, n_neighbors=3).meta["heat_t"] == pytest.approx(expected)


@pytest.mark.parametrize(
    "build",
    [
        lambda X, y: pca_graph(len(y)),
        lambda X, y: lda_graph(y),
        lambda X, y: mfa_graph(y, X, k1=3, k2=5),
        lambda X, y: mfa_graph(y, X, k1=3, k2=5, variant="per_point"),
        lambda X, y: lpp_graph(y, X, n_neighbors=3),
    ],
)
def test_laplacians_are_symmetric_with_zero_row_sums(data, build):
    X, y = data
    for op in (build(X, y).intrinsic, build(X, y).penalty):
        if op is None or isinstance(op, DiagonalOperator):  # LPP's penalty D is not a Laplacian
            continue
        L = op.toarray()
        np.testing.assert_allclose(L, L.T, atol=1e-14)
        np.testing.assert_allclose(L.sum(axis=1), 0, atol=1e-12)
        np.testing.assert_allclose(op.matmat(np.ones(len(y))), 0, atol=1e-12)


def test_precomputed_distance_path_matches_features(data):
    X, y = data
    K = X @ X.T  # linear kernel: feature-space distances are the Euclidean ones
    D2 = kernel_sq_distances(K)
    for variant in ("pairs", "per_point"):
        a = mfa_graph(y, X, k1=3, k2=6, variant=variant)
        b = mfa_graph(y, sq_distances=D2, k1=3, k2=6, variant=variant)
        np.testing.assert_array_equal(a.intrinsic.toarray(), b.intrinsic.toarray())
        np.testing.assert_array_equal(a.penalty.toarray(), b.penalty.toarray())
    a = lpp_graph(y, X, n_neighbors=3, heat_t=1.0)
    b = lpp_graph(y, sq_distances=D2, n_neighbors=3, heat_t=1.0)
    np.testing.assert_allclose(a.intrinsic.toarray(), b.intrinsic.toarray(), atol=1e-12)


def test_kernel_sq_distances_against_numpy():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((12, 5))
    X[3] = X[7]  # duplicate rows: distance exactly 0, never negative
    X[5] = 0.0  # a zero row
    for K in (X @ X.T, np.exp(-0.3 * _sqdist(X))):
        diag = np.diag(K)
        ref = np.clip(diag[:, None] + diag[None, :] - 2 * K, 0, None)
        np.fill_diagonal(ref, 0)
        out = kernel_sq_distances(K)
        np.testing.assert_allclose(out, ref, atol=1e-12)
        assert (out >= 0).all()
    np.testing.assert_allclose(kernel_sq_distances(X @ X.T), _sqdist(X), atol=1e-10)


def test_small_classes_and_duplicates():
    X = np.array([[0.0, 0], [0, 0], [1, 1], [5, 5], [5, 6]])
    y = np.array(["a", "a", "b", "c", "c"])  # "b" has one sample: no same-class neighbour
    g = mfa_graph(y, X, k1=10, k2=10)
    L = g.intrinsic.toarray()
    assert L[2, 2] == 0 and L[0, 1] == -1  # duplicates are neighbours, not self-loops
    np.testing.assert_allclose(g.penalty.toarray().sum(1), 0, atol=1e-12)
    assert np.isfinite(lpp_graph(y, X, n_neighbors=2).intrinsic.toarray()).all()


def test_builders_and_factory(data):
    X, y = data
    assert make_graph("pca") == PCAGraph() and PCAGraph().largest
    assert make_graph("lda") == LDAGraph()
    assert make_graph("mfa", k1=2, k2=3, mfa_variant="per_point") == MFAGraph(2, 3, "per_point")
    assert make_graph("lpp", n_neighbors=2, heat_t=1.0) == LPPGraph(2, 1.0)
    assert LDAGraph().component_bound(4)[0] == 3 and MFAGraph().component_bound(4) is None
    g = MFAGraph(k1=3, k2=5)(y, X)
    np.testing.assert_array_equal(g.intrinsic.toarray(), mfa_graph(y, X, k1=3, k2=5)[0].toarray())
    assert PCAGraph()(n_samples=7).intrinsic.shape == (7, 7)
    unsup = LPPGraph(3, 1.0, supervised=False)(y, X)
    np.testing.assert_array_equal(
        unsup.intrinsic.toarray(), lpp_graph(None, X, n_neighbors=3, heat_t=1.0)[0].toarray()
    )


def test_graph_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="graph='tsne' is not a known graph"):
        make_graph("tsne")
    with pytest.raises(ValueError, match="k1 must be an integer >= 1"):
        mfa_graph(y, X, k1=0)
    with pytest.raises(ValueError, match="variant must be 'pairs' or 'per_point'"):
        mfa_graph(y, X, variant="pair")
    with pytest.raises(ValueError, match="exactly one of X"):
        mfa_graph(y, X, sq_distances=_sqdist(X))
    with pytest.raises(ValueError, match="y has 3 labels but the data have 40 samples"):
        lpp_graph(y[:3], X)
    with pytest.raises(ValueError, match="heat_t must be positive"):
        lpp_graph(y, X, heat_t=-1.0)
    with pytest.raises(ValueError, match="square kernel"):
        kernel_sq_distances(X)


def test_rank_upper_bounds_match_dense_rank(data):
    X, y = data
    ops = [
        pca_graph(40).intrinsic,
        lda_graph(y).intrinsic,
        *mfa_graph(y, X, k1=2, k2=3)[:2],
        *lpp_graph(y, X, n_neighbors=2)[:2],
        DiagonalOperator(np.r_[np.zeros(5), np.ones(35)]),
    ]
    for op in ops:  # exact for these structures (graph Laplacians, projections, diagonals)
        assert op.rank_upper_bound() == np.linalg.matrix_rank(op.toarray())


@pytest.mark.parametrize("n_edges", [3, 200])  # the incidence form (m < N) and the generic one
def test_sparse_laplacian_quadratic_on_both_sides_of_the_edge_count_switch(data, n_edges):
    X, _ = data
    n = X.shape[0]
    rng = np.random.default_rng(2)
    i, j = rng.integers(0, n, n_edges), rng.integers(0, n, n_edges)
    keep = i != j
    W = sp.coo_array((rng.uniform(0.5, 2.0, keep.sum()), (i[keep], j[keep])), shape=(n, n))
    W = (W + W.T).toarray()
    assert (sp.triu(sp.csr_array(W), k=1).nnz < n) == (n_edges < n)
    _check_operator(SparseLaplacianOperator(sp.csr_array(W)), _laplacian(W), X)


def test_incidence_factorises_the_laplacian(data):
    X, y = data
    op = lpp_graph(y, X, n_neighbors=3)[0]
    G = op.incidence()
    np.testing.assert_allclose((G.T @ G).toarray(), op.toarray(), atol=1e-12)
    np.testing.assert_allclose((G @ X).T @ (G @ X), op.quadratic(X), atol=1e-10)


def test_k_smallest_against_stable_argsort():
    rng = np.random.default_rng(5)
    D = rng.integers(0, 4, size=(30, 12)).astype(float)  # many ties
    for k in (1, 3, 12):
        np.testing.assert_array_equal(k_smallest(D, k), np.argsort(D, axis=1, kind="stable")[:, :k])
    with pytest.raises(ValueError, match="k=13 must be between 1 and"):
        k_smallest(D, 13)


# ------------------------------------------------------------------ mutual rule, joined pieces


def test_mutual_lpp_graph_keeps_the_edges_chosen_both_ways():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 3)), np.repeat([0, 1], 20)
    D2 = _sqdist(X)
    chosen = np.zeros((40, 40), dtype=bool)
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        for i in idx:
            d = D2[i, idx].copy()
            d[idx == i] = np.inf
            chosen[i, idx[np.argsort(d, kind="stable")[:4]]] = True
    g_or = lpp_graph(y, X, n_neighbors=4, heat_t=np.inf).intrinsic
    g_and = lpp_graph(y, X, n_neighbors=4, heat_t=np.inf, mutual=True).intrinsic
    adj = lambda g: np.diag(np.diag(g.toarray())) - g.toarray() > 0  # noqa: E731
    np.testing.assert_array_equal(adj(g_or), chosen | chosen.T)
    np.testing.assert_array_equal(adj(g_and), chosen & chosen.T)


def test_joined_lpp_graph_adds_the_shortest_edges_between_pieces():
    """A class of three tight clusters on a line: its 3-NN graph has 3 pieces; joining adds the
    two shortest between-cluster pairs (brute force), heat-weighted, and nothing else."""
    rng = np.random.default_rng(0)
    X = np.vstack([[0.0, 0.0], [5.0, 0.0], [12.0, 0.0]])[:, None, :] + 0.1 * rng.normal(
        size=(3, 4, 2)
    )
    X, y = X.reshape(-1, 2), np.zeros(12, dtype=int)
    D2 = _sqdist(X)
    plain = lpp_graph(y, X, n_neighbors=3)
    joined = lpp_graph(y, X, n_neighbors=3, connect=True)
    assert plain.meta["n_class_components"] == 3 and plain.meta["n_connecting_edges"] == 0
    assert joined.meta["n_connecting_edges"] == 2
    W0 = -plain.intrinsic.toarray()
    W1 = -joined.intrinsic.toarray()
    np.fill_diagonal(W0, 0)
    np.fill_diagonal(W1, 0)
    added = np.argwhere(np.triu((W1 > 0) & ~(W0 > 0)))
    block = lambda a, b: D2[4 * a : 4 * a + 4, 4 * b : 4 * b + 4]  # noqa: E731
    expected = sorted(
        (4 * a + i, 4 * b + j)
        for a, b in ((0, 1), (1, 2))
        for i, j in [np.unravel_index(np.argmin(block(a, b)), (4, 4))]
    )
    assert sorted(map(tuple, added)) == expected
    assert (W1[tuple(np.array(expected).T)] > 1e-3).all()  # weights that do not underflow
    assert (np.diag(joined.penalty.toarray()) > 0).all()
    from scipy.sparse.csgraph import connected_components

    assert connected_components(sp.csr_array(W1 > 0), directed=False)[0] == 1
    # the same from precomputed distances
    again = lpp_graph(y, sq_distances=D2, n_neighbors=3, connect=True)
    np.testing.assert_allclose(again.intrinsic.toarray(), joined.intrinsic.toarray())


def test_lpp_graph_builder_passes_the_rule_and_the_guard():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 2)), np.repeat([0, 1, 2], 10)
    g = LPPGraph(3, None, True, mutual=True, connect=True)(y, X)
    ref = lpp_graph(y, X, n_neighbors=3, mutual=True, connect=True)
    np.testing.assert_allclose(g.intrinsic.toarray(), ref.intrinsic.toarray())
    assert LPPGraph(3) == LPPGraph(3, mutual=False, connect=False)  # defaults: round-1 graph
