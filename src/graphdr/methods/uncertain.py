"""Graph embedding with Gaussian data uncertainty: GEU (linear) and NGEU (kernel, paper 004).

Every training sample is a Gaussian ``N(x_i, S_i)``: its mean is the observed row, its
covariance comes from an uncertainty scheme (:mod:`graphdr.uncertainty`) or is given to ``fit``.
Uncertainties are **variances** ``sigma^2``: ``(N,)`` isotropic or ``(N, D)`` diagonal.

* GEU (Laakom et al. 2022, the linear method of paper 004's tables) replaces the scatters of
  linear GE by their expectations, ``E[X^T A X] = M^T A M + sum_i A_ii S_i``:
  ``S_int = M^T L M + sum_i L_ii S_i``, ``S_pen = M^T B M + sum_i B_ii S_i`` (isotropic:
  ``+ (sum_i A_ii sigma_i^2) I``, a data-dependent ridge; diagonal: ``+ diag(sum_i A_ii s_i)``).
* NGEU (Laakom et al., paper 004) is kernel GE on the distributions: the kernel matrix is the
  expected kernel ``K_ij = E k(x, x')`` between the Gaussians (:mod:`graphdr.kernels.expected`,
  diagonal ``E k(x, x)`` over one random variable), the rest is kernel GE.

API (the scikit-learn-natural design; document of record: docs/ngeu.md):

* ``uncertainty=`` chooses the scheme — ``"nn"`` (``sigma_i = beta * d_i``, nearest other
  training sample), ``"nn_supervised"`` (nearest sample of the same class), ``"nn_diagonal"``
  (one variance per feature, ``s_ik = beta^2 (x_ik - x_n(i)k)^2``), ``"constant"``
  (``S_i = s0 * I``), an estimator object (e.g. ``NearestNeighborUncertainty(...)``, tunable as
  ``uncertainty__beta``), or ``None`` (no uncertainty: plain GE). ``beta`` and ``s0`` are flat
  parameters, so ``GridSearchCV`` and ``Pipeline`` can tune them directly.
* ``fit(X, y, sample_variance=None)``: explicit variances override the scheme (``GridSearchCV``
  slices them with the rows of X).
* ``transform(X, sample_variance=None)``: NGEU treats new points as Dirac distributions by
  default (``k(x)`` against the training distributions, ``sigma_test = 0``); explicit variances,
  or ``test_uncertainty="estimate"`` (the fitted scheme applied to the new points), make them
  Gaussians. GEU accepts the argument for symmetry only: a linear map sends a distribution's
  mean to the projection of its mean, so the test uncertainty cannot change the result.

Zero variances give back the corresponding GE estimator exactly (tested).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._validation import check_n_components
from graphdr.graphs import make_graph
from graphdr.kernels import center_kernel_test
from graphdr.kernels.expected import expected_kernel, mean_embedding_norms
from graphdr.methods.graph_embedding import (
    DEFAULT_KERNEL_REG,
    DEFAULT_KERNEL_TOL,
    DEFAULT_REG,
    DEFAULT_TOL,
    KPCA_GE,
    GraphEmbedding,
    KernelGraphEmbedding,
)
from graphdr.solvers import flip_signs, numerical_rank
from graphdr.uncertainty import (
    ConstantUncertainty,
    check_sample_variance,
    check_uncertainty_scale,
    make_uncertainty,
)

__all__ = [
    "GEU",
    "NGEU",
    "PCA_GEU",
    "LDA_GEU",
    "MFA_GEU",
    "KPCA_NGEU",
    "KDA_NGEU",
    "KMFA_NGEU",
    "uncertainty_scatter",
]

_TEST_UNCERTAINTY = ("dirac", "estimate")


#: conventions for the diagonal of NGEU's training matrix (NGEU, parameter ``diagonal``)
_DIAGONALS = ("one_variable", "mean_embedding")


def uncertainty_scatter(
    weights: np.ndarray, sample_variance: np.ndarray, basis=None, n_features=None
) -> np.ndarray:
    """``sum_i A_ii S_i``, the uncertainty part of ``E[X^T A X]``, in the coordinates of ``basis``.

    ``weights`` is the diagonal ``A_ii`` (N,); ``sample_variance`` is ``(N,)`` (``S_i =
    sigma_i^2 I``: the result is ``(sum_i A_ii sigma_i^2) I``) or ``(N, D)`` (``S_i =
    diag(s_i)``: ``diag(sum_i A_ii s_i)``). ``basis`` (D x r, orthonormal columns) projects it,
    ``basis^T (.) basis``; None means the ``n_features`` input features.
    """
    total = weights @ sample_variance  # scalar (isotropic) or (D,) (diagonal)
    if sample_variance.ndim == 1:
        return total * np.eye(n_features if basis is None else basis.shape[1])
    if basis is None:
        return np.diag(total)
    return (basis * total[:, None]).T @ basis


class _UncertaintyMixin:
    """What GEU and NGEU share: the scheme from the parameters, the training variances."""

    def _check_uncertainty_params(self) -> None:
        test = getattr(self, "test_uncertainty", "dirac")
        if test not in _TEST_UNCERTAINTY:
            raise ValueError(f"test_uncertainty must be one of {_TEST_UNCERTAINTY}, got {test!r}.")

    def _training_variance(self, X, y_enc, sample_variance, keep_scheme=False):
        """Variances of the training samples, ``(N,)`` or ``(N, D)``: the explicit
        ``sample_variance`` if given, else the scheme's, else zeros (no uncertainty).

        Returns ``(variances, scheme)``; the scheme is fitted (and returned) when it is used,
        or when ``keep_scheme`` asks for it (NGEU's ``test_uncertainty="estimate"``).
        """
        self._check_uncertainty_params()
        n, d = X.shape
        explicit = check_sample_variance(sample_variance, n, d)  # fail before any work
        scheme = make_uncertainty(self.uncertainty, beta=self.beta, s0=self.s0)
        if scheme is None or (explicit is not None and not keep_scheme):
            return (np.zeros(n) if explicit is None else explicit), None
        if getattr(scheme, "supervised", False) and y_enc is None:
            raise ValueError(
                f"uncertainty={self.uncertainty!r} needs class labels, but {self._label()} is "
                "unsupervised (its y is ignored); use uncertainty='nn'."
            )
        scheme.fit(X, y_enc)
        if explicit is not None:
            return explicit, scheme
        name = f"{type(scheme).__name__}.sample_variance_"
        return check_sample_variance(scheme.sample_variance_, n, d, name=name), scheme

    def _test_variance(self, X, sample_variance):
        """Variances of new points: explicit, or the scheme's (``test_uncertainty="estimate"``),
        else None (Dirac)."""
        v = check_sample_variance(sample_variance, *X.shape)
        if v is None and self.uncertainty_ is not None:
            v = check_sample_variance(self.uncertainty_.sample_variance(X), *X.shape)
        return v


# --------------------------------------------------------------------------------------------
# GEU: linear graph embedding with uncertainty
# --------------------------------------------------------------------------------------------


class GEU(_UncertaintyMixin, GraphEmbedding):
    """Linear graph embedding with Gaussian data uncertainty (GEU), ``z = (x - mean_) @
    components_.T``.

    Minimises ``w^T S_int w`` subject to ``w^T S_pen w = 1`` (or ``w^T w = 1``) with the expected
    scatters ``S_int = M^T L M + sum_i L_ii S_i``, ``S_pen = M^T B M + sum_i B_ii S_i`` (M: the
    centred means). With non-zero uncertainty the problem is solved in the full feature space
    (the uncertainty fills directions outside the span of the means); with zero uncertainty it is
    exactly :class:`~graphdr.methods.graph_embedding.GraphEmbedding`.

    Parameters
    ----------
    graph, n_components, k1, k2, mfa_variant, n_neighbors, heat_t, reg, solver, tol :
        as :class:`~graphdr.methods.graph_embedding.GraphEmbedding` (MFA/LPP neighbours are
        searched among the means).
    uncertainty : {"nn", "nn_supervised", "nn_diagonal", "constant"}, an uncertainty estimator,
        or None; default "nn" (``sigma_i = beta * d_i``; "nn_diagonal": per feature, see
        :mod:`graphdr.uncertainty`).
    beta : float, default 0.1. Width of the "nn" schemes (standard deviation / neighbour
        distance).
    s0 : float, default 0.01. The variance of the "constant" scheme (``S_i = s0 * I``).

    Attributes
    ----------
    As GraphEmbedding, plus ``sample_variance_`` ((N,) or (N, D): the training variances used).
    """

    def __init__(
        self,
        graph="lda",
        n_components=None,
        *,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        k1=5,
        k2=20,
        mfa_variant="pairs",
        n_neighbors=5,
        heat_t=None,
        reg=DEFAULT_REG,
        solver="regularized",
        tol=DEFAULT_TOL,
    ):
        self.graph = graph
        self.n_components = n_components
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.n_neighbors = n_neighbors
        self.heat_t = heat_t
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def fit(self, X, y=None, sample_variance=None):
        """Fit on X (N x D), labels y and per-sample variances (``sigma^2``: (N,) or (N, D);
        None: from ``uncertainty``)."""
        builder = self._graph_builder()
        X, y_enc = self._validate_training_data(X, y, builder)
        self.sample_variance_, _ = self._training_variance(X, y_enc, sample_variance)
        self.mean_ = X.mean(axis=0)
        Z, basis = self._reduce_uncertain(X - self.mean_)
        graph = builder(y_enc, X, n_samples=X.shape[0])
        W = self._embed(Z, graph, builder, basis=basis, sample_variance=self.sample_variance_)
        V = W if basis is None else basis @ W
        self.components_ = np.ascontiguousarray(flip_signs(V).T)
        return self

    def transform(self, X, sample_variance=None):
        """Project ``(X - mean_) @ components_.T``. ``sample_variance`` of the new points is
        validated but cannot change the result (the expected projection is that of the mean)."""
        Z = self._project(X)
        check_sample_variance(sample_variance, Z.shape[0], self.n_features_in_)
        return Z

    def _reduce_uncertain(self, Xc):
        """The span of the centred means without uncertainty (exactly GE); all D features with
        it (basis None: the identity), since ``sum_i A_ii S_i`` is not confined to that span."""
        if not np.any(self.sample_variance_):
            return self._reduce(Xc)
        return Xc, None

    def _scatters(self, Z, graph, basis=None, sample_variance=None):
        """Expected scatters ``Z^T A Z + basis^T (sum_i A_ii S_i) basis`` for A = L and B."""
        S_int, S_pen = super()._scatters(Z, graph, basis=basis)
        if sample_variance is None or not np.any(sample_variance):
            return S_int, S_pen
        d = Z.shape[1]
        S_int = S_int + uncertainty_scatter(graph.intrinsic.diagonal(), sample_variance, basis, d)
        if S_pen is not None:
            S_pen = S_pen + uncertainty_scatter(graph.penalty.diagonal(), sample_variance, basis, d)
        return S_int, S_pen

    def _check_n_components(self, builder, Z, graph, S_pen) -> int:
        """As GE, except the penalty bound: the uncertainty term adds rank that the penalty
        graph's structure alone does not show (Theorem 3), so the rank of the expected penalty
        scatter is computed (only when its uncertainty part is not already definite)."""
        if S_pen is None or not np.any(self.sample_variance_):
            return super()._check_n_components(builder, Z, graph, S_pen)
        label, r = self._label(), Z.shape[1]
        bounds = []
        spec = builder.component_bound(len(self.classes_)) if builder.supervised else None
        if spec is not None:
            bounds.append((spec[0], spec[1], f"{label} has {spec[2]}"))
        bounds.append((r, *self._rank_bound(Z)))
        term = graph.penalty.diagonal() @ self.sample_variance_
        if np.min(term) <= 0:  # the uncertainty part of S_pen is singular
            bounds.append(
                (
                    numerical_rank(S_pen, self._solver_options()["tol"]),
                    "the rank of the expected penalty scatter",
                    f"{label} directions with zero expected penalty scatter have an infinite ratio",
                )
            )
        bound, name, reason = min(bounds, key=lambda b: b[0])
        return check_n_components(self.n_components, bound, bound_name=name, reason=reason)


class PCA_GEU(GEU):
    """PCA with uncertainty: the leading eigenvectors of ``M^T H M + sum_i H_ii S_i``.

    Isotropic uncertainty only shifts the eigenvalues (same directions as PCA); diagonal
    covariances change the directions.
    """

    def __init__(self, n_components=None, *, uncertainty="nn", beta=0.1, s0=0.01, tol=DEFAULT_TOL):
        self.n_components = n_components
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.tol = tol

    def _graph_builder(self):
        return make_graph("pca")

    def _solver_options(self):
        return {"solver": "regularized", "reg": DEFAULT_REG, "tol": self.tol}


class LDA_GEU(GEU):
    """LDA with uncertainty: ``S_w + sum_i (1 - 1/N_{y_i}) S_i`` against
    ``S_t + (1 - 1/N) sum_i S_i``; at most C-1 directions (as LDA: see docs/ngeu.md)."""

    def __init__(
        self,
        n_components=None,
        *,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        reg=DEFAULT_REG,
        solver="regularized",
        tol=DEFAULT_TOL,
    ):
        self.n_components = n_components
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return make_graph("lda")


class MFA_GEU(GEU):
    """Marginal Fisher analysis with uncertainty (graphs from the means; the uncertainty term
    weights each sample by its intrinsic / penalty degree)."""

    def __init__(
        self,
        n_components=None,
        *,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        k1=5,
        k2=20,
        mfa_variant="pairs",
        reg=DEFAULT_REG,
        solver="regularized",
        tol=DEFAULT_TOL,
    ):
        self.n_components = n_components
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return make_graph("mfa", k1=self.k1, k2=self.k2, mfa_variant=self.mfa_variant)


# --------------------------------------------------------------------------------------------
# NGEU: kernel graph embedding on distributions
# --------------------------------------------------------------------------------------------


class NGEU(_UncertaintyMixin, KernelGraphEmbedding):
    """Non-linear graph embedding with data uncertainty (NGEU, paper 004): kernel GE whose
    kernel matrix is the expected kernel between the training Gaussians.

    ``K_ij = E k(x, x')``, ``x ~ N(x_i, S_i)``, ``x' ~ N(x_j, S_j)`` (i != j), ``K_ii = E k(x, x)``
    (:func:`graphdr.kernels.expected.expected_kernel`); then kernel GE with this K (one global
    closed-form solution). New points: ``z = dual_coef_^T k_c(x)`` with ``k(x)_j = E k(x, x_j')``,
    ``x`` a Dirac by default.

    Parameters
    ----------
    graph, n_components, k1, k2, mfa_variant, n_neighbors, heat_t, reg, solver, tol, path :
        as :class:`~graphdr.methods.graph_embedding.KernelGraphEmbedding`. MFA/LPP neighbours
        are defined by the feature-space distances of the expected kernel,
        ``K_ii + K_jj - 2 K_ij`` (see docs/ngeu.md).
    kernel : {"rbf", "linear", "poly"}, default "rbf" ("poly": degree 2 only; no
        "precomputed").
    gamma, degree, coef0 : as :class:`~graphdr.methods.graph_embedding.KernelGraphEmbedding`
        (default ``gamma="scale"``, ``1 / (n_features * X.var())`` of the training means: with
        it, and the "nn" uncertainty scheme (``sigma_i`` proportional to distances), rescaling
        the data leaves the expected kernel and the embedding unchanged; the "constant" scheme's
        ``s0`` is absolute, so it does not follow a rescaling).
    uncertainty, beta, s0 : the training uncertainty (as :class:`GEU`);
        ``uncertainty="constant"`` gives paper 004's "-N" variants.
    diagonal : {"one_variable", "mean_embedding"}, default "one_variable". The diagonal of the
        training matrix: ``E k(x, x)`` over ONE random variable (the paper's Kronecker-delta
        term; with a linear kernel ``||x_i||^2 + tr S_i``, a diagonal regularisation), or
        ``<mu_i, mu_i> = E k(x, x')`` over two independent ones (the kernel mean embedding's
        squared norm; linear: ``||x_i||^2``, so linear NGEU is linear GE), a sensitivity
        setting (:func:`graphdr.kernels.expected.mean_embedding_norms`).
    test_uncertainty : {"dirac", "estimate"}, default "dirac". How ``transform`` treats new
        points when no ``sample_variance`` is passed: as Diracs, or as Gaussians with the
        variances of the fitted scheme (``"nn"``: ``beta`` times the distance to the nearest
        training sample; ``"constant"``: ``s0``).

    Attributes
    ----------
    As KernelGraphEmbedding, plus ``sample_variance_`` (the training variances) and
    ``uncertainty_`` (the fitted scheme when ``test_uncertainty="estimate"``, else None).
    """

    def __init__(
        self,
        graph="lda",
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        test_uncertainty="dirac",
        diagonal="one_variable",
        k1=5,
        k2=20,
        mfa_variant="pairs",
        n_neighbors=5,
        heat_t=None,
        reg=DEFAULT_KERNEL_REG,
        solver="regularized",
        tol=DEFAULT_KERNEL_TOL,
        path="auto",
    ):
        self.graph = graph
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.test_uncertainty = test_uncertainty
        self.diagonal = diagonal
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.n_neighbors = n_neighbors
        self.heat_t = heat_t
        self.reg = reg
        self.solver = solver
        self.tol = tol
        self.path = path

    def fit(self, X, y=None, sample_variance=None):
        """Fit on X (N x D), labels y and per-sample variances (``sigma^2``: (N,) or (N, D);
        None: from ``uncertainty``)."""
        return super().fit(X, y, sample_variance=sample_variance)

    def transform(self, X, sample_variance=None):
        """Project new points: ``center(K(X, training distributions)) @ dual_coef_``.

        ``sample_variance`` ((n,) or (n, D) variances of the new points) makes them Gaussians;
        None means Diracs unless ``test_uncertainty="estimate"``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Kt = self._test_kernel(X, sample_variance)
        Kt = center_kernel_test(Kt, self.kernel_centering_, copy=False)
        return Kt @ self.dual_coef_

    def _expected_kernel(self, X, Y=None, x_variance=None, y_variance=None):
        return expected_kernel(
            X,
            Y,
            x_variance=x_variance,
            y_variance=y_variance,
            kernel=self.kernel,
            gamma=self.gamma_,
            degree=self.degree,
            coef0=self.coef0,
        )

    def _train_kernel(self, X, y_enc, sample_variance=None):
        """The expected kernel matrix of the training Gaussians (diagonal: one variable)."""
        self._expected_kernel(X[:1], X[:1])  # kernel parameters checked before any real work
        keep = self.test_uncertainty == "estimate"
        self.sample_variance_, scheme = self._training_variance(X, y_enc, sample_variance, keep)
        self.uncertainty_ = scheme if keep else None
        if sample_variance is None and isinstance(scheme, ConstantUncertainty):
            # an absolute s0 is the one uncertainty that cannot follow a rescaling of the data
            # ("nn" variances scale with it, explicit ones are the caller's)
            check_uncertainty_scale(X, self.sample_variance_, method=self._label(), stacklevel=5)
        if self.diagonal not in _DIAGONALS:
            raise ValueError(
                f"{self._label()}: diagonal must be one of {_DIAGONALS}, got {self.diagonal!r}."
            )
        K = self._expected_kernel(X, x_variance=self.sample_variance_)
        if self.diagonal == "mean_embedding":
            K[np.diag_indices_from(K)] = mean_embedding_norms(
                X,
                self.sample_variance_,
                kernel=self.kernel,
                gamma=self.gamma_,
                degree=self.degree,
                coef0=self.coef0,
            )
        return K

    def _test_kernel(self, X, sample_variance=None):
        """``E k(x, x_j')`` between new points and the training Gaussians."""
        v = self._test_variance(X, sample_variance)
        return self._expected_kernel(X, self.X_fit_, v, self.sample_variance_)


class KPCA_NGEU(NGEU):
    """Kernel PCA on distributions (PCA graph, largest variance of the expected kernel)."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        test_uncertainty="dirac",
        diagonal="one_variable",
        tol=DEFAULT_KERNEL_TOL,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.test_uncertainty = test_uncertainty
        self.diagonal = diagonal
        self.tol = tol

    def _graph_builder(self):
        return make_graph("pca")

    def _solver_options(self):
        return {"solver": "regularized", "reg": DEFAULT_REG, "tol": self.tol}

    # as KPCA_GE: with a given n_components only the leading eigenpairs of the centred expected
    # kernel are computed (a subset eigh); before, every fit paid the full decomposition
    _leading_only = KPCA_GE._leading_only


class KDA_NGEU(NGEU):
    """Kernel discriminant analysis on distributions (LDA graphs); at most C-1 directions.

    ``path="auto"`` solves it with one Cholesky of the expected kernel when it is well
    conditioned (uncertainty makes it so: see docs/estimators.md, *Class graphs*)."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        test_uncertainty="dirac",
        diagonal="one_variable",
        reg=DEFAULT_KERNEL_REG,
        solver="regularized",
        tol=DEFAULT_KERNEL_TOL,
        path="auto",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.test_uncertainty = test_uncertainty
        self.diagonal = diagonal
        self.reg = reg
        self.solver = solver
        self.tol = tol
        self.path = path

    def _graph_builder(self):
        return make_graph("lda")


class KMFA_NGEU(NGEU):
    """Kernel marginal Fisher analysis on distributions (neighbours by the expected kernel's
    feature-space distances)."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        uncertainty="nn",
        beta=0.1,
        s0=0.01,
        test_uncertainty="dirac",
        diagonal="one_variable",
        k1=5,
        k2=20,
        mfa_variant="pairs",
        reg=DEFAULT_KERNEL_REG,
        solver="regularized",
        tol=DEFAULT_KERNEL_TOL,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.uncertainty = uncertainty
        self.beta = beta
        self.s0 = s0
        self.test_uncertainty = test_uncertainty
        self.diagonal = diagonal
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return make_graph("mfa", k1=self.k1, k2=self.k2, mfa_variant=self.mfa_variant)
