"""Intrinsic and penalty graphs of graph embedding (Yan et al. 2007), as cheap N x N operators.

Graph embedding only ever needs a graph through ``X^T A X`` (a D x D scatter), ``A @ M`` and the
diagonal of ``A``. So no graph here is stored as a dense N x N array:

* centring-type graphs (PCA's ``H = I - 11^T/N``, LDA's within-class Laplacian
  ``L_w = I - sum_c z_c z_c^T / N_c``) are orthogonal projections onto group-centred vectors,
  stored as the group labels (O(N) memory); ``X^T L X = (L X)^T (L X)`` is a within-group centring
  followed by one GEMM, free of the cancellation of ``X^T X - sum_c N_c mu_c mu_c^T``;
* k-NN graphs (MFA, supervised LPP) are sparse Laplacians ``L = D - W``;
* LPP's penalty is the degree matrix, a diagonal operator.

Builders return ``GraphPair(intrinsic, penalty, meta)``; ``penalty`` is ``None`` for the scale
normalisation ``w^T w = 1``. ``meta["largest"]`` says whether the embedding keeps the largest
(PCA: maximal variance) or the smallest (everything else) ratios.

Neighbours are searched either in a feature space (``X``, scikit-learn's ``NearestNeighbors``) or
from a precomputed matrix of squared distances (``sq_distances``, :func:`k_smallest`, ties broken
by the lower index; for kernel methods :func:`kernel_sq_distances` gives the feature-space
distances ``d_ij^2 = K_ii + K_jj - 2 K_ij``). Both are deterministic for a given input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.neighbors import NearestNeighbors

from graphdr._numba import njit
from graphdr._validation import check_positive_int
from graphdr.kernels import recentre_for_distances

# --------------------------------------------------------------------------------------------
# Operators
# --------------------------------------------------------------------------------------------


class GraphOperator:
    """A symmetric N x N matrix used only through products (the interface of every graph).

    Subclasses implement ``matmat`` and ``diagonal``; ``quadratic`` may be overridden with a
    cheaper or more accurate formula.
    """

    shape: tuple[int, int]

    def matmat(self, M: np.ndarray) -> np.ndarray:
        """``A @ M`` for an (N, k) array ``M``."""
        raise NotImplementedError

    def diagonal(self) -> np.ndarray:
        """The diagonal ``A_ii`` (N,) (needed by GEU: ``sum_i A_ii S_i``)."""
        raise NotImplementedError

    def quadratic(self, X: np.ndarray) -> np.ndarray:
        """``X^T A X`` (D x D, exactly symmetric)."""
        Q = X.T @ self.matmat(X)
        return (Q + Q.T) * 0.5

    def rank_upper_bound(self) -> int:
        """An upper bound of ``rank(A)`` from the graph's structure alone (cheap)."""
        return self.shape[0]

    def toarray(self) -> np.ndarray:
        """The dense N x N matrix (tests and small N only)."""
        return self.matmat(np.eye(self.shape[0]))

    def __matmul__(self, M: np.ndarray) -> np.ndarray:
        return self.matmat(np.asarray(M))


def _group_indicator(groups: np.ndarray, n_groups: int) -> sp.csr_array:
    n = groups.size
    return sp.csr_array((np.ones(n), (np.arange(n), groups)), shape=(n, n_groups))


class GroupCenteringOperator(GraphOperator):
    """``L = I - sum_g 1_g 1_g^T / N_g``: subtract the mean of each group.

    With one group this is the centring matrix ``H`` (PCA's Laplacian and LDA's penalty); with the
    classes as groups it is LDA's within-class Laplacian (``W_ij = [y_i = y_j] / N_{y_i}``,
    self-loops included, degree 1), so ``X^T L X = S_w``. ``L`` is an orthogonal projection,
    hence ``X^T L X = (L X)^T (L X)``.
    """

    def __init__(self, groups: np.ndarray):
        _, self.groups = np.unique(np.asarray(groups), return_inverse=True)
        self.groups = self.groups.ravel()
        self.counts = np.bincount(self.groups).astype(float)
        self.shape = (self.groups.size, self.groups.size)
        self._Z = _group_indicator(self.groups, self.counts.size)

    def group_means(self, M: np.ndarray) -> np.ndarray:
        """(G, k) means of the rows of ``M`` in each group."""
        return (self._Z.T @ M) / self.counts[:, None]

    def matmat(self, M: np.ndarray) -> np.ndarray:
        M = np.asarray(M, dtype=float)
        vec = M.ndim == 1
        M2 = M[:, None] if vec else M
        out = M2 - self.group_means(M2)[self.groups]
        return out[:, 0] if vec else out

    def diagonal(self) -> np.ndarray:
        return 1.0 - 1.0 / self.counts[self.groups]

    def rank_upper_bound(self) -> int:
        return self.shape[0] - self.counts.size  # a projection: N minus one per group

    def quadratic(self, X: np.ndarray) -> np.ndarray:
        Xg = self.matmat(X)
        Q = Xg.T @ Xg
        return (Q + Q.T) * 0.5


