"""GEU, NGEU and the expected kernels against independent references: plain numpy formulas
with full covariance matrices, Monte-Carlo estimates, scipy's generalised eigh, the GE
estimators (zero uncertainty) and the identities of paper 004 (section 3, Theorem 3)."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr import kernels
from graphdr.graphs import lda_graph, mfa_graph, pca_graph
from graphdr.kernels import pairwise_kernel
from graphdr.kernels.expected import _log_ge1, expected_kernel
from graphdr.methods.graph_embedding import (
    KDA_GE,
    KMFA_GE,
    KPCA_GE,
    LDA_GE,
    MFA_GE,
    PCA_GE,
    GraphEmbedding,
    KernelGraphEmbedding,
)
from graphdr.methods.uncertain import (
    GEU,
    KDA_NGEU,
    KMFA_NGEU,
    KPCA_NGEU,
    LDA_GEU,
    MFA_GEU,
    NGEU,
    PCA_GEU,
    uncertainty_scatter,
)
from graphdr.uncertainty import NearestNeighborUncertainty

GAMMA = 0.2


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=80, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=0
    )
    rng = np.random.default_rng(1)
    return {
        "X": X[:60],
        "y": y[:60],
        "X_test": X[60:],
        "iso": rng.uniform(0.0, 0.5, 60),
        "diag": rng.uniform(0.0, 0.5, (60, 6)),
        "iso_test": rng.uniform(0.0, 0.5, 20),
    }


def assert_equal_up_to_sign(A, B, rtol=1e-9):
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A, B * signs, atol=rtol * max(1.0, np.abs(B).max()))


# ------------------------------------------------------------------ references (plain numpy)


def _cov(v, d):
    """Full covariance matrix of one sample from an isotropic or diagonal variance."""
    return np.eye(d) * v if np.ndim(v) == 0 else np.diag(v)


def reference_expected_kernel(X, Y, vx, vy, kernel, gamma=GAMMA, c=1.0):
    """General-covariance closed forms (methods.md section 3), one pair at a time."""
    symmetric = Y is None
    Y, vy = (X, vx) if symmetric else (Y, vy)
    d = X.shape[1]
    K = np.empty((X.shape[0], Y.shape[0]))
    for i, (m1, v1) in enumerate(zip(X, vx, strict=True)):
        for j, (m2, v2) in enumerate(zip(Y, vy, strict=True)):
            S1, S2 = _cov(v1, d), _cov(v2, d)
            if symmetric and i == j:  # one random variable
                if kernel == "linear":
                    K[i, j] = m1 @ m1 + np.trace(S1)
                elif kernel == "rbf":
                    K[i, j] = 1.0
                else:
                    g1, gS = gamma * (m1 @ m1 + np.trace(S1)) + c, gamma * S1
                    gm = np.sqrt(gamma) * m1
                    K[i, j] = g1**2 + 2 * np.trace(gS @ gS) + 4 * gm @ gS @ gm
                continue
            if kernel == "linear":
                K[i, j] = m1 @ m2
            elif kernel == "rbf":
                A = np.eye(d) + 2 * gamma * (S1 + S2)
                diff = m1 - m2
                K[i, j] = np.linalg.det(A) ** -0.5 * np.exp(
                    -gamma * diff @ np.linalg.solve(A, diff)
                )
            else:
                K[i, j] = (gamma * m1 @ m2 + c) ** 2 + gamma**2 * (
                    np.trace(S1 @ S2) + m1 @ S2 @ m1 + m2 @ S1 @ m2
                )
    return K


# ------------------------------------------------------------------ expected kernels vs numpy


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("kind", ["iso", "diag", "mixed"])
def test_expected_kernel_matches_numpy_reference(data, kernel, kind):
    rng = np.random.default_rng(2)
    X, Y = data["X"][:25], data["X_test"][:15]
    vx = data["diag"][:25] if kind == "diag" else data["iso"][:25]
    vy = rng.uniform(0, 0.5, (15, 6)) if kind in ("diag", "mixed") else data["iso_test"][:15]
    vx = vx.copy()
    vx[:3] = 0.0  # some Dirac samples among them
    K = expected_kernel(X, x_variance=vx, kernel=kernel, gamma=GAMMA)
    R = reference_expected_kernel(X, None, vx, None, kernel)
    np.testing.assert_allclose(K, R, rtol=1e-10, atol=1e-12 * np.abs(R).max())
    np.testing.assert_array_equal(K, K.T)  # exactly symmetric
    Kt = expected_kernel(X, Y, x_variance=vx, y_variance=vy, kernel=kernel, gamma=GAMMA)
    Rt = reference_expected_kernel(X, Y, vx, vy, kernel)
    np.testing.assert_allclose(Kt, Rt, rtol=1e-10, atol=1e-12 * np.abs(Rt).max())


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 130, 300])
def test_symmetric_rbf_blocks_cover_every_entry(n, parallel, monkeypatch):
    """The blocked upper-triangle pass (blocks of 64 rows, paired for balance) equals the
    rectangular pass off the diagonal, for sizes around the block size, on one thread and on
    all of numba's threads (forced below the size where graphdr.kernels goes parallel)."""
    if parallel:
        monkeypatch.setattr(kernels, "_PARALLEL_MIN_ENTRIES", 0)
    rng = np.random.default_rng(n)
    X, v = rng.normal(size=(n, 5)), rng.uniform(0, 1, n)
    K = expected_kernel(X, x_variance=v, gamma=GAMMA)
    Kr = expected_kernel(X, X, x_variance=v, y_variance=v, gamma=GAMMA)
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_allclose(K[off], Kr[off], rtol=1e-14)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    Kd = expected_kernel(X, x_variance=np.repeat(v[:, None], 5, 1), gamma=GAMMA)
    np.testing.assert_allclose(Kd, K, rtol=1e-12)  # diagonal-covariance loop, same values


