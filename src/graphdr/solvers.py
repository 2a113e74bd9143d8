"""Symmetric (generalised) eigenproblems with a semi-definite right-hand side.

Every eigen-based estimator of graphdr goes through :func:`eigh_generalized`, so all of them share
one ordering convention, one regularisation rule and one sign rule (runs are identical). Also here:
the principal angles between subspaces, and the deterministic, label-free bases of degenerate
eigenspaces and singular subspaces (Gram-Schmidt of data-derived candidates) that the kernel
discriminants, the subclass methods, KQMI and CKFD share.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.linalg.lapack

from graphdr._numba import njit, numba

prange = numba.prange


def column_signs(V: np.ndarray) -> np.ndarray:
    """graphdr's one sign rule for eigen- and singular vectors: the signs (+-1, one per column)
    that make the largest-magnitude entry of every column positive. Ties in magnitude are
    broken by the first index, zero columns keep +1, so the rule is deterministic."""
    if V.size == 0:
        return np.ones(V.shape[1])
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return signs


def flip_signs(V: np.ndarray) -> np.ndarray:
    """Apply :func:`column_signs` to ``V`` in place; returns ``V``."""
    if V.size:
        V *= column_signs(V)
    return V


def _symmetrize(A: np.ndarray) -> np.ndarray:
    return (A + A.T) * 0.5


def _check_square(name: str, A: np.ndarray, n: int | None = None) -> np.ndarray:
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {A.shape}.")
    if n is not None and A.shape[0] != n:
        raise ValueError(f"{name} has shape {A.shape}, expected ({n}, {n}) to match A.")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or inf.")
    return A


def _select(n_available: int, n_components, largest: bool) -> tuple[int, int]:
    k = n_available if n_components is None else int(n_components)
    return (n_available - k, n_available - 1) if largest else (0, k - 1)


def _too_many(n_components: int, rank: int, what: str) -> ValueError:
    return ValueError(
        f"n_components={n_components} is larger than the rank of {what} = {rank}: only {rank} "
        "eigenpairs are defined in its range; ask for fewer components or regularise."
    )


def _range_whitening(B: np.ndarray, rtol: float, n_components) -> np.ndarray:
    """``T = U_r S_r^{-1/2}`` (``T^T B T = I``) on the range of ``B = U S U^T``: eigenvalues above
    ``rtol * max``; raises when ``B`` is zero or ``n_components`` exceeds its rank."""
    s, U = scipy.linalg.eigh(B)
    keep = s > rtol * max(s.max(initial=0.0), 0.0) if s.size else np.zeros(0, bool)
    rank = int(keep.sum())
    if rank == 0:
        raise ValueError("B is zero: the range variant has nothing to solve.")
    if n_components is not None and n_components > rank:
        raise _too_many(int(n_components), rank, "B")
    return U[:, keep] / np.sqrt(s[keep])


def eigh_generalized(
    A: np.ndarray,
    B: np.ndarray | None = None,
    n_components: int | None = None,
    *,
    largest: bool = True,
    method: str = "regularized",
    reg: float = 1e-8,
    rtol: float = 1e-10,
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of ``A v = w B v`` (A symmetric, B symmetric positive semi-definite).

    Parameters
    ----------
    A, B : (n, n) arrays. ``B=None`` solves the standard problem ``A v = w v``.
    n_components : how many eigenpairs to return (``None``: all that are defined).
    largest : return the largest (descending order) or the smallest (ascending) eigenvalues.
    method : ``"regularized"`` solves with ``B + reg * tr(B)/n * I`` (B-orthonormal vectors of the
        regularised B). ``"range"`` restricts the problem to the range of B: ``B = U S U^T``, keep
        ``S > rtol * max(S)``, whiten ``T = U_r S_r^{-1/2}``, solve ``T^T A T u = w u``, ``v = T u``.
        The range variant cannot return more than ``rank(B)`` pairs and says so.
    reg : relative ridge of the regularised variant (a fraction of the mean eigenvalue of B).
    rtol : relative eigenvalue threshold that defines the range of B.

    Returns
    -------
    w : (k,) eigenvalues, descending if ``largest`` else ascending.
    V : (n, k) eigenvectors as columns, ``V^T B V = I`` (for B=None, orthonormal), with the sign
        rule of :func:`flip_signs` applied.
    """
    A = _symmetrize(_check_square("A", A))
    n = A.shape[0]
    if n_components is not None and not 1 <= int(n_components) <= n:
        raise ValueError(f"n_components={n_components} must be between 1 and n = {n}.")
    if B is None:
        lo, hi = _select(n, n_components, largest)
        w, V = scipy.linalg.eigh(A, subset_by_index=(lo, hi), driver="evr")
    else:
        B = _symmetrize(_check_square("B", B, n))
        if method == "regularized":
            scale = np.trace(B) / n if n else 0.0
            B_reg = B + (reg * (scale if scale > 0 else 1.0)) * np.eye(n, dtype=B.dtype)
            lo, hi = _select(n, n_components, largest)
            w, V = scipy.linalg.eigh(A, B_reg, subset_by_index=(lo, hi), driver="gvx")
        elif method == "range":
            T = _range_whitening(B, rtol, n_components)
            lo, hi = _select(T.shape[1], n_components, largest)
            w, Uw = scipy.linalg.eigh(_symmetrize(T.T @ A @ T), subset_by_index=(lo, hi))
            V = T @ Uw
        else:
            raise ValueError(f"method must be 'regularized' or 'range', got {method!r}.")
    if largest:
        w, V = w[::-1], V[:, ::-1]
    V = np.ascontiguousarray(V)
    return w.copy(), flip_signs(V)