class SparseLaplacianOperator(GraphOperator):
    """``L = D - W`` of a sparse symmetric non-negative weight matrix ``W`` (``D_ii = sum_j W_ij``)."""

    def __init__(self, W: sp.sparray | sp.spmatrix):
        W = sp.csr_array(W, dtype=float)
        W.sum_duplicates()
        self.weights = W
        self.degrees = np.asarray(W.sum(axis=1)).ravel()
        self.shape = W.shape

    def matmat(self, M: np.ndarray) -> np.ndarray:
        M = np.asarray(M, dtype=float)
        deg = self.degrees if M.ndim == 1 else self.degrees[:, None]
        return deg * M - self.weights @ M

    def diagonal(self) -> np.ndarray:
        return self.degrees - self.weights.diagonal()

    def quadratic(self, X: np.ndarray) -> np.ndarray:
        """``X^T L X``; through the incidence, ``(G X)^T (G X)``, when the graph has fewer edges
        than points (MFA's penalty graph: its marginal pairs touch few points), i.e. m D^2
        multiply-adds for m edges instead of N D^2 (exactly symmetric either way)."""
        G = self.incidence()  # one row per edge
        if G.shape[0] >= self.shape[0]:
            return super().quadratic(X)
        GX = G @ np.asarray(X, dtype=float)
        return GX.T @ GX

    def incidence(self) -> sp.csr_array:
        """``G`` (edges x N) with ``L = G^T G``: row (i, j) is ``sqrt(W_ij) (e_i - e_j)``.

        ``X^T L X = (G X)^T (G X)``, so ranks of ``X^T L X`` come from an (edges x D) matrix.
        """
        upper = sp.triu(self.weights, k=1, format="coo")
        m, n = upper.nnz, self.shape[0]
        w = np.sqrt(upper.data)
        rows = np.r_[np.arange(m), np.arange(m)]
        return sp.csr_array((np.r_[w, -w], (rows, np.r_[upper.row, upper.col])), shape=(m, n))

    def rank_upper_bound(self) -> int:
        """``rank(L) = N - (number of connected components)``, isolated points included."""
        n_parts = connected_components(self.weights, directed=False, return_labels=False)
        return self.shape[0] - int(n_parts)


class DiagonalOperator(GraphOperator):
    """``A = diag(d)`` (LPP's penalty: the degree matrix of the intrinsic graph)."""

    def __init__(self, d: np.ndarray):
        self.d = np.asarray(d, dtype=float).ravel()
        self.shape = (self.d.size, self.d.size)

    def matmat(self, M: np.ndarray) -> np.ndarray:
        M = np.asarray(M, dtype=float)
        return (self.d if M.ndim == 1 else self.d[:, None]) * M

    def diagonal(self) -> np.ndarray:
        return self.d.copy()

    def rank_upper_bound(self) -> int:
        return int(np.count_nonzero(self.d))

    def quadratic(self, X: np.ndarray) -> np.ndarray:
        Q = (X * self.d[:, None]).T @ X
        return (Q + Q.T) * 0.5


