"""Kernel subclass discriminant analysis: AKSDA (paper 002, Algorithm 2), baselines KSDA, GSDA
(paper 002) and FastSDA (paper 004).

Every class is split into subclasses (k-means per class, or the nearest-neighbour ordering of Zhu &
Martinez); ``H`` is the total number of non-empty subclasses, ``N_u`` their sizes,
``R_s = [e_u / sqrt(N_u)]`` and ``s_u = sqrt(N_u / N)``. The between-subclass scatter counts the
pairs of subclasses that belong to different classes (KSDA, You, Hamsici & Martinez 2011):

    S_bs = N * sum_{u<v, class(u) != class(v)} p_u p_v (mu_u - mu_v)(mu_u - mu_v)^T,  p_u = N_u/N,

which factorises as ``Phi R_s O_bs R_s^T Phi^T`` with the H x H core matrix (eq. 64)

    O_bs = diag(1 - P_c(u)) - (s s^T) o (1 1^T - E).

(The leading factor N makes one subclass per class reproduce the KDA scatter exactly.) ``O_bs`` has
H-1 non-zero eigenvalues: 1 (C-1 times, the AKDA directions) and ``1 - P_c`` (``H_c - 1`` times for
every class c) [derived; checked in the tests]. Shared helpers come from
:mod:`graphdr.methods.discriminant`; ``reg`` has the meaning documented there.

:class:`FastSDA`, a baseline of paper 004 (NGEU, Table I-II) by another group: Chumachenko,
Raitoharju, Iosifidis & Gabbouj, "Speed-up and multi-view extensions to subclass discriminant
analysis", Pattern Recognition 111 (2021) 107660 (arXiv 1905.00794; code
github.com/katerynaCh/fastSDA): subclass discriminant analysis by spectral regression, the
eigenvectors of the between-subclass Laplacian written down from the labels instead of computed.
Implemented from the publication's definitions (facts and formulas; the authors' public MATLAB
code was read for the conventions the paper leaves open, and is cited where it decides one).
The paper's equation numbers were not available to us (its full text is not in our corpus; the
abstract and the authors' code are), so the docstring names the quantities and the steps
rather than numbers.
"""

from __future__ import annotations

import contextlib
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import xxhash
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from graphdr._threads import limit_threads
from graphdr.kernels import squared_distances
from graphdr.methods.discriminant import (
    DEFAULT_REG,
    KernelDiscriminantBase,
    center_kernel_inplace,
    check_eigen_solver,
    class_mean_gram,
    class_mean_kernels,
    core_targets,
    denominator_kernel_scatter,
    solve_kernel_gep,
)
from graphdr.solvers import eigenvalue_clusters, gram_schmidt_columns, order_degenerate_eigenspaces

__all__ = ["AKSDA", "KSDA", "GSDA", "FastSDA", "SubclassPartition", "cached_partitions"]

CLUSTERINGS = ("kmeans", "nn")
NORMALIZATIONS = ("orthonormal", "unit")
_KMEANS_SERIAL_BELOW = 1 << 20  # entries of a class's data block


# --------------------------------------------------------------------------------------------
# Subclass partition
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubclassPartition:
    """Subclasses numbered class by class: ``labels`` (N,), ``class_of`` (H,), ``counts`` (H,)."""

    labels: np.ndarray
    class_of: np.ndarray
    counts: np.ndarray


def subclasses_per_class(n_subclasses, class_counts: np.ndarray) -> np.ndarray:
    """Requested subclasses per class (an int for all, or one int per class), capped at ``N_c``."""
    n_classes = class_counts.size
    if isinstance(n_subclasses, numbers.Integral) and not isinstance(n_subclasses, bool):
        requested = np.full(n_classes, int(n_subclasses))
    else:
        requested = np.asarray(n_subclasses)
        if requested.shape != (n_classes,) or requested.dtype.kind not in "iu":
            raise ValueError(
                f"n_subclasses must be an int or one int per class ({n_classes} classes), "
                f"got {n_subclasses!r}."
            )
    if np.any(requested < 1):
        raise ValueError(f"n_subclasses must be >= 1 for every class, got {n_subclasses!r}.")
    # A class cannot hold more subclasses than samples; n_subclasses_ records what was used.
    return np.minimum(requested, class_counts).astype(np.intp)


