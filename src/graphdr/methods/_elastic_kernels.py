"""numba kernels and pairwise objectives of the elastic embeddings (DEE, EE, DSNE).

One objective + gradient evaluation is one pass over the pairs (i, j): the embedded squared
distance, the exp (or Student-t) term and the weighted Laplacian product ``G = 4 L Y`` are fused,
so nothing N x N is allocated beyond the fixed weight matrices. Every kernel works row by row:
row i is written only by the thread that owns it and is summed over j in a fixed order, so the
result is bitwise identical run to run and for any number of threads. Kernels read the embedding
transposed (``YT``, d x N) so the inner loops run over contiguous memory.
"""

from __future__ import annotations

import math

import numpy as np

from graphdr._numba import njit, numba  # numba only through _numba: per-user cache dir

prange = numba.prange

__all__ = ["dsne_objective", "elastic_objective", "entropic_affinities", "place_out_of_sample"]


# --------------------------------------------------------------------------------------------
# numba kernels (one pass over pairs; row i written only by the thread that owns row i)
# --------------------------------------------------------------------------------------------


@njit
def _row_sq_distances(YT, i, out):
    """``out[j] = ||y_i - y_j||^2`` from the transposed embedding ``YT`` (d x N, contiguous rows,
    so the inner loop runs over contiguous memory)."""
    d, n = YT.shape
    out[:] = 0.0
    for k in range(d):
        yik = YT[k, i]
        row = YT[k]
        for j in range(n):
            t = yik - row[j]
            out[j] += t * t


@njit
def _row_laplacian_product(YT, i, c, s, G):
    """``G[i] = 4 sum_j c_j (y_i - y_j) = 4 (s y_i - sum_j c_j y_j)`` with ``s = sum_j c_j``."""
    d, n = YT.shape
    for k in range(d):
        row = YT[k]
        acc = 0.0
        for j in range(n):
            acc += c[j] * row[j]
        G[i, k] = 4.0 * (s * YT[k, i] - acc)


@njit
def elastic_pair_term(e_i, w_plus, dd, repulsion, repels):
    """One pair ``(i, j)`` of the elastic objective, shared by every pair pass (fused and Gram
    form): adds ``w+_ij d_ij`` to the row sum ``e_i`` and, when the pair ``repels``, ``r =
    repulsion exp(-d_ij)`` (``repulsion = lam w-_ij``), the exp evaluated only then. Returns
    ``(e_i, c_ij)`` with the Laplacian weight ``c_ij = w+_ij - r``."""
    e_i += w_plus * dd
    c = w_plus
    if repels:
        r = repulsion * math.exp(-dd)
        e_i += r
        c -= r
    return e_i, c


@njit(parallel=True)
def _elastic_rows_labels(YT, Wp, labels, wn, lam, G, Erow):
    """Rows of E and of ``G = 4 (L+ - lam L~-) Y`` with ``w-_ij = wn * [labels_i != labels_j]``.

    ``Erow[i] = sum_j w+_ij d_ij + lam w-_ij exp(-d_ij)`` (``d_ij = ||y_i - y_j||^2``),
    ``G[i] = 4 sum_j (w+_ij - lam w-_ij exp(-d_ij)) (y_i - y_j)``. The exp is only evaluated
    where ``w-_ij != 0`` (different-class pairs for DEE; every pair for EE, labels = arange).
    ``W+`` must have a zero diagonal. Rows are independent, each summed in a fixed order.
    """
    n = YT.shape[1]
    for i in prange(n):
        buf = np.empty(n)
        _row_sq_distances(YT, i, buf)
        e_i = 0.0
        s = 0.0
        li = labels[i]
        for j in range(n):
            dd = buf[j]
            e_i, c = elastic_pair_term(e_i, Wp[i, j], dd, lam * wn, labels[j] != li)
            buf[j] = c
            s += c
        _row_laplacian_product(YT, i, buf, s, G)
        Erow[i] = e_i


@njit(parallel=True)
def _elastic_rows_dense(YT, Wp, Wn, lam, G, Erow):
    """As :func:`_elastic_rows_labels` with a dense zero-diagonal repulsive weight matrix ``Wn``."""
    n = YT.shape[1]
    for i in prange(n):
        buf = np.empty(n)
        _row_sq_distances(YT, i, buf)
        e_i = 0.0
        s = 0.0
        for j in range(n):
            dd = buf[j]
            wn = Wn[i, j]
            e_i, c = elastic_pair_term(e_i, Wp[i, j], dd, lam * wn, wn != 0.0)
            buf[j] = c
            s += c
        _row_laplacian_product(YT, i, buf, s, G)
        Erow[i] = e_i


@njit(parallel=True)
def _dsne_partition_rows(YT, labels, Zs_row, Zd_row):
    """Row sums of the Student-t kernel ``u_ij = 1 / (1 + ||y_i - y_j||^2)`` over same-class
    (``Zs_row``) and different-class (``Zd_row``) pairs, ``j != i``."""
    n = YT.shape[1]
    for i in prange(n):
        buf = np.empty(n)
        _row_sq_distances(YT, i, buf)
        zs = 0.0
        zd = 0.0
        li = labels[i]
        for j in range(n):
            u = 1.0 / (1.0 + buf[j])
            if labels[j] == li:
                if j != i:
                    zs += u
            else:
                zd += u
        Zs_row[i] = zs
        Zd_row[i] = zd