def dense_laplacian_quadratic(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``Z^T (D - W) Z`` for a dense symmetric weight matrix ``W`` (``D = diag(W 1)``), exactly
    symmetric: ``1/2 sum_ij W_ij (z_i - z_j)(z_i - z_j)^T``, the scatter of the pairwise
    criteria of MMPA and LFDA (diagonal weights cancel)."""
    S = (Z * W.sum(axis=1)[:, None]).T @ Z - Z.T @ (W @ Z)
    return (S + S.T) * 0.5


class GraphPair(NamedTuple):
    """What every graph builder returns."""

    intrinsic: GraphOperator
    penalty: GraphOperator | None
    meta: dict[str, Any]


# --------------------------------------------------------------------------------------------
# Neighbour searches
# --------------------------------------------------------------------------------------------


@njit
def _kernel_sq_distances_kernel(K, out):
    n = K.shape[0]
    for i in range(n):
        for j in range(n):
            d = K[i, i] + K[j, j] - 2.0 * K[i, j]
            out[i, j] = d if d > 0.0 else 0.0
        out[i, i] = 0.0
    return out


def kernel_sq_distances(K: np.ndarray) -> np.ndarray:
    """Squared feature-space distances ``d_ij^2 = K_ii + K_jj - 2 K_ij`` (clipped at 0).

    Invariant to centring the kernel. One fused pass, no N x N temporaries.
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square kernel matrix, got shape {K.shape}.")
    return _kernel_sq_distances_kernel(K, np.empty_like(K))


def k_smallest(D: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the ``k`` smallest entries of each row, ascending, ties by lower index.

    ``argpartition`` finds each row's k-th value; only entries up to it are sorted (``lexsort``
    by row, value, column), so the cost is O(n m) plus the ties.
    """
    n, m = D.shape
    if not 1 <= k <= m:
        raise ValueError(f"k={k} must be between 1 and the number of columns {m}.")
    kth = np.partition(D, k - 1, axis=1)[:, k - 1]
    rows, cols = np.nonzero(D <= kth[:, None])
    order = np.lexsort((cols, D[rows, cols], rows))
    rows, cols = rows[order], cols[order]
    start = np.searchsorted(rows, np.arange(n))  # every row has >= k candidates
    return cols[start[:, None] + np.arange(k)]


class _Space:
    """Where neighbours live: feature vectors ``X`` or a precomputed squared-distance matrix."""

    def __init__(self, X=None, sq_distances=None):
        if (X is None) == (sq_distances is None):
            raise ValueError("Give exactly one of X (features) or sq_distances (N x N).")
        # neighbour searches expand ||a - b||^2 through a Gram matrix (brute force): data far
        # from the origin are shifted first (only then; see recentre_for_distances)
        self.X = None if X is None else recentre_for_distances(np.asarray(X, dtype=float), None)[0]
        self.D2 = None if sq_distances is None else np.asarray(sq_distances, dtype=float)
        if self.D2 is not None and (self.D2.ndim != 2 or self.D2.shape[0] != self.D2.shape[1]):
            raise ValueError(f"sq_distances must be square, got shape {self.D2.shape}.")
        self.n = (self.X if self.X is not None else self.D2).shape[0]

    def class_sq_distances(self, idx: np.ndarray) -> np.ndarray:
        """Squared distances between the points ``idx`` (|idx| x |idx|, zero diagonal)."""
        if self.X is not None:
            from sklearn.metrics import pairwise_distances

            return pairwise_distances(self.X[idx], metric="sqeuclidean")
        return self.D2[np.ix_(idx, idx)]

    def knn(self, query: np.ndarray, ref: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest points of ``ref`` for each point of ``query`` (global indices).

        ``query is ref`` means a within-set search: a point is never its own neighbour (even when
        duplicated). Returns (indices (q, k), squared distances (q, k)).
        """
        same = query is ref
        if self.X is not None:
            nn = NearestNeighbors(n_neighbors=k).fit(self.X[ref])
            dist, ind = nn.kneighbors(None if same else self.X[query])
            d2 = dist**2
        else:  # only the (query x ref) block is read: no (ref x ref) copy for a precomputed fit
            block = self.D2[np.ix_(query, ref)]
            if same:
                np.fill_diagonal(block, np.inf)
            ind = k_smallest(block, k)
            d2 = np.take_along_axis(block, ind, axis=1)
        return ref[ind], d2


def _within_class_edges(space: _Space, y: np.ndarray, k: int):
    """Directed edges i -> j, j among the k nearest same-class neighbours of i."""
    rows, cols, d2 = [], [], []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        k_eff = min(k, idx.size - 1)
        if k_eff < 1:
            continue
        ind, dist = space.knn(idx, idx, k_eff)
        rows.append(np.repeat(idx, k_eff))
        cols.append(ind.ravel())
        d2.append(dist.ravel())
    return _concat(rows, cols, d2)


def _between_class_edges(space: _Space, y: np.ndarray, k: int, per_class_pairs: bool):
    """Edges between classes.

    ``per_class_pairs=False``: i -> its k nearest points of other classes.
    ``per_class_pairs=True`` (Yan et al.'s marginal pairs): for each class c, the k closest pairs
    (i, j), i in c, j not in c. These are among the per-point candidates (a pair outside i's k
    nearest has k closer pairs), so the per-point search is reused; ties break by index order.
    """
    rows, cols, d2 = [], [], []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        other = np.flatnonzero(y != c)
        k_eff = min(k, other.size)
        if k_eff < 1:
            continue
        ind, dist = space.knn(idx, other, k_eff)
        r, cc, dd = np.repeat(idx, k_eff), ind.ravel(), dist.ravel()
        if per_class_pairs:
            keep = np.lexsort((cc, r, dd))[:k]
            r, cc, dd = r[keep], cc[keep], dd[keep]
        rows.append(r)
        cols.append(cc)
        d2.append(dd)
    return _concat(rows, cols, d2)


def _concat(rows, cols, d2):
    if not rows:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, np.zeros(0)
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(d2)


def _symmetric_weights(n: int, rows, cols, values, mutual: bool = False) -> sp.csr_array:
    """``W_ij = max(A_ij, A_ji)``: the "i in kNN(j) or j in kNN(i)" symmetrisation;
    ``mutual=True``: ``min(A_ij, A_ji)``, the "i in kNN(j) and j in kNN(i)" one."""
    off = rows != cols  # a point is never its own neighbour; guard anyway (no self-loops)
    A = sp.csr_array((values[off], (rows[off], cols[off])), shape=(n, n))
    A.sum_duplicates()
    W = sp.csr_array(A.minimum(A.T) if mutual else A.maximum(A.T))
    W.eliminate_zeros()
    return W


def _connecting_edges(space: _Space, codes: np.ndarray, W: sp.csr_array):
    """Shortest edges that join the components of each class's subgraph of ``W`` into one.

    Per class with several components: the minimum spanning tree of the class's complete graph
    in which an edge inside a component costs 1 and one between components ``2 + distance``;
    Kruskal takes the cheap edges first, so the tree's edges between components are the
    shortest set joining them (the minimum spanning tree of the contracted graph; the shift
    keeps every cost positive, scipy reading 0 as "no edge"). Returns (rows, cols, sq_dist).
    """
    from scipy.sparse.csgraph import minimum_spanning_tree

    rows, cols, d2 = [], [], []
    for c in np.unique(codes):
        idx = np.flatnonzero(codes == c)
        if idx.size < 2:
            continue
        n_comp, comp = connected_components(W[idx][:, idx], directed=False)
        if n_comp < 2:
            continue
        D = space.class_sq_distances(idx)
        cost = np.where(comp[:, None] == comp[None, :], 1.0, 2.0 + np.sqrt(np.maximum(D, 0.0)))
        np.fill_diagonal(cost, 0.0)
        T = minimum_spanning_tree(cost).tocoo()
        join = comp[T.row] != comp[T.col]
        rows.append(idx[T.row[join]])
        cols.append(idx[T.col[join]])
        d2.append(D[T.row[join], T.col[join]])
    return _concat(rows, cols, d2)


def _codes(y, n: int) -> np.ndarray:
    if y is None:
        return np.zeros(n, dtype=np.intp)
    y = np.asarray(y).ravel()
    if y.size != n:
        raise ValueError(f"y has {y.size} labels but the data have {n} samples.")
    return np.unique(y, return_inverse=True)[1].ravel()


def _check_k(name: str, k) -> int:
    check_positive_int(name, k)
    return int(k)


# --------------------------------------------------------------------------------------------
# Graph builders (functions)
# --------------------------------------------------------------------------------------------


def pca_graph(n_samples: int) -> GraphPair:
    """PCA: ``W_ij = 1/N``, so ``L = H``; scale normalisation, LARGEST ratios (maximal variance)."""
    op = GroupCenteringOperator(np.zeros(n_samples, dtype=np.intp))
    return GraphPair(op, None, {"name": "pca", "largest": True})


def lda_graph(y) -> GraphPair:
    """LDA: ``W_ij = [y_i = y_j] / N_{y_i}`` (``X^T L X = S_w``), penalty ``H`` (``S_t``)."""
    y = np.asarray(y).ravel()
    intrinsic = GroupCenteringOperator(y)
    penalty = GroupCenteringOperator(np.zeros(y.size, dtype=np.intp))
    meta = {"name": "lda", "largest": False, "n_classes": int(intrinsic.counts.size)}
    return GraphPair(intrinsic, penalty, meta)


def mfa_graph(
    y, X=None, *, sq_distances=None, k1: int = 5, k2: int = 20, variant: str = "pairs"
) -> GraphPair:
    """Marginal Fisher analysis graphs (Yan et al. 2007).

    Intrinsic: ``W_ij = 1`` if i is among the ``k1`` nearest same-class neighbours of j or vice
    versa. Penalty: ``W^p_ij = 1`` for between-class pairs, either (``variant="pairs"``, default,
    Yan et al.) the ``k2`` closest pairs (i, j), i in c, j not in c, of every class c, or
    (``variant="per_point"``) j among the ``k2`` nearest other-class points of i or vice versa.
    ``k1`` is capped at ``N_c - 1`` and ``k2`` at ``N - N_c`` per class.
    """
    k1, k2 = _check_k("k1", k1), _check_k("k2", k2)
    if variant not in ("pairs", "per_point"):
        raise ValueError(f"variant must be 'pairs' or 'per_point', got {variant!r}.")
    space = _Space(X, sq_distances)
    codes = _codes(y, space.n)
    r, c, _ = _within_class_edges(space, codes, k1)
    W = _symmetric_weights(space.n, r, c, np.ones(r.size))
    r, c, _ = _between_class_edges(space, codes, k2, per_class_pairs=variant == "pairs")
    Wp = _symmetric_weights(space.n, r, c, np.ones(r.size))
    meta = {
        "name": "mfa",
        "largest": False,
        "k1": k1,
        "k2": k2,
        "variant": variant,
        "n_intrinsic_edges": int(W.nnz // 2),
        "n_penalty_edges": int(Wp.nnz // 2),
    }
    return GraphPair(SparseLaplacianOperator(W), SparseLaplacianOperator(Wp), meta)


def heat_weights(sq_dist: np.ndarray, heat_t: float | None) -> tuple[np.ndarray, float]:
    """``exp(-d^2 / t)``; ``t=None`` takes the mean squared edge length (scale-free default),
    ``t=inf`` gives binary weights. Returns (weights, t used)."""
    if heat_t is None:
        positive = sq_dist[sq_dist > 0]
        heat_t = float(positive.mean()) if positive.size else 1.0
    heat_t = float(heat_t)
    if not heat_t > 0:
        raise ValueError(f"heat_t must be positive (or None / inf), got {heat_t!r}.")
    return np.exp(-sq_dist / heat_t), heat_t


def lpp_graph(
    y=None,
    X=None,
    *,
    sq_distances=None,
    n_neighbors: int = 5,
    heat_t: float | None = None,
    mutual: bool = False,
    connect: bool = False,
) -> GraphPair:
    """(Supervised) locality preserving projections (He & Niyogi 2003).

    Intrinsic: ``W_ij = exp(-||x_i - x_j||^2 / t)`` when i is among the ``n_neighbors`` nearest
    same-class neighbours of j or vice versa (``y=None``: all points are one class, plain LPP);
    ``mutual=True``: when each is among the other's (Bouzas et al. 2015's reading, "among the
    KNNs of each other"). Penalty: the degree matrix ``D`` (constraint ``w^T X^T D X w = 1``).

    A class whose subgraph falls apart in several components (always possible, and common with
    the mutual rule) gives every component indicator a zero ratio: the smallest directions then
    separate the pieces of a class, not the classes, and a point without an edge has zero
    degree. ``connect=True`` adds, per class, the shortest edges that join its components into
    one (:func:`_connecting_edges`), heat-weighted with width ``max(t, mean squared joining
    length)`` (``t`` is taken over the k-NN edges only; with ``t`` alone a long joining edge's
    weight underflows to 0 and the pieces stay apart). ``meta``: ``n_class_components`` (components of the class subgraphs before
    joining; the number of classes when none is split) and ``n_connecting_edges``.
    """
    k = _check_k("n_neighbors", n_neighbors)
    space = _Space(X, sq_distances)
    codes = _codes(y, space.n)
    r, c, d2 = _within_class_edges(space, codes, k)
    w, t = heat_weights(d2, heat_t)
    W = _symmetric_weights(space.n, r, c, w, mutual=bool(mutual))
    n_pieces = int(connected_components(W, directed=False)[0])
    n_join = 0
    if connect and n_pieces > np.unique(codes).size:
        jr, jc, jd2 = _connecting_edges(space, codes, W)
        n_join = int(jr.size)
        # a joining edge is longer than the k-NN edges by construction: with the k-NN width its
        # heat weight underflows (the pieces stay apart numerically), so the joining edges use
        # their own mean squared length as width when that is larger
        t_join = max(t, float(jd2.mean())) if jd2.size else t
        J = _symmetric_weights(space.n, jr, jc, heat_weights(jd2, t_join)[0])
        W = sp.csr_array(W.maximum(J))
    intrinsic = SparseLaplacianOperator(W)
    meta = {
        "name": "lpp",
        "largest": False,
        "n_neighbors": k,
        "heat_t": t,
        "mutual": bool(mutual),
        "n_intrinsic_edges": int(W.nnz // 2),
        "n_class_components": n_pieces,
        "n_connecting_edges": n_join,
    }
    return GraphPair(intrinsic, DiagonalOperator(intrinsic.degrees), meta)


# --------------------------------------------------------------------------------------------
# Graph builders (objects: the ``graph=`` interface of the estimators)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphBuilder:
    """Interface of a graph accepted by the GE estimators.

    ``builder(y, X=None, *, sq_distances=None, n_samples=None) -> GraphPair`` (neighbours are
    searched in ``X`` or from ``sq_distances``; graphs without neighbours only need the size). Attributes: ``name``,
    ``supervised`` (needs labels), ``needs_distances`` (searches neighbours), ``largest``.
    ``component_bound(n_classes)`` returns ``(bound, bound_name, reason)`` when the graph itself
    limits the number of directions (LDA: C-1), else ``None`` (the rank of the data space).
    """

    name = "custom"
    supervised = True
    needs_distances = False
    largest = False

    def __call__(self, y=None, X=None, *, sq_distances=None, n_samples=None) -> GraphPair:
        raise NotImplementedError

    def component_bound(self, n_classes: int):
        return None


@dataclass(frozen=True)
class PCAGraph(GraphBuilder):
    name = "pca"
    supervised = False
    largest = True

    def __call__(self, y=None, X=None, *, sq_distances=None, n_samples=None) -> GraphPair:
        return pca_graph(_size(y, X, sq_distances, n_samples))


@dataclass(frozen=True)
class LDAGraph(GraphBuilder):
    name = "lda"

    def __call__(self, y=None, X=None, *, sq_distances=None, n_samples=None) -> GraphPair:
        return lda_graph(y)

    def component_bound(self, n_classes: int):
        return n_classes - 1, "n_classes - 1", "at most C-1 discriminant directions"


@dataclass(frozen=True)
class MFAGraph(GraphBuilder):
    k1: int = 5
    k2: int = 20
    variant: str = "pairs"
    name = "mfa"
    needs_distances = True

    def __call__(self, y=None, X=None, *, sq_distances=None, n_samples=None) -> GraphPair:
        return mfa_graph(
            y, X, sq_distances=sq_distances, k1=self.k1, k2=self.k2, variant=self.variant
        )


@dataclass(frozen=True)
class LPPGraph(GraphBuilder):
    n_neighbors: int = 5
    heat_t: float | None = None
    supervised: bool = True
    mutual: bool = False
    connect: bool = False
    name = "lpp"
    needs_distances = True

    def __call__(self, y=None, X=None, *, sq_distances=None, n_samples=None) -> GraphPair:
        return lpp_graph(
            y if self.supervised else None,
            X,
            sq_distances=sq_distances,
            n_neighbors=self.n_neighbors,
            heat_t=self.heat_t,
            mutual=self.mutual,
            connect=self.connect,
        )


def _size(y, X, sq_distances, n_samples) -> int:
    for a in (X, sq_distances, y):
        if a is not None:
            return np.asarray(a).shape[0]
    if n_samples is None:
        raise ValueError("The graph needs its size: give y, X, sq_distances or n_samples.")
    return int(n_samples)


GRAPHS = {"pca": PCAGraph, "lda": LDAGraph, "mfa": MFAGraph, "lpp": LPPGraph}


def make_graph(
    name: str,
    *,
    k1: int = 5,
    k2: int = 20,
    mfa_variant: str = "pairs",
    n_neighbors: int = 5,
    heat_t: float | None = None,
) -> GraphBuilder:
    """A graph builder from its name and the flat parameters of the estimators."""
    if name == "pca":
        return PCAGraph()
    if name == "lda":
        return LDAGraph()
    if name == "mfa":
        return MFAGraph(k1=k1, k2=k2, variant=mfa_variant)
    if name == "lpp":
        return LPPGraph(n_neighbors=n_neighbors, heat_t=heat_t)
    raise ValueError(
        f"graph={name!r} is not a known graph; use one of {sorted(GRAPHS)} or a graph builder "
        "object (see graphdr.graphs.GraphBuilder)."
    )