def kernel_coordinates(K_block: np.ndarray) -> np.ndarray:
    """Points whose Euclidean distances are the feature-space distances of a kernel block.

    Kernel PCA of the centred block, ``Y = U sqrt(Lambda)``: k-means on ``Y`` is kernel k-means.
    Used when only a precomputed kernel is available.
    """
    Kc = np.array(K_block, dtype=np.float64)
    center_kernel_inplace(Kc)
    w, U = scipy.linalg.eigh(Kc)
    keep = w > 1e-12 * max(w.max(), 0.0)
    return U[:, keep] * np.sqrt(w[keep])


def nearest_neighbour_order(D2: np.ndarray) -> np.ndarray:
    """Zhu & Martinez (2006) ordering of one class, for their nearest-neighbour subclass split.

    The two most distant samples open the two ends; each end then grows by the nearest remaining
    neighbour of its last sample, alternately, until every sample is placed. Splitting the order into
    equal consecutive chunks gives the subclasses. [reconstructed from the SDA paper's description]
    """
    n = D2.shape[0]
    a, b = np.unravel_index(np.argmax(D2), D2.shape)
    if a == b:  # all samples identical
        return np.arange(n)
    # The front end is the one farther from the class on average (not the lower index), so the
    # order, and the subclasses, do not depend on the order of the samples.
    if D2[b].sum() > D2[a].sum():
        a, b = b, a
    front, back = [int(a)], [int(b)]
    remaining = np.ones(n, dtype=bool)
    remaining[[a, b]] = False
    ends = (front, back)
    turn = 0
    while remaining.any():
        chain = ends[turn]
        candidates = np.flatnonzero(remaining)
        nxt = int(candidates[np.argmin(D2[chain[-1], candidates])])
        chain.append(nxt)
        remaining[nxt] = False
        turn = 1 - turn
    return np.array(front + back[::-1])


def _split_class(data, n_groups, *, clustering, seed, precomputed) -> np.ndarray:
    """Subclass labels (0..n_groups-1, possibly fewer if k-means leaves a cluster empty).

    k-means runs on the distinct rows of the class in lexicographic order, weighted by their
    multiplicities: the clusters then do not depend on the order of the samples, and a
    duplicated dataset gives the same clusters (doubled weights change no k-means step).
    """
    if n_groups == 1:
        return np.zeros(data.shape[0], dtype=np.intp)
    if clustering == "kmeans":
        if precomputed:
            coords, inverse, weight = kernel_coordinates(data), None, None
        else:
            coords, inverse, weight = np.unique(
                data, axis=0, return_inverse=True, return_counts=True
            )
            inverse = inverse.ravel()
            if coords.shape[0] < n_groups:  # fewer distinct points than subclasses asked for
                return inverse.astype(np.intp)
        km = KMeans(n_clusters=n_groups, n_init=3, random_state=seed)
        # Small classes: OpenMP start-up and spin-waiting cost more than the clustering (6x).
        threads = 1 if coords.size < _KMEANS_SERIAL_BELOW else None
        with limit_threads(threads, user_api="openmp"):
            labels = km.fit(coords, sample_weight=weight).labels_.astype(np.intp)
        return labels if inverse is None else labels[inverse]
    if precomputed:
        d = np.diag(data)
        D2 = d[:, None] + d[None, :] - 2.0 * data
    else:
        D2 = squared_distances(data)  # exact symmetric, zero diagonal, safe at large offsets
    labels = np.empty(data.shape[0], dtype=np.intp)
    for g, chunk in enumerate(np.array_split(nearest_neighbour_order(D2), n_groups)):
        labels[chunk] = g
    return labels


#: memo of partition_subclasses inside cached_partitions() (None: caching off)
_PARTITIONS: dict | None = None
#: data blocks larger than this are not hashed for the memo (the final fit of a large run)
_CACHE_MAX_BYTES = 1 << 28


