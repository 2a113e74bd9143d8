"""Complete kernel Fisher discriminant: CKFD and its fusion-distance classifier (paper 001).

CKFD is a baseline of paper 001 (QMI). The paper's other baselines come from their own modules:
PCA, LDA, KPCA, (supervised or plain) LPP and KLPP from :mod:`graphdr.methods.graph_embedding`
(``PCA_GE``, ``LDA_GE``, ``KPCA_GE``, ``LPP_GE(supervised=...)``, ``KLPP_GE``), GDA from
:mod:`graphdr.methods.discriminant`.

CKFD, complete kernel Fisher discriminant (Yang, Frangi, Yang, Zhang & Jin, TPAMI 2005): KPCA,
then LDA in the KPCA space R^m, split by the within-class scatter S_w:

* irregular features: directions in the null space of S_w (infinite Fisher ratio), the leading
  eigenvectors of the between-class scatter S_b restricted to it (unit norm);
* regular features: directions in the range of S_w, the generalised eigenvectors of
  ``S_b u = lambda S_w u`` restricted to it (``u^T S_w u = 1``);
* classification by the summed normalised distance ("fusion")
  ``g(z, z_i) = theta ||z1 - z1_i|| / sum_j ||z1 - z1_j|| + ||z2 - z2_i|| / sum_j ||z2 - z2_j||``
  (z1 regular, z2 irregular; sums over the references: training samples for k-NN, class means
  for the nearest centroid).

Everything after the KPCA eigendecomposition ``Kc = U S U^T`` is small. With Y = U S^{1/2} the
KPCA coordinates, ``S_t = S``, ``S_b = S^{1/2} G G^T S^{1/2}`` and ``S_w = S^{1/2}(I - G G^T)
S^{1/2}`` where ``G = U^T Z D^{-1/2}`` (m x C, singular values <= 1: the cosines between the
kernel's range and the class indicators). So the null space of S_w is ``S^{-1/2} V0``, V0 the
singular vectors of G with singular value 1, and both problems reduce to thin SVDs of m x C
matrices (:func:`ckfd_directions`): CKFD costs one N x N eigendecomposition, like KPCA or GDA.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._numba import njit
from graphdr._validation import check_n_components, check_positive_int
from graphdr.kernels import centred_kernel_range, squared_distances
from graphdr.methods.graph_embedding import DEFAULT_KERNEL_TOL
from graphdr.methods.qmi import (
    CentredKernelEmbeddingBase,
)
from graphdr.solvers import column_signs, leading_singular_vectors

__all__ = [
    "CKFD",
    "FusionDistanceClassifier",
    "ckfd_directions",
    "fusion_distances",
    "mean_pairwise_distance",
]

#: a singular value sigma of G with ``1 - sigma^2 <= NULL_TOL`` spans the null space of S_w
#: (``1 - sigma^2`` is the within-class share of the variance along that direction)
NULL_TOL = 1e-8
REGULAR, IRREGULAR = "regular", "irregular"
_FEATURES = ("fused", REGULAR, IRREGULAR)


# --------------------------------------------------------------------------------------------
# The maths
# --------------------------------------------------------------------------------------------


def _orth(A: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the columns of A (thin QR; A has full column rank here)."""
    return scipy.linalg.qr(A, mode="economic", check_finite=False)[0]


