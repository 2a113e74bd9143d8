"""Elastic embeddings: DEE (paper 003) and its baselines EE (nonlinear) and DSNE (linear).

Elastic embedding (Carreira-Perpinan 2010) of points ``Y`` (N x d rows) with symmetric,
zero-diagonal weights ``W+`` (attraction) and ``W-`` (repulsion):

    E(Y) = sum_nm w+_nm ||y_n - y_m||^2 + lam sum_nm w-_nm exp(-||y_n - y_m||^2)
    grad_Y E = 4 (L+ - lam L~-) Y,     L~- = Laplacian of w-_nm exp(-||y_n - y_m||^2)

DEE (paper 003, eq. 12) makes it linear and supervised: ``Y = X A`` with centred ``X``, ``w+``
Gaussian affinities between same-class pairs, ``w-`` on different-class pairs, and
``grad_A E = X^T grad_Y E = 4 X^T (L+ - lam L~-) X A``. The pairwise pass is numba
(:mod:`graphdr.methods._elastic_kernels`), ``X^T G`` is one GEMM, the loop is
:func:`graphdr.optim.minimize`.

Both weight matrices are normalised to sum to one, so ``lam`` weighs the mean repulsion against
the mean attraction whatever N and the number of classes.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from contextlib import contextmanager

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from graphdr._numba import njit, numba  # numba only through _numba: per-user cache dir
from graphdr._threads import limit_threads
from graphdr._validation import check_n_classes, check_n_components
from graphdr.kernels import mean_distance, squared_distances
from graphdr.methods._elastic_kernels import (
    dsne_objective,
    elastic_objective,
    elastic_pair_term,
    entropic_affinities,
    pair_kinds,
    place_out_of_sample,
)
from graphdr.methods._linear import LinearProjectionMixin
from graphdr.optim import make_direction, minimize
from graphdr.solvers import flip_signs

__all__ = [
    "DEE",
    "DSNE",
    "EE",
    "UnboundedObjectiveWarning",
    "dsne_affinities",
    "within_class_gaussian_weights",
]

OPTIMIZERS = ("ld", "fp", "cg", "gd")
# std of the first embedded coordinate at initialisation: small (the first iterations find the
# directions, as with EE's and t-SNE's tiny starts) but not so small that E is flat to 1e-8,
# which would trip the relative-change stopping rule before anything happened.
INIT_SCALE = 1e-2
# below this many samples numba's thread start-up costs more than the pairwise pass itself
_PARALLEL_MIN_ROWS = 1000
_TRANSFORM_CHUNK = 2048
# The linear objectives (DEE with constant repulsion, DSNE) switch from the fused pairwise
# kernels (one pass, an O(d) distance loop per pair) to the Gram form (``Y Y^T`` and ``C Y`` by
# BLAS, an O(1) pass per pair, two N x N buffers) for wide embeddings. Measured (one thread):
# N = 300 (Figure 11's training parts), DSNE at d = 100: 11 ms fused, 2 ms Gram; at d = 4, 4.1 vs
# 1.8 ms; N = 1440 at d <= 10 the fused pass is as fast or faster (DEE), at d = 30 it is 2x slower.
_GRAM_MIN_DIM = 4
_GRAM_MAX_ROWS = 1000
_GRAM_WIDE_DIM = 20  # from this d on, the Gram form up to _GRAM_WIDE_MAX_ROWS samples
_GRAM_WIDE_MAX_ROWS = 3000  # two N x N float64 buffers: 2 x 72 MB


class UnboundedObjectiveWarning(UserWarning):
    """DEE's objective has no minimiser on these data (see :class:`DEE`, Notes)."""


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------


def _same_class_pairs(codes: np.ndarray) -> np.ndarray:
    same = codes[:, None] == codes[None, :]
    np.fill_diagonal(same, False)
    return same


def _normalise(W: np.ndarray) -> np.ndarray:
    total = W.sum()
    if total > 0:
        W /= total
    return W


def within_class_gaussian_weights(D2, codes, sigma) -> np.ndarray:
    """``w+_nm = exp(-||x_n - x_m||^2 / (2 sigma^2))`` on same-class pairs ``n != m``, else 0;
    normalised to sum to one (paper 003, eq. 10 restricted to same-class pairs)."""
    W = np.exp(D2 / (-2.0 * sigma**2))
    W *= _same_class_pairs(codes)
    return _normalise(W)


def between_class_weights(D2, codes, kind: str):
    """Repulsive weights on different-class pairs, normalised to sum to one.

    ``"constant"``: ``w-_nm = 1`` (returned as ``{"labels", "wn"}``: the kernel needs no N x N
    matrix); ``"distance"``: ``w-_nm = ||x_n - x_m||^2`` (EE's distance-based repulsion: far
    pairs are pushed harder), returned as ``{"Wn": dense}``.
    """
    between = codes[:, None] != codes[None, :]
    if kind == "constant":
        return {"labels": codes, "wn": 1.0 / max(int(between.sum()), 1)}
    return {"Wn": _normalise(D2 * between)}