@contextlib.contextmanager
def cached_partitions():
    """Within the block, :func:`partition_subclasses` returns the partition it computed before
    for the same data, labels, subclass counts, clustering and seed (it is deterministic in
    them). A cross-validation grid fits every regularisation constant on the same fold kernel:
    k-means runs once per (fold, width, H) instead of once per grid point. Off by default (a
    timed fit must cluster); data over 256 MB are never cached. Not thread-safe."""
    global _PARTITIONS
    outer = _PARTITIONS
    _PARTITIONS = {} if outer is None else outer
    try:
        yield
    finally:
        _PARTITIONS = outer


def _digest(*arrays) -> str:
    """128-bit XXH3 digest of the arrays' dtypes, shapes and bytes (a key of the in-memory
    partition cache: fast, not cryptographic; :func:`graphdr.kernels.array_key`'s hash)."""
    h = xxhash.xxh3_128()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.hexdigest()


def partition_subclasses(
    data: np.ndarray,
    labels: np.ndarray,
    n_per_class: np.ndarray,
    *,
    clustering: str = "kmeans",
    random_state=None,
    precomputed: bool = False,
) -> SubclassPartition:
    """Split every class into ``n_per_class[c]`` subclasses (input space, or kernel space when
    ``precomputed``: ``data`` is then the N x N kernel). Empty clusters are dropped, so ``H`` can
    be smaller than requested (duplicated samples). One seed is drawn from ``random_state`` and
    every class's k-means starts from it (a fresh generator per class): a class's split then
    depends neither on the other classes nor on the class names (the order in which classes are
    visited), and, as k-means runs on the class's sorted distinct rows, neither on the order of
    its samples nor on a rescaling or translation of the data."""
    if clustering not in CLUSTERINGS:
        raise ValueError(f"clustering must be one of {CLUSTERINGS}, got {clustering!r}.")
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    key = None
    if _PARTITIONS is not None and data.nbytes <= _CACHE_MAX_BYTES:
        key = (_digest(data, labels, n_per_class), clustering, int(seed), bool(precomputed))
        if key in _PARTITIONS:
            return _PARTITIONS[key]
    part = _partition(data, labels, n_per_class, clustering, seed, precomputed)
    if key is not None:
        _PARTITIONS[key] = part
    return part


def _partition(data, labels, n_per_class, clustering, seed, precomputed) -> SubclassPartition:
    sub = np.empty(labels.size, dtype=np.intp)
    class_of, offset = [], 0
    for c in range(n_per_class.size):
        idx = np.flatnonzero(labels == c)
        block = data[np.ix_(idx, idx)] if precomputed else data[idx]
        local = _split_class(
            block,
            int(n_per_class[c]),
            clustering=clustering,
            seed=seed,
            precomputed=precomputed,
        )
        _, local = np.unique(local, return_inverse=True)  # consecutive, non-empty
        n_found = int(local.max()) + 1
        sub[idx] = offset + local
        class_of.extend([c] * n_found)
        offset += n_found
    class_of = np.asarray(class_of, dtype=np.intp)
    return SubclassPartition(sub, class_of, np.bincount(sub, minlength=offset))


# --------------------------------------------------------------------------------------------
# Core matrix and kernel scatters
# --------------------------------------------------------------------------------------------


def between_subclass_core(part: SubclassPartition) -> np.ndarray:
    """``O_bs = diag(1 - P_c(u)) - (s s^T) o (1 1^T - E)`` (paper 002 eq. 64), H x H.

    ``s_u = sqrt(N_u / N)``, ``P_c(u) = N_c / N`` of u's class, ``E_uv = 1`` for subclasses of the
    same class. It is the Laplacian of the different-class subclass graph, scaled by ``R_s``.
    """
    n = part.counts.sum()
    s = np.sqrt(part.counts / n)
    class_share = np.bincount(part.class_of, weights=part.counts) / n
    same = part.class_of[:, None] == part.class_of[None, :]
    O_bs = -np.outer(s, s) * ~same
    O_bs[np.diag_indices_from(O_bs)] = 1.0 - class_share[part.class_of]
    return O_bs


