"""Graph embedding (Yan et al. 2007): linear and kernel estimators, and the named methods.

Linear GE (``y = X w``) minimises ``w^T X^T L X w`` subject to ``w^T X^T B X w = 1`` (a penalty
graph B) or ``w^T w = 1`` (scale normalisation); PCA's graph keeps the largest ratios instead.

Both estimators solve the same finite-dimensional problem. The centred training data are first
written in an orthonormal basis of their span, ``Z`` (N x r):

* linear: an orthonormal basis ``V_r`` of the row space of ``X - mean`` (from the smaller Gram
  matrix), ``Z = (X - mean) V_r``, directions ``v = V_r w``;
* kernel: the eigendecomposition of the centred kernel ``K_c = U S U^T``, ``Z = U_r S_r^{1/2}`` (an
  exact feature map of the training set), dual coefficients ``alpha = U_r S_r^{-1/2} w``.

Every scatter ``X^T A X`` vanishes outside that span, so nothing is lost, the eigenproblems are
r x r and well posed, a linear kernel gives back linear GE, and PCA on ``Z`` is KernelPCA. The
eigenvalues of ``Z^T Z`` below ``tol * max`` are treated as zero.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from graphdr._validation import check_n_classes, check_n_components
from graphdr.graphs import (
    GraphBuilder,
    GraphPair,
    GroupCenteringOperator,
    LPPGraph,
    kernel_sq_distances,
    make_graph,
)
from graphdr.kernels import (
    center_kernel_test,
    center_kernel_train,
    check_kernel_health,
    eigh_centred_kernel,
    pairwise_kernel,
    resolve_gamma,
    reusable,
    stored_centred_kernel_eigh,
)
from graphdr.methods._linear import LinearProjectionMixin
from graphdr.solvers import (
    SharedCholesky,
    eigh_generalized,
    eigh_generalized_lowrank,
    flip_signs,
    numerical_rank,
)

__all__ = [
    "GraphEmbedding",
    "KernelGraphEmbedding",
    "PCA_GE",
    "LDA_GE",
    "MFA_GE",
    "LPP_GE",
    "KPCA_GE",
    "KDA_GE",
    "KMFA_GE",
    "KLPP_GE",
]

#: relative ridge on the denominator scatter (see :func:`solve_graph_embedding`): a numerical
#: safeguard that keeps LDA_GE within 3e-8 rad of scikit-learn's unregularised LDA
DEFAULT_REG = 1e-8
#: kernel estimators: their null-space directions (kernel DA/MFA/LPP always have some) are
#: reproducible to ~1e-10 with 1e-6, to only ~3e-8 with 1e-8 (measured under 1e-15 kernel noise)
DEFAULT_KERNEL_REG = 1e-6
#: relative eigenvalue threshold of ``Xc^T Xc`` defining the span of the centred data; the
#: out-of-sample error it allows is ~ eps_mach / sqrt(tol) ~ 1e-11 (relative)
DEFAULT_TOL = 1e-10
#: the same threshold on the centred kernel: a test point enters through k(x), a squared
#: quantity, so a direction of eigenvalue s amplifies rounding by ~1/s; 1e-6 keeps the
#: out-of-sample error near 1e-10 instead of 1e-6 (measured: pickling KMFA_GE changed
#: transforms by up to 2e-6 relative at 1e-10, through BLAS rounding alone)
DEFAULT_KERNEL_TOL = 1e-6
_SOLVERS = ("regularized", "range", "positive")


# --------------------------------------------------------------------------------------------
# The maths, as plain functions
# --------------------------------------------------------------------------------------------


def data_span(Xc: np.ndarray, tol: float = DEFAULT_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of centred data in an orthonormal basis of their row space.

    Eigendecomposition of the smaller Gram matrix (one GEMM and a min(N, D)^2 eigh; much faster
    than an SVD of the N x D matrix): ``Xc^T Xc = V S^2 V^T`` when N >= D, else
    ``Xc Xc^T = U S^2 U^T`` and ``V = Xc^T U_r S_r^-1``. Keeps ``S_k^2 > tol * S_1^2``. Returns
    ``Z`` (N x r) and ``basis = V_r`` (D x r) with ``Xc V_r = Z`` and ``Z^T Z = S_r^2``
    (diagonal); GE is invariant to the choice of orthonormal basis.

    When N < D, ``Z = U_r S_r`` exactly and ``V_r`` is not re-orthonormalised: its columns are
    orthonormal only up to ~eps * S_1^2 / S_r^2, which the solution never sees (it is computed
    in Z, and ``components = V_r W`` are the dual combinations ``Xc^T U_r S_r^-1 W`` of the
    training rows, as a linear kernel gives). A QR of the D x N matrix used to cost as much as
    the eigendecomposition.

    Inside :func:`graphdr.kernels.reuse_kernels` the result is kept in the block's store, keyed
    by the content of ``Xc`` and ``tol``: a later call on the same centred data (the next
    ``reg`` of a cross-validation grid at one fold, another linear method of the same fold)
    gets copies of it, bit for bit what it would compute (:func:`graphdr.kernels.reusable`).
    """
    return _data_span(Xc, float(tol))  # one key for every caller (tol given or not)