def ckfd_directions(U: np.ndarray, lam: np.ndarray, y_enc: np.ndarray, counts: np.ndarray):
    """CKFD's regular and irregular directions from the KPCA eigenpairs ``Kc = U diag(lam) U^T``.

    Returns a dict of dual coefficients (features ``z = alpha^T k_c(x)``) and criteria:
    ``regular`` (N x d1), ``regular_ratios`` (Fisher ratios ``tau^2 / (1 - tau^2)``),
    ``irregular`` (N x d2), ``irregular_scatter`` (``w^T S_b w`` with ``||w|| = 1``), and
    ``null_dim`` (dimension of the null space of S_w in the KPCA space).

    * null space: ``G = W diag(sigma) V^T``; ``V0`` = columns of W with ``1 - sigma^2 <= NULL_TOL``;
      in KPCA coordinates it is spanned by ``S^{-1/2} V0``.
    * irregular: ``P2 = orth(S^{-1/2} V0)``, ``S_b`` restricted is ``(P2^T S^{1/2} G)(...)^T``;
      its leading eigenvectors ``e`` give ``w = P2 e``, ``alpha = U S^{-1/2} w``.
    * regular: with ``v = S^{1/2} w`` the range of S_w (``w`` orthogonal to the null space) is
      ``v`` orthogonal to ``Q = orth(S^{-1} V0)``, where the pencil is ``(G G^T, I - G G^T)``
      restricted; the left singular vectors x of ``(I - Q Q^T) G`` (values tau) solve it with
      ``lambda = tau^2 / (1 - tau^2)``; ``w = S^{-1/2} x / sqrt(1 - tau^2)`` (``w^T S_w w = 1``),
      ``alpha = U S^{-1} x / sqrt(1 - tau^2)``.
    """
    root = np.sqrt(lam)
    Zs = np.zeros((y_enc.size, counts.size))
    Zs[np.arange(y_enc.size), y_enc] = 1.0 / np.sqrt(counts[y_enc])
    G = U.T @ Zs
    W, sigma, _ = scipy.linalg.svd(G, full_matrices=False, check_finite=False)
    V0 = W[:, 1.0 - sigma**2 <= NULL_TOL]
    rank_b = int(np.sum(sigma > NULL_TOL))  # rank of S_b (C - 1 in general)
    out = {"null_dim": V0.shape[1]}

    if V0.shape[1]:
        P2 = _orth(V0 / root[:, None])
        d2 = min(V0.shape[1], rank_b)
        scatter, E = leading_singular_vectors(P2.T @ (G * root[:, None]), d2)
        out["irregular"] = U @ ((P2 @ E) / root[:, None])
        out["irregular_scatter"] = scatter**2
        Q = _orth(V0 / lam[:, None])
        G_reg = G - Q @ (Q.T @ G)
    else:
        out["irregular"] = np.zeros((U.shape[0], 0))
        out["irregular_scatter"] = np.zeros(0)
        G_reg = G
    tau, X = leading_singular_vectors(G_reg)
    valid = (tau > NULL_TOL) & (1.0 - tau**2 > NULL_TOL)  # S_b > 0, and not in the null space
    tau, X = tau[valid], X[:, valid]
    out["regular"] = U @ (X / (lam[:, None] * np.sqrt(1.0 - tau**2)))
    out["regular_ratios"] = tau**2 / (1.0 - tau**2)
    return out


def interleave(n_regular: int, n_irregular: int) -> list[tuple[str, int]]:
    """Column order of the fused output: regular 1, irregular 1, regular 2, irregular 2, ...

    So the leading 2d columns hold d features of each kind; the longer kind ends the list.
    """
    order = []
    for k in range(max(n_regular, n_irregular)):
        if k < n_regular:
            order.append((REGULAR, k))
        if k < n_irregular:
            order.append((IRREGULAR, k))
    return order


@njit
def _sum_pairwise_distances(Z):
    """``sum_{i<j} ||z_i - z_j||`` in one pass (no N x N array)."""
    n, d = Z.shape
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s = 0.0
            for k in range(d):
                diff = Z[i, k] - Z[j, k]
                s += diff * diff
            total += np.sqrt(s)
    return total