def canonical_eigenbasis(w: np.ndarray, U: np.ndarray, atol: float = 1e-9) -> np.ndarray:
    """Replace the eigenvectors of every cluster of equal eigenvalues (``|dw| <= atol``) by the
    Gram-Schmidt basis of the cluster's projector ``U_c U_c^T``: deterministic whatever basis
    LAPACK returned for a degenerate eigenspace."""
    V = U.copy()
    for start, stop in eigenvalue_clusters(w, atol):
        Uc = U[:, start:stop]
        Q = gram_schmidt_columns(Uc @ Uc.T, stop - start)
        if Q is not None:
            V[:, start:stop] = Q
    return V


def subclass_core_eigenpairs(
    O_bs: np.ndarray, n_components: int, tol: float = 1e-10, G: np.ndarray | None = None
):
    """The largest ``n_components`` non-zero eigenpairs of ``O_bs`` (symmetric QR), descending.
    ``O_bs`` has rank H-1 and degenerate eigenspaces (eigenvalue 1 C-1 times, ``1 - P_c`` for
    every class, shared by classes of equal size), whose basis is a free choice.

    With ``G = R_s^T K R_s`` (the subclass-mean Gram matrix, :func:`class_mean_gram`) each
    degenerate eigenspace is ordered by the principal axes of the subclass means in feature
    space (the eigenvectors of ``O_bs G O_bs`` by decreasing eigenvalue; as
    :func:`~graphdr.methods.discriminant.data_ordered_core_basis` for AKDA, which one subclass
    per class reproduces): a rule that does not depend on the class names or sample order.
    Without ``G``, the canonical (subclass-order) basis of :func:`canonical_eigenbasis`."""
    w, U = scipy.linalg.eigh(O_bs)
    w, U = w[::-1], U[:, ::-1]
    rank = int(np.sum(w > tol))
    if rank < n_components:
        raise ValueError(
            f"n_components={n_components} is larger than the rank of the between-subclass core "
            f"matrix = {rank}: only {rank} discriminant directions exist."
        )
    if G is None:
        V = canonical_eigenbasis(w[:rank], U[:, :rank])
    else:
        B = O_bs @ G @ O_bs
        mu, axes = scipy.linalg.eigh((B + B.T) * 0.5, check_finite=False)
        candidates = np.hstack([axes[:, ::-1], canonical_eigenbasis(w[:rank], U[:, :rank])])
        V = order_degenerate_eigenspaces(w[:rank], U[:, :rank], candidates, rtol=1e-9)
    return w[:n_components].copy(), V[:, :n_components]


def between_subclass_kernel_scatter(K: np.ndarray, part: SubclassPartition) -> np.ndarray:
    """KSDA's between-subclass kernel scatter from the subclass kernel means ``m_u = K e_u / N_u``:
    ``N * sum_{u<v, different classes} p_u p_v (m_u - m_v)(m_u - m_v)^T = N * M L M^T`` with ``L``
    the Laplacian of the pair weights ``p_u p_v [class(u) != class(v)]`` (eq. 13/17)."""
    n = K.shape[0]
    M = class_mean_kernels(K, part.labels, part.counts)
    return n * ((M @ _pair_laplacian(part, n).astype(K.dtype)) @ M.T)


def _pair_laplacian(part: SubclassPartition, n: int) -> np.ndarray:
    """The H x H Laplacian of the pair weights ``p_u p_v [class(u) != class(v)]``."""
    p = part.counts / n
    A = np.outer(p, p) * (part.class_of[:, None] != part.class_of[None, :])
    return np.diag(A.sum(axis=1)) - A


