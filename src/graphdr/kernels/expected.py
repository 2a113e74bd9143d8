"""Expected kernels between Gaussian distributions: the kernel matrix of NGEU (paper 004).

Each sample is a Gaussian ``P_i = N(m_i, S_i)`` (the row ``m_i`` of ``X`` is its mean, ``S_i`` its
covariance). NGEU replaces the kernel ``k(x_i, x_j)`` by the inner product of the kernel mean
embeddings, ``K_ij = E k(x, x')`` with ``x ~ P_i``, ``x' ~ P_j`` independent. Covariances are
given as **variances** (``sigma^2``, never standard deviations): ``(N,)`` isotropic
``S_i = sigma_i^2 I`` or ``(N, D)`` diagonal ``S_i = diag(s_i)``; ``None`` is a Dirac (all zero).

Closed forms (``d = m_i - m_j``, ``v = sigma_i^2 + sigma_j^2``, ``S = S_i + S_j``, gamma as in
:func:`graphdr.kernels.pairwise_kernel`, methods.md section 3):

=========  ==========================================================================
linear     ``m_i^T m_j``
rbf        ``det(I + 2 gamma S)^(-1/2) exp(-gamma d^T (I + 2 gamma S)^(-1) d)``;
           isotropic ``a^(-D/2) exp(-gamma ||d||^2 / a)``, ``a = 1 + 2 gamma v``
poly-2     ``(gamma m_i^T m_j + c)^2 + gamma^2 (tr(S_i S_j) + m_i^T S_j m_i + m_j^T S_i m_j)``
           (the kernel of ``sqrt(gamma) x``, whose covariance is ``gamma S``)
=========  ==========================================================================

The diagonal of a training matrix (``Y=None``, ``i = j``) is the expectation over ONE random
variable, ``E k(x, x)`` (the paper's Kronecker-delta term; its remark that a linear kernel gives
GE with a diagonal regularisation fixes this convention): linear ``||m||^2 + tr S``; rbf ``1``;
poly-2 ``(gamma (||m||^2 + tr S) + c)^2 + gamma^2 (2 tr(S^2) + 4 m^T S m)``. A rectangular
matrix (``Y`` given) never has this case: a new point is a different random variable.

Cost. Isotropic variances: one GEMM (the floor of any kernel matrix) and one fused, in-place
numba pass, exactly like :func:`graphdr.kernels.pairwise_kernel` (peak memory one N x M array).
Diagonal covariances: rbf needs ``d^T (S_i + S_j + s^2 I)^(-1) d`` for every pair, which no GEMM
produces, so it is a direct O(N M D) numba loop (a product and a division per pair and feature,
one logarithm per pair; symmetric matrices compute one triangle). No exact GEMM form exists, so
it costs about 12x our RBF kernel at D = 256 (docs/benchmarks.md); poly-2 takes three GEMMs of
inner dimension D and three N x M arrays.
"""

from __future__ import annotations

import numbers

import numpy as np
from llvmlite import ir

from graphdr._numba import njit, numba
from graphdr.kernels import (
    check_coef0,
    check_gamma,
    check_pair,
    exp_nonpositive,
    float64_from_bits,
    gram_and_norms,
    pairwise_kernel,
    recentre_for_distances,
    reusable,
    threads_for,
)
from graphdr.uncertainty import check_sample_variance

__all__ = ["EXPECTED_KERNELS", "expected_kernel", "mean_embedding_norms"]

EXPECTED_KERNELS = ("linear", "rbf", "poly")

prange = numba.prange

# --------------------------------------------------------------------------------------------
# numba kernels
# --------------------------------------------------------------------------------------------

_SQRT2 = 1.4142135623730951
_LN2_HI = 6.93147180369123816490e-01  # the Cody-Waite split of graphdr.kernels
_LN2_LO = 1.90821492927058770002e-10
_MANTISSA = 0x000FFFFFFFFFFFFF
_ONE_BITS = 0x3FF0000000000000