@njit(parallel=True)
def _dsne_rows(YT, P, labels, inv_zs, inv_zd, G, Crow):
    """Rows of ``G = 4 L_g Y`` with ``g_ij = (p_ij - q_ij) u_ij`` and of ``sum_j p_ij log(1 + d_ij)``.

    ``q_ij = u_ij / Z_s`` for same-class pairs, ``u_ij / Z_d`` for different-class pairs.
    """
    n = YT.shape[1]
    for i in prange(n):
        buf = np.empty(n)
        _row_sq_distances(YT, i, buf)
        c_i = 0.0
        s = 0.0
        li = labels[i]
        for j in range(n):
            if j == i:
                buf[j] = 0.0
                continue
            dd = buf[j]
            u = 1.0 / (1.0 + dd)
            q = u * (inv_zs if labels[j] == li else inv_zd)
            p = P[i, j]
            c_i += p * math.log1p(dd)
            g = (p - q) * u
            buf[j] = g
            s += g
        _row_laplacian_product(YT, i, buf, s, G)
        Crow[i] = c_i


@njit(parallel=True)
def _ee_out_of_sample(Y0, Ytr, Wp, Wn, lam, max_iter, tol, rho, c, Y):
    """Place each new point by minimising its own elastic energy, training embedding fixed.

    For a new point with attractive weights ``a_n`` and repulsive weights ``b_n`` to the training
    points: ``E(y) = sum_n a_n ||y - y_n||^2 + lam sum_n b_n exp(-||y - y_n||^2)``. Direction
    ``-grad / (2 sum_n a_n)`` (the spectral direction of the point's own block), backtracking
    Armijo line search, stop at relative change of E below ``tol``.
    """
    m, d = Y0.shape
    n = Ytr.shape[0]
    for i in prange(m):
        y = Y0[i].copy()
        g = np.zeros(d)
        y_new = np.zeros(d)
        a_sum = 0.0
        for j in range(n):
            a_sum += Wp[i, j]
        if a_sum > 0.0:
            step = 1.0
            for _ in range(max_iter):
                # energy and gradient at y
                e = 0.0
                for k in range(d):
                    g[k] = 0.0
                for j in range(n):
                    d2 = 0.0
                    for k in range(d):
                        t = y[k] - Ytr[j, k]
                        d2 += t * t
                    r = lam * Wn[i, j] * math.exp(-d2)
                    e += Wp[i, j] * d2 + r
                    cc = 2.0 * (Wp[i, j] - r)
                    for k in range(d):
                        g[k] += cc * (y[k] - Ytr[j, k])
                slope = 0.0
                for k in range(d):
                    slope -= g[k] * g[k] / (2.0 * a_sum)
                if slope >= 0.0:
                    break
                accepted = False
                a = step
                n_trials = 0
                while a > 1e-12:
                    n_trials += 1
                    for k in range(d):
                        y_new[k] = y[k] - a * g[k] / (2.0 * a_sum)
                    e_new = 0.0
                    for j in range(n):
                        d2 = 0.0
                        for k in range(d):
                            t = y_new[k] - Ytr[j, k]
                            d2 += t * t
                        e_new += Wp[i, j] * d2 + lam * Wn[i, j] * math.exp(-d2)
                    if e_new <= e + c * a * slope:
                        accepted = True
                        break
                    a *= rho
                if not accepted:
                    break
                for k in range(d):
                    y[k] = y_new[k]
                # the rule of graphdr.optim: grow after a first-trial success, capped at 1
                step = min(1.0, a / rho) if n_trials == 1 else a
                if abs(e - e_new) <= tol * max(abs(e), 1e-300):
                    break
        for k in range(d):
            Y[i, k] = y[k]


@njit(parallel=True)
def _entropic_rows(D2, perplexity, tol, max_iter, exclude_diagonal, P, beta_out):
    """Row-stochastic entropic affinities: ``P_ij ~ exp(-beta_i D2_ij)`` with ``beta_i`` found by
    bisection so that the row entropy equals ``log(perplexity)``; ``D2_ii`` is skipped when
    ``exclude_diagonal`` (training set)."""
    m, n = D2.shape
    target = math.log(perplexity)
    square = exclude_diagonal
    for i in prange(m):
        lo = 0.0
        hi = np.inf
        beta = 1.0
        # shift by the smallest off-diagonal distance: exp never underflows for the nearest point
        dmin = np.inf
        for j in range(n):
            if square and j == i:
                continue
            if D2[i, j] < dmin:
                dmin = D2[i, j]
        for _ in range(max_iter):
            z = 0.0
            s = 0.0
            for j in range(n):
                if square and j == i:
                    continue
                w = math.exp(-beta * (D2[i, j] - dmin))
                z += w
                s += w * (D2[i, j] - dmin)
            h = math.log(z) + beta * s / z
            if abs(h - target) < tol:
                break
            if h > target:
                lo = beta
                beta = beta * 2.0 if hi == np.inf else 0.5 * (beta + hi)
            else:
                hi = beta
                beta = 0.5 * (beta + lo)
        z = 0.0
        for j in range(n):
            if square and j == i:
                P[i, j] = 0.0
                continue
            P[i, j] = math.exp(-beta * (D2[i, j] - dmin))
            z += P[i, j]
        for j in range(n):
            P[i, j] /= z
        beta_out[i] = beta