def between_subclass_kernel_factor(K: np.ndarray, part: SubclassPartition) -> np.ndarray:
    """``F`` (N x H) with ``F F^T`` the scatter of :func:`between_subclass_kernel_scatter`:
    ``F = sqrt(N) M Q Lambda^{1/2}`` from the H x H Laplacian ``L = Q Lambda Q^T`` (positive
    semi-definite; its round-off negatives clipped to 0), the numerator of
    ``eigen_solver="lowrank"``."""
    n = K.shape[0]
    M = class_mean_kernels(K, part.labels, part.counts)
    lam, Q = np.linalg.eigh(_pair_laplacian(part, n))
    return M @ (Q * np.sqrt(n * np.clip(lam, 0.0, None))).astype(K.dtype)


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------


class SubclassDiscriminantBase(KernelDiscriminantBase):
    """Subclass bookkeeping shared by AKSDA, KSDA and GSDA."""

    _bound_name = "n_subclasses - 1"
    _bound_reason = "{} has at most H-1 discriminant directions (H = total number of subclasses)"
    #: :func:`cached_partitions`, reached through the class: a pipeline that builds the subclass
    #: estimators by name (``registry.estimator_class``) needs no import of this module
    cached_partitions = staticmethod(cached_partitions)

    # AKSDA and GSDA take exactly these parameters (scikit-learn reads them from this
    # signature); KSDA declares its own, with `scatter` and a different clustering default.
    def __init__(
        self,
        n_components=None,
        *,
        n_subclasses=2,
        clustering="kmeans",
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=DEFAULT_REG,
        dtype="float64",
        random_state=None,
    ):
        self.n_components = n_components
        self.n_subclasses = n_subclasses
        self.clustering = clustering
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.dtype = dtype
        self.random_state = random_state

    def _subclasses(self, X, K, labels, class_counts) -> tuple[SubclassPartition, int]:
        """Partition the classes and check n_components against the H found."""
        part = partition_subclasses(
            K if self.kernel == "precomputed" else X,
            labels,
            subclasses_per_class(self.n_subclasses, class_counts),
            clustering=self.clustering,
            random_state=self.random_state,
            precomputed=self.kernel == "precomputed",
        )
        self.subclass_labels_ = part.labels
        self.n_subclasses_ = np.bincount(part.class_of, minlength=class_counts.size)
        return part, self._check_n_components(part.counts.size - 1)

    def _early_checks(self, class_counts) -> None:
        """Fail before the N x N kernel on an impossible request (H-1 with the H asked for)."""
        if self.clustering not in CLUSTERINGS:
            raise ValueError(f"clustering must be one of {CLUSTERINGS}, got {self.clustering!r}.")
        self._check_n_components(
            int(subclasses_per_class(self.n_subclasses, class_counts).sum()) - 1
        )


class AKSDA(SubclassDiscriminantBase):
    """Accelerated kernel subclass discriminant analysis (paper 002, Algorithm 2).

    Classes are split into subclasses by k-means (per class, seeded by ``random_state``); the H-1
    non-zero eigenpairs ``(V, Lambda)`` of the core matrix ``O_bs`` (eq. 64) give the targets
    ``Theta = R_s V Lambda^{1/2}`` (eq. 75) and ``(K + reg I) Psi = Theta`` is solved by one
    Cholesky factorisation and two triangular solves (eq. 79). With one subclass per class it is
    AKDA. The eigenvalues are 1 (C-1 of them: the AKDA subspace) then ``1 - N_c/N`` (``H_c - 1``
    for class c); ``Psi`` diagonalises the between-subclass, within-subclass and total kernel
    scatters simultaneously (eq. 80-82).

    Parameters
    ----------
    n_components : int or None
        At most H-1 (None: H-1), H the number of non-empty subclasses found.
    n_subclasses : int or sequence of int, default 2
        Subclasses per class (one value for all, or one per class in the order of ``classes_``);
        capped at the class size. ``n_subclasses_`` records the numbers used.
    clustering : {"kmeans", "nn"}
        k-means per class (paper 002, as for GSDA; kernel k-means for a precomputed kernel) or the
        nearest-neighbour split of Zhu & Martinez (KSDA's).
    random_state : int, RandomState or None
        Seeds k-means (one seed per class).
    kernel, gamma, degree, coef0, reg, dtype : as in :class:`~graphdr.methods.discriminant.AKDA`.

    Attributes
    ----------
    dual_coef_, eigenvalues_ (core eigenvalues), subclass_labels_ (N,), n_subclasses_ (C,),
    classes_, n_components_, X_fit_.
    """

    _label = "AKSDA"

    def fit(self, X, y):
        """Algorithm 2: subclasses, core eigenpairs, Theta = R_s V Lambda^1/2, one Cholesky solve."""
        X, y_enc, class_counts = self._validate_fit(X, y)
        self._early_checks(class_counts)
        K = self._train_kernel(X)
        part, n_components = self._subclasses(X, K, y_enc, class_counts)
        G = class_mean_gram(K, part.labels, part.counts)
        lam, V = subclass_core_eigenpairs(between_subclass_core(part), n_components, G=G)
        Theta = core_targets(part.labels, part.counts, V * np.sqrt(lam))
        Psi = self._solve(K, X, Theta)
        self._set_centering(None)
        self._store(Psi, lam)
        return self


