"""Quadratic mutual information as graph embedding: KQMI and LQMI (Bouzas et al. 2015, paper 001).

Torkkola's quadratic mutual information between features and labels, with Parzen windows of width
``sigma``, is ``I = V_IN + V_ALL - 2 V_BTW = sum_ij M_ij G_ij`` (paper eq. 12-19) where
``G_ij = N(x_i - x_j; 0, 2 sigma^2 I)`` and the graph matrix is

    M_ij = C_ALL + C_IN [y_i = y_j] - C_BTW,y_i - C_BTW,y_j,
    C_IN = 1/N^2,  C_ALL = sum_c N_c^2 / N^4,  C_BTW,c = N_c / N^3.

It factorises as ``M = F F^T`` with ``F = (Z - 1 pi^T) / N`` (Z the N x C class indicator,
``pi_c = N_c / N``): M is PSD, has rank C-1 and zero row sums, and is never formed here (a product
``M V`` costs O(N C) per column, :class:`QMIOperator`). In feature space the criterion is
``sum_c pi_c^2 ||m_c - m||^2``: a between-class scatter with weights ``N_c^2`` (LDA/GDA use N_c).

* :class:`KQMI` (Algorithm 1): centred kernel ``K = H K~ H = P L P^T`` (eigenvalues below
  ``tol * max`` dropped), the C-1 leading eigenvectors B of ``P^T M P = (P^T F)(P^T F)^T`` (from
  the thin SVD of the r x C matrix ``P^T F``: no r x r eigenproblem), ``A = P L^-1 B``; the
  training embedding is ``K A = P B`` and a new point projects as ``A^T k_c(x)``.
* :class:`LQMI` (Algorithm 2): linear GE with intrinsic graph M and penalty H, largest ratios of
  ``X^T M X v = gamma X^T X v`` on the centred data, directions scaled to unit norm.
* :class:`QMIGraph`: the QMI graph for the generic GE estimators (``KernelGraphEmbedding(
  graph=QMIGraph())`` is the kernel objective of paper eq. 23, ``penalty="none"`` that of eq. 21).

The mathematics, choices and checks are in ``docs/qmi.md``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._validation import check_n_classes, check_n_components
from graphdr.graphs import GraphBuilder, GraphOperator, GraphPair, GroupCenteringOperator
from graphdr.kernels import (
    center_kernel_test,
    center_kernel_train,
    centred_kernel_range,
    check_kernel_health,
    check_kernel_memory,
    gamma_from_sigma,
    pairwise_kernel,
    resolve_gamma,
)
from graphdr.methods.graph_embedding import (
    DEFAULT_KERNEL_TOL,
    DEFAULT_REG,
    DEFAULT_TOL,
    GraphEmbedding,
)
from graphdr.solvers import column_signs, leading_singular_vectors

__all__ = [
    "KQMI",
    "LQMI",
    "QMIGraph",
    "QMIOperator",
    "qmi_factor",
    "qmi_matrix",
    "quadratic_mutual_information",
    "kqmi_solve",
    "kqmi_directions",
]

KERNELS = ("rbf", "linear", "poly", "precomputed")
# DEFAULT_KERNEL_TOL (1e-6), the relative eigenvalue threshold of the centred kernel, is shared
# with KernelGraphEmbedding: a new point enters through L^-1, so tiny kept eigenvalues amplify
# the rounding of k_c(x); it is also KQMI's only regulariser (docs/qmi.md).
# rows of new data projected per block: the test kernel block stays below ~256 MB
_BLOCK_BYTES = 256 * 2**20


# --------------------------------------------------------------------------------------------
# The QMI graph
# --------------------------------------------------------------------------------------------


def _encode(y) -> tuple[np.ndarray, np.ndarray]:
    _, codes = np.unique(np.asarray(y).ravel(), return_inverse=True)
    codes = codes.ravel()
    return codes, np.bincount(codes)


def qmi_factor(y_enc: np.ndarray, n_classes: int | None = None) -> np.ndarray:
    """``F = (Z - 1 pi^T) / N`` (N x C) with ``M = F F^T`` (paper eq. 19, symmetrised).

    Entry-wise ``F_ic = ([y_i = c] - N_c / N) / N``. ``F^T 1 = 0`` and ``F 1_C = 0``, so M has
    zero row sums and rank C-1. ``y_enc`` holds integer labels 0..C-1.
    """
    y = np.asarray(y_enc, dtype=np.intp).ravel()
    n = y.size
    counts = np.bincount(y, minlength=n_classes or 0)
    F = np.empty((n, counts.size))
    F[:] = -counts / n
    F[np.arange(n), y] += 1.0
    F /= n
    return F


class QMIOperator(GraphOperator):
    """The QMI graph matrix ``M = F F^T`` as an operator (O(N C) memory, O(N C) per product).

    ``M`` is the Laplacian of the QMI graph (paper eq. 30-31): ``diag(M) - M`` has zero row sums.
    """

    def __init__(self, y):
        self.labels, self.counts = _encode(y)
        self.factor = qmi_factor(self.labels, self.counts.size)
        self.shape = (self.labels.size, self.labels.size)

    def matmat(self, V: np.ndarray) -> np.ndarray:
        V = np.asarray(V, dtype=float)
        return self.factor @ (self.factor.T @ V)

    def diagonal(self) -> np.ndarray:
        """``M_ii = (1 - 2 pi_{y_i} + sum_c pi_c^2) / N^2``."""
        return np.einsum("ij,ij->i", self.factor, self.factor)

    def quadratic(self, X: np.ndarray) -> np.ndarray:
        """``X^T M X = (F^T X)^T (F^T X) = sum_c N_c^2 (mu_c - mu)(mu_c - mu)^T / N^2``."""
        T = self.factor.T @ np.asarray(X, dtype=float)
        Q = T.T @ T
        return (Q + Q.T) * 0.5


def qmi_matrix(y) -> np.ndarray:
    """The dense N x N matrix M (tests and small N only)."""
    F = QMIOperator(y).factor
    return F @ F.T


def quadratic_mutual_information(X, y, sigma: float = 1.0) -> float:
    """Torkkola's QMI ``V_IN + V_ALL - 2 V_BTW`` of samples X (N x D) and labels y.

    Parzen windows ``N(x; x_i, sigma^2 I)``; the pairwise interactions are
    ``G_ij = N(x_i - x_j; 0, 2 sigma^2 I) = (4 pi sigma^2)^(-D/2) exp(-||x_i - x_j||^2 / (4 sigma^2))``
    and ``I = sum_ij M_ij G_ij = tr(F^T G F)``. Builds the N x N matrix G.
    """
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real) or not sigma > 0:
        raise ValueError(f"sigma={sigma!r} must be a positive number (the Parzen width).")
    X = np.asarray(X, dtype=np.float64)
    labels, counts = _encode(y)
    if X.ndim != 2 or X.shape[0] != labels.size:
        raise ValueError(
            f"X must be (n_samples, n_features) with {labels.size} rows, got {X.shape}."
        )
    G = pairwise_kernel(X, kernel="rbf", gamma=gamma_from_sigma(np.sqrt(2.0) * sigma))
    G *= (4.0 * np.pi * sigma**2) ** (-X.shape[1] / 2.0)
    F = qmi_factor(labels, counts.size)
    return float(np.einsum("ic,ic->", G @ F, F))


@dataclass(frozen=True)
class QMIGraph(GraphBuilder):
    """The QMI graph for the GE estimators: maximise ``w^T X^T M X w`` (largest ratios).

    ``penalty="total"`` (default) constrains ``w^T X^T H X w = 1`` (linear: the centred
    ``X^T X`` of LQMI; kernel: ``a^T K K a = 1`` since K is centred, the unit-covariance
    constraint of paper eq. 22-23); ``penalty="none"`` is the scale normalisation (``w^T w = 1``,
    kernel ``a^T K a = 1``: paper eq. 21). At most C-1 directions (M has rank C-1).
    """

    penalty: str = "total"
    name = "qmi"
    largest = True

    def __call__(self, y=None, X=None, *, sq_distances=None, n_samples=None) -> GraphPair:
        if y is None:
            raise ValueError("The QMI graph is supervised: it needs the class labels y.")
        if self.penalty not in ("total", "none"):
            raise ValueError(f"penalty must be 'total' or 'none', got {self.penalty!r}.")
        intrinsic = QMIOperator(y)
        n = intrinsic.shape[0]
        penalty = None
        if self.penalty == "total":
            penalty = GroupCenteringOperator(np.zeros(n, dtype=np.intp))
        meta = {
            "name": "qmi",
            "largest": True,
            "penalty": self.penalty,
            "n_classes": int(intrinsic.counts.size),
        }
        return GraphPair(intrinsic, penalty, meta)

    def component_bound(self, n_classes: int):
        return n_classes - 1, "n_classes - 1", "at most C-1 directions (M has rank C-1)"


# --------------------------------------------------------------------------------------------
# Linear algebra of Algorithm 1
# --------------------------------------------------------------------------------------------


def kqmi_solve(
    Kc: np.ndarray, y_enc: np.ndarray, n_classes: int, n_components: int | None, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Paper Algorithm 1, step 2, on a centred kernel (overwritten).

    ``Kc = P L P^T`` (kept part); ``P^T M P = Q Q^T`` with ``Q = P^T F`` (r x C), so its leading
    eigenvectors B are the leading left singular vectors of Q and its eigenvalues ``h`` their
    squares; ``A = P L^-1 B``. ``n_components=None`` takes ``min(C-1, r)``. Returns (h, A, P, B, r): ``A^T K K A = B^T B = I`` and
    ``A^T K M K A = diag(h)``; the training embedding is ``K A = P B``.
    """
    lam, P = centred_kernel_range(Kc, tol)
    h, A, B = kqmi_directions(lam, P, y_enc, n_classes, n_components)
    return h, A, P, B, lam.size


