"""Per-sample uncertainty: each training sample as a Gaussian ``N(x_i, S_i)`` (GEU, NGEU).

Units, everywhere in graphdr: uncertainties are **variances** ``sigma^2`` (the squared units of
X), never standard deviations and never inverse variances. A ``sample_variance`` is

* ``(N,)``: isotropic covariances ``S_i = sigma_i^2 I`` (the default of every scheme here);
* ``(N, D)``: diagonal covariances ``S_i = diag(s_i1, ..., s_iD)``;
* a scalar: the same isotropic variance for every sample; ``None``: no uncertainty (Dirac).

Schemes (scikit-learn estimators: ``fit(X, y=None)`` stores ``sample_variance_``;
``sample_variance(X_new)`` gives variances of new points):

* :class:`NearestNeighborUncertainty` — the protocol of GEU/NGEU (Laakom et al.): "a variance
  based on the distance to the nearest point". The exact formula is not in the papers; here
  ``sigma_i = beta * d_i``, so the variance is ``beta^2 d_i^2``, ``d_i`` the Euclidean distance
  from ``x_i`` to its nearest other training sample (``supervised=True``: of the same class).
* :class:`ConstantUncertainty` — ``S_i = s0 * I`` (paper 004's "-N" variants); ``s0`` is a
  variance.

Duplicates: an exact copy of ``x_i`` is at distance 0. With ``duplicates="distinct"`` (default)
copies are skipped and ``d_i`` is the distance to the nearest *different* sample: a copy says
nothing about the measurement noise, and a zero variance would make the sample a Dirac. With
``duplicates="zero"`` the literal rule applies (``d_i = 0``).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._numba import njit
from graphdr.kernels import gram_and_norms, recentre_for_distances, reusable

__all__ = [
    "UncertaintyScaleWarning",
    "check_uncertainty_scale",
    "ConstantUncertainty",
    "NearestNeighborUncertainty",
    "UNCERTAINTY_SCHEMES",
    "check_sample_variance",
    "make_uncertainty",
    "nearest_neighbor_distances",
]

UNCERTAINTY_SCHEMES = ("nn", "nn_supervised", "nn_diagonal", "constant")
_COVARIANCES = ("isotropic", "diagonal")
_DUPLICATES = ("distinct", "zero")
#: bytes of one block of squared distances in the nearest-neighbour search
_BLOCK_BYTES = 1 << 25


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def check_sample_variance(
    sample_variance, n_samples: int, n_features: int, *, name: str = "sample_variance"
) -> np.ndarray | None:
    """Validate per-sample variances (``sigma^2``); returns None, ``(N,)`` or ``(N, D)`` float64.

    A scalar is broadcast to ``(N,)``; an ``(N, 1)`` column is read as ``(N,)``. Raises
    ``ValueError`` for another shape, NaN/inf or negative entries.
    """
    if sample_variance is None:
        return None
    v = np.asarray(sample_variance)
    if v.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be real numbers (variances sigma^2), got dtype {v.dtype}.")
    v = v.astype(np.float64)
    if v.ndim == 0:
        v = np.full(n_samples, float(v))
    elif v.ndim == 2 and v.shape[1] == 1 and n_features != 1:
        v = v[:, 0]
    expected = {1: (n_samples,), 2: (n_samples, n_features)}
    if v.ndim == 3 and v.shape == (n_samples, n_features, n_features):
        raise ValueError(
            f"{name} has shape {v.shape}: full covariance matrices are not supported; pass "
            "isotropic variances (n_samples,) or the diagonals "
            "np.diagonal(S, axis1=1, axis2=2) (n_samples, n_features)."
        )
    if expected.get(v.ndim) != v.shape:
        raise ValueError(
            f"{name} has shape {v.shape}; expected ({n_samples},) for isotropic variances "
            f"sigma_i^2 or ({n_samples}, {n_features}) for diagonal covariances (one row per "
            "sample, one column per feature)."
        )
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinity; variances must be finite.")
    if v.size and v.min() < 0:
        where = np.unravel_index(np.argmin(v), v.shape)
        raise ValueError(
            f"{name} must be non-negative (it is a variance sigma^2); found {v.min():.3g} at "
            f"index {tuple(int(i) for i in where)}."
        )
    return np.ascontiguousarray(v)


#: training variance per feature over the data's own variance per feature beyond which the
#: uncertainty, not the data, shapes an expected kernel (noise std ~3x the data's spread)
UNCERTAINTY_DOMINANCE = 10.0


class UncertaintyScaleWarning(UserWarning):
    """The per-sample uncertainty dwarfs the spread of the data: the expected kernel is flattened
    and the embedding says more about the chosen uncertainty than about the data."""


def check_uncertainty_scale(X, sample_variance, *, method: str, stacklevel: int = 3) -> float:
    """Warn (:class:`UncertaintyScaleWarning`) when the mean training variance per feature is
    more than :data:`UNCERTAINTY_DOMINANCE` times the data's own variance per feature.

    NGEU calls it for the absolute scheme (``uncertainty="constant"``, ``s0``) only: unlike the
    "nn" scheme (``sigma_i`` proportional to distances) it does not follow a rescaling of the
    data, so the same ``s0`` dominates ``X / 100`` and gives a different embedding there. Returns the ratio (0 without uncertainty or without spread).
    """
    if sample_variance is None:
        return 0.0
    v = np.asarray(sample_variance, dtype=np.float64)
    if not v.any():
        return 0.0
    spread = float(np.var(np.asarray(X), axis=0, dtype=np.float64).mean())
    if not spread > 0:
        return 0.0
    ratio = float(v.mean()) / spread
    if ratio > UNCERTAINTY_DOMINANCE:
        warnings.warn(
            f"{method}: the training uncertainty (mean variance per feature {v.mean():.3g}) is "
            f"{ratio:.3g} times the data's own variance per feature ({spread:.3g}; more than "
            f"{UNCERTAINTY_DOMINANCE:g}): the expected kernel is flattened towards a constant and "
            "the embedding reflects the assumed noise more than the data. An absolute "
            "uncertainty (uncertainty='constant', s0) does not follow a rescaling of the data: "
            f"use uncertainty='nn' (it scales with the data) or s0 <= {spread:.3g}.",
            UncertaintyScaleWarning,
            stacklevel=stacklevel,
        )
    return ratio


def _check_nonnegative(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}.")
    if value < 0:
        raise ValueError(f"{name}={value} must be >= 0.")
    return float(value)


# --------------------------------------------------------------------------------------------
# nearest neighbours (one GEMM per block of rows, then a numba scan)
# --------------------------------------------------------------------------------------------


@njit
def _nearest_in_block(D2, row_ids, row_codes, ref_codes, row_dups, ref_dups, exclude_dups):
    """For each row r: the column j of the smallest ``D2[r, j]`` with ``j != row_ids[r]``,
    ``ref_codes[j] == row_codes[r]`` and, if ``exclude_dups``, ``ref_dups[j] != row_dups[r]``
    (ties: lowest j); -1 when no column qualifies."""
    n, m = D2.shape
    out = np.full(n, -1, dtype=np.int64)
    for r in range(n):
        best = np.inf
        for j in range(m):
            if j == row_ids[r] or ref_codes[j] != row_codes[r]:
                continue
            if exclude_dups and ref_dups[j] == row_dups[r]:
                continue
            if D2[r, j] < best:
                best = D2[r, j]
                out[r] = j
    return out


def _duplicate_ids(*arrays: np.ndarray) -> list[np.ndarray]:
    """Integer ids, equal exactly for identical rows, across the given arrays."""
    stacked = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
    ids = np.unique(stacked, axis=0, return_inverse=True)[1].ravel()
    return np.split(ids, np.cumsum([a.shape[0] for a in arrays])[:-1])


def _nearest(query, ref, q_ids, q_codes, r_codes, q_dups, r_dups, exclude_dups):
    """Index into ``ref`` of the nearest admissible sample of each query row (or -1)."""
    out = np.empty(query.shape[0], dtype=np.int64)
    query, ref = recentre_for_distances(query, ref)  # keeps the ranking's digits at large offsets
    step = max(1, _BLOCK_BYTES // (8 * ref.shape[0]))
    for s in range(0, query.shape[0], step):
        e = min(s + step, query.shape[0])
        G, qn, rn = gram_and_norms(query[s:e], ref)
        D2 = qn[:, None] + rn[None, :] - 2.0 * G  # ranking only; distances recomputed exactly
        out[s:e] = _nearest_in_block(
            D2, q_ids[s:e], q_codes[s:e], r_codes, q_dups[s:e], r_dups, exclude_dups
        )
    return out


@reusable
def _search(X, y, reference, duplicates: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`nearest_neighbor_distances`, searched once per input inside
    :func:`graphdr.kernels.reuse_kernels`: a selection grid fits models of several widths on one
    training part and transforms one validation and test part with each (paper 004's beta and
    kernel grid), and these searches with their duplicate checks were 7 % of COIL20's grid CPU
    (measured with py-spy, 2026-11-29). Labels that are not numbers are not keyed: searched
    each time."""
    return nearest_neighbor_distances(X, y, reference=reference, duplicates=duplicates)