def eigh_generalized_lowrank(
    F: np.ndarray,
    B: np.ndarray,
    n_components: int,
    *,
    method: str = "regularized",
    reg: float = 1e-8,
    rtol: float = 1e-10,
) -> tuple[np.ndarray, np.ndarray]:
    """The largest eigenpairs of ``A v = w B v`` for ``A = F F^T`` of low rank (``F``: n x m).

    The same problem, regularisation and range rule as :func:`eigh_generalized` (``largest=True``)
    with ``A = F @ F.T``, and the same conventions (``V^T B V = I``, descending ``w``, sign rule),
    without the dense n x n eigendecomposition: every eigenvector with ``w > 0`` lies in the span
    of ``B^-1 F``, so with ``B = R^T R`` (Cholesky; ``"range"``: ``T^T B T = I`` from the
    eigendecomposition of ``B``) the pairs are ``w = s^2``, ``V = R^-1 P`` from the thin SVD
    ``R^-T F = P S Q^T`` (n x m). Cost ``n^3 / 3 + n^2 m + n m^2`` instead of ``~3 n^3``
    (``"range"``: one eigendecomposition instead of two). Our own code: LAPACK's generalised
    drivers (``sygvx``) reduce and tridiagonalise the whole n x n problem whatever ``A``'s rank.
    Used for MFA's penalty scatter (its marginal pairs: m <= classes x k2 edges).

    ``n_components`` must be at most ``m`` (directions outside the span have ``w = 0``).
    """
    F = np.asarray(F, dtype=np.float64)
    if F.ndim != 2 or not np.all(np.isfinite(F)):
        raise ValueError(f"F must be a finite 2-D array, got shape {F.shape}.")
    n, m = F.shape
    B = _symmetrize(_check_square("B", B, n))
    if not 1 <= int(n_components) <= min(n, m):
        raise ValueError(
            f"n_components={n_components} must be between 1 and min(n, m) = {min(n, m)}: "
            f"A = F F^T has rank at most m = {m}, and its other eigenvalues are zero."
        )
    k = int(n_components)
    if method == "regularized":
        scale = np.trace(B) / n if n else 0.0
        B.flat[:: n + 1] += reg * (scale if scale > 0 else 1.0)  # B is _symmetrize's copy
        w, V = lowrank_pairs_cholesky(F, B, k)
    elif method == "range":
        T = _range_whitening(B, rtol, k)
        P, s, _ = scipy.linalg.svd(T.T @ F, full_matrices=False, lapack_driver="gesvd")
        w, V = s[:k] ** 2, T @ P[:, :k]
    else:
        raise ValueError(f"method must be 'regularized' or 'range', got {method!r}.")
    return w, flip_signs(np.ascontiguousarray(V))