def kqmi_directions(
    lam: np.ndarray, P: np.ndarray, y_enc: np.ndarray, n_classes: int, n_components: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 1 after the kernel EVD: ``(h, A, B)`` from the kept eigenpairs ``(lam, P)``.

    Split from :func:`kqmi_solve` so that one eigendecomposition of a training fold can serve
    KQMI and the other kernel methods (paper 001's benchmark sweep).
    """
    if n_components is None:  # every direction there is
        n_components = min(n_classes - 1, lam.size)
    elif n_components > lam.size:
        raise ValueError(
            f"n_components={n_components} is larger than the rank of the centred kernel = "
            f"{lam.size}: KQMI directions live in its range; lower tol or ask for fewer components."
        )
    Q = P.T @ qmi_factor(y_enc, n_classes)
    # Equal QMI values (balanced classes) leave a rotation free: take the principal axes of the
    # class means in feature space (eigenvectors of F^T Kc F = Q^T L Q, largest first) as the
    # order, not the class axes, so the leading directions do not depend on the class names.
    mean_gram = Q.T @ (lam[:, None] * Q)
    axes = scipy.linalg.eigh((mean_gram + mean_gram.T) * 0.5, check_finite=False)[1][:, ::-1]
    axes = axes / np.maximum(np.abs(axes).max(axis=0), 1e-300)  # scale-free Gram-Schmidt tol
    s, B = leading_singular_vectors(
        Q, n_components, candidates=np.hstack([axes, np.eye(n_classes)])
    )
    A = P @ (B / lam[:, None])
    return s**2, A, B


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------


class CentredKernelEmbeddingBase(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Validation, the training kernel and the projection ``z = dual_coef_^T k_c(x)``.

    Subclasses set ``dual_coef_`` (N x d), ``kernel_centering_`` (training kernel statistics) and
    ``X_fit_`` (None for a precomputed kernel). ``k_c(x) = H (k(x) - K~ 1 / N)`` is the column of
    a new point centred with the training statistics (:func:`graphdr.kernels.center_kernel_test`).
    """

    _label = "KQMI"
    # N x N arrays alive at the peak of fit (kernel, eigensolver workspace): the memory guard
    _n_kernel_matrices = 3

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @property
    def _n_features_out(self):
        return self.n_components_

    def _gamma(self):
        return self.gamma

    def _check_params(self) -> None:
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}.")
        tol = self.tol
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not 0 <= tol < 1:
            raise ValueError(
                f"tol must be a number in [0, 1) (a relative eigenvalue threshold), got {tol!r}."
            )

    def _validate_fit(self, X, y):
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' expects the square training kernel (n_samples, n_samples), "
                f"got shape {X.shape}."
            )
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        check_n_classes(y_enc, method=self._label)
        return X, y_enc.ravel().astype(np.intp), np.bincount(y_enc.ravel())

    def _kernel(self, X, Y=None) -> np.ndarray:
        return pairwise_kernel(
            X, Y, kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0
        )

    def _centred_train_kernel(self, X) -> np.ndarray:
        """The centred N x N training kernel (a private array); stores the centring statistics."""
        check_kernel_memory(
            X.shape[0], n_matrices=self._n_kernel_matrices, dtype=np.float64, method=self._label
        )
        if self.kernel == "precomputed":
            self.X_fit_, self.gamma_ = None, None
            K = np.array(X, dtype=np.float64, order="C", copy=True)
        else:
            self.X_fit_ = X
            self.gamma_ = (
                resolve_gamma(self._gamma(), X) if self.kernel in ("rbf", "poly") else None
            )
            K = self._kernel(X)
        check_kernel_health(
            K,
            method=self._label,
            kernel=self.kernel,
            gamma=self.gamma_,
            X=self.X_fit_,
            stacklevel=5,
        )
        Kc, self.kernel_centering_ = center_kernel_train(K, copy=False)
        return Kc

    def transform(self, X):
        """Project new points: ``z = dual_coef_^T k_c(x)``.

        With ``kernel="precomputed"``, X is the (n_queries, n_train) kernel against the training
        samples. Rows go in blocks so that the test kernel stays below ~256 MB.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        n_train = self.dual_coef_.shape[0]
        step = max(1, _BLOCK_BYTES // (8 * n_train))
        out = np.empty((X.shape[0], self.dual_coef_.shape[1]))
        for start in range(0, X.shape[0], step):
            block = X[start : start + step]
            if self.kernel == "precomputed":
                Kt = center_kernel_test(block, self.kernel_centering_, copy=True)
            else:
                Kt = self._kernel(block, self.X_fit_)
                Kt = center_kernel_test(Kt, self.kernel_centering_, copy=False)
            out[start : start + step] = Kt @ self.dual_coef_
        return out


class KQMI(CentredKernelEmbeddingBase):
    """Kernel quadratic mutual information (Bouzas et al. 2015, Algorithm 1).

    Maximises ``tr(A^T K M K A)`` subject to ``A^T K K A = I`` (K the centred kernel, M the QMI
    graph): ``K = P L P^T``, B the leading eigenvectors of ``P^T M P``, ``A = P L^-1 B``. At most
    C-1 directions. Fit once at the largest dimension: smaller ones are the leading columns.

    Parameters
    ----------
    n_components : int or None
        Number of directions, at most C-1 (None: C-1, or the rank of the centred kernel when
        that is smaller).
    sigma : float, default 1.0
        Parzen window width of the QMI estimate. The kernel is the interaction kernel of two
        windows, ``N(x_i - x_j; 0, 2 sigma^2 I)``, i.e. the RBF ``exp(-gamma ||a - b||^2)`` with
        ``gamma = 1 / (4 sigma^2)`` (paper section III-A). Its normalising constant cancels in
        ``K A`` and in ``A^T k_c(x)``, so it is left out (it underflows for large D).
    kernel : {"rbf", "linear", "poly", "precomputed"}, default "rbf"
        Any kernel can replace the Parzen one (paper section III-C). "precomputed": ``fit(K, y)``
        with the N x N training kernel, ``transform(K_test)`` with the (n, N) test kernel.
    gamma : float or None
        Overrides ``sigma`` for the RBF kernel (``exp(-gamma ||a - b||^2)``, the convention of the
        other kernel estimators); for "poly" None means 1 / n_features.
    degree, coef0 : polynomial kernel parameters.
    tol : float, default 1e-6
        Eigenvalues of the centred kernel at or below ``tol * max`` are dropped (the paper keeps
        them all; the zero eigenvalue of the centring makes ``L^-1`` undefined).
    unit_covariance : bool, default False
        False: Algorithm 1 as printed, ``A^T K K A = I`` (the training embedding has orthonormal
        columns). True: the unit-covariance constraint of eq. 22, ``A^T K K A = N I``.

    Attributes
    ----------
    dual_coef_ : (n_train, n_components) the matrix A* (``z = A*^T k_c(x)``).
    eigenvalues_ : (n_components,) eigenvalues of ``P^T M P``, i.e. the QMI ``a^T K M K a`` of each
        direction (with ``a^T K K a = 1``), descending.
    n_kernel_components_ : number of kept eigenpairs of the centred kernel (r).
    kernel_centering_, X_fit_ (None for a precomputed kernel), classes_, n_components_.
    """

    _label = "KQMI"

    def __init__(
        self,
        n_components=None,
        *,
        sigma=1.0,
        kernel="rbf",
        gamma=None,
        degree=2,
        coef0=1.0,
        tol=DEFAULT_KERNEL_TOL,
        unit_covariance=False,
    ):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.unit_covariance = unit_covariance

    def _gamma(self):
        if self.kernel == "rbf" and self.gamma is None:
            return gamma_from_sigma(np.sqrt(2.0) * self.sigma)  # 1 / (4 sigma^2)
        return self.gamma

    def _check_params(self) -> None:
        super()._check_params()
        sigma = self.sigma
        if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real) or not sigma > 0:
            raise ValueError(f"sigma={sigma!r} must be a positive number (the Parzen width).")

    def fit(self, X, y):
        """Fit on X (N x D, or the N x N kernel) and labels y."""
        self._fit(X, y, embed=False)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the training embedding ``K A* = P B`` (no second kernel evaluation)."""
        return self._fit(X, y, embed=True)

    def _fit(self, X, y, embed: bool):
        X, y_enc, counts = self._validate_fit(X, y)
        n_components = check_n_components(
            self.n_components,
            counts.size - 1,
            bound_name="n_classes - 1",
            reason="KQMI has at most C-1 directions (the QMI graph matrix M has rank C-1)",
        )
        Kc = self._centred_train_kernel(X)
        h, A, P, B, rank = kqmi_solve(
            Kc, y_enc, counts.size, None if self.n_components is None else n_components, self.tol
        )
        scale = np.sqrt(X.shape[0]) if self.unit_covariance else 1.0
        signs = column_signs(A) * scale
        self.dual_coef_ = np.ascontiguousarray(A * signs)
        self.eigenvalues_ = h
        self.n_components_ = h.size
        self.n_kernel_components_ = rank
        return (P @ B) * signs if embed else None