@numba.extending.intrinsic
def _bits_from_float64(typingctx, x):
    """Reinterpret the 64 bits of a float64 as an int64 (a no-op LLVM can vectorise)."""
    sig = numba.types.int64(numba.types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@njit(inline="always")
def _log_ge1(a):
    """``log(a)`` for finite ``a >= 1``, within 2 ulp of ``np.log`` (tested).

    ``a = 2^e m`` with ``m`` in ``(sqrt(2)/2, sqrt(2)]`` from the exponent bits; ``log m =
    2 atanh(s)``, ``s = (m - 1) / (m + 1)``, ``|s| < 0.172``, by its series to ``s^21``
    (truncation ``< 2e-17`` relative); ``e ln 2`` with the two-part ln 2. Why not ``math.log``:
    like the ``exp`` of graphdr.kernels it is plain arithmetic, so the fused RBF loop
    vectorises (an opaque libm call would not).
    """
    bits = _bits_from_float64(a)
    e = (bits >> 52) - 1023
    m = float64_from_bits((bits & _MANTISSA) | _ONE_BITS)
    if m > _SQRT2:
        m = 0.5 * m
        e = e + 1
    f = m - 1.0  # exact (Sterbenz)
    s = f / (2.0 + f)
    z = s * s
    p = 1.0 / 21.0
    p = 1.0 / 19.0 + z * p
    p = 1.0 / 17.0 + z * p
    p = 1.0 / 15.0 + z * p
    p = 1.0 / 13.0 + z * p
    p = 1.0 / 11.0 + z * p
    p = 1.0 / 9.0 + z * p
    p = 1.0 / 7.0 + z * p
    p = 1.0 / 5.0 + z * p
    p = 1.0 / 3.0 + z * p
    te = np.float64(e)
    # 2 s (1 + z p) = f - s (f - 2 z p): the leading term f is exact, only the small rest rounds
    log_m = f - s * (f - 2.0 * z * p)
    return te * _LN2_HI + (log_m + te * _LN2_LO)


@njit(inline="always")
def _rbf_iso_entry(g, xn, yn, xv, yv, gamma, half_dim):
    """``a^(-D/2) exp(-gamma max(xn + yn - 2 g, 0) / a)``, ``a = 1 + 2 gamma (xv + yv)``.

    A symmetric expression of the two samples (sums commute exactly), and with zero variances
    bit for bit the RBF entry of graphdr.kernels (``log 1 = 0``, ``d / 1 = d``).
    """
    d = (xn + yn) - 2.0 * g
    if d < 0.0:
        d = 0.0
    a = 1.0 + 2.0 * gamma * (xv + yv)
    return exp_nonpositive(-half_dim * _log_ge1(a) - gamma * d / a)


@njit(parallel=True, fastmath={"contract"})  # the entries of _rbf_iso_row
def _expected_rbf_iso_rect(G, x_norms, y_norms, x_var, y_var, gamma, half_dim):
    """In place: ``G_ij <- E k(x_i, y_j)`` from the Gram matrix ``G = X Y^T`` (isotropic)."""
    n, m = G.shape
    for i in prange(n):
        xn = x_norms[i]
        xv = x_var[i]
        for j in range(m):
            G[i, j] = _rbf_iso_entry(G[i, j], xn, y_norms[j], xv, y_var[j], gamma, half_dim)


#: rows per block of the symmetric passes: the mirror of a block (TILE rows read down one
#: column) stays in L1
_TILE = 64


# error_model="numpy": no ZeroDivisionError branch, so the loop vectorises; "contract" (fused
# multiply-adds, no other fast-math licence) as in graphdr.kernels._rbf_from_gram: the pass
# costs 1.8x less (docs/benchmarks.md)
@njit(error_model="numpy", fastmath={"contract"})
def _rbf_iso_row(g, norms, var, xn, xv, gamma, half_dim):
    """In place on a contiguous piece ``g`` of a row of the Gram matrix (its own function: a
    1-D contiguous loop, which LLVM vectorises)."""
    for j in range(g.shape[0]):
        g[j] = _rbf_iso_entry(g[j], xn, norms[j], xv, var[j], gamma, half_dim)


@njit(inline="always")
def _rbf_iso_block_rows(G, norms, var, gamma, half_dim, b):
    """Rows of block ``b`` right of the diagonal, in place, then mirrored below the diagonal;
    ``G_ii = 1``. (Mirroring tile by tile, while each tile is in L1, measured slower.)"""
    n = G.shape[0]
    i0 = b * _TILE
    i1 = min(i0 + _TILE, n)
    for i in range(i0, i1):
        _rbf_iso_row(G[i, i + 1 :], norms[i + 1 :], var[i + 1 :], norms[i], var[i], gamma, half_dim)
        G[i, i] = 1.0
    for j in range(i0 + 1, n):
        for i in range(i0, min(i1, j)):
            G[j, i] = G[i, j]


@njit(parallel=True)
def _expected_rbf_iso_sym(G, norms, var, gamma, half_dim):
    """In place on the symmetric Gram matrix ``X X^T``: the training matrix (diagonal 1).

    Only the upper triangle is computed (half the exponentials and logarithms), in blocks of
    rows; blocks ``t`` and ``nb-1-t`` form one parallel task so that the threads get equal work.
    Each task writes only its own rows above and its own columns below the diagonal.
    """
    nb = (G.shape[0] + _TILE - 1) // _TILE
    for t in prange((nb + 1) // 2):
        _rbf_iso_block_rows(G, norms, var, gamma, half_dim, t)
        if nb - 1 - t != t:
            _rbf_iso_block_rows(G, norms, var, gamma, half_dim, nb - 1 - t)


@njit(parallel=True)
def _expected_poly2_iso(G, x_norms, y_norms, x_var, y_var, gamma, coef0, dim, symmetric):
    """In place: ``G_ij <- (gamma G_ij + c)^2 + gamma^2 (D v_i w_j + w_j ||x_i||^2 +
    v_i ||y_j||^2)``; if ``symmetric``, ``G_ii <- (gamma (||x_i||^2 + D v_i) + c)^2 +
    gamma^2 (2 D v_i^2 + 4 v_i ||x_i||^2)`` (``v = x_var``, ``w = y_var``)."""
    n, m = G.shape
    g2 = gamma * gamma
    for i in prange(n):
        xn = x_norms[i]
        xv = x_var[i]
        for j in range(m):
            t = gamma * G[i, j] + coef0
            extra = dim * (xv * y_var[j]) + (y_var[j] * xn + xv * y_norms[j])
            G[i, j] = t * t + g2 * extra
        if symmetric:
            u = gamma * (xn + dim * xv) + coef0
            G[i, i] = u * u + g2 * (2.0 * dim * xv * xv + 4.0 * xv * xn)


@njit(parallel=True)
def _expected_poly2_diag(G, C, A, Bt, gamma, coef0):
    """In place: ``G_ij <- (gamma G_ij + c)^2 + gamma^2 (C_ij + A_ij + Bt_ji)`` with
    ``C = S_x S_y^T`` (``tr(S_i S_j)``), ``A = (X*X) S_y^T`` (``m_i^T S_j m_i``) and
    ``Bt = (Y*Y) S_x^T`` (``m_j^T S_i m_j``; ``Bt = A`` for a symmetric matrix)."""
    n, m = G.shape
    g2 = gamma * gamma
    for i in prange(n):
        for j in range(m):
            t = gamma * G[i, j] + coef0
            G[i, j] = t * t + g2 * (C[i, j] + (A[i, j] + Bt[j, i]))


#: the largest product of the ``a_k`` whose logarithm ``_log_ge1`` takes (below float64's max)
_DET_MAX = 1.7e308


@njit(inline="always")
def _rbf_diag_pair(X, Y, SX, SY, i, j, gamma):
    """``-1/2 sum_k log a_k - gamma sum_k (x_ik - y_jk)^2 / a_k``, ``a_k = 1 + 2 gamma
    (s_ik + s'_jk)``: the log of the expected RBF kernel for diagonal covariances.

    ``sum_k log a_k`` is taken as the logarithm of the product of the ``a_k`` (one logarithm
    per pair instead of one per feature: 3.5x faster, docs/benchmarks.md); all ``a_k >= 1``, so
    the product cannot underflow, and if it overflows (mean ``log2 a_k`` above ``1024 / D``)
    the pair falls back to the sum of the logarithms.
    """
    two_gamma = 2.0 * gamma
    det = 1.0
    quad = 0.0
    for k in range(X.shape[1]):
        a = 1.0 + two_gamma * (SX[i, k] + SY[j, k])
        diff = X[i, k] - Y[j, k]
        det *= a
        quad += diff * diff / a
    if det <= _DET_MAX:
        log_det = _log_ge1(det)
    else:
        log_det = 0.0
        for k in range(X.shape[1]):
            log_det += _log_ge1(1.0 + two_gamma * (SX[i, k] + SY[j, k]))
    return -0.5 * log_det - gamma * quad


@njit(parallel=True, fastmath={"reassoc", "contract"})
def _expected_rbf_diag_rect(X, Y, SX, SY, gamma, out):
    """``out_ij = E k(x_i, y_j)``, diagonal covariances, every pair (O(n m D))."""
    n, m = out.shape
    for i in prange(n):
        for j in range(m):
            out[i, j] = exp_nonpositive(_rbf_diag_pair(X, Y, SX, SY, i, j, gamma))


@njit(inline="always")
def _rbf_diag_row(X, S, gamma, out, i):
    """Row ``i`` of the symmetric matrix right of the diagonal, mirrored; ``out_ii = 1``."""
    out[i, i] = 1.0
    for j in range(i + 1, out.shape[0]):
        v = exp_nonpositive(_rbf_diag_pair(X, X, S, S, i, j, gamma))
        out[i, j] = v
        out[j, i] = v


@njit(parallel=True, fastmath={"reassoc", "contract"})
def _expected_rbf_diag_sym(X, S, gamma, out):
    """The symmetric training matrix, one triangle: rows ``t`` and ``n-1-t`` form one task, so
    the threads get equal work."""
    n = out.shape[0]
    for t in prange((n + 1) // 2):
        _rbf_diag_row(X, S, gamma, out, t)
        if n - 1 - t != t:
            _rbf_diag_row(X, S, gamma, out, n - 1 - t)


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def _check_kernel(kernel, degree) -> None:
    if not isinstance(kernel, str) or kernel not in EXPECTED_KERNELS:
        raise ValueError(
            f"kernel={kernel!r} has no expected kernel here: use one of "
            + ", ".join(repr(k) for k in EXPECTED_KERNELS)
            + " (a precomputed kernel cannot be averaged over the input uncertainty)."
        )
    if kernel != "poly":
        return
    integral = isinstance(degree, numbers.Integral) and not isinstance(degree, bool)
    if not integral or degree != 2:
        raise ValueError(
            f"degree={degree!r}: the expected polynomial kernel is implemented for degree 2 "
            "(the paper's choice); use kernel='rbf' or 'linear' otherwise."
        )


def _as_variances(variance, n: int, d: int, name: str) -> np.ndarray:
    """Validated variances; ``None`` -> zeros ``(n,)`` (a Dirac)."""
    v = check_sample_variance(variance, n, d, name=name)
    return np.zeros(n) if v is None else v


def _diagonal_form(v: np.ndarray, d: int) -> np.ndarray:
    """``(n, d)`` diagonal covariances from isotropic ``(n,)`` or diagonal ``(n, d)`` ones."""
    return np.ascontiguousarray(np.broadcast_to(v[:, None], (v.size, d)) if v.ndim == 1 else v)


def _linear_diagonal_term(v: np.ndarray, d: int) -> np.ndarray:
    """``tr S_i``: ``D sigma_i^2`` or ``sum_k s_ik``."""
    return d * v if v.ndim == 1 else v.sum(axis=1)


@reusable
def expected_kernel(
    X,
    Y=None,
    *,
    x_variance=None,
    y_variance=None,
    kernel="rbf",
    gamma=None,
    degree=2,
    coef0=1.0,
) -> np.ndarray:
    """Kernel matrix between Gaussians, ``K_ij = E k(x, y)``, ``x ~ N(X_i, S_i)``,
    ``y ~ N(Y_j, S'_j)`` (``Y=None``: the symmetric training matrix of ``X`` itself).

    Parameters
    ----------
    X : (n, D) means. Y : (m, D) means or None.
    x_variance, y_variance : variances ``sigma^2`` (not standard deviations): None (Dirac), a
        scalar (every sample), ``(n,)`` isotropic ``S_i = sigma_i^2 I`` or ``(n, D)`` diagonal
        ``S_i = diag(s_i)``. With ``Y=None`` only ``x_variance`` is used.
    kernel : "linear", "rbf" or "poly" (degree 2 only).
    gamma, coef0 : as :func:`graphdr.kernels.pairwise_kernel` (scikit-learn conventions:
        rbf ``exp(-gamma ||a - b||^2)``, poly ``(gamma a^T b + coef0)^2``, ``gamma=None`` means
        ``1 / D``).

    With ``Y=None`` the diagonal is ``E k(x, x)`` over one random variable (module docstring).
    All variances zero (Dirac distributions) give :func:`~graphdr.kernels.pairwise_kernel`
    exactly: that case is delegated to it. Returns a float64 ``(n, m)`` array.
    """
    _check_kernel(kernel, degree)
    X, Y = check_pair(X, Y, np.float64)
    symmetric = Y is None
    n, d = X.shape
    vx = _as_variances(x_variance, n, d, "x_variance")
    vy = vx if symmetric else _as_variances(y_variance, Y.shape[0], d, "y_variance")
    if not (vx.any() or vy.any()):  # Dirac distributions: the plain kernel, bit for bit
        return pairwise_kernel(X, Y, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
    if vx.ndim != vy.ndim:  # one side diagonal: treat both as diagonal
        vx, vy = _diagonal_form(vx, d), _diagonal_form(vy, d)
    if kernel == "linear":
        return _expected_linear(X, Y, vx)
    gamma = check_gamma(gamma, d)
    if kernel == "rbf":
        if vx.ndim == 1:
            return _rbf_isotropic(X, Y, vx, vy, gamma)
        return _rbf_diagonal(X, Y, vx, vy, gamma)
    coef0 = check_coef0(coef0)
    if vx.ndim == 1:
        return _poly2_isotropic(X, Y, vx, vy, gamma, coef0)
    return _poly2_diagonal(X, Y, vx, vy, gamma, coef0)


def mean_embedding_norms(X, variance=None, *, kernel="rbf", gamma=None, degree=2, coef0=1.0):
    """``<mu_i, mu_i> = E k(x, x')`` with ``x, x' ~ N(X_i, S_i)`` INDEPENDENT, per row: the
    squared norm of each Gaussian's kernel mean embedding, the other convention for the diagonal
    of the training matrix (:func:`expected_kernel` puts ``E k(x, x)``, one random variable,
    there). Linear ``||m||^2`` (no ``tr S``); isotropic rbf ``(1 + 4 gamma sigma^2)^(-D/2)``.
    Each entry is the rectangular expected kernel of the row with itself (two variables), so it
    shares that path's closed forms. Returns ``(n,)``."""
    _check_kernel(kernel, degree)
    X, _ = check_pair(X, None, np.float64)
    n, d = X.shape
    v = _as_variances(variance, n, d, "variance")
    return np.array(
        [
            expected_kernel(
                X[i : i + 1],
                X[i : i + 1],
                x_variance=v[i : i + 1],
                y_variance=v[i : i + 1],
                kernel=kernel,
                gamma=gamma,
                degree=degree,
                coef0=coef0,
            )[0, 0]
            for i in range(n)
        ]
    )


def _expected_linear(X, Y, vx):
    """``m_i^T m_j``, plus ``tr S_i`` on the diagonal of a training matrix."""
    if Y is not None:
        return X @ Y.T
    K = X @ X.T
    K[np.diag_indices_from(K)] += _linear_diagonal_term(vx, X.shape[1])
    return K


def _rbf_isotropic(X, Y, vx, vy, gamma):
    G, x_norms, y_norms = gram_and_norms(*recentre_for_distances(X, Y))
    half_dim = 0.5 * X.shape[1]
    with threads_for(G.size):
        if Y is None:
            _expected_rbf_iso_sym(G, x_norms, vx, gamma, half_dim)
        else:
            _expected_rbf_iso_rect(G, x_norms, y_norms, vx, vy, gamma, half_dim)
    return G


def _rbf_diagonal(X, Y, vx, vy, gamma):
    X = np.ascontiguousarray(X)
    out = np.empty((X.shape[0], X.shape[0] if Y is None else Y.shape[0]))
    with threads_for(out.size * X.shape[1]):
        if Y is None:
            _expected_rbf_diag_sym(X, vx, gamma, out)
        else:
            _expected_rbf_diag_rect(X, np.ascontiguousarray(Y), vx, vy, gamma, out)
    return out


def _poly2_isotropic(X, Y, vx, vy, gamma, coef0):
    G, x_norms, y_norms = gram_and_norms(X, Y)
    with threads_for(G.size):
        _expected_poly2_iso(G, x_norms, y_norms, vx, vy, gamma, coef0, float(X.shape[1]), Y is None)
    return G


def _poly2_diagonal(X, Y, vx, vy, gamma, coef0):
    symmetric = Y is None
    X2 = X * X
    if symmetric:
        G, C, A = X @ X.T, vx @ vx.T, X2 @ vx.T
        Bt = A
    else:
        G, C, A, Bt = X @ Y.T, vx @ vy.T, X2 @ vy.T, (Y * Y) @ vx.T
    with threads_for(G.size):
        _expected_poly2_diag(G, C, A, Bt, gamma, coef0)
    if symmetric:  # one random variable: E (g x^T x + c)^2 = (g E x^T x + c)^2 + g^2 var(x^T x)
        u = gamma * (np.einsum("ij,ij->i", X, X) + vx.sum(axis=1)) + coef0
        var = 2.0 * np.einsum("ij,ij->i", vx, vx) + 4.0 * np.einsum("ij,ij->i", X2, vx)
        G[np.diag_indices_from(G)] = u * u + gamma * gamma * var
    return G
