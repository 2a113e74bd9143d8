"""Symmetric (generalised) eigenproblems with a semi-definite right-hand side.

Every eigen-based estimator of graphdr goes through :func:`eigh_generalized`, so all of them share
one ordering convention, one regularisation rule and one sign rule (runs are identical).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg


def flip_signs(V: np.ndarray) -> np.ndarray:
    """Make the largest-magnitude entry of every column positive (in place; returns ``V``).

    Ties in magnitude are broken by the first index, so the rule is deterministic.
    """
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    V *= signs
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
            s, U = scipy.linalg.eigh(B)
            keep = s > rtol * max(s.max(initial=0.0), 0.0) if s.size else np.zeros(0, bool)
            rank = int(keep.sum())
            if rank == 0:
                raise ValueError("B is zero: the range variant has nothing to solve.")
            if n_components is not None and n_components > rank:
                raise _too_many(int(n_components), rank, "B")
            T = U[:, keep] / np.sqrt(s[keep])
            lo, hi = _select(rank, n_components, largest)
            w, Uw = scipy.linalg.eigh(_symmetrize(T.T @ A @ T), subset_by_index=(lo, hi))
            V = T @ Uw
        else:
            raise ValueError(f"method must be 'regularized' or 'range', got {method!r}.")
    if largest:
        w, V = w[::-1], V[:, ::-1]
    V = np.ascontiguousarray(V)
    return w.copy(), flip_signs(V)


def numerical_rank(S: np.ndarray, rtol: float = 1e-10) -> int:
    """Rank of a symmetric PSD matrix: eigenvalues above ``rtol * max``."""
    s = scipy.linalg.eigvalsh(_symmetrize(np.asarray(S)))
    return int(np.sum(s > rtol * max(s.max(initial=0.0), 0.0)))
