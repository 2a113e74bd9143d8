"""Patch alignment: MMPA (min-max projection analysis), a baseline of paper 003, reconstructed.

* :class:`MMPA` — min-max projection analysis, *reconstructed*: the reference was not found;
  paper 003 (sec. 2.3 and 4.4) describes a labelled, MFA-style patch-alignment criterion with two
  heat-kernel widths. See the class docstring and docs/dee.md for what is assumed.
  :func:`min_max_patch_weights` builds its within- and between-class patch weights; the linear
  projection and the input checks are :class:`~graphdr.methods.common_vectors.LinearSpectralBase`.
"""

from __future__ import annotations

import numpy as np

from graphdr._validation import check_positive_int, check_positive_real
from graphdr.graphs import dense_laplacian_quadratic
from graphdr.kernels import mean_distance, squared_distances
from graphdr.methods.common_vectors import LinearSpectralBase
from graphdr.solvers import eigh_generalized, flip_signs

__all__ = ["MMPA", "min_max_patch_weights"]


def _heat(d2: np.ndarray, t: float) -> np.ndarray:
    return np.exp(d2 / (-2.0 * t**2))


def min_max_patch_weights(D2, codes, n_within, n_between, t_within, t_between):
    """Within- and between-class patch weights of MMPA (reconstructed, see :class:`MMPA`).

    Patch of sample i: its ``n_within`` *farthest* same-class samples (all of them when None)
    and its ``n_between`` *nearest* other-class samples, weighted by heat kernels
    ``exp(-d^2 / (2 t^2))``. Patches are aligned by summation (``W = A + A^T``). Returns
    ``(W_within, W_between)`` dense N x N.
    """
    n = codes.size
    same = codes[:, None] == codes[None, :]
    np.fill_diagonal(same, False)
    other = codes[:, None] != codes[None, :]
    Aw = np.zeros_like(D2)
    Ab = np.zeros_like(D2)
    rows = np.arange(n)[:, None]
    if n_within is None:
        Aw[same] = _heat(D2[same], t_within)
    else:  # the k farthest same-class samples: descending distance, others pushed to the end
        k = min(int(n_within), int(same.sum(axis=1).max(initial=0)))
        if k > 0:
            order = np.argsort(np.where(same, -D2, np.inf), axis=1, kind="stable")[:, :k]
            keep = same[rows, order]
            Aw[rows, order] = np.where(keep, _heat(D2[rows, order], t_within), 0.0)
    k = min(int(n_between), int(other.sum(axis=1).max(initial=0)))
    if k > 0:
        order = np.argsort(np.where(other, D2, np.inf), axis=1, kind="stable")[:, :k]
        keep = other[rows, order]
        Ab[rows, order] = np.where(keep, _heat(D2[rows, order], t_between), 0.0)
    return Aw + Aw.T, Ab + Ab.T


class MMPA(LinearSpectralBase):
    """Min-max projection analysis — RECONSTRUCTED from paper 003's description.

    The original reference was not found. Paper 003 (sec. 2.3) describes MMPA as a labelled
    patch-alignment method with marginal Fisher analysis' property: pull together the far-apart
    within-class neighbours, push away the nearest neighbours of other classes, solved as one
    generalised eigenproblem; sec. 4.4 sets its two heat-kernel widths to the mean intra- and
    inter-class distances. Implemented as:

    * patch of sample i: its ``n_within`` farthest same-class samples (the "max" side; all
      same-class samples by default) and its ``n_between`` nearest other-class samples (the
      "min" side), heat weights ``exp(-d^2 / (2 t^2))``; patches summed (whole alignment);
    * directions maximising ``tr(A^T S_b A)`` subject to ``A^T S_w A = I``, with
      ``S_w = X^T L_w X``, ``S_b = X^T L_b X``; ``S_w`` regularised by ``reg * tr(S_w)/r * I``
      (:func:`graphdr.solvers.eigh_generalized`), solved in the span of the centred data;
      directions normalised to unit length (sign rule applied).

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_features`` (None: the rank of the centred training data).
    n_within : int or None, default=None. n_between : int, default=10.
    t_within, t_between : float or "auto", default="auto"
        Heat-kernel widths; "auto" = mean intra-/inter-class Euclidean distance (paper 003).
    reg : float, default=1e-4
        Relative ridge of ``S_w``.

    Attributes
    ----------
    components_ : (n_components, n_features).
    mean_ : (n_features,).
    eigenvalues_ : the ratios, descending.
    t_within_, t_between_ : widths used.
    classes_ : labels.
    """

    def __init__(
        self,
        n_components=None,
        *,
        n_within=None,
        n_between=10,
        t_within="auto",
        t_between="auto",
        reg=1e-4,
    ):
        self.n_components = n_components
        self.n_within = n_within
        self.n_between = n_between
        self.t_within = t_within
        self.t_between = t_between
        self.reg = reg

    def fit(self, X, y):
        """Fit on labelled data ``X`` (N x D), ``y`` (N,)."""
        self._check_params()
        Z, basis, codes, d = self._fit_span(X, y, "MMPA")
        Ww, Wb = self._patches(Z, codes)
        S_w, S_b = dense_laplacian_quadratic(Z, Ww), dense_laplacian_quadratic(Z, Wb)
        self.eigenvalues_, V = eigh_generalized(S_b, S_w, d, largest=True, reg=self.reg)
        A = basis @ V
        A /= np.linalg.norm(A, axis=0)
        self.components_ = np.ascontiguousarray(flip_signs(A).T)
        self.n_components_ = d
        return self

    def _check_params(self):
        for name in ("t_within", "t_between"):
            value = getattr(self, name)
            if isinstance(value, str):
                if value != "auto":
                    raise ValueError(f"{name} must be a number > 0 or 'auto', got {value!r}.")
            else:
                check_positive_real(name, value)
        check_positive_int("n_within", self.n_within, allow_none=True)
        check_positive_int("n_between", self.n_between)
        check_positive_real("reg", self.reg)

    def _patches(self, Z, codes):
        D2 = squared_distances(Z)
        same = codes[:, None] == codes[None, :]
        np.fill_diagonal(same, False)
        self.t_within_ = mean_distance(D2, same) if self.t_within == "auto" else self.t_within
        other = codes[:, None] != codes[None, :]
        self.t_between_ = mean_distance(D2, other) if self.t_between == "auto" else self.t_between
        return min_max_patch_weights(
            D2, codes, self.n_within, self.n_between, self.t_within_, self.t_between_
        )