@pytest.mark.parametrize("scale", [1e-2, 1e5, 1e7])
def test_diagonal_rbf_when_the_determinant_overflows(scale):
    """The diagonal-covariance loop takes ``sum_k log a_k`` as the log of the product of the
    ``a_k`` (one logarithm per pair); where that product overflows float64 (here ``a_k`` about
    ``2 gamma scale``, 64 features: the product passes 1e308 from ``scale = 1e5`` up) each pair
    falls back to the sum of the logarithms. Both paths against ``np.log`` summed per pair."""
    rng = np.random.default_rng(5)
    d, gamma = 64, 0.5
    X, Y = rng.normal(size=(9, d)), rng.normal(size=(4, d))
    SX, SY = rng.uniform(0.5, 1.5, (9, d)) * scale, rng.uniform(0.5, 1.5, (4, d)) * scale

    def reference(A, B, SA, SB):
        a = 1.0 + 2.0 * gamma * (SA[:, None, :] + SB[None, :, :])
        diff = A[:, None, :] - B[None, :, :]
        return np.exp(-0.5 * np.log(a).sum(-1) - gamma * (diff**2 / a).sum(-1))

    R = reference(X, X, SX, SX)
    np.fill_diagonal(R, 1.0)
    assert np.prod(1.0 + 2.0 * gamma * (SX[0] + SX[1])) == np.inf or scale < 1e5
    assert R.min() > 0.0  # no underflow: the test sees the value, not a zero
    K = expected_kernel(X, x_variance=SX, gamma=gamma)
    np.testing.assert_allclose(K, R, rtol=1e-12)
    Kt = expected_kernel(X, Y, x_variance=SX, y_variance=SY, gamma=gamma)
    np.testing.assert_allclose(Kt, reference(X, Y, SX, SY), rtol=1e-12)


def test_log_matches_numpy():
    from graphdr._numba import njit

    @njit
    def logs(a):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = _log_ge1(a[i])
        return out

    rng = np.random.default_rng(0)
    a = 1.0 + np.abs(rng.normal(size=20000)) * 10.0 ** rng.integers(-17, 300, 20000)
    a = np.r_[a, 1.0, np.nextafter(1.0, 2.0), np.sqrt(2.0), 2.0, 1e308]
    err = np.abs(logs(a) - np.log(a)) / np.spacing(np.log(a).clip(1e-300))
    assert err.max() <= 2


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_zero_variance_is_the_plain_kernel(data, kernel):
    X, Y = data["X"], data["X_test"]
    np.testing.assert_array_equal(
        expected_kernel(X, x_variance=np.zeros(60), kernel=kernel),
        pairwise_kernel(X, kernel=kernel),
    )
    np.testing.assert_array_equal(
        expected_kernel(X, Y, y_variance=np.zeros((20, 6)), kernel=kernel)
        if kernel != "rbf"
        else expected_kernel(X, Y, y_variance=np.zeros(20)),
        pairwise_kernel(X, Y, kernel=kernel),
    )


# ------------------------------------------------------------------ expected kernels: Monte Carlo