def dsne_affinities(D2, codes, sigma):
    """DSNE input probabilities ``p_ij ~ exp(-||x_i - x_j||^2 / (2 sigma^2))``, normalised to sum
    to one separately over same-class and over different-class ordered pairs ``i != j``.

    Each part is shifted by its smallest distance first, so its exponentials never all
    underflow. Returns ``(P, sum p log p)``.
    """
    same = _same_class_pairs(codes)
    between = codes[:, None] != codes[None, :]
    P = np.zeros_like(D2)
    for mask in (same, between):
        if mask.any():
            d = D2[mask]
            p = np.exp((d - d.min()) / (-2.0 * sigma**2))
            P[mask] = p / p.sum()
    nz = P[P > 0]
    return P, float(np.sum(nz * np.log(nz)))


# --------------------------------------------------------------------------------------------
# Small shared pieces
# --------------------------------------------------------------------------------------------


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}.")


def _check_real(name, value, *, allow_zero=False, allow_auto=False):
    if allow_auto and isinstance(value, str) and value == "auto":
        return
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if not ok or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        extra = " or 'auto'" if allow_auto else ""
        raise ValueError(f"{name} must be a finite number {bound}{extra}, got {value!r}.")


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")


def _encode_labels(y):
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.astype(np.int64).ravel()