def nearest_neighbor_distances(
    X, y=None, *, reference=None, duplicates: str = "distinct"
) -> tuple[np.ndarray, np.ndarray]:
    """Euclidean distance from each row of ``X`` to its nearest sample, and that sample's index.

    * ``reference=None``: within ``X``, the nearest OTHER row; with labels ``y``, the nearest
      other row of the same class. A row with no admissible same-class row (a one-sample class,
      or only copies of itself under ``duplicates="distinct"``) falls back to the nearest row of
      any class, with a ``UserWarning``.
    * ``reference`` given: the nearest row of ``reference`` (``y`` must be None).
    * ``duplicates="distinct"`` skips exact copies of the row, ``"zero"`` keeps them (distance 0).

    Rows with no admissible neighbour at all (every sample identical) get distance 0 and index
    -1. Candidates are ranked on GEMM-based squared distances (blocks of rows, ~32 MiB); the
    returned distance is recomputed exactly as ``||x_i - x_j||``. Returns ``(distances,
    indices)``.
    """
    if duplicates not in _DUPLICATES:
        raise ValueError(f"duplicates must be one of {_DUPLICATES}, got {duplicates!r}.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    exclude = duplicates == "distinct"
    n = X.shape[0]
    if reference is None:
        ref, ids = X, np.arange(n)
        (q_dups,) = _duplicate_ids(X)
        r_dups = q_dups
    else:
        if y is not None:
            raise ValueError("y is only used within X (reference=None): new points are unlabelled.")
        ref, ids = np.ascontiguousarray(reference, dtype=np.float64), np.full(n, -1)
        q_dups, r_dups = _duplicate_ids(X, ref)
    if y is not None and np.shape(y) != (n,):
        raise ValueError(f"y has shape {np.shape(y)} but X has {n} samples: one label per row.")
    codes = np.zeros(n, dtype=np.int64) if y is None else np.unique(y, return_inverse=True)[1]
    codes = codes.ravel().astype(np.int64)
    r_codes = codes if reference is None else np.zeros(ref.shape[0], dtype=np.int64)
    idx = _nearest(X, ref, ids, codes, r_codes, q_dups, r_dups, exclude)
    if y is not None and np.any(idx < 0):
        lost = np.flatnonzero(idx < 0)
        warnings.warn(
            f"{lost.size} sample(s) have no other{' distinct' if exclude else ''} sample of "
            f"their class (first: index {lost[0]}); their distance is to the nearest sample "
            "of any class.",
            UserWarning,
            stacklevel=2,
        )
        zeros = np.zeros(n, dtype=np.int64)
        idx[lost] = _nearest(
            X[lost], ref, ids[lost], zeros[lost], zeros, q_dups[lost], r_dups, exclude
        )
    dist = np.zeros(n)
    ok = idx >= 0
    dist[ok] = np.sqrt(np.einsum("ij,ij->i", X[ok] - ref[idx[ok]], X[ok] - ref[idx[ok]]))
    return dist, idx


# --------------------------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------------------------


class NearestNeighborUncertainty(BaseEstimator):
    """Gaussian uncertainty from nearest-neighbour distances: ``sigma_i = beta * d_i``.

    ``d_i`` is the Euclidean distance from ``x_i`` to its nearest other training sample
    ``x_n(i)`` (or, with ``supervised=True``, of its own class). Isotropic (default): the
    variance is ``sigma_i^2 = beta^2 d_i^2``, ``S_i = sigma_i^2 I``. Diagonal: one variance per
    feature, ``s_ik = beta^2 (x_ik - x_n(i)k)^2`` (the spread along the directions in which the
    neighbour differs; the row sums are the isotropic variances, ``sum_k s_ik = beta^2 d_i^2``).

    Parameters
    ----------
    beta : float >= 0, default 0.1
        Width: the standard deviation as a multiple of the neighbour distance. A Gaussian
        ``N(x, sigma^2 I)`` in D dimensions puts its samples ~``sqrt(D) sigma`` from ``x``, so
        ``beta ~ 1/sqrt(D)`` makes that spread the neighbour distance; cross-validate it on a
        log grid (e.g. 0.01 ... 1).
    supervised : bool, default False
        Nearest sample of the same class (``fit`` then needs ``y``).
    duplicates : {"distinct", "zero"}, default "distinct"
        Skip exact copies (distance to the nearest different sample) or keep them (distance 0).
    covariance : {"isotropic", "diagonal"}, default "isotropic"
        ``S_i = beta^2 d_i^2 I`` (variances ``(N,)``), or the per-feature
        ``diag(beta^2 (x_i - x_n(i))^2)`` (variances ``(N, D)``). A sample with no admissible
        neighbour (every sample identical) gets zero variance either way.

    Attributes
    ----------
    sample_variance_ : (N,) training variances ``beta^2 d_i^2``, or (N, D) when diagonal.
    nn_distances_ : (N,) the distances ``d_i``. nn_indices_ : (N,) the neighbours (-1: none).
    X_fit_ : the training set (for new points).
    """

    def __init__(
        self, beta=0.1, *, supervised=False, duplicates="distinct", covariance="isotropic"
    ):
        self.beta = beta
        self.supervised = supervised
        self.duplicates = duplicates
        self.covariance = covariance

    def fit(self, X, y=None):
        """Distances of the training samples to their nearest neighbours."""
        beta = _check_nonnegative("beta", self.beta)
        self._check_covariance()
        X_in = X
        if self.supervised:
            if y is None:
                raise ValueError(
                    "NearestNeighborUncertainty(supervised=True) requires y to be passed, but "
                    "the target y is None (it searches the nearest sample of the same class)."
                )
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
            check_classification_targets(y)
        else:
            X, y = validate_data(self, X, dtype=np.float64, ensure_min_samples=2), None
        self.nn_distances_, self.nn_indices_ = _search(X, y, None, self.duplicates)
        self.sample_variance_ = self._variances(X, X, self.nn_distances_, self.nn_indices_, beta)
        self.X_fit_ = X.copy() if np.may_share_memory(X, X_in) else X
        return self

    def _check_covariance(self) -> None:
        if self.covariance not in _COVARIANCES:
            raise ValueError(
                f"covariance must be one of {_COVARIANCES}, got {self.covariance!r}: isotropic "
                "S_i = (beta d_i)^2 I, or diagonal, one variance per feature."
            )

    def _variances(self, X, reference, distances, indices, beta) -> np.ndarray:
        """``beta^2 d^2`` (isotropic), or ``beta^2 (x - x_neighbour)^2`` per feature; rows with no
        neighbour (index -1) get zeros."""
        if self.covariance == "isotropic":
            return (beta * distances) ** 2
        found = indices >= 0
        diff = np.zeros_like(X)
        diff[found] = X[found] - reference[indices[found]]
        return (beta * diff) ** 2

    def sample_variance(self, X=None) -> np.ndarray:
        """Variances ``(beta d)^2`` (or per feature, ``covariance="diagonal"``): of the training
        samples (``X=None``) or of new points, the neighbour then being the nearest training
        sample (of any class)."""
        check_is_fitted(self)
        if X is None:
            return self.sample_variance_.copy()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        d, idx = _search(X, None, self.X_fit_, self.duplicates)
        return self._variances(X, self.X_fit_, d, idx, _check_nonnegative("beta", self.beta))

    def fit_sample_variance(self, X, y=None) -> np.ndarray:
        """``fit(X, y).sample_variance()``."""
        return self.fit(X, y).sample_variance()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = bool(self.supervised)
        return tags


class ConstantUncertainty(BaseEstimator):
    """The same isotropic covariance for every sample: ``S_i = s0 * I`` (``s0`` a variance).

    Paper 004's "-N" variants (KPCA/KDA/KMFA-NGEU-N). Attributes: ``sample_variance_`` (N,).
    """

    def __init__(self, s0=0.01):
        self.s0 = s0

    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=1)
        self.sample_variance_ = np.full(X.shape[0], _check_nonnegative("s0", self.s0))
        return self

    def sample_variance(self, X=None) -> np.ndarray:
        """``s0`` for each training sample (``X=None``) or each row of ``X``."""
        check_is_fitted(self)
        if X is None:
            return self.sample_variance_.copy()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.full(X.shape[0], _check_nonnegative("s0", self.s0))

    def fit_sample_variance(self, X, y=None) -> np.ndarray:
        return self.fit(X, y).sample_variance()


