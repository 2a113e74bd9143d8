"""Kernel discriminant analysis: AKDA (Gkalelis & Mezaris, paper 002) and its class-based baselines.

* :class:`AKDA` — accelerated KDA (paper 002, Algorithm 1): the C x C core matrix
  ``O_b = I - s s^T`` gives the targets ``Theta = R V``; one Cholesky of ``K + reg I`` and two
  triangular solves give the expansion coefficients. No centring, no N x N eigenproblem.
* :class:`KDA` — the textbook generalised eigenproblem ``K_b a = lambda (B + reg I) a`` on N x N
  matrices (Mika et al.), solved by ``scipy.linalg.eigh``; the reference AKDA is timed against.
* :class:`GDA` — Baudat & Anouar (2000): eigendecomposition of the centred kernel, then the
  eigenproblem of ``P^T W P`` with ``W = blockdiag(11^T / N_c)``.
* :class:`SRKDA` — spectral-regression KDA (Cai, He & Han 2011): Gram-Schmidt responses and one
  regularised kernel linear system.
* :class:`KNDA` — kernel null-space discriminant analysis (Bodesheim et al. 2013, after Ye & Xiong
  2006): the between-class scatter maximised in the null space of the within-class scatter, by a
  cascade of eigendecompositions; paper 002 (Sec. 4.3, Sec. 5) shows AKDA is equivalent to it.

Subclass methods (AKSDA, KSDA, GSDA) live in :mod:`graphdr.methods.subclass`. The mathematics is in
``docs/akda.md``. Notation: ``N`` samples, ``C`` classes of ``N_c`` samples, ``z_c`` the class
indicator vectors, ``R = [z_c / sqrt(N_c)]`` (orthonormal columns), ``s = [sqrt(N_c / N)]``.

One regularisation parameter, ``reg``, has one meaning in every estimator of this family: the
absolute ridge added to the diagonal of the single N x N matrix the method factorises or inverts
(``K`` for AKDA/AKSDA/SRKDA, the centred ``K`` for GDA/GSDA/centred SRKDA, the denominator scatter
for KDA/KSDA). Paper 002 uses one constant for all of them (its value did not survive extraction);
the default 1e-3 is the SRKDA default of Cai et al.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._validation import check_n_classes, check_n_components
from graphdr.kernels import (
    center_kernel_train,
    centred_kernel_range,
    check_kernel_health,
    check_kernel_memory,
    pairwise_kernel,
    resolve_gamma,
    reusable,
)
from graphdr.solvers import (
    flip_signs,
    gram_schmidt_columns,
    lowrank_pairs_cholesky,
    order_degenerate_eigenspaces,
)

__all__ = [
    "AKDA",
    "KDA",
    "GDA",
    "SRKDA",
    "KNDA",
    "IndefiniteKernelWarning",
]

KERNELS = ("linear", "rbf", "poly", "precomputed")
DEFAULT_REG = 1e-3
# Rows of new data projected per block in transform: the test kernel block stays below ~256 MB.
_TRANSFORM_BLOCK_BYTES = 256 * 2**20


# --------------------------------------------------------------------------------------------
# Core matrices and targets (paper 002, sections 4.1-4.4)
# --------------------------------------------------------------------------------------------


def class_strengths(counts: np.ndarray) -> np.ndarray:
    """Class strength vector ``s = [sqrt(N_c / N)]`` (paper 002 eq. 28)."""
    counts = np.asarray(counts, dtype=np.float64)
    return np.sqrt(counts / counts.sum())


def between_class_core(counts: np.ndarray) -> np.ndarray:
    """Between-class core matrix ``O_b = I_C - s s^T`` (eq. 30): idempotent, rank C-1, ``O_b s = 0``."""
    s = class_strengths(counts)
    return np.eye(s.size) - np.outer(s, s)


def between_class_core_basis(counts: np.ndarray) -> np.ndarray:
    """The C-1 non-zero eigenvectors of ``O_b`` (all with eigenvalue 1), chosen deterministically.

    ``O_b`` is the orthogonal projector onto ``s^perp``, so every orthonormal basis of ``s^perp`` is
    an eigenbasis (the symmetric QR of the paper returns an arbitrary one). We take the Gram-Schmidt
    basis of the columns of ``O_b`` in class order, i.e. of ``{s, e_1, ..., e_{C-1}}`` with ``s``
    dropped: the multi-class generalisation of eq. 49, and exactly the spectral-regression responses
    of SRKDA mapped through ``R``.
    """
    O_b = between_class_core(counts)
    V = gram_schmidt_columns(O_b, O_b.shape[0] - 1)
    assert V is not None  # the first C-1 columns of O_b are independent when every N_c > 0
    return V


def class_indicator(labels: np.ndarray, n_classes: int, dtype=np.float64):
    """The N x C class indicator ``Z`` as a sparse matrix (products with it cost O(N) per column
    of the other factor, not O(N C))."""
    n = labels.size
    return scipy.sparse.csr_matrix(
        (np.ones(n, dtype=dtype), (np.arange(n), labels)), shape=(n, n_classes)
    )


def class_mean_gram(K: np.ndarray, labels: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``R^T K R`` (C x C), ``R = [z_c / sqrt(N_c)]``: entry ``(u, v)`` is
    ``sqrt(N_u N_v) <m_u, m_v>``, the weighted inner products of the class means in feature
    space. Two sparse products: O(N^2) flops, no N x C dense indicator."""
    Z = class_indicator(labels, counts.size)
    ZtK = np.asarray(Z.T @ K, dtype=np.float64)  # C x N: class sums of the rows of K
    G = np.asarray((Z.T @ ZtK.T).T)  # C x C = Z^T K Z
    root = np.sqrt(np.asarray(counts, dtype=np.float64))
    return G / np.outer(root, root)