def mean_pairwise_distance(Z: np.ndarray) -> float:
    """Mean Euclidean distance over the pairs of rows of Z (0 for fewer than two rows)."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n = Z.shape[0]
    if n < 2 or Z.shape[1] == 0:
        return 0.0
    return float(_sum_pairwise_distances(Z) / (n * (n - 1) / 2))


def fusion_distances(Z_query, Z_ref, kinds, theta: float = 1.0) -> np.ndarray:
    """Yang et al.'s summed normalised distance between queries and references (n_q x n_ref).

    ``g(z, r_i) = theta d1(z, r_i) / sum_j d1(z, r_j) + d2(z, r_i) / sum_j d2(z, r_j)`` with d1,
    d2 the Euclidean distances on the regular and irregular columns (``kinds[k]`` says which);
    a kind with no column, or whose distances all vanish, contributes 0. Invariant to scaling
    either block, so it works on raw or fusion-scaled CKFD features alike.
    """
    kinds = np.asarray(kinds)
    g = np.zeros((Z_query.shape[0], Z_ref.shape[0]))
    for kind, weight in ((REGULAR, theta), (IRREGULAR, 1.0)):
        cols = kinds == kind
        if not cols.any():
            continue
        d = np.sqrt(squared_distances(Z_query[:, cols], Z_ref[:, cols]))
        total = d.sum(axis=1, keepdims=True)
        g += weight * np.divide(d, total, out=np.zeros_like(d), where=total > 0)
    return g


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------


class CKFD(CentredKernelEmbeddingBase):
    """Complete kernel Fisher discriminant (Yang et al. 2005): KPCA + regular/irregular LDA.

    Parameters
    ----------
    n_components : int or None
        Number of output columns. "fused": at most 2 (C-1) (C-1 regular and C-1 irregular,
        interleaved: regular 1, irregular 1, regular 2, ...); "regular" / "irregular": at most
        C-1. None: every feature available.
    kernel, gamma, degree, coef0 : kernel, scikit-learn conventions (gamma "scale", the
        default: ``1 / (n_features * X.var())`` of the training data; None: 1/n_features;
        paper 001 uses the RBF kernel with sigma = 1, i.e. gamma = 0.5, passed explicitly).
    features : {"fused", "regular", "irregular"}, default "fused"
        Which discriminant features ``transform`` returns.
    theta : float, default 1.0
        Fusion coefficient (weight of the regular features). Yang et al. leave it to the user and
        paper 001 does not report it; 1 weighs both kinds equally.
    tol : relative eigenvalue threshold of the centred kernel (KPCA keeps ``> tol * max``).

    The fused output is scaled so that plain Euclidean distance approximates the fusion
    distance: regular columns by ``theta / s1``, irregular ones by ``1 / s2``, with s1, s2 the
    mean pairwise training distances within each kind (the training-set proxies of Yang's
    per-query normalisers). Euclidean distance then combines the two normalised distances in
    quadrature, ``sqrt((theta d1 / s1)^2 + (d2 / s2)^2)``, instead of summing them. For the
    exact rule use :class:`FusionDistanceClassifier` with ``kinds=feature_kinds_``.

    Attributes
    ----------
    dual_coef_ (n_train, n_components), feature_kinds_ (per column "regular"/"irregular"),
    regular_ratios_ (Fisher ratios of the regular directions used), irregular_scatter_
    (between-class scatter of the irregular directions used), fusion_scale_ ({"regular": theta/s1,
    "irregular": 1/s2}, 1.0 when not fused), null_space_dim_, n_kernel_components_,
    kernel_centering_, X_fit_, classes_, n_components_.
    """

    _label = "CKFD"

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        features="fused",
        theta=1.0,
        tol=DEFAULT_KERNEL_TOL,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.features = features
        self.theta = theta
        self.tol = tol

    def _check_params(self) -> None:
        super()._check_params()
        if self.features not in _FEATURES:
            raise ValueError(f"features must be one of {_FEATURES}, got {self.features!r}.")
        theta = self.theta
        if isinstance(theta, bool) or not isinstance(theta, numbers.Real) or not theta >= 0:
            raise ValueError(f"theta={theta!r} must be a number >= 0 (the fusion coefficient).")

    def fit(self, X, y):
        """Fit on X (N x D, or the N x N kernel) and labels y."""
        X, y_enc, counts = self._validate_fit(X, y)
        per_kind = counts.size - 1
        fused = self.features == "fused"
        n_components = check_n_components(
            self.n_components,
            2 * per_kind if fused else per_kind,
            bound_name="2 (n_classes - 1)" if fused else "n_classes - 1",
            reason="CKFD has at most C-1 regular and C-1 irregular discriminant features",
        )
        lam, U = centred_kernel_range(self._centred_train_kernel(X), self.tol)
        self._fit_eigh(lam, U, y_enc, counts, n_components)
        return self

    def _fit_eigh(self, lam, U, y_enc, counts, n_components) -> None:
        """Everything after the kernel EVD (kept eigenpairs ``lam``, ``U``): the directions,
        the column order and the fusion scaling. Paper 001's sweep calls it with the EVD it
        shares between the kernel methods of one training fold."""
        parts = ckfd_directions(U, lam, y_enc, counts)
        order = self._column_order(parts, n_components)
        self._store(parts, order, U, lam)
        self.null_space_dim_ = parts["null_dim"]
        self.n_kernel_components_ = lam.size

    def _column_order(self, parts, n_components) -> list[tuple[str, int]]:
        n_reg, n_irr = parts[REGULAR].shape[1], parts[IRREGULAR].shape[1]
        if self.features == "fused":
            order = interleave(n_reg, n_irr)
        else:
            order = [(self.features, k) for k in range(parts[self.features].shape[1])]
        if self.n_components is not None and n_components > len(order):
            raise ValueError(
                f"n_components={n_components} is larger than the number of CKFD features found "
                f"= {len(order)} ({n_reg} regular, {n_irr} irregular; the null space of the "
                f"within-class scatter has dimension {parts['null_dim']}): ask for fewer "
                "components or lower tol."
            )
        if not order:
            raise ValueError(
                f"CKFD found no {self.features} discriminant feature (null space of the "
                f"within-class scatter: dimension {parts['null_dim']}); use features='fused'."
            )
        return order[:n_components]

    def _store(self, parts, order, U, lam) -> None:
        """Dual coefficients in column order, the sign rule, and the fusion scaling."""
        alpha = np.column_stack([parts[kind][:, k] for kind, k in order])
        alpha *= column_signs(alpha)
        kinds = np.array([kind for kind, _ in order])
        self.fusion_scale_ = {REGULAR: 1.0, IRREGULAR: 1.0}
        if self.features == "fused":
            Z = U @ (lam[:, None] * (U.T @ alpha))  # training features Kc alpha (alpha in span U)
            for kind, weight in ((REGULAR, float(self.theta)), (IRREGULAR, 1.0)):
                s = mean_pairwise_distance(Z[:, kinds == kind])
                self.fusion_scale_[kind] = weight / s if s > 0 else weight
                alpha[:, kinds == kind] *= self.fusion_scale_[kind]
        self.dual_coef_ = np.ascontiguousarray(alpha)
        self.feature_kinds_ = kinds
        self.regular_ratios_ = parts["regular_ratios"][[k for kind, k in order if kind == REGULAR]]
        self.irregular_scatter_ = parts["irregular_scatter"][
            [k for kind, k in order if kind == IRREGULAR]
        ]
        self.n_components_ = alpha.shape[1]


class FusionDistanceClassifier(ClassifierMixin, BaseEstimator):
    """Nearest-neighbour or nearest-centroid classifier with CKFD's fusion distance.

    ``g(z, r_i) = theta d1(z, r_i) / sum_j d1(z, r_j) + d2(z, r_i) / sum_j d2(z, r_j)``
    (:func:`fusion_distances`), the references r being the training samples (``rule="knn"``,
    majority vote of the ``n_neighbors`` nearest, ties to the nearest of the tied classes) or the
    class means (``rule="ncc"``, their normalisers summing over the class means).

    Parameters
    ----------
    theta : fusion coefficient (weight of the regular distance), default 1.0.
    rule : {"knn", "ncc"}, default "knn".
    n_neighbors : int, default 3 (paper 001's k-NN; Yang et al. use 1).
    kinds : sequence of "regular"/"irregular" per input column, or None
        Pass ``CKFD.feature_kinds_``. Only the first ``n_features`` entries are used, so the
        leading columns of one CKFD embedding (the dimension sweep) need no refit. None: the
        columns alternate regular, irregular, ... (CKFD's fused layout when both kinds have the
        same number of features, the usual case).
    """

    def __init__(self, theta=1.0, rule="knn", n_neighbors=3, kinds=None):
        self.theta = theta
        self.rule = rule
        self.n_neighbors = n_neighbors
        self.kinds = kinds

    def _kinds(self, n_features: int) -> np.ndarray:
        if self.kinds is None:
            return np.array([REGULAR if k % 2 == 0 else IRREGULAR for k in range(n_features)])
        kinds = np.asarray(self.kinds).ravel()
        if kinds.size < n_features or not np.isin(kinds, (REGULAR, IRREGULAR)).all():
            raise ValueError(
                f"kinds must give 'regular' or 'irregular' for each of the {n_features} columns "
                f"(CKFD.feature_kinds_), got {kinds.tolist()}."
            )
        return kinds[:n_features]

    def fit(self, X, y):
        """Store the references (training samples or class means) and the column kinds."""
        if self.rule not in ("knn", "ncc"):
            raise ValueError(f"rule must be 'knn' or 'ncc', got {self.rule!r}.")
        check_positive_int("n_neighbors", self.n_neighbors)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        self.kinds_ = self._kinds(X.shape[1])
        if self.rule == "ncc":
            counts = np.bincount(y_enc, minlength=self.classes_.size)
            sums = np.zeros((self.classes_.size, X.shape[1]))
            np.add.at(sums, y_enc, X)
            self.references_, self.reference_labels_ = (
                sums / counts[:, None],
                np.arange(counts.size),
            )
        else:
            self.references_, self.reference_labels_ = X, y_enc.ravel()
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        g = fusion_distances(X, self.references_, self.kinds_, float(self.theta))
        if self.rule == "ncc":
            return self.classes_[np.argmin(g, axis=1)]
        k = min(self.n_neighbors, g.shape[1])
        nearest = np.argsort(g, axis=1, kind="stable")[:, :k]
        labels = self.reference_labels_[nearest]
        pred = np.empty(X.shape[0], dtype=np.intp)
        for i in range(X.shape[0]):
            votes = np.bincount(labels[i], minlength=self.classes_.size)
            tied = np.flatnonzero(votes == votes.max())
            # the first neighbour (nearest first) whose class is among the most voted
            pred[i] = next(c for c in labels[i] if c in tied)
        return self.classes_[pred]