@reusable
def _data_span(Xc: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    n, d = Xc.shape
    tall = n >= d
    gram = Xc.T @ Xc if tall else Xc @ Xc.T
    s2, E = scipy.linalg.eigh(gram, overwrite_a=True, check_finite=False, driver="evd")
    s2, E = s2[::-1], E[:, ::-1]
    top = s2[0] if s2.size else 0.0
    r = int(np.count_nonzero(s2 > tol * top)) if top > 0 else 0
    if r == 0:
        raise ValueError(
            "The centred training data have rank 0 (all training samples are identical): "
            "there is no direction to embed."
        )
    if tall:
        basis = np.ascontiguousarray(E[:, :r])
        return Xc @ basis, basis
    root = np.sqrt(s2[:r])
    return E[:, :r] * root, (Xc.T @ E[:, :r]) / root


def kernel_feature_map(Kc: np.ndarray, tol: float = DEFAULT_KERNEL_TOL, n_leading=None):
    """Exact finite feature map of a centred kernel matrix (overwrites ``Kc``).

    ``Kc = U S U^T``, keep ``S_k > tol * S_1`` (descending). Returns ``(U_r, root)`` with
    ``root = S_r^{1/2}``: the feature map is ``Phi = U_r diag(root)`` (``Phi Phi^T = Kc`` on the
    kept part) and a direction ``w`` in Phi-coordinates has dual coefficients
    ``alpha = U_r diag(1/root) w`` (``Kc alpha = Phi w``, ``alpha^T Kc alpha = w^T w``).
    Negative eigenvalues (a kernel that is not PSD) are dropped with a warning.

    Inside :func:`graphdr.kernels.reuse_kernels` a full decomposition is kept in the block's
    store, keyed by the content of ``Kc``: a later call on the same matrix (another estimator of
    the same fold and kernel) reads it instead of decomposing again, and ``n_leading`` then
    takes the leading pairs of the full decomposition (the same pairs to round-off).

    ``n_leading=k`` computes only the k largest eigenpairs (a subset ``eigh``, much cheaper than
    the full decomposition) for estimators whose solution lies in them (KPCA); the rank is then
    counted among those k, and the PSD warning, which needs the smallest eigenvalue, is skipped.
    """
    n = Kc.shape[0]
    if n_leading is not None and n_leading >= n:
        n_leading = None
    # inside graphdr.kernels.reuse_kernels, the full decomposition of a centred kernel is kept
    # for the other estimators of the block that decompose the same matrix (eigh_centred_kernel);
    # KPCA reads its leading pairs from it instead of a subset decomposition of its own
    full = stored_centred_kernel_eigh(Kc) if n_leading is not None else None
    if full is not None:
        s, U = full  # ascending, as eigh returns them; shared: not modified below
        s, U = s[n - n_leading :], U[:, n - n_leading :]
    elif n_leading is not None:
        s, U = scipy.linalg.eigh(
            Kc, overwrite_a=True, check_finite=False, subset_by_index=(n - n_leading, n - 1)
        )
    else:
        s, U = eigh_centred_kernel(Kc)  # shared inside reuse_kernels: not modified below
    s, U = s[::-1], U[:, ::-1]
    top = s[0] if s.size else 0.0
    if top <= 0:
        raise ValueError(
            "The centred kernel matrix has no positive eigenvalue (all training points coincide "
            "in feature space): there is no direction to embed."
        )
    if n_leading is None and s[-1] < -1e-6 * top:
        # Measured: the most negative eigenvalue relative to the largest. A PSD kernel (rbf,
        # linear) only gets one from round-off, of size ~1e-16 x the UNcentred kernel: it shows
        # when the centred kernel is tiny next to the kernel (near-constant kernel).
        warnings.warn(
            f"The centred kernel matrix has negative eigenvalues: the most negative is "
            f"{s[-1]:.3g}, {-s[-1] / top:.2g} of the largest ({top:.3g}; threshold 1e-06). "
            "For an rbf or linear kernel this is round-off, which reaches this size when the "
            "kernel is nearly constant (rbf gamma too small for the data's scale, or data "
            "with a large offset): then see the DegenerateKernelWarning and use gamma='scale' "
            "or scaled data. Otherwise the kernel is indefinite (a precomputed kernel, or poly "
            "with coef0 < 0). Negative eigenvalues are dropped.",
            RuntimeWarning,
            stacklevel=3,
        )
    r = int(np.count_nonzero(s > tol * top))  # s is sorted: the kept part is a prefix
    return np.array(U[:, :r], order="C"), np.sqrt(s[:r])  # a copy: U may be the store's


def solve_graph_embedding(
    S_int: np.ndarray,
    S_pen: np.ndarray | None,
    n_components: int,
    *,
    largest: bool = False,
    solver: str = "regularized",
    reg: float = DEFAULT_REG,
    tol: float = DEFAULT_TOL,
    penalty_factor: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Directions of ``S_int w = lambda S_pen w`` (smallest lambda unless ``largest``).

    * ``S_pen=None``: scale normalisation, the standard problem ``S_int w = lambda w``.
    * ``solver="range"``: exact, restricted to the range of ``S_pen`` (directions with no penalty
      scatter have lambda = inf and are discarded); ``w^T S_pen w = 1``.
    * ``solver="regularized"`` (default): the ridge goes on the denominator of the optimised
      ratio. Minimising ``lambda`` is maximising ``mu = w^T S_pen w / w^T (S_int + eps I) w``,
      ``eps = reg * tr(S_int) / r`` (the shrinkage of scikit-learn's LDA "eigen" solver); then
      ``lambda = 1 / mu`` and columns are rescaled to ``w^T S_pen w = 1``. Directions where the
      intrinsic scatter vanishes (null-space discriminants, always present in kernel DA and when
      D > N) rank first, ordered by their penalty scatter per unit norm, and directions where
      both scatters vanish rank last instead of appearing as spurious ``0/0`` optima.
    * ``solver="positive"``: the rule "the eigenvector with the minimal positive eigenvalue"
      (Laakom et al., NGEU, Sec. 3): the null space of ``S_int`` (``lambda ~ 0``: directions
      with ``w^T S_int w <= tol * max eig(S_int) * w^T w``) is skipped, and the problem is
      solved exactly on its orthogonal complement, where ``S_int`` is positive definite:
      ``max mu = w^T S_pen w / w^T S_int w``, ``lambda = 1 / mu > 0``. (Taken literally the
      pencil ``S_int w = lambda S_pen w`` has no finite non-zero eigenvalue when ``S_pen`` is
      singular and ``S_int`` has a null direction the penalty sees, as in kernel DA with a
      full-rank kernel: the restriction is what makes the rule well posed.) Directions of the
      complement with no penalty scatter get ``lambda = inf`` and rank last; at most
      ``rank(S_int)`` directions exist. Minimisation only: with ``largest`` it is the
      "regularized" solve. Columns are scaled to ``w^T S_pen w = 1`` (``w^T S_int w = 1`` when
      the penalty vanishes).
    * ``penalty_factor``: an (r, m) ``F`` with ``S_pen = F F^T`` and m < r (MFA's marginal
      pairs, :func:`penalty_factor`): the minimising solvers ("regularized", "positive") then
      solve the same problem from one Cholesky (or the one eigendecomposition of ``S_int`` that
      "positive" needs) and a thin SVD (:func:`graphdr.solvers.eigh_generalized_lowrank`)
      instead of a dense r x r generalised eigenproblem; the same directions up to rounding.

    Returns (eigenvalues (k,), W (r, k)) in the order of preference.
    """
    if solver not in _SOLVERS:
        raise ValueError(f"solver must be one of {_SOLVERS}, got {solver!r}.")
    if S_pen is None:
        return eigh_generalized(S_int, None, n_components, largest=largest)
    if solver == "range":
        return eigh_generalized(
            S_int, S_pen, n_components, largest=largest, method="range", rtol=tol
        )
    if largest:
        return eigh_generalized(S_int, S_pen, n_components, largest=True, reg=reg)
    if penalty_factor is not None and n_components <= penalty_factor.shape[1]:
        method = "range" if solver == "positive" else "regularized"
        mu, W = eigh_generalized_lowrank(
            penalty_factor, S_int, n_components, method=method, reg=reg, rtol=tol
        )
    elif solver == "positive":
        # the range of S_int is its complement's null space: "range" restricts B = S_int to it
        mu, W = eigh_generalized(S_pen, S_int, n_components, largest=True, method="range", rtol=tol)
    else:
        mu, W = eigh_generalized(S_pen, S_int, n_components, largest=True, reg=reg)
    norms2 = np.einsum("ij,ij->j", W, W)
    return _eigenvalues_from_ratios(mu, norms2, float(np.trace(S_pen)), tol, W), W


#: the factored penalty path is taken when the penalty graph has at most this share of r edges
#: (its cost n^2 m + n m^2 on top of one Cholesky; the dense solve costs ~3 r^3 either way)
PENALTY_FACTOR_SHARE = 0.5


def penalty_factor(penalty, Z: np.ndarray) -> np.ndarray | None:
    """``F = (G Z)^T`` (r x m) with ``Z^T B Z = F F^T``, for a penalty Laplacian ``B = G^T G``
    of m edges (its incidence ``G``) with ``m <= PENALTY_FACTOR_SHARE * r``; None otherwise
    (no penalty, no incidence, or too many edges to gain). MFA's marginal-pairs graph has at
    most classes x k2 edges, far fewer than the r ~ N directions of a kernel MFA."""
    if penalty is None or not hasattr(penalty, "incidence"):
        return None
    G = penalty.incidence()
    if not 0 < G.shape[0] <= PENALTY_FACTOR_SHARE * Z.shape[1]:
        return None
    return np.ascontiguousarray((G @ Z).T)


def _eigenvalues_from_ratios(mu, norms2, tr_pen, tol, W):
    """GE eigenvalues from the maximised ratios ``mu = w^T S_pen w / w^T B w`` of columns with
    ``W^T B W = I`` (``B``: the regularised intrinsic scatter, or it on its range), shared by the
    dense solvers and the class-graph Ritz step.

    A penalty-null direction (Rayleigh quotient ``w^T S_pen w / w^T w = mu / norms2`` below
    ``tol * tr(S_pen)``; not relative to ``max(mu)``: null-space directions of ``S_int`` make
    ``mu ~ 1 / eps``) gets ``lambda = inf``; the others ``lambda = 1 / mu``, their columns of
    ``W`` rescaled in place from ``w^T B w = 1`` to the GE constraint ``w^T S_pen w = 1``.
    """
    positive = mu > tol * tr_pen * norms2
    with np.errstate(divide="ignore"):
        lam = np.where(positive, 1.0 / np.where(positive, mu, 1.0), np.inf)
    W[:, positive] /= np.sqrt(mu[positive])
    return lam


def _penalty_rank(penalty, Z: np.ndarray, S_pen: np.ndarray, tol: float) -> int:
    """Numerical rank of ``S_pen = Z^T B Z`` (eigenvalues above ``tol * max``).

    For a sparse Laplacian ``B = G^T G`` with few edges (MFA's marginal pairs) this is the rank
    of the small (edges x r) matrix ``G Z``, its squared singular values being those eigenvalues.
    """
    if hasattr(penalty, "incidence"):
        G = penalty.incidence()
        if G.shape[0] < Z.shape[1]:
            s = scipy.linalg.svdvals(G @ Z, check_finite=False)
            return int(np.count_nonzero(s**2 > tol * (s[0] ** 2 if s.size else 0.0)))
    return numerical_rank(S_pen, tol)


# --------------------------------------------------------------------------------------------
# Class graphs: the low-rank structure of LDA-type problems
# --------------------------------------------------------------------------------------------

#: Krylov blocks of the class-graph solvers: the exact eigenvectors are ``(A + d I)^-1 M c``
#: with ``d / eps ~ 1/mu``, so three powers of ``A^-1`` leave an error ~ mu^-3 (below 1e-15 for
#: null-space discriminants, mu ~ 1/reg); smaller mu fail the residual check and fall back
RITZ_BLOCKS = 3
#: blocks the kernel path tries first: two powers leave an error ~ mu^-2, below 1e-10 for the
#: null-space discriminants of kernel DA (mu ~ 1/reg, reg = 1e-6 by default), which is every
#: discriminant of a full-rank kernel; when the residual check fails the third block is added
#: and the check repeated (one solve and one product of G - 1 columns saved per fit otherwise)
RITZ_FIRST_BLOCKS = 2
#: relative residual of the pencil above which a class-graph solution is rejected (fallback):
#: ``RITZ_RTOL + RITZ_ROUNDING * mu``; the second term is the rounding floor of evaluating it
#: (both sides of ``S_t w = mu (S_w + eps I) w`` are ~mu times larger than ``S_w w``), measured
#: at 1e-14 mu on well-posed problems, while the Krylov error it must catch falls as mu^-3
RITZ_RTOL = 1e-9
RITZ_ROUNDING = 1e-13
#: the low-rank kernel path is used only if the centred kernel's smallest eigenvalue is this
#: factor above ``tol * ||Kc||_F`` (>= ``tol * max``): then the full path keeps all N - 1
#: directions and both solve the same problem. The estimate (:class:`_ProbedSolve`) is never
#: below the smallest eigenvalue and, measured, within a factor 1.3 above it
#: (``tests/test_lowrank_ge.py``); the margin covers that factor with room
LOWRANK_MARGIN = 10.0
#: random probes solved beside the first two Krylov blocks for the condition estimate
CONDITION_PROBES = 8
_PATHS = ("auto", "lowrank", "full")


def is_class_graph(graph: GraphPair) -> bool:
    """True for LDA-type graphs: intrinsic = centring within groups (classes, or subclasses),
    penalty = global centring ``H``. Their between-group scatter has rank (groups - 1)."""
    pen = graph.penalty
    return (
        isinstance(graph.intrinsic, GroupCenteringOperator)
        and isinstance(pen, GroupCenteringOperator)
        and pen.counts.size == 1
        and graph.intrinsic.counts.size >= 2
        and not graph.meta.get("largest", False)
    )


def class_directions(groups: GroupCenteringOperator) -> np.ndarray:
    """``Theta = R V`` (N x (G-1)): an orthonormal basis of the centred group indicators.

    ``R = [1_g / sqrt(N_g)]``, ``V`` an orthonormal basis of ``s^perp``, ``s = sqrt(N_g / N)``
    (AKDA's eq. 40 with its core matrix ``O_b = I - s s^T``); ``Theta^T 1 = 0``.
    """
    counts = groups.counts
    s = np.sqrt(counts / counts.sum())
    V = scipy.linalg.null_space(s[None, :])  # SVD: deterministic
    return V[groups.groups] / np.sqrt(counts[groups.groups])[:, None]


class _BlockKrylov:
    """Orthonormal basis of ``{A^-1 S, A^-2 S, ...}`` (``solve`` applies ``A^-1``), grown one
    block at a time (:meth:`extend`) up to :data:`RITZ_BLOCKS`, with two rounds of Gram-Schmidt
    against the previous blocks and an SVD of each new block (directions that add less than
    1e-10 of their norm are dropped). Orthogonalising as it goes keeps the directions that the
    powers of A^-1 add: with a flat spectrum (an expected kernel, say) they are small and the
    plain powers are numerically collinear."""

    def __init__(self, start: np.ndarray, solve):
        self._solve = solve
        W = solve(start)
        self.blocks = [self._orth(W, np.linalg.norm(W, axis=0).max(initial=0.0))]

    @staticmethod
    def _orth(W, scale):
        if W.shape[1] == 0 or not scale > 0:
            return W[:, :0]
        U, sv, _ = scipy.linalg.svd(W, full_matrices=False)
        return U[:, sv > 1e-10 * scale]

    @property
    def complete(self) -> bool:
        """No block can be added: :data:`RITZ_BLOCKS` of them, or the space is invariant."""
        return len(self.blocks) >= RITZ_BLOCKS or self.blocks[-1].shape[1] == 0

    def extend(self) -> np.ndarray:
        """Add the next block and return it (possibly with no columns)."""
        W = self._solve(self.blocks[-1])
        scale = np.linalg.norm(W, axis=0).max()
        basis = np.hstack(self.blocks)
        for _ in range(2):
            W = W - basis @ (basis.T @ W)
        self.blocks.append(self._orth(W, scale))
        return self.blocks[-1]

    def grow_to(self, n_blocks: int) -> np.ndarray:
        """The basis with ``n_blocks`` blocks (fewer if :attr:`complete` sooner), columns side
        by side."""
        while len(self.blocks) < n_blocks and not self.complete:
            self.extend()
        return np.hstack(self.blocks)


def _gram_whitening(G: np.ndarray):
    """``F`` with ``F^T G F = I`` on the numerical range of a Gram matrix ``G``: its columns
    scaled to unit diagonal, then eigenvalues above ``1e-12 * max`` kept. None when a column
    of the underlying basis is zero (a zero diagonal entry)."""
    d = np.sqrt(np.clip(np.diag(G), 0.0, None))
    if not np.all(d > 0):
        return None
    e, F = scipy.linalg.eigh(G / np.outer(d, d))
    keep = e > 1e-12 * e[-1]
    return F[:, keep] / np.sqrt(e[keep]) / d[:, None]


class _ProbedSolve:
    """``A^-1 B`` for :class:`_BlockKrylov`, with :data:`CONDITION_PROBES` seeded random
    columns (centred: ``A``'s constant direction is lifted) solved in the same calls as its
    first two blocks, so the estimate of ``A``'s smallest eigenvalue
    (:meth:`smallest_eigenvalue`) costs no pass over the factor of its own.

    Block Lanczos: the largest Ritz value ``theta`` of ``A^-1`` on ``span{P, A^-1 P}`` (the
    probes and their first power) is at most ``||A^-1||_2``, so ``1 / theta`` is never below
    ``A``'s smallest eigenvalue on the centred vectors; two powers of a random block find it to
    a small factor (Kuczynski and Wozniakowski 1992). Our own code: LAPACK's estimate
    (``dpocon``) runs its own triangular solves, single-threaded, 9-14 ms at N = 2000, about a
    tenth of the kernel path's fit.
    """

    def __init__(self, solve, n: int):
        P = np.random.default_rng(0).standard_normal((n, CONDITION_PROBES))
        self._solve = solve
        self.powers = [P - P.mean(axis=0)]

    def __call__(self, B: np.ndarray) -> np.ndarray:
        if len(self.powers) >= 3:
            return self._solve(B)
        k = B.shape[1]
        out = self._solve(np.hstack([B, self.powers[-1]]))
        self.powers.append(out[:, k:])
        return out[:, :k]

    def smallest_eigenvalue(self) -> float:
        """The estimate of ``A``'s smallest eigenvalue off the constant direction (never below
        it); solves the probes' second power itself if the Krylov basis stopped before."""
        while len(self.powers) < 3:
            self.powers.append(self._solve(self.powers[-1]))
        V = np.hstack(self.powers[:2])
        M = V.T @ np.hstack(self.powers[1:])  # V^T A^-1 V, symmetric up to rounding
        F = _gram_whitening(V.T @ V)
        if F is None:  # a probe solved to zero: no estimate, so no low-rank path
            return 0.0
        theta = scipy.linalg.eigvalsh(F.T @ ((M + M.T) * 0.5) @ F)[-1]
        return 1.0 / theta if theta > 0 else 0.0


def _krylov_basis(start: np.ndarray, solve) -> np.ndarray:
    """The basis of :class:`_BlockKrylov` with all :data:`RITZ_BLOCKS` blocks."""
    return _BlockKrylov(start, solve).grow_to(RITZ_BLOCKS)


def _ritz_class_graph(Yb, Gb, E, intrinsic, eps, n_components, tol, tr_pen, residual):
    """Rayleigh-Ritz of the regularised class-graph pencil on a small exact subspace.

    The default solver's pencil is ``S_t w = mu (S_w + eps I) w`` (``S_t`` = penalty scatter,
    ``S_w = S_t - M M^T`` the intrinsic one, ``M`` the (r x G) group scatter factor). Its
    eigenvectors with ``mu > 1`` are ``w = (S_t + (eps + d) I)^-1 M c`` with ``d = eps /
    (mu - 1)`` (a secular equation), so they lie, up to ``(d / eps)^3 ~ mu^-3``, in the block
    Krylov space ``{A^-1 M, A^-2 M, A^-3 M}``, ``A = S_t + eps I``. Rayleigh-Ritz of the same
    pencil on that space returns them; the residual check rejects what it cannot represent.

    ``Yb`` coefficients of the basis, ``Gb = Z w`` the training projections of each column
    (N x m), ``E = Yb``'s Gram in w-space (``w^T w``); ``residual(Y, g, Lg, mu)`` returns the
    relative residual of each pair. Returns ``(lam, Y)`` like :func:`solve_graph_embedding`
    (coefficients in Yb's representation), or None when the pairs fail the check.
    """
    if Yb.shape[1] < n_components:
        return None
    F = _gram_whitening(E)  # w-orthonormal columns
    if F is None:
        return None
    Yb, Gb = Yb @ F, Gb @ F
    LG = intrinsic.matmat(Gb)
    m = Yb.shape[1]
    if n_components > m:
        return None
    Pt = Gb.T @ Gb
    Pw = LG.T @ LG + eps * np.eye(m)
    mu, C = scipy.linalg.eigh(
        (Pt + Pt.T) * 0.5, (Pw + Pw.T) * 0.5, subset_by_index=(m - n_components, m - 1)
    )
    mu, C = mu[::-1], C[:, ::-1]
    Y, g, Lg = Yb @ C, Gb @ C, LG @ C
    if not np.all(residual(Y, g, Lg, mu) <= RITZ_RTOL + RITZ_ROUNDING * np.abs(mu)):
        return None
    # as solve_graph_embedding, with the norms of the Ritz coefficients (C^T C, the basis being
    # w-orthonormal)
    return _eigenvalues_from_ratios(mu, np.einsum("ij,ij->j", C, C), tr_pen, tol, Y), Y


def solve_class_graph_span(Z, s, graph, n_components, *, reg=DEFAULT_REG, tol=DEFAULT_TOL):
    """The default ("regularized") solver for a class graph in span coordinates, without the
    dense r x r generalised eigenproblem.

    ``Z`` (N x r) are centred coordinates with ``Z^T Z = diag(s)`` (the kernel feature map
    ``U_r S_r^{1/2}``). Same result as ``solve_graph_embedding(Z^T L Z, Z^T H Z, ...)`` in exact
    arithmetic (see :func:`_ritz_class_graph`); costs O(N r G). Returns ``(lam, W)`` or None
    (then solve densely).
    """
    intrinsic = graph.intrinsic
    r = Z.shape[1]
    LZ = intrinsic.matmat(Z)
    tr_int = float(np.einsum("ij,ij->", LZ, LZ))
    del LZ
    eps = reg * (tr_int / r if tr_int > 0 else 1.0)
    Yb = _krylov_basis(Z.T @ class_directions(intrinsic), lambda B: B / (s + eps)[:, None])
    Gb = Z @ Yb

    def residual(W, g, Lg, mu):
        r_vec = Z.T @ (g - mu * Lg) - mu * eps * W
        scale = np.linalg.norm(Z.T @ g, axis=0) + mu * np.linalg.norm(Z.T @ Lg + eps * W, axis=0)
        return np.linalg.norm(r_vec, axis=0) / scale

    return _ritz_class_graph(
        Yb, Gb, Yb.T @ Yb, intrinsic, eps, n_components, tol, float(s.sum()), residual
    )


def solve_class_graph_kernel(
    Kc, graph, n_components, *, reg=DEFAULT_KERNEL_REG, tol=DEFAULT_KERNEL_TOL
):
    """Low-rank kernel path for a class graph: one Cholesky and a small eigenproblem (AKDA).

    Solves the default regularised problem of :class:`KernelGraphEmbedding` on the whole span of
    the training points in feature space (r = N - 1): with ``Theta`` the centred class
    directions (:func:`class_directions`), the dual coefficients are combinations of
    ``(Kc + eps I)^-k Theta``, k = 1, 2 (and 3 when the residual check fails on two,
    :data:`RITZ_FIRST_BLOCKS`), from one Cholesky of ``Kc + eps I + (tr Kc / N^2) 11^T``
    (the last term lifts the constant direction, which Theta never touches), then the Ritz step
    of :func:`_ritz_class_graph`. ``eps = reg * tr(L Kc) / (N - 1)``, as the full path.

    Returns ``(lam, alpha, info)``; ``alpha`` is None when the path does not apply: the centred
    kernel has an eigenvalue (the estimate of :class:`_ProbedSolve`) within ``LOWRANK_MARGIN`` of
    ``tol * ||Kc||_F`` (>= ``tol * max``; the full path would drop directions and solve on a
    smaller span), or the residual check fails. ``info`` says which.

    Memory: the factor is written into ``Kc``'s upper triangle and ``Kc`` products use its lower
    one (:class:`graphdr.solvers.SharedCholesky`), so the path needs no second N x N array. When
    it does not apply, ``Kc`` is restored (lower triangle and diagonal bitwise, which is all the
    full path's ``eigh`` reads); when it does, ``Kc`` is consumed.
    """
    if not (Kc.flags.c_contiguous and Kc.dtype == np.float64):
        Kc = np.ascontiguousarray(Kc, dtype=np.float64)  # a copy: the caller's stays intact
    n = Kc.shape[0]
    intrinsic = graph.intrinsic
    ind = np.zeros((n, intrinsic.counts.size))
    ind[np.arange(n), intrinsic.groups] = 1.0
    tr_k = float(np.trace(Kc))
    if not tr_k > 0:
        return None, None, "the centred kernel has no positive trace"
    tr_int = tr_k - float(np.sum(np.einsum("ij,ij->j", ind, Kc @ ind) / intrinsic.counts))
    eps = reg * (tr_int / (n - 1) if tr_int > 0 else 1.0)
    top = float(np.linalg.norm(Kc))  # Frobenius norm >= the largest eigenvalue
    chol = SharedCholesky(Kc, tr_k / n**2, eps)  # Kc's upper triangle now holds the factor
    try:
        return _lowrank_from_factor(chol, intrinsic, n_components, eps, tol, tr_k, top)
    except BaseException:
        chol.restore()
        raise


def _lowrank_from_factor(chol, intrinsic, n_components, eps, tol, tr_k, top):
    """The rest of :func:`solve_class_graph_kernel` once ``chol`` holds the factor; restores
    the kernel whenever the path does not apply."""

    def fallback(why):
        chol.restore()
        return None, None, why

    if not chol.ok:
        return fallback("the Cholesky factorisation failed")
    probed = _ProbedSolve(chol.solve, chol.K.shape[0])
    krylov = _BlockKrylov(class_directions(intrinsic), probed)
    Yb = krylov.grow_to(RITZ_FIRST_BLOCKS)
    why = _ill_conditioned(probed.smallest_eigenvalue() - eps, tol, top)  # Kc's, off 1
    if why is not None:
        return fallback(why)
    Gb = chol.kernel_product(Yb)  # training projections Z w = Kc alpha

    def residual(alpha, g, Lg, mu):
        # ||Z^T rho|| / (||Z^T g|| + mu ||Z^T (Lg + eps alpha)||) with rho = g - mu (Lg + eps
        # alpha); the second norm is taken equal to the first (2 ||Z^T g||): when the ratio is
        # below tol << 1 they agree to 1 +- 2 tol, and when they do not the ratio is large
        # either way. One product of 2k columns instead of 3k: ||Z^T v||^2 = v^T Kc v
        rho = g - mu * Lg - mu * eps * alpha
        V = np.hstack([rho, g])
        q = np.sqrt(np.clip(np.einsum("ij,ij->j", V, chol.kernel_product(V)), 0.0, None))
        k = alpha.shape[1]
        return q[:k] / (2.0 * q[k:])

    while True:
        E = Yb.T @ Gb
        out = _ritz_class_graph(
            Yb, Gb, (E + E.T) * 0.5, intrinsic, eps, n_components, tol, tr_k, residual
        )
        if out is not None:
            return out[0], out[1], "lowrank"
        if krylov.complete:
            return fallback("the Ritz residual check failed")
        new = krylov.extend()  # the residual check failed on fewer blocks: one more power
        Yb, Gb = np.hstack([Yb, new]), np.hstack([Gb, chol.kernel_product(new)])


def _ill_conditioned(lam_min: float, tol: float, top: float) -> str | None:
    """Why the low-rank kernel paths do not apply (None when they do): the estimate ``lam_min``
    of the centred kernel's smallest eigenvalue is not ``LOWRANK_MARGIN`` above ``tol * top``
    (``top`` >= its largest), so the full path would drop directions."""
    if lam_min > LOWRANK_MARGIN * tol * top:
        return None
    return (
        f"the centred kernel is ill-conditioned (smallest eigenvalue ~{lam_min:.2g}, "
        f"below {LOWRANK_MARGIN:g} * tol * {top:.3g}): the full path drops directions"
    )


def solve_class_graph_kernel_positive(Kc, graph, n_components, *, tol=DEFAULT_KERNEL_TOL):
    """Low-rank kernel path of the "positive" solver (the eigenvector with the minimal positive
    eigenvalue, NGEU's rule) for a class graph: one Cholesky, two solves of G - 1 columns and a
    thin SVD, instead of the eigendecomposition of the kernel and of the intrinsic scatter.

    In the training projections ``v = Z w`` (``Z`` the feature map of the centred kernel, of full
    rank N - 1 on the centred vectors) the rule maximises ``||v||^2 / ||(I - P) v||^2`` (``P``
    the projector on the centred group indicators ``Theta``, :func:`class_directions`) over the
    complement of the intrinsic scatter's null space ``span(Theta)``, which in w-space is
    ``Theta^T Kc^+ v = 0``. Writing ``v = q + Theta c`` with ``q`` orthogonal to ``Theta`` and to
    the constant, the constraint gives ``c = -B^T q`` with ``B = (I - P) Y G^-1``, ``Y = Kc^+
    Theta``, ``G = Theta^T Y``; the ratio is ``1 + ||B^T q||^2 / ||q||^2``. So the directions
    are ``v_j = q_j - Theta B^T q_j`` for the left singular vectors ``q_j`` of the N x (G-1)
    matrix ``B``, with ``mu_j = 1 + sigma_j^2`` and ``lambda_j = 1 / mu_j``; the dual
    coefficients are ``Kc^+ v_j``, scaled to ``w^T S_pen w = ||v||^2 = 1`` as the full path.
    Directions beyond G - 1 all have ``mu = 1`` (any basis of them is a solution): the path
    applies to at most G - 1 components.

    ``Kc^+`` is applied through the Cholesky factor of ``Kc + (tr Kc / N^2) 11^T`` (the constant
    direction lifted; every right-hand side is centred). It applies when the centred kernel's
    smallest eigenvalue (:class:`_ProbedSolve`) is ``LOWRANK_MARGIN`` above ``tol * ||Kc||_F``:
    then neither the kernel's feature map nor the range of the intrinsic scatter (whose non-zero
    eigenvalues are at least the kernel's smallest, by interlacing) loses a direction at ``tol``
    in the full path, and both solve the same problem. Returns ``(lam, alpha, info)`` as
    :func:`solve_class_graph_kernel`, with the same contract on ``Kc`` (consumed when the path
    applies, restored otherwise). Our own derivation (no reference implementation), tested
    against the full path (``tests/test_lowrank_ge.py``).
    """
    if not (Kc.flags.c_contiguous and Kc.dtype == np.float64):
        Kc = np.ascontiguousarray(Kc, dtype=np.float64)  # a copy: the caller's stays intact
    n = Kc.shape[0]
    intrinsic = graph.intrinsic
    if n_components > intrinsic.counts.size - 1:
        return (
            None,
            None,
            (
                f"{n_components} components requested, more than groups - 1 = "
                f"{intrinsic.counts.size - 1}: the rest have mu = 1 and no preferred basis"
            ),
        )
    tr_k = float(np.trace(Kc))
    if not tr_k > 0:
        return None, None, "the centred kernel has no positive trace"
    top = float(np.linalg.norm(Kc))  # Frobenius norm >= the largest eigenvalue
    chol = SharedCholesky(Kc, tr_k / n**2, 0.0)
    try:
        why = None if chol.ok else "the Cholesky factorisation failed"
        if why is None:
            probed = _ProbedSolve(chol.solve, n)
            theta = class_directions(intrinsic)
            Y = probed(theta)  # Kc^+ Theta (Theta is centred)
            why = _ill_conditioned(probed.smallest_eigenvalue(), tol, top)
        if why is not None:
            chol.restore()
            return None, None, why
        G = theta.T @ Y
        QY = Y - theta @ ((G + G.T) * 0.5)
        QY -= QY.mean(axis=0)  # the constant component, zero up to rounding
        B = scipy.linalg.solve(G, QY.T, assume_a="pos").T  # (I - P) Y G^-1
        Q, sigma, Et = scipy.linalg.svd(B, full_matrices=False)
        Q, sigma = Q[:, :n_components], sigma[:n_components]
        V = Q - theta @ (Et[:n_components].T * sigma)  # ||(I - P) v|| = ||q|| = 1
        alpha = chol.solve(V)
    except BaseException:
        chol.restore()
        raise
    mu = 1.0 + sigma**2
    norms2 = np.einsum("ij,ij->j", V, alpha)  # w^T w = v^T Kc^+ v
    lam = _eigenvalues_from_ratios(mu, norms2, tr_k, tol, alpha)
    return lam, alpha, "lowrank"


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------


#: why the penalty scatter's rank bounds n_components (both checks of _GEBase say it)
_PENALTY_BOUND_REASON = (
    "directions with zero penalty scatter have an infinite ratio w^T S_int w / w^T S_pen w "
    "(a penalty graph with more edges gives more)"
)


class _GEBase(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What linear and kernel GE share: graph, labels, component bound, scatters, solver."""

    def _graph_builder(self) -> GraphBuilder:
        """The graph of this estimator (named estimators fix it)."""
        graph = self.graph
        if isinstance(graph, str):
            return make_graph(
                graph,
                k1=self.k1,
                k2=self.k2,
                mfa_variant=self.mfa_variant,
                n_neighbors=self.n_neighbors,
                heat_t=self.heat_t,
            )
        if callable(graph):
            return graph
        raise ValueError(
            f"graph must be a graph name or a graph builder object, got {type(graph).__name__}."
        )

    def _label(self) -> str:
        return type(self).__name__

    def _solver_options(self) -> dict:
        return {"solver": self.solver, "reg": self.reg, "tol": self.tol}

    def _check_solver_options(self) -> None:
        """Fail fast, before any kernel or graph is built."""
        opts = self._solver_options()
        if opts["solver"] not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS}, got {opts['solver']!r}.")
        if not (isinstance(opts["reg"], int | float) and opts["reg"] >= 0):
            raise ValueError(f"reg must be a non-negative number, got {opts['reg']!r}.")
        if not (isinstance(opts["tol"], int | float) and 0 < opts["tol"] < 1):
            raise ValueError(f"tol must be a number in (0, 1), got {opts['tol']!r}.")
        path = getattr(self, "path", "auto")
        if path not in _PATHS:
            raise ValueError(f"path must be one of {_PATHS}, got {path!r}.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            tags.target_tags.required = bool(self._graph_builder().supervised)
        except (ValueError, TypeError):
            tags.target_tags.required = True
        return tags

    def _validate_training_data(self, X, y, builder: GraphBuilder):
        """Validated float64 X and integer-encoded labels (``None`` for unsupervised graphs)."""
        self._check_solver_options()
        if not builder.supervised:
            return validate_data(self, X, dtype=np.float64, ensure_min_samples=2), None
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        check_n_classes(y_enc, minimum=2, method=self._label())
        return X, y_enc.ravel()

    def _check_n_components(self, builder: GraphBuilder, Z, graph: GraphPair, S_pen) -> int:
        """The smallest of three bounds, each with its reason: the graph's own (LDA: C-1), the
        dimension r of the span of the data, and the rank of the penalty scatter (directions
        outside its range have an infinite ratio: MFA's marginal pairs give few of them)."""
        label, r = self._label(), Z.shape[1]
        bounds = []
        spec = builder.component_bound(len(self.classes_)) if builder.supervised else None
        if spec is not None:
            bounds.append((spec[0], spec[1], f"{label} has {spec[2]}"))
        bounds.append((r, *self._rank_bound(Z)))
        # computed only when the penalty graph's structure cannot reach r
        if S_pen is not None and graph.penalty.rank_upper_bound() < r:
            bounds.append(
                (
                    _penalty_rank(graph.penalty, Z, S_pen, self._solver_options()["tol"]),
                    "the rank of the penalty scatter",
                    f"{label} {_PENALTY_BOUND_REASON}",
                )
            )
        bound, name, reason = min(bounds, key=lambda b: b[0])  # first listed wins ties
        return check_n_components(self.n_components, bound, bound_name=name, reason=reason)

    def _check_penalty_graph(self, graph: GraphPair) -> None:
        """The penalty-scatter bound of :meth:`_check_n_components`, checked from the graph alone
        before any O(N^3) work: ``rank(Z^T B Z) <= rank(B)``, and the penalty graph's structure
        bounds ``rank(B)`` (:meth:`GraphOperator.rank_upper_bound`: MFA's marginal pairs touch
        few points). A request above it would fail after the eigendecomposition of the kernel;
        it fails here instead, with the same kind of message."""
        n = self.n_components
        if graph.penalty is None or isinstance(n, bool) or not isinstance(n, numbers.Integral):
            return
        upper = graph.penalty.rank_upper_bound()
        if n > upper:
            check_n_components(
                n,
                upper,
                bound_name="the rank of the penalty graph (a bound of the penalty scatter's rank)",
                reason=f"{self._label()} {_PENALTY_BOUND_REASON}",
            )

    def _scatters(self, Z: np.ndarray, graph: GraphPair, **fit_params):
        """``(S_int, S_pen) = (Z^T L Z, Z^T B Z)`` (``S_pen=None``: scale normalisation).

        Extension point: GEU adds ``sum_i L_ii S_i`` (``graph.intrinsic.diagonal()``).
        """
        if fit_params:
            raise TypeError(f"{self._label()}.fit got unexpected arguments {sorted(fit_params)}.")
        S_int = graph.intrinsic.quadratic(Z)
        S_pen = None if graph.penalty is None else graph.penalty.quadratic(Z)
        return S_int, S_pen

    def _embed(self, Z: np.ndarray, graph: GraphPair, builder, **fit_params):
        """Build the scatters, check the dimension, solve; returns W (r x k) in Z-coordinates.

        Class graphs with plain scatters skip the r x r scatters and their dense generalised
        eigenproblem (:func:`solve_class_graph_span`, O(N r C) instead of O(r^3)); the dense
        solve remains the fallback and the path for every other graph.
        """
        opts = self._solver_options()
        variance = fit_params.get("sample_variance")
        # the scatters are Z^T A Z themselves: no uncertainty term, no subclass's own terms
        plain = (variance is None or not np.any(variance)) and set(fit_params) <= {
            "basis",
            "sample_variance",
        }
        if opts["solver"] == "regularized" and is_class_graph(graph) and plain:
            n_components = self._check_n_components(builder, Z, graph, None)
            s = np.einsum("ij,ij->j", Z, Z)  # Z^T Z is diagonal for the spans of data_span
            out = solve_class_graph_span(
                Z, s, graph, n_components, reg=opts["reg"], tol=opts["tol"]
            )
            if out is not None:
                return self._set_solution(*out, graph)
        S_int, S_pen = self._scatters(Z, graph, **fit_params)
        n_components = self._check_n_components(builder, Z, graph, S_pen)
        largest = graph.meta.get("largest", builder.largest)
        # plain: S_pen is Z^T B Z itself, so B's factor is S_pen's
        factor = penalty_factor(graph.penalty, Z) if plain and not largest else None
        lam, W = solve_graph_embedding(
            S_int, S_pen, n_components, largest=largest, penalty_factor=factor, **opts
        )
        return self._set_solution(lam, W, graph)

    def _set_solution(self, lam, W, graph):
        self.eigenvalues_ = lam
        self.n_components_ = W.shape[1]
        self.graph_meta_ = dict(graph.meta)
        return W

    @property
    def _n_features_out(self):
        return self.n_components_


class GraphEmbedding(LinearProjectionMixin, _GEBase):
    """Linear graph embedding ``z = (x - mean_) @ components_.T``.

    Minimises ``w^T X^T L X w`` subject to ``w^T X^T B X w = 1`` (penalty graph) or
    ``w^T w = 1`` (scale normalisation), on the centred training data.

    Parameters
    ----------
    graph : {"lda", "pca", "mfa", "lpp"} or a :class:`graphdr.graphs.GraphBuilder` object (which
        carries its own parameters: the flat graph parameters below are then ignored).
    n_components : int or None (the bound: C-1 for LDA, the rank of the centred data otherwise).
    k1, k2, mfa_variant : MFA's intrinsic / penalty neighbours and penalty rule
        ("pairs": Yan et al.'s k2 closest between-class pairs per class; "per_point").
    n_neighbors, heat_t : supervised LPP's within-class neighbours and heat-kernel width
        (None: mean squared edge length; inf: binary weights).
    reg : relative ridge of the "regularized" solver (on the intrinsic scatter).
    solver : "regularized" (null-space directions of the intrinsic scatter first), "range" or
        "positive" (the minimal positive eigenvalue: that null space skipped); see
        :func:`solve_graph_embedding`.
    tol : relative eigenvalue threshold of the data span and of the "range" solver.

    Attributes
    ----------
    components_ (n_components, n_features), mean_ (n_features,), eigenvalues_ (ratios
    ``w^T S_int w / w^T S_pen w``, in order of preference), n_components_, classes_,
    graph_meta_ (graph summary: edge counts, heat width).
    """

    def __init__(
        self,
        graph="lda",
        n_components=None,
        *,
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
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.n_neighbors = n_neighbors
        self.heat_t = heat_t
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def fit(self, X, y=None, **fit_params):
        """Fit on X (N x D) and labels y; ``fit_params`` are for subclasses (GEU)."""
        builder = self._graph_builder()
        X, y_enc = self._validate_training_data(X, y, builder)
        self.mean_ = X.mean(axis=0)
        Z, basis = self._reduce(X - self.mean_)
        graph = builder(y_enc, X, n_samples=X.shape[0])
        W = self._embed(Z, graph, builder, basis=basis, **fit_params)
        self.components_ = np.ascontiguousarray(flip_signs(basis @ W).T)
        return self

    def _reduce(self, Xc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(Z, basis): coordinates of the centred data in their span (override to keep all D)."""
        return data_span(Xc, self._solver_options()["tol"])

    def _scatters(self, Z, graph, basis=None, **fit_params):
        """``(Z^T L Z, Z^T B Z)``; ``basis`` (D x r) maps Z-coordinates back to features."""
        return super()._scatters(Z, graph, **fit_params)

    def _rank_bound(self, Z) -> tuple[str, str]:
        """(bound name, reason) of the dimension r of the data span."""
        (n, r), d = Z.shape, self.n_features_in_
        what = f"{self._label()} directions"
        if r == d:
            return "n_features", f"{what} are combinations of the {d} input features"
        if r == n - 1:
            return "n_samples - 1", f"{what} live in the span of the N centred training samples"
        return (
            "the rank of the centred training data",
            f"{what} live in the span of the centred training samples",
        )


class KernelGraphEmbedding(_GEBase):
    """Kernel graph embedding ``z = dual_coef_^T k_c(x)`` (``k_c``: the kernel column of a new
    point, centred in feature space with the training statistics).

    Minimises ``alpha^T K L K alpha`` subject to ``alpha^T K B K alpha = 1`` (penalty graph) or
    ``alpha^T K alpha = 1`` (scale normalisation), K the centred training kernel. Solved as linear
    GE on the exact feature map ``Phi = U_r S_r^{1/2}`` of K (see the module docstring), so with
    ``kernel="linear"`` it equals :class:`GraphEmbedding` and KPCA equals scikit-learn's
    KernelPCA.

    Parameters
    ----------
    graph, n_components, k1, k2, mfa_variant, n_neighbors, heat_t, reg, solver, tol :
        as in :class:`GraphEmbedding`; ``tol`` (default 1e-6) also defines the rank of the
        centred kernel; ``reg`` defaults to 1e-6 (see ``DEFAULT_KERNEL_REG``).
        Neighbours (MFA, LPP) are defined by the feature-space distances
        ``d_ij^2 = K_ii + K_jj - 2 K_ij``.
    kernel : "rbf", "linear", "poly" or "precomputed" (X is then the kernel matrix: N x N in
        fit, n_test x N in transform).
    gamma : "scale" (default), None or float. RBF/poly width: "scale" is
        ``1 / (n_features * X.var())`` of the training data (scikit-learn's SVC default; it
        follows the data's scale, :func:`graphdr.kernels.resolve_gamma`), None ``1 / n_features``.
        No paper of this project fixes a default (paper 004 sets gamma from the mean squared
        distance, paper 001 gamma = 0.5). The value used is ``gamma_``.
    degree, coef0 : polynomial kernel parameters, scikit-learn's conventions.
    path : "auto" (default), "lowrank" or "full". Class graphs (LDA) can be solved with one
        Cholesky of the regularised centred kernel and a small Ritz problem
        (:func:`solve_class_graph_kernel`, AKDA's cost; with ``solver="positive"`` a Cholesky
        and a thin SVD, :func:`solve_class_graph_kernel_positive`) instead of the
        eigendecomposition of the kernel. "auto" does so when both give the same problem (the
        centred kernel keeps all N - 1 directions at ``tol``); "lowrank" asks for it (error for
        graphs without class structure or with the "range" solver, warning and full path when
        the kernel is ill-conditioned); "full" never.

    Attributes
    ----------
    dual_coef_ (N, n_components), X_fit_ (None for a precomputed kernel), kernel_centering_,
    eigenvalues_, n_components_, classes_, graph_meta_, solver_path_ ("lowrank" or "full").
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
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.n_neighbors = n_neighbors
        self.heat_t = heat_t
        self.reg = reg
        self.solver = solver
        self.tol = tol
        self.path = path

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def fit(self, X, y=None, **fit_params):
        """Fit on X (N x D, or the N x N kernel) and labels y; ``fit_params`` go to
        :meth:`_train_kernel` (NGEU: per-sample uncertainties)."""
        builder = self._graph_builder()
        X_in = X
        X, y_enc = self._validate_training_data(X, y, builder)
        self.gamma_ = resolve_gamma(self.gamma, X) if self.kernel in ("rbf", "poly") else None
        K = self._train_kernel(X, y_enc, **fit_params)
        precomputed = self.kernel == "precomputed"
        check_kernel_health(
            K,
            method=self._label(),
            kernel=self.kernel,
            gamma=self.gamma_,
            X=None if precomputed else X,
        )
        # centre in place unless K is the caller's (precomputed) array; peak memory 3 N x N
        Kc, self.kernel_centering_ = center_kernel_train(K, copy=K is X)
        del K
        sq_dist = kernel_sq_distances(Kc) if builder.needs_distances else None  # centring-free
        graph = builder(y_enc, sq_distances=sq_dist, n_samples=Kc.shape[0])
        del sq_dist
        self._check_penalty_graph(graph)  # before the O(N^3) work that would otherwise find it
        alpha = self._solve_lowrank(Kc, graph, builder)
        if alpha is None:
            U, root = kernel_feature_map(Kc, self._solver_options()["tol"], self._leading_only())
            del Kc
            W = self._embed(U * root, graph, builder)
            alpha = U @ (W / root[:, None])
            self.solver_path_ = "full"
        self.dual_coef_ = np.ascontiguousarray(flip_signs(alpha))
        if self.kernel == "precomputed":
            self.X_fit_ = None  # transform receives k(X_new, X_train) itself
        else:  # own the training set: later edits of the caller's array must not change us
            self.X_fit_ = X.copy() if np.may_share_memory(X, X_in) else X
        return self

    def transform(self, X):
        """Project ``center(k(X, X_fit_)) @ dual_coef_``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Kt = self._test_kernel(X)
        Kt = center_kernel_test(Kt, self.kernel_centering_, copy=Kt is X)
        return Kt @ self.dual_coef_

    def _solve_lowrank(self, Kc, graph, builder):
        """Dual coefficients from the low-rank path (:func:`solve_class_graph_kernel`), or None
        when the full path is to be used (``path="full"``, not a class graph, "range" solver,
        or "auto" and the low-rank path does not apply). Consumes ``Kc`` when it returns the
        coefficients; otherwise ``Kc`` is left as the full path needs it."""
        path = getattr(self, "path", "auto")
        opts = self._solver_options()
        applies = opts["solver"] in ("regularized", "positive") and is_class_graph(graph)
        if path == "full" or (path == "auto" and not applies):
            return None
        if not applies:
            raise ValueError(
                f"path='lowrank' needs a class graph (intrinsic: centring within classes, "
                f"penalty: global centring) and solver='regularized' or 'positive'; got graph "
                f"{graph.meta.get('name')!r} and solver={opts['solver']!r}. Use path='auto' or "
                "'full'."
            )
        n = Kc.shape[0]
        # shape only: the low-rank path applies when the kernel's span has dimension N - 1
        span = np.broadcast_to(np.empty((), Kc.dtype), (n, n - 1))
        n_components = self._check_n_components(builder, span, graph, None)
        if opts["solver"] == "positive":
            lam, alpha, why = solve_class_graph_kernel_positive(
                Kc, graph, n_components, tol=opts["tol"]
            )
        else:
            lam, alpha, why = solve_class_graph_kernel(
                Kc, graph, n_components, reg=opts["reg"], tol=opts["tol"]
            )
        if alpha is None:
            if path == "lowrank":
                warnings.warn(
                    f"{self._label()}: the low-rank path does not apply ({why}); solved with "
                    "the full eigendecomposition instead.",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return None
        self._set_solution(lam, alpha, graph)
        self.solver_path_ = "lowrank"
        return alpha

    def _leading_only(self):
        """How many leading eigenpairs of the centred kernel the solution needs (None: all).

        Every graph but PCA mixes the whole range of the kernel; KPCA overrides this.
        """
        return None

    # -- kernel hooks (NGEU overrides them) -------------------------------------------------

    def _kernel_matrix(self, X, Y=None) -> np.ndarray:
        """``k(X, Y)`` (``Y=None``: ``k(X, X)``); precomputed kernels pass through."""
        return pairwise_kernel(
            X, Y, kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0
        )

    def _train_kernel(self, X, y_enc, **fit_params) -> np.ndarray:
        """The N x N training kernel (uncentred)."""
        if fit_params:
            raise TypeError(f"{self._label()}.fit got unexpected arguments {sorted(fit_params)}.")
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', X must be the square training kernel "
                f"(n_samples, n_samples); got shape {X.shape}."
            )
        return self._kernel_matrix(X)

    def _test_kernel(self, X) -> np.ndarray:
        """The n_test x N kernel between new points and the training set (uncentred)."""
        return X if self.kernel == "precomputed" else self._kernel_matrix(X, self.X_fit_)

    def _rank_bound(self, Z) -> tuple[str, str]:
        return (
            "the rank of the centred kernel matrix",
            f"{self._label()} directions live in the span of the training points in feature "
            "space (centred-kernel eigenvalues below tol * max count as zero)",
        )


# --------------------------------------------------------------------------------------------
# Named estimators: each fixes its graph and exposes only the parameters that matter for it
# --------------------------------------------------------------------------------------------


class PCA_GE(GraphEmbedding):
    """PCA as graph embedding: ``W_ij = 1/N`` (``L = H``), ``w^T w = 1``, largest variance.

    Bound: the rank of the centred data, ``min(N - 1, D)`` for data in general position.
    """

    def __init__(self, n_components=None, *, tol=DEFAULT_TOL):
        self.n_components = n_components
        self.tol = tol

    def _graph_builder(self):
        return make_graph("pca")

    def _solver_options(self):
        return {"solver": "regularized", "reg": DEFAULT_REG, "tol": self.tol}


class LDA_GE(GraphEmbedding):
    """LDA as graph embedding: ``X^T L X = S_w``, ``X^T B X = S_t``; at most C-1 directions."""

    def __init__(
        self, n_components=None, *, reg=DEFAULT_REG, solver="regularized", tol=DEFAULT_TOL
    ):
        self.n_components = n_components
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return make_graph("lda")


class MFA_GE(GraphEmbedding):
    """Marginal Fisher analysis: k1 same-class neighbours (intrinsic), k2 marginal between-class
    pairs (penalty)."""

    def __init__(
        self,
        n_components=None,
        *,
        k1=5,
        k2=20,
        mfa_variant="pairs",
        reg=DEFAULT_REG,
        solver="regularized",
        tol=DEFAULT_TOL,
    ):
        self.n_components = n_components
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return make_graph("mfa", k1=self.k1, k2=self.k2, mfa_variant=self.mfa_variant)


def _lpp_builder(est) -> LPPGraph:
    """The LPP graph of ``LPP_GE`` and ``KLPP_GE`` from their shared parameters."""
    return LPPGraph(
        est.n_neighbors,
        est.heat_t,
        bool(est.supervised),
        mutual=bool(est.mutual),
        connect=bool(est.connect),
    )


class LPP_GE(GraphEmbedding):
    """Supervised locality preserving projections: within-class k-NN heat-kernel graph,
    penalty the degree matrix. ``supervised=False`` gives plain (unsupervised) LPP;
    ``mutual=True`` keeps only mutual neighbours; ``connect=True`` joins the components of each
    class's graph by their shortest edges (``graphdr.graphs.lpp_graph``: without it a split class
    makes the smallest directions component indicators)."""

    def __init__(
        self,
        n_components=None,
        *,
        n_neighbors=5,
        heat_t=None,
        supervised=True,
        mutual=False,
        connect=False,
        reg=DEFAULT_REG,
        solver="regularized",
        tol=DEFAULT_TOL,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.heat_t = heat_t
        self.supervised = supervised
        self.mutual = mutual
        self.connect = connect
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return _lpp_builder(self)


class KPCA_GE(KernelGraphEmbedding):
    """Kernel PCA as kernel graph embedding (equals scikit-learn's KernelPCA up to signs).

    Bound: the rank of the centred kernel matrix.
    """

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        tol=DEFAULT_KERNEL_TOL,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol

    def _graph_builder(self):
        return make_graph("pca")

    def _solver_options(self):
        return {"solver": "regularized", "reg": DEFAULT_REG, "tol": self.tol}

    def _leading_only(self):
        # KPCA's directions are the leading eigenvectors of the centred kernel: with a given
        # n_components only those are computed (as scikit-learn's KernelPCA does).
        n = self.n_components
        return n if isinstance(n, numbers.Integral) and not isinstance(n, bool) and n > 0 else None


class KDA_GE(KernelGraphEmbedding):
    """Kernel discriminant analysis (LDA graphs in feature space); at most C-1 directions.

    ``path="auto"`` solves it with one Cholesky when the kernel is well conditioned (see
    :class:`KernelGraphEmbedding`).

    One of three KDAs (docs/estimators.md, *Three KDAs*): :class:`graphdr.methods.KDA` is
    Mika et al.'s formulation as paper 002 uses it (uncentred kernel columns, absolute ridge),
    :class:`graphdr.methods.KDA_NGEU` this one on the expected kernel of uncertain inputs."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
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
        self.reg = reg
        self.solver = solver
        self.tol = tol
        self.path = path

    def _graph_builder(self):
        return make_graph("lda")


class KMFA_GE(KernelGraphEmbedding):
    """Kernel marginal Fisher analysis (neighbours by feature-space distances)."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
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
        self.k1 = k1
        self.k2 = k2
        self.mfa_variant = mfa_variant
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return make_graph("mfa", k1=self.k1, k2=self.k2, mfa_variant=self.mfa_variant)


class KLPP_GE(KernelGraphEmbedding):
    """Supervised kernel LPP (within-class k-NN heat-kernel graph on feature-space distances;
    ``mutual`` and ``connect`` as :class:`LPP_GE`)."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma="scale",
        degree=2,
        coef0=1.0,
        n_neighbors=5,
        heat_t=None,
        supervised=True,
        mutual=False,
        connect=False,
        reg=DEFAULT_KERNEL_REG,
        solver="regularized",
        tol=DEFAULT_KERNEL_TOL,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.heat_t = heat_t
        self.supervised = supervised
        self.mutual = mutual
        self.connect = connect
        self.reg = reg
        self.solver = solver
        self.tol = tol

    def _graph_builder(self):
        return _lpp_builder(self)