def data_ordered_core_basis(G: np.ndarray, counts: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """C-1 orthonormal eigenvectors of ``O_b`` (eigenvalue 1), ordered by the data.

    Every orthonormal basis of ``s^perp`` is an eigenbasis of ``O_b``, so AKDA (and SRKDA's
    responses) leave the choice open; a basis chosen by coordinate order (Gram-Schmidt of the
    columns in class order) makes the leading directions, and SRKDA's per-direction scaling,
    depend on what the classes are called. Here the basis is the eigenvectors of
    ``O_b G O_b`` (``G = R^T K R``, :func:`class_mean_gram`) by decreasing eigenvalue: the
    principal axes of the (weighted, centred) class means in feature space, so the first
    direction is the one along which the class means spread most. Renaming the classes permutes
    the rows of ``G``, ``O_b`` and these eigenvectors alike, so ``Theta = R V`` is unchanged (up
    to signs). Axes with zero spread (class means that span fewer than C-1 dimensions, e.g. a
    linear kernel with D < C-1) are completed by Gram-Schmidt in class order, the one case left
    label-dependent (there the data give no order).
    """
    O_b = between_class_core(counts)
    B = O_b @ G @ O_b
    B = (B + B.T) * 0.5
    w, U = scipy.linalg.eigh(B, check_finite=False)
    w, U = w[::-1], U[:, ::-1]
    c = counts.size
    keep = int(np.count_nonzero(w[: c - 1] > tol * max(w[0], 0.0))) if w[0] > 0 else 0
    if keep == c - 1:
        return np.ascontiguousarray(U[:, :keep])
    V = gram_schmidt_columns(np.hstack([U[:, :keep], O_b]), c - 1)
    assert V is not None  # O_b alone has rank C-1
    return V


def binary_core_vector(counts: np.ndarray) -> np.ndarray:
    """Eq. 49: the eigenvector of ``O_b`` for C = 2, ``v = [sqrt(N_2/N), -sqrt(N_1/N)]`` (unit norm).

    It solves ``s^T v = 0`` with ``||v|| = 1``; the sign (positive first entry) matches
    :func:`between_class_core_basis`.
    """
    s = class_strengths(counts)
    return np.array([[s[1]], [-s[0]]])


def core_targets(labels: np.ndarray, counts: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``Theta = R V`` with ``R = [e_u / sqrt(N_u)]`` (eq. 40, 50, 75), built row by row.

    Row ``i`` of ``Theta`` is row ``labels[i]`` of ``V / sqrt(N_u)``: O(N k), no N x C indicator.
    """
    scaled = V / np.sqrt(np.asarray(counts, dtype=np.float64))[:, None]
    return scaled[labels]


class IndefiniteKernelWarning(UserWarning):
    """``K + reg I`` was not positive definite: negative kernel eigenvalues were clipped."""


def solve_regularized_kernel(K: np.ndarray, T: np.ndarray, reg: float) -> np.ndarray:
    """``Psi = (K + reg I)^{-1} T`` by one Cholesky ``K + reg I = L L^T`` and two triangular solves.

    ``K`` is overwritten by its factor (no second N x N array). Raises ``LinAlgError`` when
    ``K + reg I`` is not positive definite (``K`` is then garbage; see :func:`solve_clipped_kernel`).
    """
    n = K.shape[0]
    K.flat[:: n + 1] += reg
    # K is symmetric, so its transpose is the same matrix in Fortran order: LAPACK works in place.
    factor = scipy.linalg.cho_factor(K.T, lower=True, overwrite_a=True, check_finite=False)
    Psi = scipy.linalg.cho_solve(factor, T.astype(K.dtype, copy=False), check_finite=False)
    if not np.all(np.isfinite(Psi)):
        raise np.linalg.LinAlgError("non-finite solution of the kernel system")
    return Psi


def solve_clipped_kernel(K: np.ndarray, T: np.ndarray, reg: float, method: str) -> np.ndarray:
    """Fallback of :func:`solve_regularized_kernel` for an indefinite or singular ``K + reg I``.

    ``K = U diag(w) U^T``; negative eigenvalues are clipped to 0 (the nearest PSD kernel), then
    ``Psi = U diag(1 / (w + reg)) U^T T`` with ``1/0`` read as 0 (pseudo-inverse) when reg = 0.
    Warns with the numbers. Costs a full eigendecomposition (``~9 N^3``), so only used on failure.
    """
    w, U = scipy.linalg.eigh(K.astype(np.float64, copy=False), check_finite=False, driver="evd")
    n_neg = int(np.sum(w < 0))
    warnings.warn(
        f"{method}: K + reg*I is not positive definite (reg={reg}; smallest kernel eigenvalue "
        f"{w[0]:.3g}, {n_neg} negative of {w.size}). The kernel is indefinite or singular "
        "(a non-PSD precomputed kernel, duplicate samples, or a linear/poly kernel with more "
        "samples than features): negative eigenvalues were clipped to 0 and the system solved by "
        "eigendecomposition. Increase reg or use the RBF kernel to keep the Cholesky path.",
        IndefiniteKernelWarning,
        stacklevel=4,
    )
    w = np.clip(w, 0.0, None) + reg
    inv = np.zeros_like(w)
    nonzero = w > 1e-12 * w.max() if w.max() > 0 else np.zeros(w.size, bool)
    inv[nonzero] = 1.0 / w[nonzero]
    return U @ ((U.T @ T) * inv[:, None])


def center_kernel_inplace(K: np.ndarray) -> tuple[np.ndarray, float]:
    """Centre a training kernel in place, ``K <- H K H`` (one fused pass of
    :func:`graphdr.kernels.center_kernel_train`); return (column means, overall mean)."""
    Kc, stats = center_kernel_train(K, copy=False)
    if Kc is not K:  # not expected for a private float array; keep the caller's array right
        K[...] = Kc
    return stats.col_means, stats.mean


def class_mean_kernels(K: np.ndarray, labels: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Kernel columns of the class (or subclass) means, ``M = K Z diag(1/N_u)`` (rows of K x U)."""
    Z = np.zeros((labels.size, counts.size), dtype=K.dtype)
    Z[np.arange(labels.size), labels] = 1.0
    return (K @ Z) / counts.astype(K.dtype)


# --------------------------------------------------------------------------------------------
# Shared estimator plumbing
# --------------------------------------------------------------------------------------------


class KernelDiscriminantBase(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Validation, kernel evaluation, memory guard and projection of new data.

    A fitted estimator holds ``dual_coef_`` (N x d expansion coefficients, one column per
    discriminant direction) and projects ``x`` as ``dual_coef_^T k(x)``; centred methods subtract
    the training kernel means first (paper 002 eq. 22), done here algebraically on the projection.
    """

    _label = "KDA"
    # N x N arrays alive at the peak of fit (kernel, copies, products): the memory guard's count.
    _n_kernel_matrices = 1
    _bound_name = "n_classes - 1"
    _bound_reason = "{} has at most C-1 discriminant directions"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @property
    def _n_features_out(self):
        return self.n_components_

    # ---- fit helpers ----
    def _validate_fit(self, X, y):
        """Checked data, encoded labels and class sizes; all parameter checks happen here."""
        _check_params(self)
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], ensure_min_samples=2)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' expects the square training kernel (n_samples, n_samples), "
                f"got shape {X.shape}."
            )
        _check_params(self, X)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        check_n_classes(y_enc, method=self._label)
        return X, y_enc.astype(np.intp), np.bincount(y_enc)

    def _check_n_components(self, bound: int) -> int:
        return check_n_components(
            self.n_components,
            bound,
            bound_name=self._bound_name,
            reason=self._bound_reason.format(self._label),
        )

    def _kernel_dtype(self):
        return np.dtype(self.dtype)

    def _train_kernel(self, X) -> np.ndarray:
        """The N x N training kernel (a private, writable copy), after the memory guard."""
        check_kernel_memory(
            X.shape[0],
            n_matrices=self._n_kernel_matrices,
            dtype=self._kernel_dtype(),
            method=self._label,
        )
        # transform needs X_fit_ except for a precomputed kernel (k(x) is given directly).
        self.X_fit_ = None if self.kernel == "precomputed" else X
        K = self._kernel_matrix(X)
        check_kernel_health(
            K,
            method=self._label,
            kernel=self.kernel,
            gamma=self.gamma_,
            X=self.X_fit_,
            stacklevel=4,
        )
        return K

    def _kernel_matrix(self, X) -> np.ndarray:
        """Training kernel in the storage dtype. float32 storage is filled from float64 row blocks:
        a float32 GEMM loses ``||a||^2``-sized digits in ``||a||^2 + ||b||^2 - 2 a.b`` and can make
        the RBF kernel indefinite; computing in float64 costs a second, block-sized buffer only."""
        dtype = self._kernel_dtype()
        if self.kernel == "precomputed":
            return np.array(X, dtype=dtype, order="C", copy=True)
        if dtype == np.float64:
            return self._kernel(X)
        n = X.shape[0]
        K = np.empty((n, n), dtype=dtype)
        step = max(1, _TRANSFORM_BLOCK_BYTES // (8 * n))
        for start in range(0, n, step):
            K[start : start + step] = self._kernel(X[start : start + step], X)
        return K

    def _kernel(self, X, Y=None) -> np.ndarray:
        """float64 kernel between ``X`` and ``Y`` (``Y=None``: the symmetric training kernel)."""
        return pairwise_kernel(
            X,
            Y,
            kernel=self.kernel,
            gamma=self.gamma_,
            degree=self.degree,
            coef0=self.coef0,
            dtype=np.float64,
        )

    def _solve(self, K: np.ndarray, X, T: np.ndarray, *, centred: bool = False) -> np.ndarray:
        """``(K + reg I)^{-1} T`` by Cholesky; if ``K + reg I`` is not positive definite, rebuild
        the kernel (the failed factorisation overwrote it) and solve with clipped eigenvalues."""
        try:
            return solve_regularized_kernel(K, T, self.reg)
        except np.linalg.LinAlgError:
            K = self._kernel_matrix(X)
            if centred:
                center_kernel_inplace(K)
            return solve_clipped_kernel(K, T, self.reg, self._label)

    def _set_centering(self, col_mean: np.ndarray | None, mean: float = 0.0) -> None:
        self._kernel_col_mean = col_mean
        self._kernel_mean = mean

    def _store(self, dual_coef: np.ndarray, eigenvalues: np.ndarray) -> None:
        dual_coef = flip_signs(np.ascontiguousarray(dual_coef, dtype=np.float64))
        self.dual_coef_ = dual_coef
        self.eigenvalues_ = np.asarray(eigenvalues, dtype=np.float64)
        self.n_components_ = dual_coef.shape[1]
        if getattr(self, "_kernel_col_mean", None) is not None:
            # Centred projection: (k - m - (mean(k) - mbar) 1)^T A = k^T A - m^T A - (...) 1^T A.
            self._offset = self._kernel_col_mean @ dual_coef
            self._coef_sum = dual_coef.sum(axis=0, dtype=np.float64)

    # ---- transform ----
    def transform(self, X):
        """Project ``X`` onto the discriminant directions, ``Z = k(X, X_fit)^T dual_coef``.

        With ``kernel="precomputed"``, ``X`` is the (n_queries, n_train) kernel against the
        training samples. Rows are processed in blocks so the test kernel never exceeds ~256 MB;
        the test kernel and the coefficients are float64 whatever the training ``dtype``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        n_train = self.dual_coef_.shape[0]
        step = max(1, _TRANSFORM_BLOCK_BYTES // (8 * n_train))
        out = np.empty((X.shape[0], self.n_components_), dtype=np.float64)
        for start in range(0, X.shape[0], step):
            block = X[start : start + step]
            if self.kernel == "precomputed":
                Kt = np.asarray(block, dtype=np.float64)
            else:
                Kt = self._kernel(block, self.X_fit_)
            out[start : start + step] = self._project(Kt)
        return out

    def _project(self, Kt: np.ndarray) -> np.ndarray:
        Z = Kt @ self.dual_coef_
        if getattr(self, "_kernel_col_mean", None) is not None:
            row_mean = Kt.mean(axis=1, dtype=np.float64) - self._kernel_mean
            Z -= self._offset[None, :] + row_mean[:, None] * self._coef_sum[None, :]
        return Z


def _check_params(est, X=None) -> None:
    """Parameter checks shared by the family (clear messages before any heavy work); with the
    training data ``X`` also resolves ``gamma`` (``"scale"``) into ``est.gamma_``."""
    if est.kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {est.kernel!r}.")
    if X is not None:
        est.gamma_ = resolve_gamma(est.gamma, X) if est.kernel in ("rbf", "poly") else None
    reg = getattr(est, "reg", 0.0)  # KNDA has no ridge
    if not isinstance(reg, numbers.Real) or not np.isfinite(reg) or reg < 0:
        raise ValueError(f"reg must be a finite number >= 0, got {reg!r}.")
    rtol = getattr(est, "rtol", None)  # GDA, KNDA, KUDA, KODA
    if hasattr(est, "rtol") and (not isinstance(rtol, numbers.Real) or not 0 < rtol < 1):
        raise ValueError(
            f"rtol must be a number in (0, 1), got {rtol!r}: it is the relative eigenvalue "
            "threshold below which a direction of the centred kernel counts as zero."
        )
    try:
        valid = np.dtype(est.dtype) in (np.dtype(np.float32), np.dtype(np.float64))
    except TypeError:
        valid = False
    if not valid:
        raise ValueError(f"dtype must be 'float32' or 'float64', got {est.dtype!r}.")


# --------------------------------------------------------------------------------------------
# AKDA
# --------------------------------------------------------------------------------------------


class AKDA(KernelDiscriminantBase):
    """Accelerated kernel discriminant analysis (Gkalelis & Mezaris, paper 002, Algorithm 1).

    The between-class kernel scatter factorises as ``K R O_b R^T K`` with the C x C core matrix
    ``O_b = I - s s^T``. With ``V`` its C-1 non-zero eigenvectors (all eigenvalues 1),
    ``Theta = R V`` and the expansion coefficients solve ``(K + reg I) Psi = Theta`` (eq. 44) by one
    Cholesky factorisation and two triangular solves. For C = 2 the eigenvector is analytic
    (eq. 49-51). ``Psi`` simultaneously diagonalises the between-, within- and total-class kernel
    scatters (eq. 45-47: I, 0, I as reg -> 0) and spans the KDA/KNDA discriminant subspace. No
    centring is needed, in training or in testing.

    Cost: kernel ``2 N^2 D`` + Cholesky ``N^3/3`` + solves ``2 N^2 (C-1)`` flops; memory: one
    N x N matrix (the kernel is factorised in place).

    Parameters
    ----------
    n_components : int or None
        Number of discriminant directions, at most C-1 (None: C-1). Smaller dimensions are the
        leading columns of a larger fit.
    kernel : {"rbf", "linear", "poly", "precomputed"}
        Kernel, scikit-learn conventions. "precomputed": ``fit(K, y)`` with the N x N training
        kernel, ``transform(K_test)`` with the (n_queries, N) kernel against the training samples.
    gamma : "scale" (default), None or float
        RBF/poly width. "scale": ``1 / (n_features * X.var())`` of the training data (as
        scikit-learn's SVC; it follows the data's scale, see
        :func:`graphdr.kernels.resolve_gamma`); None: ``1 / n_features``. Paper 002 sets it by
        cross-validation (precomputed kernels), so the default is not the paper's. The value
        used is ``gamma_``.
    degree, coef0 : polynomial kernel parameters.
    reg : float, default 1e-3
        Absolute ridge on the diagonal of K before the Cholesky factorisation.
    dtype : {"float64", "float32"}
        Storage precision of the N x N training kernel and of its factorisation; float32 halves
        the memory (the kernel values are still computed in float64; coefficients, test kernels
        and outputs are float64).

    Attributes
    ----------
    dual_coef_ : (n_train, n_components) expansion coefficients ``Psi``.
    eigenvalues_ : (n_components,) core-matrix eigenvalues (all 1 for AKDA).
    X_fit_ : training data (None for a precomputed kernel).
    classes_ : the class labels.
    n_components_ : the number of directions.
    """

    _label = "AKDA"

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=DEFAULT_REG,
        dtype="float64",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.dtype = dtype

    def fit(self, X, y):
        """Algorithm 1: core eigenvectors, targets Theta = R V, one Cholesky solve."""
        X, y_enc, counts = self._validate_fit(X, y)
        n_components = self._check_n_components(counts.size - 1)
        K = self._train_kernel(X)
        if counts.size == 2:
            V = binary_core_vector(counts)
        else:  # the C-1 eigenvalues are all 1: the data order the directions (label-free)
            V = data_ordered_core_basis(class_mean_gram(K, y_enc, counts), counts)
        Theta = core_targets(y_enc, counts, V[:, :n_components])
        Psi = self._solve(K, X, Theta)
        self._set_centering(None)
        self._store(Psi, np.ones(n_components))
        return self


# --------------------------------------------------------------------------------------------
# KDA (textbook generalised eigenproblem)
# --------------------------------------------------------------------------------------------


def between_class_kernel_scatter(K: np.ndarray, labels: np.ndarray, counts: np.ndarray):
    """``K_b = sum_c N_c (m_c - m)(m_c - m)^T`` with ``m_c = K z_c / N_c``, ``m = K 1 / N`` (eq. 7)."""
    M = class_mean_kernels(K, labels, counts)
    M -= K.mean(axis=1)[:, None]
    return (M * counts.astype(K.dtype)) @ M.T


def between_class_kernel_factor(K: np.ndarray, labels: np.ndarray, counts: np.ndarray):
    """``F`` (N x C) with ``F F^T = K_b`` of :func:`between_class_kernel_scatter`:
    ``F[:, c] = sqrt(N_c) (m_c - m)``, the numerator of ``eigen_solver="lowrank"``."""
    M = class_mean_kernels(K, labels, counts)
    M -= K.mean(axis=1)[:, None]
    return M * np.sqrt(counts.astype(K.dtype))


@reusable
def denominator_kernel_scatter(
    K: np.ndarray, labels: np.ndarray, counts: np.ndarray, scatter: str
) -> np.ndarray:
    """Right-hand side of the KDA/KSDA eigenproblem, ``K C K`` for the chosen scatter.

    Inside :func:`graphdr.kernels.reuse_kernels` a second call with the same kernel, partition
    and scatter returns a copy of the first result (a selection grid over ``reg`` refits on one
    kernel and partition: the N x N SYRK is the largest product of such a fit).

    * ``"gram"``: ``K K`` (methods.md section 5; ``C = I``);
    * ``"total"``: ``K (I - 11^T/N) K = K K - (K1)(K1)^T / N`` (eq. 20);
    * ``"within"``: ``K (I - sum_u z_u z_u^T / N_u) K = K K - sum_u N_u m_u m_u^T`` (eq. 8/18),
      with ``labels``/``counts`` the classes (KDA) or subclasses (KSDA).
    """
    B = K @ K.T  # K is symmetric; numpy turns A @ A.T into one SYRK
    if scatter == "total":
        m = K.sum(axis=1)
        B -= np.outer(m, m / K.shape[0])
    elif scatter == "within":
        M = class_mean_kernels(K, labels, counts)
        B -= (M * counts.astype(K.dtype)) @ M.T
    elif scatter != "gram":
        raise ValueError(f"scatter must be 'gram', 'total' or 'within', got {scatter!r}.")
    return B


#: the kernel discriminants' ``eigen_solver`` values (:func:`solve_kernel_gep`)
EIGEN_SOLVERS = ("subset", "full", "lowrank")


def check_eigen_solver(eigen_solver) -> None:
    if eigen_solver not in EIGEN_SOLVERS:
        raise ValueError(
            f"eigen_solver must be 'subset' (the C-1 leading eigenpairs, LAPACK sygvx), 'full' "
            f"(every eigenpair, LAPACK sygv: paper 002's KDA) or 'lowrank' (Cholesky and a thin "
            f"SVD of the numerator's factor), got {eigen_solver!r}."
        )


def solve_kernel_gep(
    A: np.ndarray, B: np.ndarray, n_components: int, reg: float, eigen_solver: str = "subset"
):
    """Largest ``n_components`` eigenpairs of ``A a = lambda (B + reg I) a``, descending.

    ``eigen_solver="subset"``: LAPACK ``sygvx`` (Cholesky of B, reduction to standard form,
    tridiagonalisation, eigenvectors of the selected eigenvalues only), the fastest dense
    textbook solve; ``"full"``: LAPACK ``sygv`` (the same Cholesky and reduction, then the
    symmetric QR algorithm for ALL eigenpairs), the KDA whose cost paper 002 analyses (its
    section 4.5: Cholesky of the regularised scatter and the EVD by symmetric QR). Both are one
    call of ``scipy.linalg.eigh`` with the inputs overwritten and no finiteness re-check.
    ``"lowrank"``: ``A`` is passed as its factor ``F`` (N x m, ``A = F F^T``, m the number of
    classes or subclasses) and the pairs come from the Cholesky of ``B + reg I`` and a thin SVD
    (:func:`graphdr.solvers.lowrank_pairs_cholesky`, ``N^3 / 3`` flops instead of sygvx's
    ``~8 N^3 / 3``): the same eigenproblem and normalisation (``a^T (B + reg I) a = 1``), other
    round-off; eigenvectors of equal eigenvalues may form another basis of their eigenspace.
    """
    n = B.shape[0]
    B.flat[:: n + 1] += reg
    if eigen_solver == "lowrank":
        try:
            return lowrank_pairs_cholesky(A, B, n_components)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                f"the denominator scatter + reg*I is not positive definite (reg={reg}); "
                "increase reg."
            ) from exc
    if eigen_solver == "full":
        options = {"driver": "gv"}
    else:
        options = {"subset_by_index": (n - n_components, n - 1)}
    try:
        # A and B are symmetric: their transposes are Fortran-ordered views LAPACK overwrites.
        w, V = scipy.linalg.eigh(
            A.T, B.T, overwrite_a=True, overwrite_b=True, check_finite=False, **options
        )
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            f"the denominator scatter + reg*I is not positive definite (reg={reg}); increase reg."
        ) from exc
    w, V = w[-n_components:], V[:, -n_components:]  # "full" returns every pair, ascending
    return w[::-1].copy(), np.ascontiguousarray(V[:, ::-1])


class KDA(KernelDiscriminantBase):
    """Kernel discriminant analysis by the textbook N x N generalised eigenproblem (the baseline).

    Solves ``K_b a = lambda (B + reg I) a`` with ``K_b = sum_c N_c (m_c - m)(m_c - m)^T`` (class means
    of the kernel columns, eq. 7) and ``B = K C K`` for the chosen ``scatter`` (``"gram"``: ``K K``
    as written in methods.md section 5; ``"total"``: the total kernel scatter, eq. 20;
    ``"within"``: the within-class kernel scatter, eq. 8, Mika et al.), by
    ``scipy.linalg.eigh(..., subset_by_index=...)`` for the C-1 largest eigenvalues. As reg -> 0
    all three give the AKDA subspace (all eigenvalues are then equal, so compare subspaces).

    Cost: ``K_b`` ``~2 N^2 C``, ``B`` ``N^3`` (one SYRK), ``sygvx`` ``~(1/3 + 1 + 4/3) N^3`` flops;
    memory: four to five N x N matrices.

    Parameters are those of :class:`AKDA` plus ``scatter`` (default "gram") and
    ``eigen_solver``: ``"subset"`` (default, LAPACK ``sygvx``: eigenvectors of the C-1 largest
    eigenvalues only), ``"full"`` (LAPACK ``sygv``: every eigenpair by the symmetric QR
    algorithm, then the C-1 largest kept) or ``"lowrank"`` (``K_b = F F^T`` with ``F`` N x C:
    the Cholesky of ``B + reg I`` and a thin SVD, about an eighth of sygvx's flops; our own
    code, see :func:`solve_kernel_gep`). ``KDA(scatter="within", eigen_solver="full")`` is the
    KDA of paper 002 (its eq. 4 after Mika et al., and the cost of its section 4.5: Cholesky of
    the regularised within-class kernel scatter and a full symmetric EVD); the three solvers
    give the same subspace (paper 002's cross-validation searches with ``"lowrank"`` and times
    the final fit with ``"full"``). ``reg`` is the absolute ridge added to ``B``.
    ``eigenvalues_`` holds the generalised eigenvalues.
    """

    _label = "KDA"
    _n_kernel_matrices = 4

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=DEFAULT_REG,
        scatter="gram",
        eigen_solver="subset",
        dtype="float64",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.scatter = scatter
        self.eigen_solver = eigen_solver
        self.dtype = dtype

    def fit(self, X, y):
        X, y_enc, counts = self._validate_fit(X, y)
        n_components = self._check_n_components(counts.size - 1)
        if self.scatter not in ("gram", "total", "within"):
            raise ValueError(f"scatter must be 'gram', 'total' or 'within', got {self.scatter!r}.")
        check_eigen_solver(self.eigen_solver)
        K = self._train_kernel(X)
        numerator = (
            between_class_kernel_factor
            if self.eigen_solver == "lowrank"
            else between_class_kernel_scatter
        )
        A = numerator(K, y_enc, counts)
        B = denominator_kernel_scatter(K, y_enc, counts, self.scatter)
        del K
        w, V = solve_kernel_gep(A, B, n_components, self.reg, self.eigen_solver)
        self._set_centering(None)
        self._store(V, w)
        return self


# --------------------------------------------------------------------------------------------
# GDA (Baudat & Anouar 2000)
# --------------------------------------------------------------------------------------------


def whitened_between_class_directions(
    P: np.ndarray, gam: np.ndarray, labels: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The between-class scatter in the basis ``P`` of the centred kernel's range, whitened by
    the total scatter: the left singular vectors ``beta`` (r x min(C-1, r)) and squared singular
    values ``w`` (descending) of ``G = P^T F``, ``F[i, c] = N_c^{-1/2}`` on class c, i.e. the
    leading eigenpairs of ``P^T W P = G G^T`` (GDA's eigenproblem, and ULDA's ``B`` matrix of
    KUDA / KODA) from a thin SVD (``O(r C^2)``, not an r x r eigenproblem).

    Equal values (all 1 when the class indicators lie in the range of the kernel) leave the
    basis to LAPACK, i.e. to sample and label order: each such cluster is ordered by the
    principal axes of the class means in feature space (``R^T Kc R = G^T Gamma G``,
    :func:`data_ordered_core_basis`), a label-free rule.
    """
    G = class_mean_kernels(P.T, labels, counts) * np.sqrt(counts)  # (Z^T P)^T / sqrt(N_c)
    n_all = min(counts.size - 1, gam.size)  # G G^T has at most C-1 non-zero eigenvalues
    beta, sv, _ = scipy.linalg.svd(G, full_matrices=False, check_finite=False)
    w, beta = sv[:n_all] ** 2, beta[:, :n_all]  # descending
    V = data_ordered_core_basis(G.T @ (gam[:, None] * G), counts)
    return w, order_degenerate_eigenspaces(w, beta, G @ V)


def gda_coefficients(
    Kc: np.ndarray, labels: np.ndarray, counts: np.ndarray, n_components: int, reg: float, rtol
):
    """Baudat & Anouar's GDA on a centred kernel ``Kc = P Gamma P^T``.

    1. eigendecomposition of ``Kc`` (:func:`graphdr.kernels.eigh_centred_kernel`, shared inside
       :func:`graphdr.kernels.reuse_kernels`); eigenvalues ``<= rtol * max`` are dropped;
    2. with ``alpha = P (Gamma + reg)^{-1} beta`` the criterion becomes the standard eigenproblem of
       ``P^T W P = G G^T``, ``W = blockdiag(11^T / N_c) = sum_c z_c z_c^T / N_c`` and ``G`` the
       r x C matrix of scaled class sums: its leading eigenvectors are the left singular vectors
       of ``G`` and its eigenvalues their squared singular values (a thin SVD, ``O(r C^2)``,
       instead of an r x r eigenproblem, ``O(r^3)``);
    3. normalise ``alpha^T Kc alpha = 1`` (unit-norm directions in feature space).
    Returns (eigenvalues, alpha).
    """
    gam, P = centred_kernel_range(Kc, rtol)
    if gam.size < n_components:
        raise ValueError(
            f"n_components={n_components} is larger than the rank of the centred kernel = "
            f"{gam.size}: GDA works in its range; lower rtol or ask for fewer components."
        )
    w, beta = whitened_between_class_directions(P, gam, labels, counts)
    w, beta = w[:n_components], beta[:, :n_components]
    alpha = P @ (beta / (gam + reg)[:, None])
    norms = np.sqrt(np.einsum("ij,ij->j", beta * (gam / (gam + reg) ** 2)[:, None], beta))
    return w, alpha / norms


class GDA(KernelDiscriminantBase):
    """Generalized discriminant analysis (Baudat & Anouar 2000), a paper-002 baseline.

    Centred kernel ``Kc = H K H = P Gamma P^T`` (small eigenvalues dropped), eigenproblem of
    ``P^T W P`` with ``W = blockdiag(11^T / N_c)``, coefficients ``alpha = P (Gamma + reg)^{-1} beta``
    normalised to ``alpha^T Kc alpha = 1``. New points are centred with the training statistics
    (eq. 22). Cost: a full N x N eigendecomposition (``~9 N^3`` flops).

    Parameters are those of :class:`AKDA` plus ``rtol`` (relative eigenvalue threshold that defines
    the range of ``Kc``, default 1e-10); ``reg`` is the absolute ridge added to the retained
    eigenvalues of ``Kc`` (the matrix GDA inverts).
    """

    _label = "GDA"
    _n_kernel_matrices = 3

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=DEFAULT_REG,
        rtol=1e-10,
        dtype="float64",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.rtol = rtol
        self.dtype = dtype

    def fit(self, X, y):
        X, y_enc, counts = self._validate_fit(X, y)
        n_components = self._check_n_components(counts.size - 1)
        K = self._train_kernel(X)
        self._set_centering(*center_kernel_inplace(K))
        w, alpha = gda_coefficients(K, y_enc, counts, n_components, self.reg, self.rtol)
        self._store(alpha, w)
        return self


# --------------------------------------------------------------------------------------------
# SRKDA (Cai, He & Han 2011)
# --------------------------------------------------------------------------------------------


def spectral_regression_responses(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Cai et al.'s responses: Gram-Schmidt of ``{1, z_1, ..., z_C}``, the ``1`` dropped (N x C-1).

    ``z_C`` is spanned by the others (the indicators sum to 1), so ``z_1..z_{C-1}`` suffice. A
    Householder QR with its signs set so that ``diag(R) > 0`` is exactly Gram-Schmidt.
    """
    n = labels.size
    A = np.zeros((n, n_classes))
    A[:, 0] = 1.0
    rows = labels < n_classes - 1
    A[np.flatnonzero(rows), labels[rows] + 1] = 1.0
    Q, Rq = np.linalg.qr(A)
    Q *= np.sign(np.diag(Rq))
    return Q[:, 1:]


class SRKDA(KernelDiscriminantBase):
    """Spectral-regression kernel discriminant analysis (Cai, He & Han 2011), a paper-002 baseline.

    Responses ``Y`` = Gram-Schmidt of ``{1, z_1..z_C}`` with ``1`` dropped; coefficients solve
    ``(K + reg I) alpha = Y`` by Cholesky (``reg`` is Cai's delta, default 0.001) and are normalised
    to ``alpha^T K alpha = 1``. Cai et al.'s method uses the uncentred kernel (the default here;
    the responses are orthogonal to 1). Paper 002 describes SRKDA with a centred kernel and centred
    test kernels (eq. 21-22): ``center=True`` gives that variant.

    Parameters are those of :class:`AKDA` plus ``center`` (bool, default False).
    """

    _label = "SRKDA"
    _n_kernel_matrices = 1

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=DEFAULT_REG,
        center=False,
        dtype="float64",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.center = center
        self.dtype = dtype

    def fit(self, X, y):
        X, y_enc, counts = self._validate_fit(X, y)
        n_components = self._check_n_components(counts.size - 1)
        K = self._train_kernel(X)
        self._set_centering(*(center_kernel_inplace(K) if self.center else (None,)))
        # Cai et al.'s responses are any orthonormal basis of the centred class indicators
        # (Gram-Schmidt in class order in their paper: R V with V = between_class_core_basis);
        # the per-direction normalisation below makes the choice matter, so the basis is the
        # label-free, data-ordered one of AKDA (data_ordered_core_basis).
        V = data_ordered_core_basis(class_mean_gram(K, y_enc, counts), counts)
        Y = core_targets(y_enc, counts, V[:, :n_components])
        alpha = self._solve(K, X, Y, centred=self.center)
        # alpha^T K alpha = alpha^T (K + reg I) alpha - reg ||alpha||^2 = alpha^T Y - reg ||alpha||^2
        sq_norms = np.einsum("ij,ij->j", alpha, Y) - self.reg * np.einsum("ij,ij->j", alpha, alpha)
        if np.any(sq_norms <= 0):
            raise ValueError(
                f"SRKDA: a direction has alpha^T K alpha <= 0 (reg={self.reg}); increase reg."
            )
        self._store(alpha / np.sqrt(sq_norms), np.ones(n_components))
        return self


# --------------------------------------------------------------------------------------------
# KNDA (Bodesheim et al. 2013; Ye & Xiong 2006)
# --------------------------------------------------------------------------------------------


def knda_coefficients(
    Kc: np.ndarray, labels: np.ndarray, counts: np.ndarray, n_components: int, rtol: float
):
    """Kernel null-space discriminant analysis on a centred kernel ``Kc = P Gamma P^T``.

    1. the range of the total scatter: eigenvalues of ``Kc`` above ``rtol * max`` (rank r); the
       centred training samples have coordinates ``Y = P Gamma^{1/2}`` (N x r) in its orthonormal
       feature-space basis ``Phi~ P Gamma^{-1/2}``;
    2. the null space of the within-class scatter ``S_w = Y_w^T Y_w`` (``Y_w``: ``Y`` minus its
       class means): eigenvalues of ``S_w`` at most ``rtol * max(Gamma)`` (q directions; q = C - 1
       when the samples are linearly independent in feature space, e.g. an RBF kernel on distinct
       samples);
    3. the between-class scatter ``S_b = M^T diag(N_c) M`` (``M``: class means of ``Y``) in that
       null space: its leading eigenvectors ``W``.
    When the null space has fewer than ``n_components`` directions, the smallest-eigenvalue
    directions of ``S_w`` stand in, with a warning (as :class:`graphdr.methods.DCV` does).
    Returns (null-space dimension, eigenvalues of step 3, expansion coefficients
    ``P Gamma^{-1/2} Z W``, N x n_components).
    """
    gam, P = centred_kernel_range(Kc, rtol)
    Y = P * np.sqrt(gam)
    means = class_mean_kernels(Y.T, labels, counts).T  # C x r class means of the coordinates
    Yw = Y - means[labels]
    sw, Z = scipy.linalg.eigh(Yw.T @ Yw, check_finite=False, driver="evd")  # ascending
    n_null = int(np.count_nonzero(sw <= rtol * gam.max()))
    if n_null < n_components:
        warnings.warn(
            f"KNDA: the within-class scatter has a null space of dimension {n_null} in the range "
            f"of the centred kernel, fewer than n_components={n_components} (the training samples "
            "are not linearly independent in feature space: duplicates, or a linear kernel with "
            f"more samples than features); its {n_components} smallest-eigenvalue directions "
            "stand in, so classes do not collapse to points.",
            UserWarning,
            stacklevel=3,
        )
    Z = Z[:, : max(n_null, n_components)]
    MZ = means @ Z * np.sqrt(counts)[:, None]
    w, V = scipy.linalg.eigh(MZ.T @ MZ, check_finite=False)
    w, V = w[::-1][:n_components], V[:, ::-1][:, :n_components]
    return n_null, w, P @ ((Z @ V) / np.sqrt(gam)[:, None])


class _CentredRangeBase(KernelDiscriminantBase):
    """The parameters of the discriminant analyses that work in the range of the centred
    kernel without a ridge (KNDA, KUDA, KODA): those of :class:`AKDA` except ``reg``, plus
    ``rtol``, the relative eigenvalue threshold of that range."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        rtol=1e-10,
        dtype="float64",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.rtol = rtol
        self.dtype = dtype


class KNDA(_CentredRangeBase):
    """Kernel null-space discriminant analysis (Bodesheim et al. 2013, after Ye & Xiong 2006).

    The directions maximise the between-class scatter inside the null space of the within-class
    scatter, within the span of the centred training samples (:func:`knda_coefficients`): every
    training sample of a class projects onto one point. Paper 002 (Sec. 4.3 and 5) shows that AKDA
    (as ``reg -> 0``) spans the same subspace whenever the training samples are linearly
    independent in feature space, and that KNDA's cascade of decompositions makes it much slower;
    ``tests/test_discriminant.py`` checks the equivalence and the ledger's claim C1 of paper 002
    judges it on data. Our own code (no maintained library implements it). New points are centred
    with the training statistics, as GDA. Cost: two eigendecompositions of N x N (``~9 N^3``
    flops each), no ridge.

    Parameters are those of :class:`AKDA` except ``reg``, plus ``rtol`` (relative eigenvalue
    threshold for the range of the centred kernel and for the null space of the within-class
    scatter, default 1e-10). Attribute ``null_space_dim_``: the dimension of that null space
    (C - 1 for linearly independent samples; below ``n_components`` a warning says that the
    smallest-scatter directions stood in).
    """

    _label = "KNDA"
    _n_kernel_matrices = 3

    def fit(self, X, y):
        K, y_enc, counts, n_components = _centred_fit_kernel(self, X, y)
        n_null, w, alpha = knda_coefficients(K, y_enc, counts, n_components, self.rtol)
        self.null_space_dim_ = n_null
        self._store(alpha, w)
        return self


def _centred_fit_kernel(est, X, y):
    """The checks and the centred float64 training kernel of KNDA, KUDA and KODA: (Kc, encoded
    labels, class sizes, n_components)."""
    X, y_enc, counts = est._validate_fit(X, y)
    n_components = est._check_n_components(counts.size - 1)
    K = est._train_kernel(X).astype(np.float64, copy=False)
    est._set_centering(*center_kernel_inplace(K))
    return K, y_enc, counts, n_components


def kuda_coefficients(
    Kc: np.ndarray,
    labels: np.ndarray,
    counts: np.ndarray,
    n_components: int,
    rtol: float,
    *,
    orthogonal: bool = False,
):
    """Kernel uncorrelated (KUDA) or orthogonal (KODA) discriminant analysis (Xiong, Ye &
    Cherkassky, CVPR 2006: ULDA / OLDA of Ye 2005 in feature space) on a centred kernel.

    With ``Kc = P Gamma P^T`` (eigenvalues above ``rtol * max``, rank r), the total-scatter factor
    ``H_t = Phi~`` has left singular vectors ``Phi~ P Gamma^{-1/2}`` and singular values
    ``Gamma^{1/2}``; the between-class factor is ``H_b = Phi~ F`` with ``F[i, c] = N_c^{-1/2}`` for
    the samples of class c. ULDA's matrix ``B = Sigma_t^{-1} U_t^T H_b`` is then ``P^T F``
    (r x C), its leading left singular vectors ``Q`` (q = rank B <= C - 1;
    :func:`whitened_between_class_directions`, which also fixes the basis of equal singular
    values, all 1 when the samples are linearly independent in feature space), and
    ``G = U_t Sigma_t^{-1} Q``, i.e. the expansion coefficients ``alpha = P Gamma^{-1} Q``:
    ``G^T S_t G = I`` (uncorrelated features) and ``G^T S_b G = diag(sigma^2)``, with ``sigma`` the
    singular values of ``B`` (returned as the eigenvalues, in (0, 1]). ``orthogonal``: KODA,
    ``G`` orthonormalised in feature space (``G = Q_G R``, so ``alpha R^{-1}`` with ``R`` the
    Cholesky factor of ``alpha^T Kc alpha``): the same span, orthonormal directions. Returns
    (rank of B, eigenvalues, expansion coefficients N x n_components).
    """
    gam, P = centred_kernel_range(Kc, rtol)
    sigma2, Q = whitened_between_class_directions(P, gam, labels, counts)
    rank_b = int(np.count_nonzero(sigma2 > rtol**2 * max(sigma2.max(), 0.0)))
    if rank_b < n_components:
        warnings.warn(
            f"KUDA/KODA: the between-class scatter has rank {rank_b} in the range of the centred "
            f"kernel, fewer than n_components={n_components}; the remaining directions carry no "
            "between-class scatter.",
            UserWarning,
            stacklevel=3,
        )
    Q, sigma2 = Q[:, :n_components], sigma2[:n_components]
    B = Q / gam[:, None]  # alpha = P B
    alpha = P @ B
    if orthogonal:
        R = scipy.linalg.cholesky(B.T @ Q, check_finite=False)  # alpha^T Kc alpha = B^T Gamma B
        alpha = scipy.linalg.solve_triangular(R, alpha.T, trans="T", check_finite=False).T
    return rank_b, sigma2, alpha


class KUDA(_CentredRangeBase):
    """Kernel uncorrelated discriminant analysis (Xiong, Ye & Cherkassky 2006; paper 002's [35]).

    ULDA (Ye 2005) in feature space (:func:`kuda_coefficients`): the range of the total scatter
    by one eigendecomposition of the centred kernel, then the between-class scatter whitened by
    the total scatter (a thin SVD of an r x C matrix). The features are uncorrelated on the
    training samples (``Z~^T Z~ = I`` for the centred projections). Paper 002 (Sec. 5) states that
    AKDA shares KUDA's properties when the kernel matrix is positive definite, and that KNDA and
    KUDA are then equivalent (Ye & Xiong 2006: rank S_t = rank S_b + rank S_w);
    ``tests/test_discriminant.py`` checks both and claim C1b of paper 002 judges them on data. Our
    own code (no maintained library implements it). New points are centred with the training
    statistics, as GDA. Cost: one eigendecomposition of N x N (``~9 N^3`` flops), no ridge.

    Parameters are those of :class:`KNDA`. Attribute ``between_rank_``: the rank of the whitened
    between-class scatter (C - 1 unless classes coincide in feature space; below
    ``n_components`` a warning says that the remaining directions carry no class information);
    ``eigenvalues_``: the between-class over total scatter of each direction, in (0, 1].
    """

    _label = "KUDA"
    _n_kernel_matrices = 2
    _orthogonal = False

    def fit(self, X, y):
        K, y_enc, counts, n_components = _centred_fit_kernel(self, X, y)
        rank_b, w, alpha = kuda_coefficients(
            K, y_enc, counts, n_components, self.rtol, orthogonal=self._orthogonal
        )
        self.between_rank_ = rank_b
        self._store(alpha, w)
        return self


class KODA(KUDA):
    """Kernel orthogonal discriminant analysis (Xiong, Ye & Cherkassky 2006; paper 002's [35]).

    :class:`KUDA` with its directions orthonormalised in feature space (OLDA of Ye 2005: a QR
    factorisation of the transformation, here ``alpha R^{-1}`` with ``R^T R = alpha^T Kc alpha``):
    the same subspace, orthonormal directions (``alpha^T Kc alpha = I``). Paper 002 (Sec. 5) calls
    AKDA with an orthogonalised eigenbasis equivalent to KODA (claim C1b). Parameters and
    attributes as :class:`KUDA`; ``eigenvalues_`` are KUDA's (the orthonormalisation mixes the
    directions, so they no longer diagonalise the between-class scatter).
    """

    _label = "KODA"
    _orthogonal = True