def _monte_carlo(kernel, m1, S1, m2, S2, same, n_draws=200_000, seed=0):
    """Mean and standard error of k(x, x') over Gaussian draws (x' = x when ``same``)."""
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal(m1, S1, size=n_draws)
    x2 = x if same else rng.multivariate_normal(m2, S2, size=n_draws)
    if kernel == "linear":
        k = np.einsum("ij,ij->i", x, x2)
    elif kernel == "rbf":
        k = np.exp(-GAMMA * np.sum((x - x2) ** 2, axis=1))
    else:
        k = (GAMMA * np.einsum("ij,ij->i", x, x2) + 1.0) ** 2
    return k.mean(), k.std(ddof=1) / np.sqrt(n_draws)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("kind", ["iso", "diag"])
def test_expected_kernel_matches_monte_carlo(kernel, kind):
    rng = np.random.default_rng(3)
    M = rng.normal(size=(2, 3))
    V = rng.uniform(0.2, 1.0, 2) if kind == "iso" else rng.uniform(0.2, 1.0, (2, 3))
    K = expected_kernel(M, x_variance=V, kernel=kernel, gamma=GAMMA)
    S = [_cov(V[0], 3), _cov(V[1], 3)]
    for i, j in [(0, 1), (0, 0), (1, 1)]:
        mean, se = _monte_carlo(kernel, M[i], S[i], M[j], S[j], same=i == j, seed=10 * i + j)
        if se == 0:  # rbf, i = j: k(x, x) = 1 exactly
            assert K[i, j] == mean == 1.0
        else:
            assert abs(K[i, j] - mean) < 5 * se, (i, j, K[i, j], mean, se)


# ------------------------------------------------------------------ GEU


@pytest.mark.parametrize(
    "geu, ge",
    [
        (PCA_GEU(uncertainty=None), PCA_GE()),
        (LDA_GEU(uncertainty=None), LDA_GE()),
        (MFA_GEU(uncertainty=None, k1=3, k2=10), MFA_GE(k1=3, k2=10)),
        (GEU("lpp", uncertainty=None), GraphEmbedding("lpp")),
    ],
)
def test_geu_without_uncertainty_is_ge(data, geu, ge):
    X, y = data["X"], data["y"]
    ge.fit(X, y)
    for fitted in (geu.fit(X, y), geu.fit(X, y, sample_variance=np.zeros(60))):
        np.testing.assert_array_equal(fitted.components_, ge.components_)
        np.testing.assert_array_equal(
            fitted.transform(data["X_test"]), ge.transform(data["X_test"])
        )


def test_expected_scatter_matches_monte_carlo(data):
    """``E[X^T L X] = M^T L M + sum_i L_ii S_i`` (the formula GEU rests on)."""
    X, y = data["X"][:30], data["y"][:30]
    L = lda_graph(y).intrinsic
    rng = np.random.default_rng(4)
    for v in (data["iso"][:30], data["diag"][:30]):
        sd = np.sqrt(v)[:, None] if v.ndim == 1 else np.sqrt(v)
        draws = np.stack([L.quadratic(X + rng.normal(size=X.shape) * sd) for _ in range(4000)])
        mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
        expected = L.quadratic(X) + uncertainty_scatter(L.diagonal(), v, n_features=6)
        assert np.all(np.abs(mean - expected) < 5 * se)


@pytest.mark.parametrize("kind", ["iso", "diag"])
def test_lda_geu_against_dense_generalized_eigh(data, kind):
    """LDA_GEU spans the smallest generalised eigenvectors of the expected scatters built
    densely (scipy, full feature space)."""
    X, y, v = data["X"], data["y"], data[kind]
    geu = LDA_GEU(solver="range").fit(X, y, sample_variance=v)
    Xc = X - X.mean(axis=0)
    n = len(y)
    Lw = np.eye(n) - sum(np.outer(y == c, y == c) / np.sum(y == c) for c in np.unique(y))
    H = np.eye(n) - np.ones((n, n)) / n
    Sv = [_cov(s, 6) for s in v]
    Sw = Xc.T @ Lw @ Xc + sum(Lw[i, i] * Sv[i] for i in range(n))
    St = Xc.T @ H @ Xc + sum(H[i, i] * Sv[i] for i in range(n))
    w, V = scipy.linalg.eigh(Sw, St)
    k = geu.n_components_
    assert k == 2
    assert np.max(scipy.linalg.subspace_angles(geu.components_.T, V[:, :k])) < 1e-8
    np.testing.assert_allclose(geu.eigenvalues_, w[:k], rtol=1e-8)


