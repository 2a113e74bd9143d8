"""Graph-embedding estimators against independent references (scikit-learn, scipy, identities)."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_wine, make_classification
from sklearn.decomposition import PCA, KernelPCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from graphdr.graphs import MFAGraph, lda_graph, lpp_graph, mfa_graph
from graphdr.methods import (
    ALL_ESTIMATORS,
    KDA_GE,
    KLPP_GE,
    KMFA_GE,
    KPCA_GE,
    LDA_GE,
    LPP_GE,
    MFA_GE,
    PCA_GE,
    GraphEmbedding,
    KernelGraphEmbedding,
)
from graphdr.methods.graph_embedding import solve_graph_embedding

# ------------------------------------------------------------------ helpers and data


def assert_equal_up_to_sign(A, B, atol=1e-8):
    """Columns of A equal columns of B up to one sign per column."""
    assert A.shape == B.shape
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A, B * signs, atol=atol * max(1.0, np.abs(B).max()))


def max_angle(A, B):
    return np.max(scipy.linalg.subspace_angles(A, B))


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X[::2], y[::2], X[1::2]


@pytest.fixture(scope="module")
def blobs():
    X, y = make_classification(
        n_samples=90, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=0
    )
    return X[:70], y[:70], X[70:]


# ------------------------------------------------------------------ scikit-learn references


@pytest.mark.parametrize("solver", ["eigen", "svd"])
@pytest.mark.parametrize("ge_solver", ["regularized", "range"])
def test_lda_spans_sklearn_lda_subspace(wine, blobs, solver, ge_solver):
    for X, y, _ in (wine, blobs):
        ge = LDA_GE(solver=ge_solver).fit(X, y)
        ref = LinearDiscriminantAnalysis(solver=solver).fit(X, y)
        k = len(np.unique(y)) - 1
        assert ge.n_components_ == k and ge.components_.shape == (k, X.shape[1])
        assert max_angle(ge.components_.T, ref.scalings_[:, :k]) < 1e-6
        # same directions one by one (distinct eigenvalues): projections equal up to sign/scale
        Z, Zr = ge.transform(X), ref.transform(X)
        for j in range(k):
            assert abs(np.corrcoef(Z[:, j], Zr[:, j])[0, 1]) > 1 - 1e-8


def test_lda_eigenvalues_are_within_over_total_ratios(wine):
    X, y, _ = wine
    ge = LDA_GE().fit(X, y)
    Z = ge.transform(X)  # penalty normalisation: unit total scatter per direction
    np.testing.assert_allclose(((Z - Z.mean(0)) ** 2).sum(0), 1.0, rtol=1e-7)
    within = sum(((Z[y == c] - Z[y == c].mean(0)) ** 2).sum(0) for c in np.unique(y))
    np.testing.assert_allclose(within, ge.eigenvalues_, rtol=1e-6)
    assert np.all(np.diff(ge.eigenvalues_) > 0)


def test_pca_matches_sklearn(wine):
    X, _, Xt = wine
    ge = PCA_GE(n_components=5).fit(X)
    ref = PCA(n_components=5, svd_solver="full").fit(X)
    assert_equal_up_to_sign(ge.transform(X), ref.transform(X))
    assert_equal_up_to_sign(ge.transform(Xt), ref.transform(Xt))
    np.testing.assert_allclose(ge.eigenvalues_ / (len(X) - 1), ref.explained_variance_)
    assert PCA_GE().fit(X).n_components_ == X.shape[1]


@pytest.mark.parametrize(
    "params",
    [{"kernel": "rbf", "gamma": 0.05}, {"kernel": "linear"}, {"kernel": "poly", "gamma": 0.1}],
)
def test_kpca_matches_kernel_pca(wine, params):
    X, _, Xt = wine
    ge = KPCA_GE(n_components=6, **params).fit(X)
    sk_params = {**params, "degree": 2, "coef0": 1.0} if params["kernel"] == "poly" else params
    ref = KernelPCA(n_components=6, eigen_solver="dense", **sk_params).fit(X)
    assert_equal_up_to_sign(ge.transform(X), ref.transform(X))
    assert_equal_up_to_sign(ge.transform(Xt), ref.transform(Xt))
    np.testing.assert_allclose(ge.eigenvalues_, ref.eigenvalues_, rtol=1e-8)


@pytest.mark.parametrize(
    "linear, kernel",
    [
        (LDA_GE(), KDA_GE()),
        (MFA_GE(k1=3, k2=10), KMFA_GE(k1=3, k2=10)),
        (
            MFA_GE(k1=4, k2=3, mfa_variant="per_point"),
            KMFA_GE(k1=4, k2=3, mfa_variant="per_point"),
        ),
        (LPP_GE(n_neighbors=4), KLPP_GE(n_neighbors=4)),
        (PCA_GE(), KPCA_GE()),
    ],
    ids=["lda", "mfa", "mfa-per-point", "lpp", "pca"],
)
def test_linear_kernel_equals_linear_ge(blobs, linear, kernel):
    # Both solve the same r x r problem in an orthonormal basis of the span of the centred data,
    # with the same normalisation (w^T X^T B X w = 1, or w^T w = 1 <=> alpha^T K alpha = 1 for
    # PCA), so the projections agree exactly up to one sign per column.
    X, y, Xt = blobs
    same = {k: v for k, v in linear.get_params().items() if k in ("reg", "tol")}
    a, b = linear.fit(X, y), kernel.set_params(kernel="linear", **same).fit(X, y)
    assert a.n_components_ == b.n_components_
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-7)
    assert_equal_up_to_sign(a.transform(X), b.transform(X), atol=1e-7)
    assert_equal_up_to_sign(a.transform(Xt), b.transform(Xt), atol=1e-7)


# ------------------------------------------------------------------ the eigenproblem itself


@pytest.mark.parametrize(
    "estimator, graph",
    [
        (LDA_GE(), lambda X, y: lda_graph(y)),
        (MFA_GE(k1=3, k2=8), lambda X, y: mfa_graph(y, X, k1=3, k2=8)),
        (
            LPP_GE(n_neighbors=4, heat_t=3.0),
            lambda X, y: lpp_graph(y, X, n_neighbors=4, heat_t=3.0),
        ),
    ],
    ids=["lda", "mfa", "lpp"],
)
@pytest.mark.parametrize("solver", ["regularized", "range"])
def test_generalised_eigen_identity(blobs, estimator, graph, solver):
    X, y, _ = blobs
    est = estimator.set_params(solver=solver).fit(X, y)
    Xc = X - X.mean(0)
    g = graph(X, y)
    S_int = Xc.T @ g.intrinsic.toarray() @ Xc  # dense N x N reference
    S_pen = Xc.T @ g.penalty.toarray() @ Xc
    ref = scipy.linalg.eigh(S_int, S_pen, eigvals_only=True)[: est.n_components_]
    np.testing.assert_allclose(est.eigenvalues_, ref, rtol=1e-6)
    V = est.components_.T
    resid = S_int @ V - (S_pen @ V) * est.eigenvalues_
    assert np.abs(resid).max() < 1e-6 * np.abs(S_int).max()
    np.testing.assert_allclose(np.diag(V.T @ S_pen @ V), 1.0, rtol=1e-6)


def test_solvers_agree_and_reject_unknown(blobs):
    X, y, Xt = blobs
    a = MFA_GE(k1=3, k2=8, solver="regularized").fit(X, y)
    b = MFA_GE(k1=3, k2=8, solver="range").fit(X, y)
    assert_equal_up_to_sign(a.transform(Xt), b.transform(Xt), atol=1e-6)
    with pytest.raises(ValueError, match="solver must be one of"):
        MFA_GE(solver="lsqr").fit(X, y)


def test_solve_graph_embedding_penalty_null_directions_rank_last():
    # S_pen vanishes on e_3: lambda = inf there, never a spurious optimum
    S_int = np.diag([1.0, 2.0, 0.0])
    S_pen = np.diag([2.0, 1.0, 0.0])
    lam, W = solve_graph_embedding(S_int, S_pen, 3)
    np.testing.assert_allclose(lam[:2], [0.5, 2.0], rtol=1e-6)
    assert np.isinf(lam[2])
    np.testing.assert_allclose(np.abs(W[:, 0]), [1 / np.sqrt(2), 0, 0], atol=1e-8)


def test_smaller_dimension_is_leading_columns(blobs):
    X, y, Xt = blobs
    full = MFA_GE(k1=3, k2=8).fit(X, y).transform(Xt)
    two = MFA_GE(k1=3, k2=8, n_components=2).fit(X, y).transform(Xt)
    np.testing.assert_allclose(two, full[:, :2])
    kfull = KDA_GE(gamma=0.2).fit(X, y).transform(Xt)
    np.testing.assert_allclose(
        KDA_GE(gamma=0.2, n_components=1).fit(X, y).transform(Xt), kfull[:, :1]
    )


def test_deterministic_bitwise(blobs):
    X, y, Xt = blobs
    for est in (LDA_GE(), KMFA_GE(gamma=0.2, k1=3, k2=8)):
        assert np.array_equal(est.fit(X, y).transform(Xt), est.fit(X, y).transform(Xt))


# ------------------------------------------------------------------ degenerate data


def test_singular_within_class_scatter_d_greater_than_n():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 80))  # D > N: S_w (rank N - C) and S_t (rank N - 1) singular
    y = np.repeat([0, 1, 2], 10)
    X[y == 1] += 0.5
    Xt = rng.standard_normal((10, 80))
    for est in (LDA_GE(), LDA_GE(solver="range"), MFA_GE(k1=3, k2=10), LPP_GE(n_neighbors=3)):
        est.fit(X, y)
        Z = est.transform(Xt)
        assert np.isfinite(Z).all() and np.isfinite(est.components_).all()
        assert est.components_.shape[1] == 80
    # LDA: the C-1 directions are the null space of S_w in the span of the data (classes collapse)
    est = LDA_GE().fit(X, y)
    Z = est.transform(X)
    within = sum(((Z[y == c] - Z[y == c].mean(0)) ** 2).sum() for c in range(3))
    assert within < 1e-6 * ((Z - Z.mean(0)) ** 2).sum()
    assert LDA_GE(solver="range").fit(X, y).n_components_ == 2


def test_rank_deficient_features_and_duplicates():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((40, 3))
    X = np.hstack([A, A @ rng.standard_normal((3, 4))])  # 7 features, rank 3
    X = np.vstack([X, X[:5]])  # duplicated samples
    y = np.arange(45) % 3
    est = MFA_GE(k1=3, k2=5).fit(X, y)
    assert est.n_components_ == 3 and np.isfinite(est.transform(X)).all()
    with pytest.raises(ValueError, match="larger than the rank of the centred training data = 3"):
        MFA_GE(n_components=4).fit(X, y)


def test_non_psd_kernel_warns_and_stays_finite(blobs):
    X, y, _ = blobs
    K = rbf_kernel(X, gamma=0.2)
    K[0, 1] = K[1, 0] = -3.0  # breaks positive semi-definiteness
    with pytest.warns(RuntimeWarning, match="negative eigenvalues"):
        est = KDA_GE(kernel="precomputed").fit(K, y)
    assert np.isfinite(est.transform(K)).all()


# ------------------------------------------------------------------ inputs and API


def test_precomputed_kernel_equals_kernel_path(blobs):
    X, y, Xt = blobs
    a = KMFA_GE(gamma=0.2, k1=3, k2=8).fit(X, y)
    K, Kt = rbf_kernel(X, gamma=0.2), rbf_kernel(Xt, X, gamma=0.2)
    K0, Kt0 = K.copy(), Kt.copy()
    b = KMFA_GE(kernel="precomputed", k1=3, k2=8).fit(K, y)
    b.transform(Kt)
    assert np.array_equal(K, K0) and np.array_equal(Kt, Kt0)  # the caller's arrays untouched
    assert b.X_fit_ is None
    np.testing.assert_allclose(
        a.transform(Xt), b.transform(rbf_kernel(Xt, X, gamma=0.2)), atol=1e-9
    )


def test_string_labels_and_fitted_attributes(wine):
    X, y, Xt = wine
    names = np.array(["barolo", "grignolino", "barbera"])[y]
    a, b = LDA_GE().fit(X, names), LDA_GE().fit(X, y)
    np.testing.assert_array_equal(a.classes_, np.sort(np.unique(names)))
    np.testing.assert_allclose(a.transform(Xt), b.transform(Xt))
    assert a.mean_.shape == (X.shape[1],) and a.eigenvalues_.shape == (2,)
    np.testing.assert_array_equal(a.get_feature_names_out(), ["lda_ge0", "lda_ge1"])
    k = KDA_GE().fit(X, names)
    assert k.dual_coef_.shape == (len(X), 2) and k.X_fit_.shape == X.shape


def test_set_output_pandas_and_pipeline(wine):
    pd = pytest.importorskip("pandas")
    X, y, Xt = wine
    est = MFA_GE(n_components=3).set_output(transform="pandas").fit(X, y)
    out = est.transform(pd.DataFrame(Xt))
    assert list(out.columns) == ["mfa_ge0", "mfa_ge1", "mfa_ge2"]
    pipe = make_pipeline(StandardScaler(), KDA_GE(gamma=0.1)).fit(X, y)
    assert pipe.transform(Xt).shape == (len(Xt), 2)


def test_generic_estimator_and_custom_graph_object(blobs):
    X, y, Xt = blobs
    a = GraphEmbedding(graph="mfa", k1=3, k2=8).fit(X, y)
    b = GraphEmbedding(graph=MFAGraph(k1=3, k2=8)).fit(X, y)
    c = MFA_GE(k1=3, k2=8).fit(X, y)
    np.testing.assert_allclose(a.transform(Xt), c.transform(Xt))
    np.testing.assert_allclose(b.transform(Xt), c.transform(Xt))
    d = KernelGraphEmbedding(graph="lpp", gamma=0.2, n_neighbors=3).fit(X, y)
    e = KLPP_GE(gamma=0.2, n_neighbors=3).fit(X, y)
    np.testing.assert_allclose(d.transform(Xt), e.transform(Xt))
    pca = GraphEmbedding(graph="pca").fit(X)  # unsupervised graph: y not needed
    assert pca.n_components_ == X.shape[1]
    assert LPP_GE(supervised=False).fit(X).transform(Xt).shape == (len(Xt), X.shape[1])
    with pytest.raises(ValueError, match="graph='knn' is not a known graph"):
        GraphEmbedding(graph="knn").fit(X, y)


def test_subclass_hooks_for_uncertainty_methods(blobs):
    # GEU adds sum_i L_ii S_i to the scatters; NGEU swaps the kernel. With zero variances and the
    # plain kernel, the overridden hooks must give back the base estimators exactly.
    X, y, Xt = blobs

    class ZeroGEU(LDA_GE):
        def _scatters(self, Z, graph, basis=None, sigma2=None):
            S_int, S_pen = super()._scatters(Z, graph, basis=basis)
            S_int = S_int + np.sum(graph.intrinsic.diagonal() * sigma2) * np.eye(len(S_int))
            return S_int, S_pen + np.sum(graph.penalty.diagonal() * sigma2) * np.eye(len(S_int))

    class DiracNGEU(KDA_GE):
        def _train_kernel(self, X, y_enc, sigma2=None):
            assert sigma2 is not None
            return self._kernel_matrix(X)

    a = ZeroGEU().fit(X, y, sigma2=np.zeros(len(X)))
    np.testing.assert_allclose(a.transform(Xt), LDA_GE().fit(X, y).transform(Xt))
    b = DiracNGEU(gamma=0.2).fit(X, y, sigma2=np.zeros(len(X)))
    np.testing.assert_allclose(b.transform(Xt), KDA_GE(gamma=0.2).fit(X, y).transform(Xt))
    with pytest.raises(TypeError, match="unexpected arguments"):
        LDA_GE().fit(X, y, sigma2=np.zeros(len(X)))


@pytest.mark.parametrize("est", [LDA_GE(), KDA_GE(), MFA_GE(), KPCA_GE()], ids=repr)
def test_bad_inputs(blobs, est):
    X, y, _ = blobs
    Xnan = X.copy()
    Xnan[3, 2] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.fit(Xnan, y)
    Xinf = X.copy()
    Xinf[0, 0] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        est.fit(Xinf, y)
    est.fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but .* is expecting 6 features"):
        est.transform(X[:, :5])
    with pytest.raises(ValueError, match="n_components must be a positive integer or None"):
        est.set_params(n_components=1.5).fit(X, y)
    est.set_params(n_components=None)


def test_one_class_and_too_many_components(blobs):
    X, y, _ = blobs
    for est in (LDA_GE(), KDA_GE(), MFA_GE(), LPP_GE()):
        with pytest.raises(ValueError, match="needs at least 2 classes; y has 1"):
            est.fit(X, np.zeros(len(X)))
    with pytest.raises(
        ValueError,
        match=r"n_components=3 is larger than n_classes - 1 = 2: LDA_GE has at most C-1 "
        r"discriminant directions\.",
    ):
        LDA_GE(n_components=3).fit(X, y)
    with pytest.raises(ValueError, match=r"n_classes - 1 = 2: KDA_GE has at most C-1"):
        KDA_GE(n_components=3).fit(X, y)
    with pytest.raises(ValueError, match=r"larger than n_features = 6: MFA_GE directions"):
        MFA_GE(n_components=7).fit(X, y)
    with pytest.raises(ValueError, match=r"larger than n_features = 6: PCA_GE"):
        PCA_GE(n_components=7).fit(X)
    with pytest.raises(ValueError, match=r"larger than n_samples - 1 = 4: PCA_GE"):
        PCA_GE(n_components=5).fit(X[:5])
    r = KPCA_GE(kernel="linear").fit(X).n_components_
    assert r == X.shape[1]
    with pytest.raises(ValueError, match=r"larger than the rank of the centred kernel matrix = 6"):
        KPCA_GE(kernel="linear", n_components=7).fit(X)
    with pytest.raises(ValueError, match="square training kernel"):
        KDA_GE(kernel="precomputed").fit(X, y)


def test_penalty_rank_bounds_mfa(blobs):
    # 3 classes x k2=2 marginal pairs: the penalty graph has at most 6 edges, so at most 6
    # directions have a finite ratio in the (69-dimensional) kernel feature space
    X, y, _ = blobs
    est = KMFA_GE(gamma=0.2, k2=2).fit(X, y)
    p = est.graph_meta_["n_penalty_edges"]
    assert est.n_components_ <= p <= 6 and np.isfinite(est.eigenvalues_).all()
    with pytest.raises(ValueError, match="larger than the rank of the penalty (scatter|graph)"):
        KMFA_GE(gamma=0.2, k2=2, n_components=est.n_components_ + 1).fit(X, y)
    r = KMFA_GE(gamma=0.2, k2=2, solver="range").fit(X, y)
    assert r.n_components_ == est.n_components_


def test_penalty_graph_bound_fails_before_the_kernel_eigendecomposition(blobs, monkeypatch):
    """A request above the penalty graph's rank (N minus its connected components) fails from
    the graph alone: no eigendecomposition is paid first (the NGEU grids refit such points)."""
    X, y, _ = blobs
    upper = KMFA_GE(gamma=0.2, k2=2).fit(X, y).graph_meta_["n_penalty_edges"]
    calls = []
    eigh = scipy.linalg.eigh
    monkeypatch.setattr(scipy.linalg, "eigh", lambda *a, **k: calls.append(1) or eigh(*a, **k))
    with pytest.raises(ValueError, match="larger than the rank of the penalty graph"):
        KMFA_GE(gamma=0.2, k2=2, n_components=upper + 1).fit(X, y)
    assert calls == []


def test_all_estimators_listed():
    ge = {GraphEmbedding, KernelGraphEmbedding, PCA_GE, LDA_GE, MFA_GE, LPP_GE}
    ge |= {KPCA_GE, KDA_GE, KMFA_GE, KLPP_GE}
    assert ge <= set(ALL_ESTIMATORS) and len(ALL_ESTIMATORS) == len(set(ALL_ESTIMATORS))


# ------------------------------------------------------------------ invariances (hypothesis)


def _invariance_data():
    X, y = make_classification(
        n_samples=45, n_features=5, n_informative=4, n_redundant=0, n_classes=3, random_state=3
    )
    return X[:36], y[:36], X[36:]


_INV = _invariance_data()
_FACTORIES = {
    "lda": lambda: LDA_GE(),
    "kda": lambda: KDA_GE(gamma=0.1),
    "mfa": lambda: MFA_GE(k1=3, k2=6),
}
_REFS = {name: make().fit(*_INV[:2]).transform(_INV[2]) for name, make in _FACTORIES.items()}


@settings(max_examples=8, deadline=None)
@given(perm=st.permutations(range(36)), name=st.sampled_from(sorted(_FACTORIES)))
def test_invariant_to_sample_order(perm, name):
    X, y, Xt = _INV
    perm = np.asarray(perm)
    Z = _FACTORIES[name]().fit(X[perm], y[perm]).transform(Xt)
    assert_equal_up_to_sign(Z, _REFS[name], atol=1e-7)


@settings(max_examples=8, deadline=None)
@given(names=st.permutations(["ant", "bee", "cat"]), name=st.sampled_from(sorted(_FACTORIES)))
def test_invariant_to_relabelling(names, name):
    X, y, Xt = _INV
    Z = _FACTORIES[name]().fit(X, np.asarray(names)[y]).transform(Xt)
    assert_equal_up_to_sign(Z, _REFS[name], atol=1e-7)


def test_kpca_leading_eigenpairs_only_equal_the_full_decomposition():
    """KPCA_GE with n_components computes only the leading eigenpairs (a subset eigh): the
    result equals the leading columns of the full decomposition."""
    rng = np.random.default_rng(11)
    X, X_new = rng.normal(size=(80, 6)), rng.normal(size=(15, 6))
    full = KPCA_GE(kernel="rbf", gamma=0.2).fit(X)
    part = KPCA_GE(n_components=4, kernel="rbf", gamma=0.2).fit(X)
    np.testing.assert_allclose(part.eigenvalues_, full.eigenvalues_[:4], rtol=1e-10)
    np.testing.assert_allclose(part.transform(X_new), full.transform(X_new)[:, :4], atol=1e-9)


def test_kpca_leading_path_still_states_the_rank_bound():
    X = np.random.default_rng(12).normal(size=(30, 2))  # linear kernel: centred rank 2
    with pytest.raises(ValueError, match=r"n_components=3 is larger than the rank of the centred"):
        KPCA_GE(n_components=3, kernel="linear").fit(X)


# ---- hidden failure: a within-class k-NN graph in pieces ---------------------------------------


def _split_classes(seed=0, n_features=15):
    """3 classes, each made of 4 tight clusters of 6 points scattered among the other classes'
    clusters: every within-class 5-NN graph has 4 components (12 in all), and any cluster
    indicator is a linear function of the data (12 affinely independent centres in 15-D)."""
    rng = np.random.default_rng(seed)
    centres = 3.0 * rng.normal(size=(12, n_features))
    X = np.vstack([c + 0.05 * rng.normal(size=(6, n_features)) for c in centres])
    return X, np.repeat(np.arange(12) % 3, 6)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: LPP_GE(2, **kw),
        lambda **kw: KLPP_GE(2, gamma=0.01, **kw),
    ],
    ids=["LPP", "KLPP"],
)
def test_lpp_on_a_graph_in_pieces_is_finite_and_separates_the_classes(make, seed):
    """Without the guard the smallest directions are indicators of the pieces (zero ratio), not
    of the classes; with the paper's mutual rule and the joining edges every class is one
    component, the embedding is finite, of full rank, and the class means separate the classes
    (nearest-centroid error 0, the majority-class error being 2/3)."""
    from sklearn.neighbors import NearestCentroid

    X, y = _split_classes(seed)
    assert lpp_graph(y, X, n_neighbors=5).meta["n_class_components"] == 12
    guarded = make(mutual=True, connect=True)
    Z = guarded.fit_transform(X, y)
    assert np.isfinite(Z).all() and np.linalg.matrix_rank(Z) == 2
    assert (Z.std(axis=0) > 0).all()
    assert guarded.graph_meta_["n_connecting_edges"] == 9  # 3 per class joins its 4 pieces
    error = 1 - NearestCentroid().fit(Z, y).score(Z, y)
    assert error == 0.0
    unguarded = make()
    Z0 = unguarded.fit_transform(X, y)
    assert 1 - NearestCentroid().fit(Z0, y).score(Z0, y) > 0.2  # the failure the guard removes


@pytest.mark.parametrize("path", ["lowrank", "full"])
def test_kda_ge_and_papers_002_kda_agree_on_training_data_as_reg_vanishes(path):
    """docs/estimators.md, *Three KDAs*: KDA_GE (relative ridge on the within scatter, centred
    kernel) and paper 002's KDA (Mika et al.: absolute ridge on the within-class scatter of the
    uncentred kernel columns, full generalised EVD) both tend to the null space of the
    within-class scatter as reg -> 0: each class collapses to one point, so their centred
    training projections span one subspace. At a reg that matters they differ."""
    from graphdr.methods import KDA

    X, y = make_classification(
        n_samples=90, n_features=6, n_informative=4, n_classes=3, random_state=3
    )

    def centred_projections(est):
        Z = est.fit(X, y).transform(X)
        return Z - Z.mean(axis=0)

    ours = KDA_GE(gamma=0.3, reg=1e-9, path=path)
    mika = KDA(gamma=0.3, reg=1e-9, scatter="within", eigen_solver="full")
    assert max_angle(centred_projections(ours), centred_projections(mika)) < 1e-5
    assert ours.solver_path_ == path
    loose = KDA(gamma=0.3, reg=10.0, scatter="within", eigen_solver="full")
    assert max_angle(centred_projections(ours), centred_projections(loose)) > 0.1


def test_estimators_of_one_reuse_block_share_the_centred_kernels_decomposition():
    """Inside graphdr.kernels.reuse_kernels the full eigendecomposition of a centred kernel is
    computed once: KMFA's fit keeps it, KDA (full path) and KPCA on the same kernel read it
    (KPCA takes its leading pairs from it instead of a subset decomposition). Each result must
    equal the estimator fitted alone, outside any block, and the decomposition must be counted
    once (scipy.linalg.eigh calls on N x N matrices)."""
    from unittest import mock

    from graphdr.kernels import reuse_kernels

    X, y = make_classification(
        n_samples=90, n_features=6, n_informative=4, n_classes=3, n_clusters_per_class=2,
        random_state=4,
    )  # fmt: skip
    models = {
        "kmfa": lambda: KMFA_GE(n_components=4, kernel="rbf", gamma=0.2, k1=3, k2=6),
        "kda": lambda: KDA_GE(n_components=2, kernel="rbf", gamma=0.2, path="full"),
        "kpca": lambda: KPCA_GE(n_components=5, kernel="rbf", gamma=0.2),
    }
    alone = {name: make().fit(X, y).transform(X) for name, make in models.items()}
    real_eigh, big = scipy.linalg.eigh, []

    def counting_eigh(a, *args, **kwargs):
        if np.shape(a)[0] == X.shape[0]:
            big.append(kwargs.get("subset_by_index"))
        return real_eigh(a, *args, **kwargs)

    with reuse_kernels() as store, mock.patch("scipy.linalg.eigh", counting_eigh):
        shared = {name: make().fit(X, y).transform(X) for name, make in models.items()}
        assert store.hits >= 2  # the decomposition (and the kernel matrices) read again
    assert big == [None]  # one N x N decomposition: KMFA's full one
    for name in models:
        assert_equal_up_to_sign(shared[name], alone[name], atol=1e-7)


@pytest.mark.parametrize("n_samples", [40, 160])  # N < D (the wide span) and N >= D
def test_linear_fits_of_one_reuse_block_share_the_data_span(n_samples):
    """Inside graphdr.kernels.reuse_kernels the span of the centred data (data_span's Gram
    eigendecomposition) is computed once for fits on the same data: LDA_GE at three reg values
    and LPP_GE decompose one Gram matrix, and every projection is bit for bit the one fitted
    alone, outside any block (AKDA's cross-validation over reg relies on it). Changing a
    returned span leaves the store's copy intact."""
    from unittest import mock

    from graphdr.kernels import reuse_kernels
    from graphdr.methods.graph_embedding import data_span

    X, y = make_classification(
        n_samples=n_samples, n_features=60, n_informative=8, n_classes=3, random_state=5
    )
    models = [LDA_GE(reg=r) for r in (1e-3, 1e-1, 1.0)] + [LPP_GE(n_components=4)]
    alone = [m.fit(X, y).transform(X) for m in models]
    real_eigh, grams = scipy.linalg.eigh, []

    def counting_eigh(a, *args, **kwargs):
        if np.shape(a)[0] == min(X.shape):
            grams.append(np.shape(a))
        return real_eigh(a, *args, **kwargs)

    with reuse_kernels() as store, mock.patch("scipy.linalg.eigh", counting_eigh):
        shared = [m.fit(X, y).transform(X) for m in models]
        Xc = X - X.mean(axis=0)
        Z, basis = data_span(Xc)
        Z[:] = 0.0
        again, _ = data_span(Xc)
    assert len(grams) == 1 and store.hits == len(models) + 1
    for a, b in zip(alone, shared, strict=True):
        np.testing.assert_array_equal(a, b)
    computed = data_span(Xc)
    np.testing.assert_array_equal(again, computed[0])
    # a stored span comes back in the computed arrays' memory layout (the wide span: F order)
    for a, b in zip((again, basis), computed, strict=True):
        assert (a.flags.c_contiguous, a.flags.f_contiguous) == (
            b.flags.c_contiguous, b.flags.f_contiguous,
        )  # fmt: skip