class LQMI(GraphEmbedding):
    """Linear quadratic mutual information (Bouzas et al. 2015, Algorithm 2).

    Largest ratios of ``X^T M X v = gamma X^T X v`` on the centred data (linear GE with the QMI
    graph as intrinsic graph and H as penalty, :class:`QMIGraph`); the directions are then scaled
    to unit norm. ``X^T M X = sum_c N_c^2 (mu_c - mu)(mu_c - mu)^T / N^2``. At most C-1 directions.
    Like every linear GE estimator the problem is solved in the span of the centred training
    data, so D >= N is well posed; ``reg`` is the GE ridge on the denominator scatter.

    Parameters
    ----------
    n_components : int or None (C-1).
    reg : relative ridge of the "regularized" solver (``X^T X + reg * tr / r * I``).
    solver : "regularized" or "range" (see ``graphdr.methods.graph_embedding``).
    tol : relative eigenvalue threshold of the data span.

    Attributes
    ----------
    components_ (n_components, n_features) unit-norm rows, mean_, eigenvalues_ (gamma,
    descending), n_components_, classes_, graph_meta_.
    """

    def __init__(
        self, n_components=None, *, reg=DEFAULT_REG, solver="regularized", tol=DEFAULT_TOL
    ):
        self.n_components = n_components
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return QMIGraph()

    def fit(self, X, y):
        """Fit on X (N x D) and labels y."""
        super().fit(X, y)
        self.components_ /= np.linalg.norm(self.components_, axis=1, keepdims=True)
        return self