def test_geu_uses_the_full_feature_space_when_d_exceeds_n():
    """With uncertainty the scatters are not confined to the span of the means (D > N)."""
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(12, 30)), np.repeat([0, 1, 2], 4)
    ge = PCA_GE().fit(X)
    geu = PCA_GEU(uncertainty="constant", s0=0.1).fit(X)
    assert ge.n_components_ == 11 and geu.n_components_ == 30
    # isotropic uncertainty shifts PCA's eigenvalues by (1 - 1/N) N s0 ... within the span
    assert_equal_up_to_sign(geu.components_[:11].T, ge.components_.T, rtol=1e-7)
    lda = LDA_GEU(uncertainty="constant", s0=0.1).fit(X, y)
    assert lda.components_.shape == (2, 30)


def test_pca_geu_isotropic_shifts_eigenvalues(data):
    X = data["X"]
    ge, geu = PCA_GE().fit(X), PCA_GEU(uncertainty="constant", s0=0.3).fit(X)
    assert_equal_up_to_sign(geu.components_.T, ge.components_.T, rtol=1e-8)
    np.testing.assert_allclose(geu.eigenvalues_, ge.eigenvalues_ + (1 - 1 / 60) * 60 * 0.3)


def test_geu_transform_ignores_test_variance_but_checks_it(data):
    geu = LDA_GEU().fit(data["X"], data["y"])
    Xt = data["X_test"]
    np.testing.assert_array_equal(geu.transform(Xt, sample_variance=np.ones(20)), geu.transform(Xt))
    with pytest.raises(ValueError, match="non-negative"):
        geu.transform(Xt, sample_variance=-np.ones(20))


# ------------------------------------------------------------------ NGEU


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize(
    "ngeu_cls, ge_cls, params",
    [(KPCA_NGEU, KPCA_GE, {}), (KDA_NGEU, KDA_GE, {}), (KMFA_NGEU, KMFA_GE, {"k1": 3, "k2": 10})],
)
def test_ngeu_without_uncertainty_is_kernel_ge(data, kernel, ngeu_cls, ge_cls, params):
    X, y, Xt = data["X"], data["y"], data["X_test"]
    kw = {"kernel": kernel, "gamma": GAMMA, **params}
    ge = ge_cls(**kw).fit(X, y)
    for ngeu in (
        ngeu_cls(uncertainty=None, **kw).fit(X, y),
        ngeu_cls(**kw).fit(X, y, sample_variance=np.zeros(60)),
    ):
        np.testing.assert_allclose(ngeu.dual_coef_, ge.dual_coef_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ngeu.transform(Xt), ge.transform(Xt), rtol=0, atol=1e-11)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_kpca_ngeu_with_n_components_computes_only_the_leading_eigenpairs(
    data, kernel, monkeypatch
):
    """KPCA_NGEU(k) is the first k columns of the full fit, from a subset eigh (as KPCA_GE)."""
    X, Xt, v = data["X"], data["X_test"], data["iso"]
    full = KPCA_NGEU(kernel=kernel, gamma=GAMMA).fit(X, sample_variance=v)
    calls = []
    eigh = scipy.linalg.eigh

    def spy(a, *args, **kwargs):
        calls.append((a.shape, kwargs.get("subset_by_index")))
        return eigh(a, *args, **kwargs)

    monkeypatch.setattr(scipy.linalg, "eigh", spy)
    lead = KPCA_NGEU(4, kernel=kernel, gamma=GAMMA).fit(X, sample_variance=v)
    assert ((60, 60), (56, 59)) in calls  # the 4 largest of the 60 x 60 centred kernel only
    assert all(subset is not None for shape, subset in calls if shape == (60, 60))
    assert_equal_up_to_sign(lead.transform(Xt), full.transform(Xt)[:, :4], rtol=1e-8)


@pytest.mark.parametrize("ngeu_cls, ge_cls", [(KDA_NGEU, KDA_GE), (KPCA_NGEU, KPCA_GE)])
def test_linear_ngeu_is_ge_on_the_kernel_plus_trace_diagonal(data, ngeu_cls, ge_cls):
    """Paper 004 section 3: with a linear kernel, NGEU is kernel GE on ``X X^T + diag(tr S_i)``."""
    X, y, Xt = data["X"], data["y"], data["X_test"]
    for v, trace in ((data["iso"], 6 * data["iso"]), (data["diag"], data["diag"].sum(axis=1))):
        ngeu = ngeu_cls(kernel="linear").fit(X, y, sample_variance=v)
        ref = ge_cls(kernel="precomputed").fit(X @ X.T + np.diag(trace), y)
        np.testing.assert_allclose(ngeu.transform(Xt), ref.transform(Xt @ X.T), atol=1e-9)