class KSDA(SubclassDiscriminantBase):
    """Kernel subclass discriminant analysis (You, Hamsici & Martinez 2011), a paper-002 baseline.

    The textbook N x N generalised eigenproblem ``K_bs a = lambda (B + reg I) a``: ``K_bs`` the
    between-subclass kernel scatter over pairs of subclasses of different classes (from the subclass
    kernel means), ``B = K C K`` the total (default, You et al.'s kernel covariance), within-subclass
    or plain Gram (``K K``) scatter. Subclasses come from the nearest-neighbour split of Zhu &
    Martinez (paper 002: "KSDA exploits the nearest neighbor-based clustering") or from k-means
    (``clustering="kmeans"``, AKSDA's split, for like-for-like comparisons). You et al. also
    optimise the kernel and H by their own criteria; here both are parameters (cross-validation).

    Parameters are those of :class:`AKSDA` plus ``scatter`` and ``eigen_solver`` (as
    :class:`~graphdr.methods.discriminant.KDA`'s: ``"subset"``, the default, ``"full"`` or
    ``"lowrank"``, with ``K_bs = F F^T``, ``F`` N x H); ``clustering`` defaults to "nn".
    ``eigenvalues_`` are the generalised eigenvalues (with ``scatter="total"`` they tend to the
    core-matrix eigenvalues of AKSDA as reg -> 0).
    """

    _label = "KSDA"
    _n_kernel_matrices = 4

    def __init__(
        self,
        n_components=None,
        *,
        n_subclasses=2,
        clustering="nn",
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=DEFAULT_REG,
        scatter="total",
        eigen_solver="subset",
        dtype="float64",
        random_state=None,
    ):
        self.n_components = n_components
        self.n_subclasses = n_subclasses
        self.clustering = clustering
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.scatter = scatter
        self.eigen_solver = eigen_solver
        self.dtype = dtype
        self.random_state = random_state

    def fit(self, X, y):
        X, y_enc, class_counts = self._validate_fit(X, y)
        self._early_checks(class_counts)
        if self.scatter not in ("gram", "total", "within"):
            raise ValueError(f"scatter must be 'gram', 'total' or 'within', got {self.scatter!r}.")
        check_eigen_solver(self.eigen_solver)
        K = self._train_kernel(X)
        part, n_components = self._subclasses(X, K, y_enc, class_counts)
        numerator = (
            between_subclass_kernel_factor
            if self.eigen_solver == "lowrank"
            else between_subclass_kernel_scatter
        )
        A = numerator(K, part)
        B = denominator_kernel_scatter(K, part.labels, part.counts, self.scatter)
        del K
        w, V = solve_kernel_gep(A, B, n_components, self.reg, self.eigen_solver)
        self._set_centering(None)
        self._store(V, w)
        return self