def lowrank_pairs_cholesky(F: np.ndarray, B: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenpairs of ``F F^T v = w B v`` for ``B`` positive definite: ``w``
    descending, ``V^T B V = I`` (LAPACK's convention for ``sygvx``), no sign rule.

    ``B = R^T R`` (Cholesky, in place: ``B`` is overwritten), then the thin SVD
    ``R^-T F = P S Q^T``: ``w = s^2``, ``V = R^-1 P``. ``n^3 / 3 + 2 n^2 m + n m^2`` flops for
    ``F`` n x m, against ``~(1/3 + 1 + 4/3) n^3`` for ``sygvx`` on the dense ``F F^T``. Raises
    ``numpy.linalg.LinAlgError`` when ``B`` is not positive definite. The core of
    :func:`eigh_generalized_lowrank` and of the kernel discriminants' ``eigen_solver="lowrank"``.
    """
    R = scipy.linalg.cholesky(B, lower=False, overwrite_a=True, check_finite=False)
    H = scipy.linalg.solve_triangular(R, F, trans="T", check_finite=False)
    P, s, _ = scipy.linalg.svd(H, full_matrices=False, lapack_driver="gesvd")
    V = scipy.linalg.solve_triangular(R, P[:, :k], check_finite=False)
    return s[:k] ** 2, V


def numerical_rank(S: np.ndarray, rtol: float = 1e-10) -> int:
    """Rank of a symmetric PSD matrix: eigenvalues above ``rtol * max``."""
    s = scipy.linalg.eigvalsh(_symmetrize(np.asarray(S)))
    return int(np.sum(s > rtol * max(s.max(initial=0.0), 0.0)))


# ---- a symmetric matrix and its Cholesky factor in one N x N buffer ---------------------------


@njit(parallel=True)
def _shift_upper(K, c, eps):  # pragma: no cover - compiled; tested against numpy
    """``K_ij += c`` for ``i <= j``, and ``eps`` more on the diagonal (upper triangle only)."""
    n = K.shape[0]
    for i in prange(n):
        K[i, i] += c + eps
        for j in range(i + 1, n):
            K[i, j] += c


@njit(parallel=True)
def _mirror_lower(K, diag):  # pragma: no cover - compiled; tested against numpy
    """``K_ij = K_ji`` for ``i < j`` and ``K_ii = diag_i``: the symmetric matrix of the lower
    triangle again."""
    n = K.shape[0]
    for i in prange(n):
        K[i, i] = diag[i]
        for j in range(i + 1, n):
            K[i, j] = K[j, i]


class SharedCholesky:
    """The Cholesky factor of ``A = K + c 11^T + eps I`` stored in the UPPER triangle of a
    symmetric N x N matrix ``K`` (C order), whose LOWER triangle keeps ``K`` itself.

    The low-rank kernel solvers need both ``A^-1 B`` and ``K B``; this holds them in one N x N
    buffer instead of two (AKDA's floor: kernel plus Cholesky, no copy). ``K B`` is BLAS
    ``dsymm`` on the lower triangle (:meth:`kernel_product`); ``restore()`` rebuilds ``K`` from
    its lower triangle, which is bitwise unchanged, as are the results of ``scipy.linalg.eigh``
    on it (it reads the lower triangle only).

    ``ok`` is False when ``A`` is not numerically positive definite (then only ``restore``).
    """

    def __init__(self, K: np.ndarray, c: float, eps: float):
        if not (K.flags.c_contiguous and K.dtype == np.float64):
            raise ValueError(
                f"SharedCholesky factorises in place: K must be a C-contiguous float64 array, got "
                f"dtype {K.dtype} (C-contiguous: {K.flags.c_contiguous}); pass "
                "np.ascontiguousarray(K, dtype=np.float64)."
            )
        self.K = K
        self.diag = K.diagonal().copy()
        _shift_upper(K, float(c), float(eps))
        # K.T is the Fortran-ordered view whose lower triangle is K's upper one: LAPACK
        # factorises it in place and leaves the other triangle alone (clean=False)
        factor, info = scipy.linalg.lapack.dpotrf(K.T, lower=True, clean=False, overwrite_a=True)
        if not np.shares_memory(factor, K):  # f2py copied: the in-place contract is broken
            raise RuntimeError("dpotrf did not factorise in place.")
        self.ok = info == 0

    def solve(self, B: np.ndarray) -> np.ndarray:
        """``A^-1 B``."""
        return scipy.linalg.lapack.dpotrs(self.K.T, B, lower=True)[0]

    def kernel_product(self, B: np.ndarray) -> np.ndarray:
        """``K B`` from the lower triangle and the saved diagonal: BLAS ``dsymm`` (scipy's).

        ``K.T`` is the Fortran-ordered view whose upper triangle is ``K``'s lower one, so
        ``dsymm(lower=0)`` reads it in place (f2py would copy the C-ordered array: 24 ms at
        N = 2000, more than the product); the diagonal, shared with the factor, holds ``K``'s
        own values only for the call. On 2 cores the product runs level with numpy's GEMM with
        the full matrix (``benchmarks/bench_estimators.py``).
        """
        B = np.asarray(B, dtype=np.float64)
        factor_diag = self.K.diagonal().copy()
        np.fill_diagonal(self.K, self.diag)
        try:
            out = scipy.linalg.blas.dsymm(1.0, self.K.T, B, side=0, lower=0)
        finally:
            np.fill_diagonal(self.K, factor_diag)
        return out

    def restore(self) -> np.ndarray:
        """``K`` again (lower triangle and diagonal bitwise as before; upper = lower^T)."""
        _mirror_lower(self.K, self.diag)
        return self.K


def principal_angles(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Principal angles (radians, descending) between the column spans of ``A`` and ``B``:
    ``scipy.linalg.subspace_angles``, or :func:`principal_angles_gesvd` when LAPACK's
    divide-and-conquer SVD (``gesdd``, scipy's default) fails to converge, as it can on a finite,
    well-conditioned matrix (ORL's 360 x 39 KQMI training embedding of one fold, full run of
    2026-11-27)."""
    try:
        return scipy.linalg.subspace_angles(A, B)
    except np.linalg.LinAlgError:
        return principal_angles_gesvd(A, B)


def max_principal_angle_deg(A: np.ndarray, B: np.ndarray) -> float:
    """The largest principal angle (degrees) between the column spans of ``A`` and ``B``
    (:func:`principal_angles`): 0 when the spans coincide, the diagnostic of methods that are
    equal by construction (papers 001 and 002)."""
    return float(np.degrees(principal_angles(A, B).max()))


def principal_angles_gesvd(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Principal angles (radians, descending) between the column spans of ``A`` and ``B``, by
    the algorithm of ``scipy.linalg.subspace_angles`` (Knyazev & Argentati 2002: cosines for the
    large angles, sines for the small ones) with the QR-iteration SVD (``gesvd``) throughout."""

    def svd(M, vectors=False):
        return scipy.linalg.svd(
            M, full_matrices=False, compute_uv=vectors, lapack_driver="gesvd", check_finite=False
        )

    def orth(M):
        u, s, _ = svd(M, vectors=True)
        tol = max(M.shape) * np.finfo(float).eps * (s[0] if s.size else 0.0)
        return u[:, : int(np.sum(s > tol))]

    QA, QB = orth(np.asarray(A, dtype=float)), orth(np.asarray(B, dtype=float))
    cross = QA.T @ QB
    sigma = svd(cross)
    rest = QB - QA @ cross if QA.shape[1] >= QB.shape[1] else QA - QB @ cross.T
    mask = sigma**2 >= 0.5
    sines = np.arcsin(np.clip(svd(rest), -1.0, 1.0)) if mask.any() else 0.0
    return np.where(mask, sines, np.arccos(np.clip(sigma[::-1], -1.0, 1.0)))


# ---- bases of degenerate eigenspaces and singular subspaces (deterministic, label-free) ----

#: singular values closer than this (relative to the largest) form one degenerate group, whose
#: basis is then fixed by :func:`leading_singular_vectors` (balanced classes make groups)
DEGENERACY_RTOL = 1e-8


def gram_schmidt_columns(P: np.ndarray, rank: int, tol: float = 1e-8) -> np.ndarray | None:
    """Orthonormal basis of the column space of ``P`` by Gram-Schmidt over its columns in order.

    Columns whose residual norm falls below ``tol`` are skipped (they depend on earlier ones); the
    first ``rank`` accepted directions are returned, or ``None`` when fewer than ``rank`` are found.
    The basis depends only on the column space and the coordinate order, so it is the same in every
    run and on every BLAS: this is how a degenerate eigenspace gets a deterministic basis.
    """
    n = P.shape[0]
    Q = np.zeros((n, rank))
    k = 0
    for j in range(P.shape[1]):
        v = P[:, j].astype(np.float64, copy=True)
        for _ in range(2):  # "twice is enough": re-orthogonalise once for full accuracy
            v -= Q[:, :k] @ (Q[:, :k].T @ v)
        norm = np.linalg.norm(v)
        if norm > tol:
            Q[:, k] = v / norm
            k += 1
            if k == rank:
                return Q
    return None


def eigenvalue_clusters(w: np.ndarray, atol: float):
    """Yield ``(start, stop)`` of every run of two or more sorted eigenvalues ``w`` within
    ``atol`` of the run's first value: the degenerate eigenspaces whose LAPACK basis is
    arbitrary."""
    start = 0
    while start < w.size:
        stop = start + 1
        while stop < w.size and abs(w[stop] - w[start]) <= atol:
            stop += 1
        if stop - start > 1:
            yield start, stop
        start = stop


def order_degenerate_eigenspaces(
    w: np.ndarray, U: np.ndarray, candidates: np.ndarray, rtol: float = 1e-8
) -> np.ndarray:
    """Eigenvectors ``U`` (columns, eigenvalues ``w`` sorted) with every cluster of equal
    eigenvalues (within ``rtol * max|w|``) given the basis that follows ``candidates``: the
    Gram-Schmidt basis of the projections of the candidate columns, in their order, onto the
    cluster's eigenspace. With data-derived candidates the basis no longer depends on the order
    of the samples or on the class names. A cluster the candidates do not span keeps LAPACK's
    basis."""
    V = U.copy()
    norms = np.linalg.norm(candidates, axis=0)
    candidates = candidates[:, norms > 0] / norms[norms > 0]
    atol = rtol * (np.abs(w).max() if w.size else 0.0)
    for start, stop in eigenvalue_clusters(w, atol):
        Uc = U[:, start:stop]
        Q = gram_schmidt_columns(Uc @ (Uc.T @ candidates), stop - start, tol=1e-6)
        if Q is not None:
            V[:, start:stop] = Q
    return V


def leading_singular_vectors(
    A: np.ndarray,
    k: int | None = None,
    *,
    rtol: float = DEGENERACY_RTOL,
    candidates: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Leading k singular values and left singular vectors of a tall ``A`` (n x c, c small).

    Inside a group of equal singular values (balanced classes make them) any rotation of the
    vectors is as valid, and LAPACK returns one that depends on rounding. The basis of such a
    group is fixed here: Gram-Schmidt of the projections of ``candidates`` (c x m, in column
    order; default e_1, e_2, ..., the class axes of the right, c-dimensional space, which makes
    the basis follow the class order) onto the group's right singular subspace, the same
    rotation applied to the left vectors. Returns (s (k,), U (n, k)).
    """
    U, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=False)
    V = Vt.T
    k = s.size if k is None else int(k)
    top = s[0] if s.size else 0.0
    start = 0
    while start < min(k, s.size):
        stop = start + 1
        while stop < s.size and s[stop - 1] - s[stop] <= rtol * top and s[stop] > rtol * top:
            stop += 1
        if stop - start > 1 and s[start] > rtol * top:
            Vg = V[:, start:stop]
            R = (
                gram_schmidt_columns(Vg.T, stop - start)
                if candidates is None
                else gram_schmidt_columns(Vg.T @ candidates, stop - start, tol=1e-6)
            )
            if R is not None:
                U[:, start:stop] = U[:, start:stop] @ R
                V[:, start:stop] = V[:, start:stop] @ R
        start = stop
    return s[:k].copy(), U[:, :k]
