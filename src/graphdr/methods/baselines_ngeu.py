"""Baselines of the NGEU paper (004, Table I-II) by other groups: FastSDA, RSLDA and TRPCA.

All three are implemented from their publications' definitions (facts and formulas; the authors'
public MATLAB code was read for the conventions the papers leave open, and is cited where it
decides one). The equation numbers of the papers were not available to us (their full texts
are not in our corpus; the abstracts and the authors' code are), so the docstrings name the
quantities and the steps rather than numbers.

* :class:`FastSDA` — Chumachenko, Raitoharju, Iosifidis & Gabbouj, "Speed-up and multi-view
  extensions to subclass discriminant analysis", Pattern Recognition 111 (2021) 107660
  (arXiv 1905.00794; code github.com/katerynaCh/fastSDA): subclass discriminant analysis by
  spectral regression, the eigenvectors of the between-subclass Laplacian written down from the
  labels instead of computed.
* :class:`RSLDA` — Wen, Fang, Cui, Fei, Yan, Chen & Xu, "Robust sparse linear discriminant
  analysis", IEEE TCSVT 29(2) (2019) 390-403 (code github.com/ckghostwj/RSLDA): LDA with an
  l2,1-sparse projection, an orthogonal reconstruction matrix and a sparse error, by ADMM.

* :class:`TRPCA` — Podosinnikova, Setzer & Hein, "Robust PCA: optimization of the robust
  reconstruction error over the Stiefel manifold", GCPR 2014 (code: the authors' ``trpca.m``):
  PCA minimising the trimmed reconstruction error. Paper 004 cites this paper for its row
  "TRPCAA"; what the extra "A" denotes was not found (docs/ngeu.md), so this is TRPCA as
  published.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._validation import check_n_classes, check_n_components
from graphdr.methods.discriminant import center_kernel_inplace, class_mean_gram, core_targets
from graphdr.methods.subclass import (
    SubclassDiscriminantBase,
    between_subclass_core,
    subclass_core_eigenpairs,
)
from graphdr.solvers import flip_signs

__all__ = ["TRPCA", "FastSDA", "RSLDA", "rslda_admm", "rslda_augmented_lagrangian", "trpca_run"]

NORMALIZATIONS = ("orthonormal", "unit")


# --------------------------------------------------------------------------------------------
# FastSDA
# --------------------------------------------------------------------------------------------


class FastSDA(SubclassDiscriminantBase):
    """Fast subclass discriminant analysis (Chumachenko et al. 2021), a baseline of paper 004.

    Subclass discriminant analysis (Zhu & Martinez) maximises ``tr((W^T S_t W)^-1 W^T S_bs W)``
    with the between-subclass scatter ``S_bs = sum_{u, v of different classes} p_u p_v
    (mu_u - mu_v)(mu_u - mu_v)^T`` and the total scatter ``S_t``. As a graph embedding
    ``S_bs = Phi L_b Phi^T``; fastSDA's observation is that the eigenvectors of the
    between-subclass Laplacian ``L_b`` with non-zero eigenvalue are known from the labels: the
    class indicators orthogonal to ``1`` (C-1 of them) and, for every group of classes of equal
    size, the subclass indicators of those classes orthogonal to their class indicators. Spectral
    regression (Cai et al.) then replaces the eigenproblem by one regularised regression of the
    centred data onto these targets ``T`` (N x (H-1), orthonormal columns):

        (K_c + reg I) A = T,     z(x) = A^T k_c(x),

    ``K_c`` the centred kernel (the authors centre the data; with ``kernel="linear"`` this is
    their primal solution ``W = (X_c X_c^T + reg I)^-1 X_c T`` by the push-through identity).

    What is taken from where: the subclass partition (k-means per class, seeded), the core matrix
    ``O_bs`` and its eigenpairs are those of :class:`~graphdr.methods.AKSDA`: ``L_b``'s
    eigenvectors are ``T = R_s V`` with ``V`` the non-zero eigenvectors of ``O_bs`` (eigenvalue 1
    for the class-level space, ``1 - N_c/N`` for the subclass contrasts of the classes of size
    ``N_c``: exactly fastSDA's groups by class size, in its order, larger eigenvalue first). The
    authors draw a random basis in each eigenspace (unseeded ``randn`` then QR); here the basis
    is the data-ordered one of AKSDA (deterministic, independent of class names), which spans
    the same eigenspaces, so the full (H-1)-dimensional subspace is the paper's; a truncated one
    (``n_components < H-1``) cuts a degenerate eigenspace where the paper's is random.

    Normalisation of the directions: the authors' ``fastSDA.m`` orthonormalises the projection
    matrix (``orth(W)``; default ``normalize="orthonormal"``: ``A^T K_c A = I``), their results
    scripts scale each direction to unit norm (``normalize="unit"``: ``diag(A^T K_c A) = 1``).
    Their kernel script regresses with ``(K K + reg I)^-1 K T`` (least squares on the kernel
    columns); here the kernel form of their linear solution, ``(K_c + reg I)^-1 T``, serves every
    kernel (the two agree as reg -> 0 for an invertible ``K_c``; the ridge acts differently).
    ``fastSDA.m`` sets the subclasses per class to ``ceil((n_components + 1) / C)``; here
    ``n_subclasses`` is a parameter (cross-validated in the NGEU protocol).

    Parameters
    ----------
    n_components : int or None
        At most H-1 (None: H-1), H the number of non-empty subclasses found.
    n_subclasses, clustering, random_state : as :class:`~graphdr.methods.AKSDA`.
    kernel, gamma, degree, coef0, reg, dtype : as :class:`~graphdr.methods.AKDA` (``reg`` is the
        ridge added to the centred kernel: the paper's regularisation ``alpha``).
    normalize : {"orthonormal", "unit"}
        Orthonormal directions in feature space (``fastSDA.m``) or unit-norm ones.

    Attributes
    ----------
    dual_coef_, eigenvalues_ (the Laplacian's eigenvalues of the kept targets), subclass_labels_,
    n_subclasses_, classes_, n_components_, X_fit_.
    """

    _label = "FastSDA"

    def __init__(
        self,
        n_components=None,
        *,
        n_subclasses=2,
        clustering="kmeans",
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        reg=1e-3,
        normalize="orthonormal",
        dtype="float64",
        random_state=None,
    ):
        self.n_components = n_components
        self.n_subclasses = n_subclasses
        self.clustering = clustering
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.reg = reg
        self.normalize = normalize
        self.dtype = dtype
        self.random_state = random_state

    def fit(self, X, y):
        """Subclasses, label-given targets ``T = R_s V``, one Cholesky solve, normalisation."""
        X, y_enc, class_counts = self._validate_fit(X, y)
        if self.normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got {self.normalize!r}.")
        self._early_checks(class_counts)
        K = self._train_kernel(X)
        part, n_components = self._subclasses(X, K, y_enc, class_counts)
        self._set_centering(*center_kernel_inplace(K))
        G = class_mean_gram(K, part.labels, part.counts)
        lam, V = subclass_core_eigenpairs(between_subclass_core(part), n_components, G=G)
        T = core_targets(part.labels, part.counts, V)
        A = self._solve(K, X, T, centred=True)
        # K_c A = T - reg A (the system itself): no second kernel. Forming K_c A first keeps
        # the product accurate when K_c is singular and reg tiny (A then has ~1/reg components
        # in K_c's null space, which A^T T and reg A^T A would each carry and cancel).
        gram = A.T @ (T - self.reg * A)
        gram = (gram + gram.T) * 0.5
        A = _normalise_directions(A, gram, self.normalize, self.reg)
        self._store(A, lam)
        return self


def _normalise_directions(A: np.ndarray, gram: np.ndarray, normalize: str, reg) -> np.ndarray:
    """``A gram^(-1/2)`` (orthonormal in feature space) or ``A / sqrt(diag(gram))``."""
    if normalize == "unit":
        norms = np.diag(gram)
        if np.any(norms <= 0):
            raise ValueError(
                f"FastSDA: a direction has zero norm in feature space (reg={reg}): the targets "
                "are not reachable from this kernel; use another kernel or increase reg."
            )
        return A / np.sqrt(norms)
    w, U = scipy.linalg.eigh(gram)
    if w[0] <= 1e-12 * max(w[-1], 0.0):
        raise ValueError(
            f"FastSDA: the directions are linearly dependent in feature space (smallest "
            f"eigenvalue of A^T K_c A = {w[0]:.3g}, reg={reg}); ask for fewer components, use "
            "another kernel, or increase reg."
        )
    return A @ ((U / np.sqrt(w)) @ U.T)


# --------------------------------------------------------------------------------------------
# RSLDA
# --------------------------------------------------------------------------------------------


def _scatters(X: np.ndarray, labels: np.ndarray, n_classes: int):
    """Within- and between-class scatters of the columns of ``X`` (D x N, centred)."""
    d = X.shape[0]
    S_w = np.zeros((d, d))
    S_b = np.zeros((d, d))
    for c in range(n_classes):
        Xc = X[:, labels == c]
        m = Xc.mean(axis=1, keepdims=True)
        Zc = Xc - m
        S_w += Zc @ Zc.T
        S_b += Xc.shape[1] * (m @ m.T)  # X is centred: the overall mean is 0
    return S_w, S_b


def _soft_threshold(V: np.ndarray, t: float) -> np.ndarray:
    """The proximal map of ``t ||.||_1``: ``sign(v) max(|v| - t, 0)``."""
    return np.sign(V) * np.maximum(np.abs(V) - t, 0.0)


def _procrustes(B: np.ndarray) -> np.ndarray:
    """``argmax_{P^T P = I} tr(P^T B)`` = ``U V^T`` from the thin SVD ``B = U S V^T``."""
    U, _, Vt = scipy.linalg.svd(B, full_matrices=False)
    return U @ Vt


def _solve_symmetric(S: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``S^-1 B`` by Cholesky (``S`` is positive definite unless ``lambda_b S_b`` outweighs
    ``S_w`` in a direction the data span), else by the symmetric-indefinite solver."""
    try:
        factor = scipy.linalg.cho_factor(S, check_finite=False)
        return scipy.linalg.cho_solve(factor, B, check_finite=False)
    except np.linalg.LinAlgError:
        return scipy.linalg.solve(S, B, assume_a="sym", check_finite=False)


def rslda_objective(Q, E, A, lambda1, lambda2) -> float:
    """``tr(Q^T (S_w - lambda_b S_b) Q) + lambda1 ||Q||_2,1 + lambda2 ||E||_1``."""
    return float(
        np.einsum("ij,ij->", Q, A @ Q)
        + lambda1 * np.linalg.norm(Q, axis=1).sum()
        + lambda2 * np.abs(E).sum()
    )


def rslda_augmented_lagrangian(X, P, Q, E, Y, mu, A, lambda1, lambda2) -> float:
    """The augmented Lagrangian ADMM descends for fixed ``(Y, mu)``: the objective plus
    ``<Y, R> + mu/2 ||R||_F^2`` with the constraint residual ``R = X - P Q^T X - E``."""
    R = X - P @ (Q.T @ X) - E
    return rslda_objective(Q, E, A, lambda1, lambda2) + float(
        np.einsum("ij,ij->", Y, R) + 0.5 * mu * np.einsum("ij,ij->", R, R)
    )


def rslda_admm(
    X: np.ndarray,
    labels: np.ndarray,
    n_components: int,
    *,
    lambda1: float,
    lambda2: float,
    lambda_b: float,
    mu: float,
    rho: float,
    mu_max: float,
    max_iter: int,
    tol: float,
    callback=None,
):
    """RSLDA's ADMM on ``X`` (D x N, centred and scaled columns = samples).

    Problem: ``min tr(Q^T (S_w - lambda_b S_b) Q) + lambda1 ||Q||_2,1 + lambda2 ||E||_1``
    subject to ``X = P Q^T X + E`` and ``P^T P = I``. Augmented Lagrangian with multiplier ``Y``
    and penalty ``mu``; with ``M = X - E + Y / mu`` one iteration is

    1. P-step (from the second iteration; the first uses the PCA basis as the authors do):
       ``P = U V^T`` with ``U S V^T = svd(M X^T Q)`` (orthogonal Procrustes);
    2. Q-step: ``(2 (S_w - lambda_b S_b) + lambda1 D + mu X X^T) Q = mu X M^T P``, the
       iteratively reweighted form of the l2,1 norm, ``D = diag(1 / ||q^i||)`` from the previous
       ``Q`` (a majoriser: the step cannot increase the augmented Lagrangian);
    3. E-step: ``E = soft(X - P Q^T X + Y / mu, lambda2 / mu)``;
    4. ``Y <- Y + mu (X - P Q^T X - E)``, ``mu <- min(rho mu, mu_max)``.

    Stops when the constraint residual (max-abs) and the relative change of the objective are
    both below ``tol``. ``callback(stage, P, Q, E, Y, mu)`` is called after every block
    (``stage`` in "P", "Q", "E", "Y") for the tests. Returns ``(P, Q, E, objectives,
    converged)``.
    """
    d, n = X.shape
    n_classes = int(labels.max()) + 1
    S_w, S_b = _scatters(X, labels, n_classes)
    A = S_w - lambda_b * S_b
    XXt = X @ X.T
    _, U = scipy.linalg.eigh(XXt, subset_by_index=(d - n_components, d - 1), check_finite=False)
    P = flip_signs(np.ascontiguousarray(U[:, ::-1]))
    # The authors start the reweighting from Q = ones: row norms sqrt(d), weights 1/(2 sqrt(d)).
    row_weights = np.full(d, 0.5 / np.sqrt(n_components))
    Q = np.zeros((d, n_components))
    E = np.zeros_like(X)
    Y = np.zeros_like(X)
    objectives = []
    converged = False
    for it in range(max_iter):
        if it > 0:
            P = _procrustes((X - E + Y / mu) @ (X.T @ Q))
            if callback is not None:
                callback("P", P, Q, E, Y, mu)
        M = X - E + Y / mu
        system = 2.0 * A + mu * XXt
        system[np.diag_indices_from(system)] += lambda1 * row_weights
        system = (system + system.T) * 0.5
        Q = _solve_symmetric(system, mu * (X @ (M.T @ P)))
        norms = np.sqrt(np.einsum("ij,ij->i", Q, Q) + np.finfo(float).eps)
        row_weights = 1.0 / norms
        if callback is not None:
            callback("Q", P, Q, E, Y, mu)
        PQtX = P @ (Q.T @ X)
        E = _soft_threshold(X - PQtX + Y / mu, lambda2 / mu)
        if callback is not None:
            callback("E", P, Q, E, Y, mu)
        R = X - PQtX - E
        Y = Y + mu * R
        mu = min(rho * mu, mu_max)
        if callback is not None:
            callback("Y", P, Q, E, Y, mu)
        objectives.append(rslda_objective(Q, E, A, lambda1, lambda2))
        if it > 1:
            change = abs(objectives[-1] - objectives[-2]) / max(1.0, abs(objectives[-2]))
            if np.abs(R).max() < tol and change < tol:
                converged = True
                break
    return P, Q, E, np.asarray(objectives), converged


def _check_positive(name, value, *, allow_zero=False):
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
        or value < 0
        or (value == 0 and not allow_zero)
    ):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}.")


class RSLDA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Robust sparse linear discriminant analysis (Wen et al., IEEE TCSVT 2019), a paper-004
    baseline.

    Objective (the paper's model; ``X`` is D x N with samples as columns):

        min_{P, Q, E}  tr(Q^T (S_w - lambda_b S_b) Q) + lambda1 ||Q||_2,1 + lambda2 ||E||_1
        s.t.  X = P Q^T X + E,  P^T P = I,

    ``Q`` (D x d) the projection (row-sparse through the l2,1 norm: feature selection), ``P``
    (D x d) an orthogonal reconstruction matrix (the projected data keep the data's main energy),
    ``E`` a sparse error absorbing corrupted entries. Solved by ADMM (:func:`rslda_admm`:
    Procrustes P-step, reweighted linear-system Q-step, soft-threshold E-step, multiplier update
    with a growing penalty ``mu <- min(rho mu, mu_max)``). New points: ``z = Q^T x`` (after the
    training centring and scaling below).

    Conventions and what is reconstructed: the scatters are the textbook ones
    (``S_w = sum_c sum_{i in c} (x_i - m_c)(x_i - m_c)^T``, ``S_b = sum_c N_c (m_c - m)(m_c - m)^T``;
    the authors' helper normalises each class's covariance by ``N_c``); ``lambda_b`` (the weight
    of ``S_b``), the PCA initialisation of ``P``, the first reweighting from ``Q = 1`` and the
    penalty schedule (``mu = 0.1``, ``rho = 1.01``, ``mu_max = 1e5``) follow the authors' code,
    which fixes ``lambda_b = 1e-5``. Not in the paper: the data are centred and scaled to unit
    root-mean-square sample norm before fitting, so that ``lambda1``, ``lambda2`` and ``tol``
    mean the same at every scale (and the embedding's span ignores a translation or rescaling
    of the data); the stopping rule is relative (the authors': residual < 1e-7 and absolute
    objective change < 1e-5). Reaching ``max_iter`` first warns (``ConvergenceWarning``).

    Parameters
    ----------
    n_components : int or None
        Dimension d, at most n_features (None: min(C-1, n_features)). RSLDA is not limited to
        C-1 directions.
    lambda1 : float, default 1e-4
        Weight of the l2,1 norm of ``Q`` (>= 0; 0 drops the sparsity term).
    lambda2 : float, default 1e-3
        Weight of the l1 norm of the sparse error ``E`` (> 0).
    lambda_b : float, default 1e-5
        Weight of the between-class scatter.
    mu, rho, mu_max : ADMM penalty: initial value, growth factor (>= 1), cap.
    max_iter : int, default 1000
    tol : float, default 1e-6

    Attributes
    ----------
    components_ : (n_components, n_features) ``Q^T`` in the scaled coordinates.
    reconstruction_ : (n_features, n_components) ``P``.
    sparse_error_ : (n_samples, n_features) the error ``E^T`` (scaled coordinates).
    mean_, scale_ : training centring and scale.
    objective_ : the objective after every iteration.
    n_iter_, converged_, classes_, n_components_.
    """

    def __init__(
        self,
        n_components=None,
        *,
        lambda1=1e-4,
        lambda2=1e-3,
        lambda_b=1e-5,
        mu=0.1,
        rho=1.01,
        mu_max=1e5,
        max_iter=1000,
        tol=1e-6,
    ):
        self.n_components = n_components
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.lambda_b = lambda_b
        self.mu = mu
        self.rho = rho
        self.mu_max = mu_max
        self.max_iter = max_iter
        self.tol = tol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    @property
    def _n_features_out(self):
        return self.n_components_

    def _check_params(self):
        _check_positive("lambda1", self.lambda1, allow_zero=True)
        _check_positive("lambda2", self.lambda2)
        _check_positive("lambda_b", self.lambda_b, allow_zero=True)
        _check_positive("mu", self.mu)
        _check_positive("mu_max", self.mu_max)
        _check_positive("tol", self.tol)
        _check_positive("rho", self.rho)
        if self.rho < 1:
            raise ValueError(f"rho must be >= 1 (the penalty may not shrink), got {self.rho!r}.")
        if (
            isinstance(self.max_iter, bool)
            or not isinstance(self.max_iter, numbers.Integral)
            or self.max_iter < 1
        ):
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}.")

    def fit(self, X, y):
        """Centre and scale, then ADMM (:func:`rslda_admm`)."""
        self._check_params()
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        n_classes = check_n_classes(y_enc, method="RSLDA")
        d = X.shape[1]
        if self.n_components is None:
            n_components = check_n_components(
                min(n_classes - 1, d),
                d,
                bound_name="n_features",
                reason="RSLDA has at most one direction per feature",
            )
        else:
            n_components = check_n_components(
                self.n_components,
                d,
                bound_name="n_features",
                reason="RSLDA's projection Q has one column per direction in feature space",
            )
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        Z = X - self.mean_
        rms = float(np.sqrt(np.einsum("ij,ij->", Z, Z) / Z.shape[0]))
        if not rms > 0:
            raise ValueError("RSLDA: all training samples are identical; nothing to project.")
        self.scale_ = rms
        P, Q, E, objectives, converged = rslda_admm(
            (Z / rms).T,
            y_enc.astype(np.intp),
            n_components,
            lambda1=float(self.lambda1),
            lambda2=float(self.lambda2),
            lambda_b=float(self.lambda_b),
            mu=float(self.mu),
            rho=float(self.rho),
            mu_max=float(self.mu_max),
            max_iter=int(self.max_iter),
            tol=float(self.tol),
        )
        if not np.all(np.isfinite(Q)):
            raise ValueError(
                "RSLDA: the ADMM iterates are not finite; increase lambda1 or lambda2, or "
                "lower lambda_b (S_w - lambda_b S_b must not be too indefinite)."
            )
        if not converged:
            warnings.warn(
                f"RSLDA did not converge in max_iter={self.max_iter} iterations (tol={self.tol}): "
                "increase max_iter or rho, or loosen tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        # One sign rule (largest entry of each direction positive), applied to Q and P alike.
        idx = np.argmax(np.abs(Q), axis=0)
        signs = np.sign(Q[idx, np.arange(n_components)])
        signs[signs == 0] = 1.0
        self.components_ = (Q * signs).T.copy()
        self.reconstruction_ = P * signs
        self.sparse_error_ = E.T
        self.objective_ = objectives
        self.n_iter_ = objectives.size
        self.converged_ = converged
        self.n_components_ = n_components
        return self

    def transform(self, X):
        """``z = Q^T (x - mean_) / scale_``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return ((np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_) @ self.components_.T


# --------------------------------------------------------------------------------------------
# TRPCA
# --------------------------------------------------------------------------------------------


def _trimmed(residuals: np.ndarray, t: int):
    """Indices of the ``t`` smallest residuals (stable order: ties to the lower index) and
    their sum, the trimmed reconstruction error."""
    order = np.argsort(residuals, kind="stable")[:t]
    return order, float(residuals[order].sum())


def trpca_run(X: np.ndarray, U: np.ndarray, t: int, *, max_iter: int, tol: float):
    """One run of TRPCA from the orthonormal ``U`` (D x k); returns ``(U, m, objectives,
    converged)``.

    Objective: ``sum of the t smallest r_i``, ``r_i = ||x_i - m||^2 - ||U^T (x_i - m)||^2`` (the
    squared reconstruction error of ``x_i`` by the affine subspace ``m + span(U)``), over
    ``U^T U = I`` and the centre ``m``. Alternation (both steps never increase it):

    1. U-step, repeated until it stalls: with ``S`` the ``t`` samples of smallest residual,
       ``U <- polar(X_S^T X_S U)`` (``W V^T`` of the thin SVD): the maximiser of the linearised
       trimmed variance over the Stiefel manifold;
    2. centre: ``m <- mean of the t samples of smallest residual`` (the optimal centre for a
       fixed subset); the start is the coordinate-wise median.

    Stops when a full step lowers the objective by at most ``tol`` times its value.
    """
    m = np.median(X, axis=0)
    objectives = []
    previous = np.inf
    converged = False
    for _ in range(max_iter):
        XC = X - m
        sq_norms = np.einsum("ij,ij->i", XC, XC)
        proj = XC @ U
        order, obj = _trimmed(sq_norms - np.einsum("ij,ij->i", proj, proj), t)
        inner_previous = obj
        for _ in range(max_iter):
            Xs = XC[order]
            W, _, Vt = scipy.linalg.svd(Xs.T @ (Xs @ U), full_matrices=False)
            U = W @ Vt
            proj = XC @ U
            order, obj = _trimmed(sq_norms - np.einsum("ij,ij->i", proj, proj), t)
            if inner_previous - obj <= tol * max(inner_previous, np.finfo(float).tiny):
                break
            inner_previous = obj
        m = X[order].mean(axis=0)
        objectives.append(obj)
        if np.isfinite(previous) and previous - obj <= tol * max(previous, np.finfo(float).tiny):
            converged = True
            break
        previous = obj
    return U, m, np.asarray(objectives), converged


class TRPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Trimmed robust PCA (Podosinnikova, Setzer & Hein, GCPR 2014), cited by paper 004 for its
    baseline row "TRPCAA".

    Minimises the trimmed reconstruction error over the Stiefel manifold and the centre,

        min_{U^T U = I, m}  sum_{i=1}^{t} r_(i),   r_i = ||x_i - m||^2 - ||U^T (x_i - m)||^2,

    ``r_(1) <= r_(2) <= ...`` the sorted residuals and ``t`` a lower bound on the number of
    inliers (default ``ceil(N / 2)``, the authors'). With ``t = N`` it is PCA. Solved as the
    authors do (:func:`trpca_run`: polar-decomposition U-steps on the ``t`` best-fitted samples,
    trimmed-mean centre) from ``n_init`` random orthonormal starts (seeded by ``random_state``;
    the authors' default 10 restarts), keeping the run of smallest objective. The problem is not
    convex: restarts are the method's answer to local minima. Deviation: the stopping tolerance
    is relative (the authors': absolute ``1e-5``); reaching ``max_iter`` warns
    (``ConvergenceWarning``). Unsupervised: ``y`` is ignored. New points: ``z = U^T (x - m)``.

    Parameters
    ----------
    n_components : int or None
        k, at most n_features (None: ``min(10, ceil(n_features / 2))``, the authors' default).
    n_inliers : int or None
        t, in ``[ceil(N / 2), N]`` (None: ``ceil(N / 2)``).
    n_init : int, default 10
    max_iter : int, default 1000
    tol : float, default 1e-10
    random_state : int, RandomState or None

    Attributes
    ----------
    components_ : (n_components, n_features) ``U^T``.
    center_ : (n_features,) the robust centre ``m``.
    objective_ : the objective of the kept run after every outer step.
    inliers_ : (t,) indices of the t best-fitted training samples.
    n_iter_, converged_, n_components_.
    """

    def __init__(
        self,
        n_components=None,
        *,
        n_inliers=None,
        n_init=10,
        max_iter=1000,
        tol=1e-10,
        random_state=None,
    ):
        self.n_components = n_components
        self.n_inliers = n_inliers
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @property
    def _n_features_out(self):
        return self.n_components_

    def fit(self, X, y=None):
        """Random restarts of :func:`trpca_run`; the best run is kept."""
        from sklearn.utils import check_random_state

        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        for name in ("n_init", "max_iter"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}.")
        _check_positive("tol", self.tol)
        k = check_n_components(
            min(10, -(-d // 2)) if self.n_components is None else self.n_components,
            d,
            bound_name="n_features",
            reason="TRPCA's components are orthonormal vectors of the feature space",
        )
        low = -(-n // 2)
        t = low if self.n_inliers is None else self.n_inliers
        if isinstance(t, bool) or not isinstance(t, numbers.Integral) or not low <= t <= n:
            raise ValueError(
                f"n_inliers must be an integer in [ceil(N/2), N] = [{low}, {n}] (a lower bound on "
                f"the number of inliers; the trimmed error needs a majority), got {t!r}."
            )
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(self.n_init):
            U0, _ = np.linalg.qr(rng.standard_normal((d, k)))
            run = trpca_run(X, U0, int(t), max_iter=int(self.max_iter), tol=float(self.tol))
            if best is None or run[2][-1] < best[2][-1]:
                best = run
        U, m, objectives, converged = best
        if not converged:
            warnings.warn(
                f"TRPCA did not converge in max_iter={self.max_iter} steps (tol={self.tol}): "
                "increase max_iter or loosen tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        XC = X - m
        proj = XC @ U
        self.inliers_, _ = _trimmed(
            np.einsum("ij,ij->i", XC, XC) - np.einsum("ij,ij->i", proj, proj), int(t)
        )
        self.components_ = flip_signs(np.ascontiguousarray(U)).T.copy()
        self.center_ = m
        self.objective_ = objectives
        self.n_iter_ = objectives.size
        self.converged_ = converged
        self.n_components_ = k
        return self

    def transform(self, X):
        """``z = U^T (x - center_)``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return (np.asarray(X, dtype=np.float64) - self.center_) @ self.components_.T