class GSDA(SubclassDiscriminantBase):
    """Generalised subclass discriminant analysis (Gkalelis & Mezaris 2014), a paper-002 baseline.

    RECONSTRUCTED (the GSDA paper is not in our corpus; paper 002 only says GSDA uses k-means
    subclasses, a centred and regularised kernel, centred test kernels, and reduces the KSDA
    criterion to an H x H eigenproblem). With the centred kernel ``Kc`` and the total scatter as
    denominator, substituting ``b = Kc a`` turns KSDA's ``Kc C_bs Kc a = lambda Kc Kc a`` into the
    standard problem ``C_bs b = lambda b`` with ``C_bs = R_s O_bs R_s^T``, whose non-zero eigenpairs
    are ``(Lambda, R_s V)`` from the H x H core matrix. GSDA therefore computes: k-means subclasses
    -> ``(V, Lambda)`` of ``O_bs`` -> ``(Kc + reg I) Psi = R_s V`` by Cholesky (the generalised
    eigenvector normalisation ``Psi^T Kc Kc Psi = I``, no ``Lambda^{1/2}`` scaling) -> projection
    of centred test kernels (eq. 22). It differs from AKSDA by the centring and the column scaling;
    its centred training projections span AKSDA's subspace.

    Parameters and attributes are those of :class:`AKSDA`.
    """

    _label = "GSDA"

    def fit(self, X, y):
        X, y_enc, class_counts = self._validate_fit(X, y)
        self._early_checks(class_counts)
        K = self._train_kernel(X)
        part, n_components = self._subclasses(X, K, y_enc, class_counts)
        self._set_centering(*center_kernel_inplace(K))
        G = class_mean_gram(K, part.labels, part.counts)
        lam, V = subclass_core_eigenpairs(between_subclass_core(part), n_components, G=G)
        Psi = self._solve(K, X, core_targets(part.labels, part.counts, V), centred=True)
        self._store(Psi, lam)
        return self


# --------------------------------------------------------------------------------------------
# FastSDA
# --------------------------------------------------------------------------------------------