def make_uncertainty(uncertainty, *, beta=0.1, s0=0.01):
    """The (unfitted) uncertainty estimator named by ``uncertainty``.

    ``"nn"`` -> ``NearestNeighborUncertainty(beta)``, ``"nn_supervised"`` -> the same with
    ``supervised=True``, ``"nn_diagonal"`` -> the same with ``covariance="diagonal"`` (one
    variance per feature), ``"constant"`` -> ``ConstantUncertainty(s0)``, ``None`` -> None (no
    uncertainty); an object with ``fit(X, y)`` and ``sample_variance_`` is cloned.
    """
    if uncertainty is None:
        return None
    if isinstance(uncertainty, str):
        if uncertainty == "nn":
            return NearestNeighborUncertainty(beta)
        if uncertainty == "nn_supervised":
            return NearestNeighborUncertainty(beta, supervised=True)
        if uncertainty == "nn_diagonal":
            return NearestNeighborUncertainty(beta, covariance="diagonal")
        if uncertainty == "constant":
            return ConstantUncertainty(s0)
        raise ValueError(
            f"uncertainty={uncertainty!r} is not a known scheme; use one of "
            f"{UNCERTAINTY_SCHEMES}, None, or an estimator such as NearestNeighborUncertainty()."
        )
    if hasattr(uncertainty, "fit") and hasattr(uncertainty, "get_params"):
        return clone(uncertainty)
    raise ValueError(
        f"uncertainty must be one of {UNCERTAINTY_SCHEMES}, None or an uncertainty estimator "
        f"(fit(X, y) setting sample_variance_), got {type(uncertainty).__name__}."
    )
