"""Local Fisher discriminant analysis: LFDA (Sugiyama 2007), a baseline named by paper 003.

* :class:`LFDA` — Fisher's criterion with pairwise weights that fade with distance inside a class,
  so a class made of separate clusters is not pulled into one (Sugiyama, "Dimensionality reduction
  of multimodal labeled data by local Fisher discriminant analysis", JMLR 8, 2007). Paper 003
  (sec. 2.3) names it among the spectral methods whose 2-D embeddings "always present crowding
  problem" (its claim C26, judged on the visualisation study).
* :func:`local_scaling_affinity` — the within-class affinities with local scaling
  (Zelnik-Manor and Perona), :func:`lfda_weights` — the pairwise weights of the two scatters.

The definitions follow the JMLR paper (eq. 5-6 and sec. 4.1); the conventions the paper leaves to
its software (the neighbour index of the local scale, within each class; the weighted
eigenvectors) follow its author's public description. Written here, not taken from a library:
scikit-learn has no LFDA, and metric-learn's is a metric learner without the span reduction that
raw pixels (D >> N) need.
"""

from __future__ import annotations

import numpy as np

from graphdr._validation import check_positive_int, check_positive_real
from graphdr.graphs import dense_laplacian_quadratic
from graphdr.kernels import squared_distances
from graphdr.methods.common_vectors import LinearSpectralBase
from graphdr.solvers import eigh_generalized, flip_signs

__all__ = ["LFDA", "lfda_weights", "local_scaling_affinity"]

LFDA_METRICS = ("weighted", "orthonormalized", "plain")


def local_scaling_affinity(D2: np.ndarray, codes: np.ndarray, n_neighbors: int) -> np.ndarray:
    """``A_ij = exp(-||x_i - x_j||^2 / (sigma_i sigma_j))`` for ``i, j`` of one class, else 0.

    ``sigma_i`` is the distance from ``x_i`` to its ``n_neighbors``-th nearest sample of its own
    class (the class's farthest when the class is smaller). A pair with ``sigma_i sigma_j = 0``
    (duplicated samples) gets 0. ``D2``: squared distances, N x N.
    """
    A = np.zeros_like(D2)
    for c in np.unique(codes):
        idx = np.flatnonzero(codes == c)
        block = D2[np.ix_(idx, idx)]
        k = min(int(n_neighbors), idx.size - 1)  # position k of the sorted column: self is 0th
        sigma = np.sqrt(np.partition(block, k, axis=0)[k])
        scale = np.outer(sigma, sigma)
        positive = scale > 0
        A[np.ix_(idx, idx)] = np.where(
            positive, np.exp(-block / np.where(positive, scale, 1.0)), 0.0
        )
    return A


def lfda_weights(A: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise weights of LFDA's local within- and between-class scatters (JMLR eq. 5-6).

    ``W_lw = A_ij / n_c`` and ``W_lb = A_ij (1/n - 1/n_c)`` for a pair of class ``c``;
    ``W_lw = 0`` and ``W_lb = 1/n`` across classes. With ``A = 1`` the two scatters
    ``1/2 sum_ij W_ij (x_i - x_j)(x_i - x_j)^T`` are Fisher's within- and between-class
    scatters (tested).
    """
    n = codes.size
    counts = np.bincount(codes)[codes].astype(float)
    same = codes[:, None] == codes[None, :]
    Ww = np.where(same, A / counts[:, None], 0.0)
    Wb = np.where(same, A * (1.0 / n - 1.0 / counts[:, None]), 1.0 / n)
    return Ww, Wb


class LFDA(LinearSpectralBase):
    """Local Fisher discriminant analysis (Sugiyama 2007).

    Maximises ``tr(T^T S_lb T)`` against ``T^T S_lw T`` where the local scatters
    ``S_l = 1/2 sum_ij W_ij (x_i - x_j)(x_i - x_j)^T`` weigh each same-class pair by its
    affinity (:func:`local_scaling_affinity`, :func:`lfda_weights`): near pairs of a class are
    pulled together, far ones are left alone, so a multimodal class keeps its modes. Solved as
    ``S_lb v = lambda S_lw v`` in the span of the centred data (one Gram eigendecomposition, so
    raw pixels with D >> N cost an N x N problem), with ``S_lw`` regularised by
    ``reg * tr(S_lw) / r * I`` (:func:`graphdr.solvers.eigh_generalized`): with fewer samples
    than dimensions ``S_lw`` is singular, and Sugiyama's later software adds the same kind of
    ridge.

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_features`` and the rank of the centred training data (None: that rank).
    n_neighbors : int, default=7
        The neighbour whose distance is a sample's local scale (Sugiyama's default, 7).
    metric : {"weighted", "orthonormalized", "plain"}, default="weighted"
        Scaling of the directions: ``v_k sqrt(lambda_k)`` with ``v^T (S_lw + ridge) v = 1``
        (Sugiyama's default: distances in the embedding reflect the ratios), orthonormal
        directions spanning the same subspace, or the ``S_lw``-normalised ``v_k``.
    reg : float, default=1e-4
        Relative ridge of ``S_lw`` (as :class:`~graphdr.methods.patch_alignment.MMPA`).

    Attributes
    ----------
    components_ : (n_components, n_features).
    mean_ : (n_features,).
    eigenvalues_ : (n_components,) the generalised eigenvalues, descending.
    n_components_ : int.
    classes_ : labels.
    """

    def __init__(self, n_components=None, *, n_neighbors=7, metric="weighted", reg=1e-4):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.reg = reg

    def fit(self, X, y):
        """Fit on labelled data ``X`` (N x D), ``y`` (N,)."""
        self._check_params()
        Z, basis, codes, d = self._fit_span(X, y, "LFDA")
        A = local_scaling_affinity(squared_distances(Z), codes, self.n_neighbors)
        Ww, Wb = lfda_weights(A, codes)
        S_lw, S_lb = dense_laplacian_quadratic(Z, Ww), dense_laplacian_quadratic(Z, Wb)
        w, V = eigh_generalized(S_lb, S_lw, d, largest=True, reg=self.reg)
        T = basis @ V
        if self.metric == "weighted":
            T = T * np.sqrt(np.clip(w, 0.0, None))
        elif self.metric == "orthonormalized":
            T = np.linalg.qr(T)[0]
        self.eigenvalues_ = w
        self.components_ = np.ascontiguousarray(flip_signs(T).T)
        self.n_components_ = d
        return self

    def _check_params(self):
        check_positive_int("n_neighbors", self.n_neighbors)
        if self.metric not in LFDA_METRICS:
            raise ValueError(f"metric must be one of {LFDA_METRICS}, got {self.metric!r}.")
        try:
            check_positive_real("reg", self.reg)
        except ValueError as err:
            raise ValueError(
                f"{err} With fewer samples than features the local within-class scatter is "
                "singular: the ridge is what makes the problem solvable."
            ) from None