@pytest.mark.parametrize("graph", ["lda", "mfa"])
def test_linear_ngeu_and_geu_are_different_embeddings(data, graph):
    """Paper 004 section 3.2 (claim C111): NGEU maps each Gaussian to a point (a diagonal term
    on the linear kernel), GEU keeps it a Gaussian (its covariance enters both scatters), so with
    the same variances the two linear embeddings differ; without uncertainty both are linear GE
    (same projections up to each component's scale and sign). (PCA with isotropic variances is
    the near-exception: GEU's scatter gains a multiple of I, so GEU is PCA, and NGEU's diagonal
    term moves it by 0.1 degree on these data.)"""
    X, y, Xt, v = data["X"], data["y"], data["X_test"], data["iso"]
    k = 2

    def angle(a, b):
        a, b = a - a.mean(axis=0), b - b.mean(axis=0)
        return np.rad2deg(scipy.linalg.subspace_angles(a, b).max())

    ngeu = NGEU(graph, k, kernel="linear", uncertainty=None).fit(X, y, sample_variance=v)
    geu = GEU(graph, k, uncertainty=None).fit(X, y, sample_variance=v)
    assert angle(ngeu.transform(Xt), geu.transform(Xt)) > 1.0
    zero = np.zeros_like(v)
    ngeu0 = NGEU(graph, k, kernel="linear", uncertainty=None).fit(X, y, sample_variance=zero)
    geu0 = GEU(graph, k, uncertainty=None).fit(X, y, sample_variance=zero)
    # (their ridges differ: reg on the kernel matrix against reg on the D x D scatter)
    assert angle(ngeu0.transform(Xt), geu0.transform(Xt)) < 1e-2


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize("graph", ["lda", "mfa", "pca"])
def test_ngeu_is_kernel_ge_on_the_reference_expected_kernel(data, kernel, graph):
    """The whole estimator against the numpy reference kernel (diagonal convention included);
    for MFA this also checks that neighbours come from the expected kernel's distances."""
    X, y, Xt, v = data["X"], data["y"], data["X_test"], data["iso"]
    kw = {"k1": 3, "k2": 10}
    ngeu = NGEU(graph, kernel=kernel, gamma=GAMMA, **kw).fit(X, y, sample_variance=v)
    K = reference_expected_kernel(X, None, v, None, kernel)
    ref = KernelGraphEmbedding(graph, kernel="precomputed", **kw).fit(K, y)
    Kt = reference_expected_kernel(Xt, X, np.zeros(20), v, kernel)
    np.testing.assert_allclose(ngeu.transform(Xt), ref.transform(Kt), atol=1e-8)
    # an uncertain test point: the rectangular expected kernel with its own variance
    vt = data["iso_test"]
    Kt = reference_expected_kernel(Xt, X, vt, v, kernel)
    np.testing.assert_allclose(ngeu.transform(Xt, sample_variance=vt), ref.transform(Kt), atol=1e-8)


def test_test_uncertainty_estimate_uses_the_fitted_scheme(data):
    X, y, Xt = data["X"], data["y"], data["X_test"]
    est = KDA_NGEU(beta=0.3, test_uncertainty="estimate").fit(X, y)
    dirac = KDA_NGEU(beta=0.3).fit(X, y)
    v = NearestNeighborUncertainty(beta=0.3).fit(X).sample_variance(Xt)
    assert v.min() > 0
    np.testing.assert_allclose(est.transform(Xt), dirac.transform(Xt, sample_variance=v))
    assert not np.allclose(est.transform(Xt), dirac.transform(Xt))


def test_explicit_variance_overrides_the_scheme(data):
    X, y = data["X"], data["y"]
    a = KDA_NGEU(uncertainty="constant", s0=5.0).fit(X, y, sample_variance=data["iso"])
    b = KDA_NGEU(uncertainty=None).fit(X, y, sample_variance=data["iso"])
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.sample_variance_, data["iso"])


def test_constant_scheme_is_the_n_variant(data):
    X, y = data["X"], data["y"]
    a = KMFA_NGEU(uncertainty="constant", s0=0.2).fit(X, y)
    b = KMFA_NGEU(uncertainty=None).fit(X, y, sample_variance=np.full(60, 0.2))
    np.testing.assert_array_equal(a.transform(data["X_test"]), b.transform(data["X_test"]))