class FastSDA(SubclassDiscriminantBase):
    """Fast subclass discriminant analysis (Chumachenko et al. 2021), a baseline of paper 004.

    Subclass discriminant analysis (Zhu & Martinez) maximises ``tr((W^T S_t W)^-1 W^T S_bs W)``
    with the between-subclass scatter ``S_bs = sum_{u, v of different classes} p_u p_v
    (mu_u - mu_v)(mu_u - mu_v)^T`` and the total scatter ``S_t``. As a graph embedding
    ``S_bs = Phi L_b Phi^T``; fastSDA's observation is that the eigenvectors of the
    between-subclass Laplacian ``L_b`` with non-zero eigenvalue are known from the labels: the
    class indicators orthogonal to ``1`` (C-1 of them) and, for every group of classes of equal
    size, the subclass indicators of those classes orthogonal to their class indicators. Spectral
    regression (Cai et al.) then replaces the eigenproblem by one regularised regression of the
    centred data onto these targets ``T`` (N x (H-1), orthonormal columns):

        (K_c + reg I) A = T,     z(x) = A^T k_c(x),

    ``K_c`` the centred kernel (the authors centre the data; with ``kernel="linear"`` this is
    their primal solution ``W = (X_c X_c^T + reg I)^-1 X_c T`` by the push-through identity).

    What is taken from where: the subclass partition (k-means per class, seeded), the core matrix
    ``O_bs`` and its eigenpairs are those of :class:`~graphdr.methods.AKSDA`: ``L_b``'s
    eigenvectors are ``T = R_s V`` with ``V`` the non-zero eigenvectors of ``O_bs`` (eigenvalue 1
    for the class-level space, ``1 - N_c/N`` for the subclass contrasts of the classes of size
    ``N_c``: exactly fastSDA's groups by class size, in its order, larger eigenvalue first). The
    authors draw a random basis in each eigenspace (unseeded ``randn`` then QR); here the basis
    is the data-ordered one of AKSDA (deterministic, independent of class names), which spans
    the same eigenspaces, so the full (H-1)-dimensional subspace is the paper's; a truncated one
    (``n_components < H-1``) cuts a degenerate eigenspace where the paper's is random.

    Normalisation of the directions: the authors' ``fastSDA.m`` orthonormalises the projection
    matrix (``orth(W)``; default ``normalize="orthonormal"``: ``A^T K_c A = I``), their results
    scripts scale each direction to unit norm (``normalize="unit"``: ``diag(A^T K_c A) = 1``).
    Their kernel script regresses with ``(K K + reg I)^-1 K T`` (least squares on the kernel
    columns); here the kernel form of their linear solution, ``(K_c + reg I)^-1 T``, serves every
    kernel (the two agree as reg -> 0 for an invertible ``K_c``; the ridge acts differently).
    ``fastSDA.m`` sets the subclasses per class to ``ceil((n_components + 1) / C)``; here
    ``n_subclasses`` is a parameter (cross-validated in the NGEU protocol).

    Parameters
    ----------
    n_components : int or None
        At most H-1 (None: H-1), H the number of non-empty subclasses found.
    n_subclasses, clustering, random_state : as :class:`~graphdr.methods.AKSDA`.
    kernel, gamma, degree, coef0, reg, dtype : as :class:`~graphdr.methods.AKDA` (``reg`` is the
        ridge added to the centred kernel: the paper's regularisation ``alpha``).
    normalize : {"orthonormal", "unit"}
        Orthonormal directions in feature space (``fastSDA.m``) or unit-norm ones.

    Attributes
    ----------
    dual_coef_, eigenvalues_ (the Laplacian's eigenvalues of the kept targets), subclass_labels_,
    n_subclasses_, classes_, n_components_, X_fit_.
    """

    _label = "FastSDA"

    def __init__(
        self,
        n_components=None,
        *,
        n_subclasses=2,
        clustering="kmeans",
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=1e-3,
        normalize="orthonormal",
        dtype="float64",
        random_state=None,
    ):
        self.n_components = n_components
        self.n_subclasses = n_subclasses
        self.clustering = clustering
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.normalize = normalize
        self.dtype = dtype
        self.random_state = random_state

    def fit(self, X, y):
        """Subclasses, label-given targets ``T = R_s V``, one Cholesky solve, normalisation."""
        X, y_enc, class_counts = self._validate_fit(X, y)
        if self.normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got {self.normalize!r}.")
        self._early_checks(class_counts)
        K = self._train_kernel(X)
        part, n_components = self._subclasses(X, K, y_enc, class_counts)
        self._set_centering(*center_kernel_inplace(K))
        G = class_mean_gram(K, part.labels, part.counts)
        lam, V = subclass_core_eigenpairs(between_subclass_core(part), n_components, G=G)
        T = core_targets(part.labels, part.counts, V)
        A = self._solve(K, X, T, centred=True)
        # K_c A = T - reg A (the system itself): no second kernel. Forming K_c A first keeps
        # the product accurate when K_c is singular and reg tiny (A then has ~1/reg components
        # in K_c's null space, which A^T T and reg A^T A would each carry and cancel).
        gram = A.T @ (T - self.reg * A)
        gram = (gram + gram.T) * 0.5
        A = _normalise_directions(A, gram, self.normalize, self.reg)
        self._store(A, lam)
        return self


def _normalise_directions(A: np.ndarray, gram: np.ndarray, normalize: str, reg) -> np.ndarray:
    """``A gram^(-1/2)`` (orthonormal in feature space) or ``A / sqrt(diag(gram))``."""
    if normalize == "unit":
        norms = np.diag(gram)
        if np.any(norms <= 0):
            raise ValueError(
                f"FastSDA: a direction has zero norm in feature space (reg={reg}): the targets "
                "are not reachable from this kernel; use another kernel or increase reg."
            )
        return A / np.sqrt(norms)
    w, U = scipy.linalg.eigh(gram)
    if w[0] <= 1e-12 * max(w[-1], 0.0):
        raise ValueError(
            f"FastSDA: the directions are linearly dependent in feature space (smallest "
            f"eigenvalue of A^T K_c A = {w[0]:.3g}, reg={reg}); ask for fewer components, use "
            "another kernel, or increase reg."
        )
    return A @ ((U / np.sqrt(w)) @ U.T)