# --------------------------------------------------------------------------------------------
# Objectives (numba pass + BLAS)
# --------------------------------------------------------------------------------------------


def elastic_objective(Y, Wp, lam, *, Wn=None, labels=None, wn=1.0):
    """``(E, grad_Y E)`` of elastic embedding in one fused pass over pairs.

    Repulsive weights: a dense ``Wn`` (N x N), or ``labels`` with ``w-_ij = wn`` whenever
    ``labels_i != labels_j`` (DEE's constant between-class weights; ``labels = arange(N)`` gives
    EE's constant weights on every pair) — the latter reads one N x N matrix instead of two.
    """
    YT = np.ascontiguousarray(np.asarray(Y, dtype=np.float64).T)
    G = np.empty(YT.shape[::-1])
    Erow = np.empty(YT.shape[1])
    if Wn is not None:
        _elastic_rows_dense(YT, Wp, Wn, float(lam), G, Erow)
    else:
        _elastic_rows_labels(YT, Wp, labels, float(wn), float(lam), G, Erow)
    return float(np.sum(Erow)), G


def dsne_objective(Y, P, labels, const=0.0):
    """``(C, grad_Y C)`` of DSNE (class-split KL with a Student-t kernel in the embedding).

    ``C = sum_{same} p log(p/q) + sum_{diff} p log(p/q)`` with P normalised separately over
    same-class and different-class ordered pairs, ``q_ij = u_ij / Z_s`` or ``u_ij / Z_d``,
    ``u_ij = 1/(1 + ||y_i - y_j||^2)``. Since each part of P sums to one,
    ``C = const + sum p log(1 + d_ij) + [P_s > 0] log Z_s + [P_d > 0] log Z_d`` with
    ``const = sum p log p``; ``grad_Y C = 4 L_g Y``, ``g_ij = (p_ij - q_ij) u_ij``.
    """
    YT = np.ascontiguousarray(np.asarray(Y, dtype=np.float64).T)
    n = YT.shape[1]
    zs_row, zd_row = np.empty(n), np.empty(n)
    _dsne_partition_rows(YT, labels, zs_row, zd_row)
    zs, zd = float(np.sum(zs_row)), float(np.sum(zd_row))
    has_s, has_d = pair_kinds(labels)
    inv_zs = 1.0 / zs if has_s else 0.0
    inv_zd = 1.0 / zd if has_d else 0.0
    G, crow = np.empty((n, YT.shape[0])), np.empty(n)
    _dsne_rows(YT, P, labels, inv_zs, inv_zd, G, crow)
    C = const + float(np.sum(crow))
    C += (math.log(zs) if has_s else 0.0) + (math.log(zd) if has_d else 0.0)
    return C, G


def pair_kinds(labels) -> tuple[bool, bool]:
    """Whether there are same-class pairs and different-class pairs."""
    counts = np.bincount(labels)
    counts = counts[counts > 0]
    return bool(np.any(counts > 1)), bool(counts.size > 1)


def entropic_affinities(D2, perplexity, *, exclude_diagonal=True, tol=1e-10, max_iter=200):
    """Row-stochastic entropic affinities ``P_ij = exp(-beta_i D2_ij) / Z_i`` with each row's
    entropy equal to ``log(perplexity)`` (bisection on ``beta_i``; Hinton & Roweis 2003).

    ``D2`` is (M, N) squared distances; ``exclude_diagonal`` (square training matrices) leaves
    out ``j = i``.
    Returns ``(P, beta)``.
    """
    D2 = np.ascontiguousarray(D2, dtype=np.float64)
    P, beta = np.empty_like(D2), np.empty(D2.shape[0])
    _entropic_rows(D2, float(perplexity), float(tol), int(max_iter), exclude_diagonal, P, beta)
    return P, beta


def place_out_of_sample(Y0, Ytrain, Wp, Wn, lam, *, max_iter=100, tol=1e-5, rho=0.8, c=0.1):
    """Minimise each new point's elastic energy against a fixed training embedding.

    Row i of ``Wp``/``Wn`` (M x N) holds the new point's attractive/repulsive weights to the N
    training points; ``Y0`` (M x d) the starting positions. See :func:`_ee_out_of_sample`.
    """
    Y = np.empty_like(Y0)
    _ee_out_of_sample(
        np.ascontiguousarray(Y0, dtype=np.float64),
        np.ascontiguousarray(Ytrain, dtype=np.float64),
        np.ascontiguousarray(Wp, dtype=np.float64),
        np.ascontiguousarray(Wn, dtype=np.float64),
        float(lam),
        int(max_iter),
        float(tol),
        float(rho),
        float(c),
        Y,
    )
    return Y
