"""Discriminative common vectors: DCV, a baseline of paper 003 (DEE).

* :class:`DCV` — discriminative common vectors (Cevikalp et al. 2005): remove the within-class
  scatter range, then PCA of the resulting per-class common vectors (at most C-1 directions).
  :func:`common_vectors` computes the common vectors (the class means projected onto the null
  space of the within-class scatter), :func:`smallest_scatter_common_vectors` a sensitivity
  variant on the smallest-scatter directions.
* :class:`LinearSpectralBase` — the linear projection ``(X - mean_) @ components_.T`` and the
  supervised input checks and tags, shared with MMPA (:mod:`graphdr.methods.patch_alignment`)
  and LFDA (:mod:`graphdr.methods.local_fisher`), which also share its span set-up.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from graphdr._validation import check_n_classes, check_n_components
from graphdr.methods._linear import LinearProjectionMixin
from graphdr.methods.graph_embedding import data_span
from graphdr.solvers import flip_signs

__all__ = ["DCV", "LinearSpectralBase", "common_vectors"]


class LinearSpectralBase(LinearProjectionMixin, BaseEstimator):
    """``transform = (X - mean_) @ components_.T`` and the supervised tags."""

    def _validate_xy(self, X, y, method):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        codes = codes.ravel()
        check_n_classes(codes, method=method)
        return X, codes

    def _fit_span(self, X, y, method: str):
        """The shared start of MMPA's and LFDA's ``fit``: checked ``X`` and label codes, the
        ``n_components`` bounds, ``mean_``, and the centred data's coordinates ``Z`` in an
        orthonormal ``basis`` of their span (the GE family's one Gram eigendecomposition).
        Returns ``(Z, basis, codes, d)``."""
        X, codes = self._validate_xy(X, y, method)
        check_n_components(
            self.n_components,
            X.shape[1],
            bound_name="n_features",
            reason=f"{method} is a linear projection, with at most one direction per feature",
        )
        self.mean_ = X.mean(axis=0)
        Z, basis = data_span(X - self.mean_)
        return Z, basis, codes, self._components_in_span(Z.shape[1], method)

    def _components_in_span(self, rank: int, method: str) -> int:
        """``n_components`` (None: ``rank``), at most the rank of the centred training data."""
        if self.n_components is None:
            return rank
        if self.n_components > rank:
            raise ValueError(
                f"n_components={self.n_components} is larger than the rank of the centred "
                f"training data = {rank}: {method}'s directions live in the span of the data."
            )
        return int(self.n_components)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def _class_means(X: np.ndarray, codes: np.ndarray, n_classes: int) -> np.ndarray:
    counts = np.bincount(codes, minlength=n_classes).astype(float)
    means = np.zeros((n_classes, X.shape[1]))
    np.add.at(means, codes, X)
    return means / counts[:, None]


# --------------------------------------------------------------------------------------------
# DCV
# --------------------------------------------------------------------------------------------


def smallest_scatter_common_vectors(Xc, codes, n_classes, k, tol):
    """Common vectors on the ``k`` smallest-eigenvalue directions of ``S_w`` (a sensitivity
    variant of :func:`common_vectors`): the class means projected onto the span of the ``k``
    eigenvectors of ``S_w`` with the smallest eigenvalues, within the range of the total
    scatter (constant features carry nothing). With ``k`` at most the null space's dimension
    this is a subspace of the exact null space; beyond it, directions of small but non-zero
    within-class scatter join (the classes no longer collapse to single points)."""
    means = _class_means(Xc, codes, n_classes)
    Xw = Xc - means[codes]
    _, s, Vt = scipy.linalg.svd(Xc, full_matrices=False)
    B = Vt[s > tol * s[0]].T if s.size and s[0] > 0 else Vt[:0].T
    Wb = Xw @ B
    _, V = scipy.linalg.eigh(Wb.T @ Wb)  # ascending
    N0 = B @ V[:, : min(int(k), B.shape[1])]
    return (means @ N0) @ N0.T


def common_vectors(Xc, codes, n_classes, n_needed, tol):
    """Per-class common vectors: the class means projected onto the null space of ``S_w``.

    ``S_w = sum_i (x_i - m_{c_i})(x_i - m_{c_i})^T``. Every sample of class c projects onto
    ``null(S_w)`` at the same point (its deviation from ``m_c`` lies in ``range(S_w)``), so the
    class mean represents it. ``range(S_w)`` = right singular vectors of the within-class-centred
    data with ``s > tol * s_max``.

    When ``null(S_w)`` has fewer than ``n_needed`` dimensions (n_features <= n_samples -
    n_classes, so ``S_w`` is usually nonsingular) the ``n_needed`` eigenvectors of ``S_w`` with
    the smallest eigenvalues stand in for it and a warning says so; classes then map to tight
    clusters rather than single points. Returns ``(common (C, D), exact: bool)``.
    """
    means = _class_means(Xc, codes, n_classes)
    Xw = Xc - means[codes]
    n, D = Xw.shape
    if D > n:  # thin SVD: the range has at most n - C dimensions, the null space the rest
        _, s, Vt = scipy.linalg.svd(Xw, full_matrices=False)
        Q = Vt[s > tol * s[0]] if s.size and s[0] > 0 else Vt[:0]
        return means - (means @ Q.T) @ Q, True
    # Directions in which no training sample varies (constant features) lie in null(S_w) but
    # carry nothing: counted as discriminant, they made every common vector the same point (a
    # collapsed embedding, silently). So work in the range of the total scatter, as Cevikalp et
    # al. do (with D > n above, the means and range(S_w) already lie in it).
    t_evals, T = scipy.linalg.eigh(Xc.T @ Xc)
    B = T[:, t_evals > (tol**2) * max(t_evals[-1], 0.0)]
    if B.shape[1] < D:
        common, exact = common_vectors(Xc @ B, codes, n_classes, n_needed, tol)
        return common @ B.T, exact
    evals, V = scipy.linalg.eigh(Xw.T @ Xw)  # ascending
    null = evals <= (tol**2) * max(evals[-1], 0.0)
    exact = int(null.sum()) >= n_needed
    if not exact:
        null = np.arange(D) < n_needed
        warnings.warn(
            f"DCV: the within-class scatter has a null space of dimension "
            f"{int((evals <= (tol**2) * max(evals[-1], 0.0)).sum())} < {n_needed} "
            f"(n_features = {D} <= n_samples - n_classes = {n - n_classes}); using its "
            f"{n_needed} smallest-eigenvalue directions instead, so classes do not collapse "
            "to single points.",
            UserWarning,
            stacklevel=3,
        )
    N0 = V[:, null]
    return (means @ N0) @ N0.T, exact


class DCV(LinearSpectralBase):
    """Discriminative common vectors (Cevikalp, Neamtu, Wilkes & Barkana 2005).

    Project the data onto the null space of the within-class scatter ``S_w``: every training
    sample of a class lands on one *common vector*. The projection directions are the principal
    axes of the (centred) common vectors, at most C-1 of them. All training samples of a class
    therefore map to one point. Needs ``n_features > n_samples - n_classes`` for a non-trivial
    null space (the small-sample-size case DCV was designed for); otherwise the smallest-scatter
    directions stand in, with a warning.

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_classes - 1`` (None: that bound, or ``n_features`` if smaller).
    tol : float, default=1e-8
        Relative singular-value threshold defining the range of ``S_w``.
    n_smallest : int or None, default=None
        None: the exact null space of ``S_w`` (Cevikalp et al.). An int k: the k
        smallest-eigenvalue directions of ``S_w`` instead (:func:`smallest_scatter_common_vectors`;
        a sensitivity variant for data whose null space is small, e.g. USPS with 256 features and
        250 training digits: 16 dimensions).

    Attributes
    ----------
    components_ : (n_components, n_features), orthonormal rows (sign rule applied).
    mean_ : (n_features,).
    explained_variance_ : (n_components,) variance of the common vectors along each direction.
    classes_ : labels.
    exact_null_space_ : bool.
    """

    def __init__(self, n_components=None, *, tol=1e-8, n_smallest=None):
        self.n_components = n_components
        self.tol = tol
        self.n_smallest = n_smallest

    def fit(self, X, y):
        """Fit on labelled data ``X`` (N x D), ``y`` (N,)."""
        if not (isinstance(self.tol, numbers.Real) and 0 <= self.tol < 1):
            raise ValueError(f"tol must be a number in [0, 1), got {self.tol!r}.")
        ns = self.n_smallest
        if ns is not None and (
            isinstance(ns, bool) or not isinstance(ns, numbers.Integral) or ns < 1
        ):
            raise ValueError(
                f"n_smallest must be None (exact null space) or an integer >= 1, got {ns!r}."
            )
        X, codes = self._validate_xy(X, y, "DCV")
        n_classes = self.classes_.size
        d = self._resolve(n_classes, X.shape[1])
        self.mean_ = X.mean(axis=0)
        if ns is None:
            common, self.exact_null_space_ = common_vectors(
                X - self.mean_, codes, n_classes, d, self.tol
            )
        else:
            common = smallest_scatter_common_vectors(X - self.mean_, codes, n_classes, ns, self.tol)
            self.exact_null_space_ = False
        Cc = common - common.mean(axis=0)
        _, s, Vt = scipy.linalg.svd(Cc, full_matrices=False)
        self.components_ = np.ascontiguousarray(flip_signs(Vt[:d].T.copy()).T)
        self.explained_variance_ = s[:d] ** 2 / n_classes
        self.n_components_ = d
        return self

    def _resolve(self, n_classes, n_features):
        bound, name = n_classes - 1, "n_classes - 1"
        if n_features < bound:
            bound, name = n_features, "n_features"
        return check_n_components(
            self.n_components,
            bound,
            bound_name=name,
            reason="DCV has at most C-1 discriminant directions (the common vectors of C classes "
            "span at most C-1 dimensions) and no more than one per feature",
        )