def _principal_axes(Xc: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Leading ``k`` right singular vectors (D x k, sign rule) and all singular values."""
    _, s, Vt = scipy.linalg.svd(Xc, full_matrices=False, lapack_driver="gesdd")
    return flip_signs(Vt[:k].T.copy()), s


def _initial_projection(Xc, d, init, rng):
    """Starting ``A`` (D x d): Gaussian random or the leading principal axes (padded with random
    columns if the data have fewer), scaled so the first coordinate has std ``INIT_SCALE``."""
    A = rng.standard_normal((Xc.shape[1], d))
    if init == "pca":
        V, _ = _principal_axes(Xc, d)
        A[:, : V.shape[1]] = V
    std = float(np.std(Xc @ A[:, 0]))
    return A * (INIT_SCALE / std if std > 0 else INIT_SCALE)


def _ridge(B: np.ndarray, mu: float) -> np.ndarray:
    """``B + mu * (tr(B)/n) I``: ``mu`` relative to the mean eigenvalue (absolute if B = 0)."""
    n = B.shape[0]
    scale = np.trace(B) / n if n else 0.0
    B = (B + B.T) * 0.5
    B.flat[:: n + 1] += mu * (scale if scale > 0 else 1.0)
    return B


def _pca_reduce(Xc: np.ndarray, pca):
    """Optional PCA before a linear embedding: ``(basis or None, Xc @ basis)``.

    ``pca`` = None (no reduction), an int k (keep k axes, capped at the rank), or a float in (0, 1)
    (smallest k whose axes explain that fraction of the variance).
    """
    if pca is None:
        return None, Xc
    V, s = _principal_axes(Xc, min(Xc.shape))
    var = s**2
    rank = int(np.sum(s > s[0] * max(Xc.shape) * np.finfo(float).eps)) if s.size else 0
    if isinstance(pca, numbers.Integral):
        k = min(int(pca), max(rank, 1))
    else:
        k = int(np.searchsorted(np.cumsum(var) / var.sum(), float(pca)) + 1) if var.sum() else 1
        k = min(k, max(rank, 1))
    basis = np.ascontiguousarray(V[:, :k])
    return basis, Xc @ basis


def _check_pca(pca):
    if pca is None:
        return
    if isinstance(pca, numbers.Integral) and not isinstance(pca, bool) and pca >= 1:
        return
    if isinstance(pca, numbers.Real) and not isinstance(pca, bool) and 0 < pca < 1:
        return
    raise ValueError(
        f"pca must be None, a positive integer (axes kept) or a float in (0, 1) (fraction of "
        f"variance kept), got {pca!r}."
    )


@contextmanager
def _fit_threads(n_samples: int):
    """Thread limits for a whole fit (restored on exit).

    BLAS gets one thread: the loop's GEMMs are thin (N x D times D x d) and memory-bound, the
    set-up's (distances, PCA, the LD matrix) are one-off and small next to the O(N^2) iterations,
    and a multi-threaded BLAS competing with numba's threads (or a busy machine) can be 10-100x
    slower (measured: a 400 x 1024 SVD took 3-15 s instead of 0.2 s under load). numba's
    row-parallel pass pays off only above ``_PARALLEL_MIN_ROWS`` rows.
    """
    old = numba.get_num_threads()
    try:
        if n_samples < _PARALLEL_MIN_ROWS:
            numba.set_num_threads(1)
        with limit_threads(1, user_api="blas"):
            yield
    finally:
        numba.set_num_threads(old)


def _timings(t0, t1, t2, t3) -> dict:
    """Wall-clock seconds of the phases of a fit: shared set-up (PCA, weights, start), the
    direction's own set-up (LD/FP matrix and its Cholesky) and the iterations."""
    return {"setup": t1 - t0, "direction": t2 - t1, "iterations": t3 - t2}


def _store_result(est, res) -> None:
    est.history_ = res.history
    est.n_iter_ = res.n_iter
    est.objective_ = res.fun
    est.converged_ = res.converged
    est.stop_message_ = res.message


def _minimize_kwargs(est, desc: str) -> dict:
    preconditioned = est.optimizer in ("ld", "fp")
    return {
        "max_iter": est.max_iter,
        "tol": est.tol,
        "callback": est.callback,
        "verbose": est.verbose,
        "desc": desc,
        # LD/FP solve a quadratic model whose natural step is 1; gd/cg start scale-free
        "step0": 1.0 if preconditioned else None,
        "max_step": 1.0 if preconditioned else np.inf,
    }


# --------------------------------------------------------------------------------------------
# Gram-form objectives (wide embeddings: BLAS for the O(N^2 d) part, numba for the O(N^2) pass)
# --------------------------------------------------------------------------------------------


@njit(cache=True, parallel=True)
def _elastic_gram_rows(K, Wp, labels, wn, lam, C, Erow):
    """From the Gram matrix ``K = Y Y^T``: ``d_ij = K_ii + K_jj - 2 K_ij`` (clipped at 0),
    ``C_ij = w+_ij - lam wn [l_i != l_j] exp(-d_ij)`` and ``Erow[i] = sum_j w+_ij d_ij + lam wn
    [l_i != l_j] exp(-d_ij)``: the pair pass of :func:`_elastic_gram`. Rows are independent,
    each summed in a fixed order (bitwise identical for any number of threads)."""
    n = K.shape[0]
    for i in numba.prange(n):
        e_i = 0.0
        kii = K[i, i]
        li = labels[i]
        for j in range(n):
            dd = max(kii + K[j, j] - 2.0 * K[i, j], 0.0)
            e_i, C[i, j] = elastic_pair_term(e_i, Wp[i, j], dd, lam * wn, labels[j] != li)
        Erow[i] = e_i


@njit(cache=True, parallel=True)
def _dsne_gram_partition(K, labels, U, Zs_row, Zd_row):
    """``U_ij = 1 / (1 + d_ij)`` (0 on the diagonal) from ``K = Y Y^T``, with its row sums over
    same-class and different-class pairs."""
    n = K.shape[0]
    for i in numba.prange(n):
        zs = 0.0
        zd = 0.0
        kii = K[i, i]
        li = labels[i]
        for j in range(n):
            if j == i:
                U[i, j] = 0.0
                continue
            u = 1.0 / (1.0 + max(kii + K[j, j] - 2.0 * K[i, j], 0.0))
            U[i, j] = u
            if labels[j] == li:
                zs += u
            else:
                zd += u
        Zs_row[i] = zs
        Zd_row[i] = zd


@njit(cache=True, parallel=True)
def _dsne_gram_rows(U, P, labels, inv_zs, inv_zd, Crow):
    """In place ``U_ij <- g_ij = (p_ij - q_ij) u_ij`` and ``Crow[i] = sum_j p_ij log(1 + d_ij)
    = -sum_j p_ij log u_ij``."""
    n = U.shape[0]
    for i in numba.prange(n):
        c_i = 0.0
        li = labels[i]
        for j in range(n):
            if j == i:
                continue
            u = U[i, j]
            p = P[i, j]
            if p > 0.0:
                c_i -= p * math.log(u)
            U[i, j] = (p - u * (inv_zs if labels[j] == li else inv_zd)) * u
        Crow[i] = c_i


def _laplacian_times(C: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``4 L_C Y = 4 (diag(C 1) Y - C Y)`` (one GEMM)."""
    G = C.sum(axis=1)[:, None] * Y
    G -= C @ Y
    G *= 4.0
    return G


def _elastic_gram(Y, Wp, lam, labels, wn):
    """:func:`elastic_objective` (constant between-class repulsion) in Gram form: same value
    and gradient (tested), cheaper when ``d`` is large."""
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    n = Y.shape[0]
    C, Erow = np.empty((n, n)), np.empty(n)
    _elastic_gram_rows(Y @ Y.T, Wp, labels, float(wn), float(lam), C, Erow)
    return float(np.sum(Erow)), _laplacian_times(C, Y)


def _dsne_gram(Y, P, labels, const, has_s, has_d):
    """:func:`dsne_objective` in Gram form: same value and gradient (tested), cheaper when ``d``
    is large."""
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    n = Y.shape[0]
    U, zs_row, zd_row, crow = np.empty((n, n)), np.empty(n), np.empty(n), np.empty(n)
    _dsne_gram_partition(Y @ Y.T, labels, U, zs_row, zd_row)
    zs, zd = float(np.sum(zs_row)), float(np.sum(zd_row))
    inv_zs = 1.0 / zs if has_s else 0.0
    inv_zd = 1.0 / zd if has_d else 0.0
    _dsne_gram_rows(U, P, labels, inv_zs, inv_zd, crow)
    C = const + float(np.sum(crow))
    C += (math.log(zs) if has_s else 0.0) + (math.log(zd) if has_d else 0.0)
    return C, _laplacian_times(U, Y)


def _use_gram(n: int, d: int) -> bool:
    """Whether the Gram form is the faster evaluation for N = ``n`` samples in ``d`` dimensions."""
    if d >= _GRAM_WIDE_DIM:
        return n <= _GRAM_WIDE_MAX_ROWS
    return d >= _GRAM_MIN_DIM and n <= _GRAM_MAX_ROWS


# --------------------------------------------------------------------------------------------
# Linear supervised elastic embeddings (DEE, DSNE)
# --------------------------------------------------------------------------------------------


class _LinearElastic(LinearProjectionMixin, BaseEstimator):
    """Shared ``fit``/``transform`` of DEE and DSNE: ``Y = (X - mean_) @ components_.T``.

    Subclasses provide ``_check_params`` and ``_problem(Z, codes, d) -> (objective, B_of)`` (``d``: the embedding dimension) with
    ``B_of()`` building the direction matrix (None for cg/gd), timed apart from the rest.
    """

    _method = "linear elastic embedding"

    def fit(self, X, y):
        """Fit the projection on labelled data ``X`` (N x D) and ``y`` (N,)."""
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, codes = _encode_labels(y)
        check_n_classes(codes, method=self._method)
        d = check_n_components(
            self.n_components,
            X.shape[1],
            bound_name="n_features",
            reason=f"{self._method} is a linear projection, with at most one direction per feature",
        )
        self.mean_ = X.mean(axis=0)
        with _fit_threads(X.shape[0]):
            t0 = time.perf_counter()
            basis, Z = _pca_reduce(X - self.mean_, self.pca)
            if Z.shape[1] < d:
                raise ValueError(
                    f"n_components={d} is larger than the {Z.shape[1]} principal axes kept by "
                    f"pca={self.pca!r}: the projection lives in that subspace; keep more axes."
                )
            objective, B_of = self._problem(Z, codes, d)
            A0 = self._start(Z, d, basis)
            t1 = time.perf_counter()
            direction = make_direction(self.optimizer, B_of())
            t2 = time.perf_counter()
            res = minimize(objective, A0, direction, **_minimize_kwargs(self, self._method))
        self.timings_ = _timings(t0, t1, t2, time.perf_counter())
        A = res.x if basis is None else basis @ res.x
        self.components_ = np.ascontiguousarray(A.T)
        self.n_components_ = d
        self.n_fit_features_ = Z.shape[1]
        _store_result(self, res)
        return self

    def _start(self, Z, d, basis):
        """Warm start (previous projection, mapped into the current basis) or a fresh init."""
        prev = getattr(self, "components_", None)
        if self.warm_start and prev is not None and prev.shape == (d, self.n_features_in_):
            A = prev.T
            return basis.T @ A if basis is not None else A.copy()
        return _initial_projection(Z, d, self.init, check_random_state(self.random_state))

    def _common_checks(self):
        _check_choice("init", self.init, ("random", "pca"))
        _check_real("tol", self.tol, allow_zero=True)
        _check_int("max_iter", self.max_iter, 1)
        _check_pca(self.pca)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


class DEE(_LinearElastic):
    """Discriminative elastic embedding (paper 003): elastic embedding made linear and supervised.

    Minimises over ``A`` (``Y = (X - mean) A``, rows ``y_n``)::

        E(A) = sum_nm w+_nm ||y_n - y_m||^2 + lam sum_nm w-_nm exp(-||y_n - y_m||^2)

    with Gaussian attraction ``w+ = exp(-||x_n - x_m||^2 / (2 sigma^2))`` on same-class pairs and
    repulsion ``w-`` on different-class pairs (both normalised to sum to one). Same-class points
    are pulled together, other classes pushed apart; new points embed as ``(x - mean_) A``.

    Parameters
    ----------
    n_components : int, default=2
        Embedding dimension, at most ``n_features``.
    lam : float, default=1.0
        Weight of the repulsion. Too small and the collapsed embedding ``Y = 0`` is a local
        minimum (every direction's attraction beats its repulsion): the fit then stays near 0.
    sigma : float or "auto", default="auto"
        Width of the Gaussian attraction; "auto" is the mean within-class distance.
    repulsive : {"constant", "distance"}, default="constant"
        ``w-_nm`` on different-class pairs: 1, or ``||x_n - x_m||^2`` (EE's distance-based
        repulsion). Paper 003 borrows MMPA's labelled construction without the formula
        (reconstructed; see docs/dee.md).
    optimizer : {"ld", "fp", "cg", "gd"}, default="ld"
        Search direction: Laplacian direction ``-(4 X^T L+ X + mu I)^{-1} g`` (paper 003,
        sec. 3.3), fixed point ``-(4 X^T D+ X + mu I)^{-1} g`` (sec. 3.2), Polak-Ribiere+
        conjugate gradients, or steepest descent. LD/FP use Armijo backtracking from step 1,
        CG/GD a strong-Wolfe line search (scipy's); all share the stopping rule of
        :func:`graphdr.optim.minimize`.
    mu : float, default=1e-6
        Ridge added to the LD/FP matrix, relative to its mean eigenvalue (``X^T L+ X`` is
        singular when n_features > n_samples - n_classes).
    pca : None, int or float in (0, 1), default=None
        Fit in the leading principal subspace (k axes, or the fraction of variance kept). See
        Notes: with many features the objective has no minimiser without it.
    init : {"random", "pca"}, default="random"
        Gaussian random projection or the leading principal axes, scaled so that the first
        coordinate has standard deviation 1e-2.
    max_iter : int, default=1000
    tol : float, default=1e-5
        Stop when the relative change of E stays below ``tol`` on
        :data:`graphdr.optim.WINDOW` (5) consecutive iterations, or when the gradient norm falls
        below 1e-9 times the first one.
    warm_start : bool, default=False
        Start from the previous ``components_`` when the shapes match.
    random_state : int, RandomState instance or None
    verbose : bool, default=False
        Show a tqdm progress bar.
    callback : callable or None
        ``callback(iteration, A, E, grad) -> bool`` after each iteration (``A`` in the fitted,
        possibly PCA-reduced, space); returning True stops the fit.

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
        The projection ``A^T``.
    mean_ : ndarray (n_features,)
    history_ : dict of ndarrays
        ``objective``, ``step``, ``time`` (seconds per iteration) and ``n_evals`` per iteration;
        index 0 is the starting point (``pandas.DataFrame(history_)`` works).
    n_iter_, objective_, converged_, stop_message_ : the optimiser's outcome.
    sigma_ : float, the Gaussian width used.
    classes_ : the class labels.
    n_fit_features_ : int, features seen by the optimiser (after ``pca``).
    timings_ : dict, wall-clock seconds of ``setup`` (PCA, weights, start), ``direction`` (LD/FP
        matrix and Cholesky) and ``iterations``.

    Notes
    -----
    When the within-class differences do not span the data (generically: n_features >
    n_samples - n_classes, e.g. 32x32 faces), every class can be collapsed to one point along
    the null space of ``X^T L+ X`` (the DCV subspace) and pushed apart without bound: E tends to
    0 and has no minimiser. The fit then ends at ``tol``/``max_iter`` with a DCV-like embedding
    whose scale depends on when it stopped. ``fit`` warns (:class:`UnboundedObjectiveWarning`);
    ``pca=k`` with k well below ``n_samples - n_classes`` gives a well-posed problem.
    Paper 003 fits raw pixels (no PCA is stated): of its four sets, ORL (1024 > 400 - 40) and
    Yale (1024 > 165 - 15) are in this degenerate case, COIL20 (1024 < 1440 - 20) and USPS-60
    (256 < 600 - 10) are not. On ORL and Yale "the optimum" and "iterations to converge" then
    measure how fast an optimiser drives E towards 0, not the distance to a minimiser.
    """

    _method = "DEE"

    def __init__(
        self,
        n_components=2,
        *,
        lam=1.0,
        sigma="auto",
        repulsive="constant",
        optimizer="ld",
        mu=1e-6,
        pca=None,
        init="random",
        max_iter=1000,
        tol=1e-5,
        warm_start=False,
        random_state=None,
        verbose=False,
        callback=None,
    ):
        self.n_components = n_components
        self.lam = lam
        self.sigma = sigma
        self.repulsive = repulsive
        self.optimizer = optimizer
        self.mu = mu
        self.pca = pca
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _check_params(self):
        self._common_checks()
        _check_choice("optimizer", self.optimizer, OPTIMIZERS)
        _check_choice("repulsive", self.repulsive, ("constant", "distance"))
        _check_real("lam", self.lam, allow_zero=True)
        _check_real("sigma", self.sigma, allow_auto=True)
        _check_real("mu", self.mu)

    def _problem(self, Z, codes, d=2):
        """The DEE objective over ``A`` and the LD/FP matrix (None for cg/gd)."""
        _warn_if_unbounded(Z, codes)
        D2 = squared_distances(Z)
        same = _same_class_pairs(codes)
        self.sigma_ = mean_distance(D2, same) if self.sigma == "auto" else float(self.sigma)
        Wp = within_class_gaussian_weights(D2, codes, self.sigma_)
        repulsion = between_class_weights(D2, codes, self.repulsive)
        del D2, same
        lam = float(self.lam)
        gram = "labels" in repulsion and _use_gram(Z.shape[0], d)

        def objective(A):
            if gram:
                E, G = _elastic_gram(Z @ A, Wp, lam, repulsion["labels"], repulsion["wn"])
            else:
                E, G = elastic_objective(Z @ A, Wp, lam, **repulsion)
            return E, Z.T @ G

        return objective, lambda: dee_direction_matrix(Z, Wp, self.optimizer, self.mu)


def dee_direction_matrix(Z, Wp, optimizer, mu):
    """LD: ``4 Z^T L+ Z + mu I``; FP: ``4 Z^T D+ Z + mu I`` (paper 003, sec. 3.2-3.3); both are
    constant over the iterations. None for the unpreconditioned directions."""
    if optimizer not in ("ld", "fp"):
        return None
    deg = Wp.sum(axis=1)
    B = (Z * deg[:, None]).T @ Z
    if optimizer == "ld":
        B -= Z.T @ (Wp @ Z)
    return _ridge(4.0 * B, mu)


def _warn_if_unbounded(Z, codes):
    n, n_classes = Z.shape[0], int(codes.max()) + 1
    if Z.shape[1] > n - n_classes:
        warnings.warn(
            f"DEE objective has no minimiser here: {Z.shape[1]} features > n_samples - n_classes"
            f" = {n - n_classes}, so every class can be collapsed to a point and the classes "
            "pushed apart without bound (E -> 0). The fit stops at tol/max_iter with a DCV-like "
            "embedding; pass pca=k with k well below n_samples - n_classes for a well-posed fit.",
            UnboundedObjectiveWarning,
            stacklevel=4,
        )


class DSNE(_LinearElastic):
    """Discriminative stochastic neighbour embedding: linear, supervised (baseline of paper 003).

    Input probabilities ``p_ij ~ exp(-||x_i - x_j||^2 / (2 sigma^2))`` and embedded ones
    ``q_ij ~ (1 + ||y_i - y_j||^2)^{-1}`` (Student-t, one degree of freedom), each normalised
    separately over same-class pairs and over different-class pairs. DSNE minimises over
    ``Y = (X - mean) A``::

        C(A) = sum_{same class} p_ij log(p_ij / q_ij) + sum_{different class} p_ij log(p_ij / q_ij)

    with ``grad_A C = 4 X^T L_g X A``, ``L_g`` the Laplacian of ``g_ij = (p_ij - q_ij) / (1 + d_ij)``
    (derivation in docs/dee.md; checked against finite differences in the tests).
    Reconstructed from paper 003's summary: the original DSNE text was not found (docs/dee.md).

    Parameters
    ----------
    n_components : int, default=2 (at most ``n_features``).
    sigma : float or "auto", default="auto"
        Width of the input Gaussian ("auto": mean within-class distance).
    optimizer : {"cg", "gd"}, default="cg"
        The original uses conjugate gradients.
    pca, init, max_iter, tol, warm_start, random_state, verbose, callback : as in :class:`DEE`.

    Attributes
    ----------
    As :class:`DEE` (``components_``, ``mean_``, ``history_``, ``n_iter_``, ``objective_``, ...).
    """

    _method = "DSNE"

    def __init__(
        self,
        n_components=2,
        *,
        sigma="auto",
        optimizer="cg",
        pca=None,
        init="random",
        max_iter=1000,
        tol=1e-5,
        warm_start=False,
        random_state=None,
        verbose=False,
        callback=None,
    ):
        self.n_components = n_components
        self.sigma = sigma
        self.optimizer = optimizer
        self.pca = pca
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _check_params(self):
        self._common_checks()
        _check_choice("optimizer", self.optimizer, ("cg", "gd"))
        _check_real("sigma", self.sigma, allow_auto=True)

    def _problem(self, Z, codes, d=2):
        D2 = squared_distances(Z)
        same = _same_class_pairs(codes)
        self.sigma_ = mean_distance(D2, same) if self.sigma == "auto" else float(self.sigma)
        P, const = dsne_affinities(D2, codes, self.sigma_)
        del D2, same
        if _use_gram(Z.shape[0], d):
            has_s, has_d = pair_kinds(codes)

            def objective(A):
                C, G = _dsne_gram(Z @ A, P, codes, const, has_s, has_d)
                return C, Z.T @ G

        else:

            def objective(A):
                C, G = dsne_objective(Z @ A, P, codes, const)
                return C, Z.T @ G

        return objective, lambda: None


# --------------------------------------------------------------------------------------------
# EE (nonlinear, unsupervised)
# --------------------------------------------------------------------------------------------


class EE(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Elastic embedding (Carreira-Perpinan 2010): nonlinear, unsupervised; baseline of paper 003.

    Minimises ``E(Y)`` (module docstring) over the N x d coordinates. Attraction: symmetrised
    entropic affinities ``W+ = (P + P^T) / (2N)``, ``P`` row-stochastic with
    ``P_nm ~ exp(-beta_n ||x_n - x_m||^2)`` and ``beta_n`` set so that each row has the given
    perplexity (as in the EE paper). Repulsion on every pair: ``w-_nm = 1`` ("constant") or
    ``||x_n - x_m||^2`` ("distance"), normalised to sum to one.

    Parameters
    ----------
    n_components : int, default=2
    lam : float, default=1.0
        Weight of the repulsion.
    perplexity : float, default=30.0
        Effective number of neighbours of the entropic affinities (capped at ``(N - 1) / 3``).
    repulsive : {"constant", "distance"}, default="constant"
    optimizer : {"ld", "fp", "cg", "gd"}, default="ld"
        "ld" is EE's spectral direction ``-(4 L+ + mu I)^{-1} g`` (Vladymyrov &
        Carreira-Perpinan 2012; one N x N Cholesky), "fp" the fixed point ``-(4 D+)^{-1} g``.
    mu : float, default=1e-6
        Relative ridge of the LD/FP matrix (``L+ 1 = 0``: L+ alone is singular).
    init : {"random", "pca"}, default="random"
        Gaussian with std 1e-2, or the PCA projection scaled to std 1e-2.
    max_iter, tol, random_state, verbose, callback : as in :class:`DEE`.
    transform_max_iter : int, default=100
        Iterations per new point in :meth:`transform`.

    Attributes
    ----------
    embedding_ : ndarray (N, n_components), centred.
    history_, n_iter_, objective_, converged_, stop_message_, timings_ : as in :class:`DEE`.
    perplexity_ : the perplexity used.
    X_fit_ : the training data (needed by ``transform``).

    Notes
    -----
    ``transform`` places new points out of sample: each new point x minimises its own elastic
    energy ``sum_n a_n ||y - y_n||^2 + lam sum_n b_n exp(-||y - y_n||^2)`` against the fixed
    training embedding, with ``a_n = (p_{x->n} + p_{n->x}) / (2N)`` (``p_{x->n}`` calibrated to
    the perplexity, ``p_{n->x}`` from the stored training bandwidths) and ``b_n`` the repulsive
    weight of the pair. It starts at the embedding of the nearest training point and uses the
    point's own spectral direction ``-grad / (2 sum_n a_n)`` with the same line search.
    A point identical to a training point gets that point's training embedding. Cost: the
    M x N distances plus O(N d) per iteration and point; training data are kept for it.
    """

    def __init__(
        self,
        n_components=2,
        *,
        lam=1.0,
        perplexity=30.0,
        repulsive="constant",
        optimizer="ld",
        mu=1e-6,
        init="random",
        max_iter=1000,
        tol=1e-5,
        random_state=None,
        verbose=False,
        callback=None,
        transform_max_iter=100,
    ):
        self.n_components = n_components
        self.lam = lam
        self.perplexity = perplexity
        self.repulsive = repulsive
        self.optimizer = optimizer
        self.mu = mu
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.transform_max_iter = transform_max_iter

    def fit(self, X, y=None):
        """Embed ``X`` (N x D); ``y`` is ignored."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Embed ``X`` and return the embedding (N x n_components)."""
        self._check_params()
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        lam = float(self.lam)
        with _fit_threads(X.shape[0]):
            t0 = time.perf_counter()
            D2 = squared_distances(X)
            Wp, repulsion = self._train_weights(D2)
            del D2
            Y0 = self._start(X)

            def objective(Y):
                return elastic_objective(Y, Wp, lam, **repulsion)

            t1 = time.perf_counter()
            direction = make_direction(self.optimizer, self._direction_matrix(Wp))
            t2 = time.perf_counter()
            res = minimize(objective, Y0, direction, **_minimize_kwargs(self, "EE"))
        self.timings_ = _timings(t0, t1, t2, time.perf_counter())
        self.embedding_ = res.x - res.x.mean(axis=0)  # E is invariant to translations
        self.X_fit_ = X
        self.n_components_ = self.n_components
        _store_result(self, res)
        return self.embedding_

    @property
    def _n_features_out(self):
        """Output columns, for ``get_feature_names_out`` / ``set_output``."""
        return self.embedding_.shape[1]

    def _check_params(self):
        _check_int("n_components", self.n_components, 1)
        _check_choice("optimizer", self.optimizer, OPTIMIZERS)
        _check_choice("repulsive", self.repulsive, ("constant", "distance"))
        _check_choice("init", self.init, ("random", "pca"))
        _check_real("lam", self.lam, allow_zero=True)
        _check_real("perplexity", self.perplexity)
        _check_real("mu", self.mu)
        _check_real("tol", self.tol, allow_zero=True)
        _check_int("max_iter", self.max_iter, 1)
        _check_int("transform_max_iter", self.transform_max_iter, 0)

    def _train_weights(self, D2):
        """``W+ = (P + P^T) / (2N)`` and the repulsion; keeps what ``transform`` needs."""
        n = D2.shape[0]
        self.perplexity_ = float(min(self.perplexity, max((n - 1) / 3.0, 1.0)))
        P, self.beta_ = entropic_affinities(D2, self.perplexity_)
        # training normalisers Z_n (with the kernel's shift) rebuild p_{n->x} for new points
        off = D2 + np.diag(np.full(n, np.inf))
        self.row_shift_ = off.min(axis=1)
        self.row_norm_ = np.exp(-self.beta_[:, None] * (off - self.row_shift_[:, None])).sum(1)
        Wp = (P + P.T) / (2.0 * n)
        if self.repulsive == "constant":
            self.wn_scale_ = 1.0 / (n * (n - 1))
            return Wp, {"labels": np.arange(n, dtype=np.int64), "wn": self.wn_scale_}
        total = float(D2.sum())
        self.wn_scale_ = 1.0 / total if total > 0 else 0.0
        return Wp, {"Wn": D2 * self.wn_scale_}

    def _start(self, X):
        rng = check_random_state(self.random_state)
        Xc = X - X.mean(axis=0)
        if self.init == "pca":
            return Xc @ _initial_projection(Xc, self.n_components, "pca", rng)
        return INIT_SCALE * rng.standard_normal((X.shape[0], self.n_components))

    def _direction_matrix(self, Wp):
        """LD: ``4 L+ + mu I`` (spectral direction); FP: ``4 D+ + mu I``; None for cg/gd."""
        if self.optimizer not in ("ld", "fp"):
            return None
        B = -Wp if self.optimizer == "ld" else np.zeros_like(Wp)
        B.flat[:: B.shape[0] + 1] += Wp.sum(axis=1)
        return _ridge(4.0 * B, self.mu)

    def transform(self, X):
        """Embed new points against the fixed training embedding (see Notes)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        out = np.empty((X.shape[0], self.n_components_))
        with _fit_threads(X.shape[0]):
            for start in range(0, X.shape[0], _TRANSFORM_CHUNK):
                stop = start + _TRANSFORM_CHUNK
                out[start:stop] = self._transform_chunk(X[start:stop])
        return out

    def _transform_chunk(self, Xn):
        n = self.X_fit_.shape[0]
        D2 = squared_distances(Xn, self.X_fit_)
        nearest = np.argmin(D2, axis=1)
        P, _ = entropic_affinities(
            D2, min(self.perplexity_, max(n - 1.0, 1.0)), exclude_diagonal=False
        )
        # p_{n->x} = w / (Z_n + w), w = exp(-beta_n (d^2 - shift_n)), written overflow-free
        with np.errstate(over="ignore"):
            back = 1.0 / (1.0 + self.row_norm_ * np.exp(self.beta_ * (D2 - self.row_shift_)))
        Wp = (P + back) / (2.0 * n)
        Wn = (
            D2 * self.wn_scale_
            if self.repulsive == "distance"
            else np.full_like(D2, self.wn_scale_)
        )
        Y = place_out_of_sample(
            self.embedding_[nearest],
            self.embedding_,
            Wp,
            Wn,
            self.lam,
            max_iter=self.transform_max_iter,
            tol=self.tol,
        )
        # compare coordinates, not D2: GEMM rounding of D2 depends on the batch shape
        exact = np.all(Xn == self.X_fit_[nearest], axis=1)
        Y[exact] = self.embedding_[nearest[exact]]
        return Y