# ------------------------------------------------------------------ Theorem 3 (ranks)


def test_theorem3_uncertainty_does_not_lower_the_ranks():
    """Linear kernel, D < N (K = X X^T has rank D): with non-Dirac samples the matrices of the
    NGEU problem, K L K and K B K, have rank >= those of GE (here strictly larger)."""
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(30, 3)), np.repeat([0, 1, 2], 10)
    v = rng.uniform(0.1, 1.0, 30)
    K0 = expected_kernel(X, kernel="linear")
    K1 = expected_kernel(X, x_variance=v, kernel="linear")
    assert np.linalg.matrix_rank(K0) == 3 and np.linalg.matrix_rank(K1) == 30
    for pair in (lda_graph(y), mfa_graph(y, X, k1=3, k2=5), pca_graph(30)):
        for op in (pair.intrinsic, pair.penalty):
            if op is None:
                continue
            A = op.toarray()
            r0 = np.linalg.matrix_rank(K0 @ A @ K0)
            r1 = np.linalg.matrix_rank(K1 @ A @ K1)
            assert r1 >= r0 and r1 == np.linalg.matrix_rank(A) > r0
    # the estimator sees it: KPCA on a linear kernel has rank(X) directions, NGEU more
    assert KPCA_GE(kernel="linear").fit(X).n_components_ == 3
    assert KPCA_NGEU(kernel="linear").fit(X, sample_variance=v).n_components_ == 29


# ------------------------------------------------------------------ scikit-learn integration


def test_grid_search_tunes_beta_and_slices_explicit_variances(data):
    X, y = data["X"], data["y"]
    pipe = make_pipeline(KDA_NGEU(), KNeighborsClassifier(n_neighbors=1))
    grid = GridSearchCV(pipe, {"kda_ngeu__beta": [0.01, 0.1]}, cv=3).fit(X, y)
    assert grid.best_params_["kda_ngeu__beta"] in (0.01, 0.1)
    grid = GridSearchCV(KDA_NGEU(), {"gamma": [0.1, 1.0]}, cv=3, scoring=lambda e, X, y: 0.0)
    grid.fit(X, y, sample_variance=data["iso"])  # (N,) fit parameter, sliced per fold
    grid = GridSearchCV(
        KDA_NGEU(uncertainty=NearestNeighborUncertainty()),
        {"uncertainty__beta": [0.05, 0.5]},
        cv=3,
        scoring=lambda e, X, y: 0.0,
    ).fit(X, y)
    assert grid.best_estimator_.uncertainty.beta in (0.05, 0.5)


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("est", [LDA_GEU(), KDA_NGEU()])
def test_bad_variances_raise(data, est):
    X, y = data["X"], data["y"]
    bad = {
        "non-negative": -data["iso"],
        "NaN": np.r_[np.nan, data["iso"][1:]],
        "shape": np.ones(59),
        "expected \\(60,\\)": np.ones((60, 5)),
    }
    for match, v in bad.items():
        with pytest.raises(ValueError, match=match):
            est.fit(X, y, sample_variance=v)
    est.fit(X, y)
    with pytest.raises(ValueError, match="shape"):
        est.transform(data["X_test"], sample_variance=np.ones(5))


def test_bad_parameters_raise(data):
    X, y = data["X"], data["y"]
    cases = [
        (KDA_NGEU(kernel="precomputed"), "no expected kernel"),
        (KDA_NGEU(kernel="poly", degree=3), "degree 2"),
        (KPCA_NGEU(uncertainty="nn_supervised"), "needs class labels"),
        (KDA_NGEU(test_uncertainty="sometimes"), "test_uncertainty"),
        (KDA_NGEU(uncertainty="magic"), "not a known scheme"),
        (LDA_GEU(beta=-1.0), "beta"),
        (KDA_NGEU(uncertainty="constant", s0=np.nan), "s0"),
        (KDA_NGEU(n_components=3), "n_classes - 1 = 2"),
    ]
    for est, match in cases:
        with pytest.raises(ValueError, match=match):
            est.fit(X, y)


# ------------------------------------------------------------------ scikit-learn checks

ESTIMATORS = [  # default instances: tests/test_common.py
    LDA_GEU(uncertainty="nn_supervised"),
    KDA_NGEU(kernel="poly", uncertainty="constant", test_uncertainty="estimate"),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
