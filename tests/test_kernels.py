"""graphdr.kernels against scikit-learn's pairwise kernels, KernelCenterer and numpy references."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics.pairwise import (
    euclidean_distances,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
)
from sklearn.preprocessing import KernelCenterer

from graphdr import kernels
from graphdr.kernels import (
    center_kernel_test,
    center_kernel_train,
    gamma_from_sigma,
    pairwise_kernel,
    squared_distances,
)

numba = kernels.numba  # through graphdr._numba, so the numba cache directory is set first


def _awkward(rng, n, d, dtype=np.float64):
    """Rows with duplicates, zero rows, a far-away row and mixed scales."""
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=d)
    X[1] = X[0]  # duplicate
    X[2] = 0.0  # zero row
    X[3] = 0.0  # a second zero row: a duplicate at the origin
    X[4] = X[5] + 1e-7  # near-duplicate
    X[6] *= 50.0  # far away
    return X.astype(dtype)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return _awkward(rng, 37, 6), _awkward(rng, 11, 6)


def _scale(X, Y):
    """Rounding scale of ||a||^2 + ||b||^2 - 2 a.b: the largest squared norm."""
    return max(np.einsum("ij,ij->i", X, X).max(), np.einsum("ij,ij->i", Y, Y).max())


# --------------------------------------------------------------------------- squared distances


def test_squared_distances_match_sklearn(data):
    X, Y = data
    for A, B in [(X, None), (X, Y), (Y, X)]:
        ref = euclidean_distances(A, B, squared=True)
        got = squared_distances(A, B)
        assert got.dtype == np.float64 and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13 * _scale(A, A if B is None else B))
        assert np.all(got >= 0)


def test_symmetric_distances_are_exactly_symmetric_with_zero_diagonal(data):
    X, _ = data
    D = squared_distances(X)
    np.testing.assert_array_equal(D, D.T)
    np.testing.assert_array_equal(np.diag(D), 0.0)
    assert D[0, 1] == pytest.approx(0.0, abs=1e-12)  # duplicate rows
    assert D[2, 3] == 0.0  # two zero rows
    np.testing.assert_array_equal(squared_distances(X, X), D)  # Y is X: the symmetric path


def test_float32_stays_float32_and_is_accurate_at_float32_precision(data):
    X, Y = data
    for A, B in [(X, None), (X, Y)]:
        B32 = None if B is None else B.astype(np.float32)
        got = squared_distances(A.astype(np.float32), B32)
        assert got.dtype == np.float32
        ref = euclidean_distances(A, B, squared=True)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-5 * _scale(A, A if B is None else B))


def test_mixed_precision_and_integer_input_give_float64(data):
    X, Y = data
    assert squared_distances(X.astype(np.float32), Y).dtype == np.float64
    Xi = np.arange(12).reshape(4, 3)
    np.testing.assert_allclose(squared_distances(Xi), euclidean_distances(Xi, squared=True))


@st.composite
def _pair_of_samples(draw):
    d, n, m = draw(st.integers(1, 6)), draw(st.integers(1, 9)), draw(st.integers(1, 9))
    values = st.floats(-1e3, 1e3)
    return (
        draw(arrays(np.float64, (n, d), elements=values)),
        draw(arrays(np.float64, (m, d), elements=values)),
    )


@settings(max_examples=60, deadline=None)
@given(_pair_of_samples())
def test_squared_distances_property(pair):
    X, Y = pair
    got = squared_distances(X, Y)
    ref = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)  # direct differences, no cancellation
    tol = 1e-13 * (np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Y, Y)[None, :])
    assert np.all(np.abs(got - ref) <= tol + 1e-300)


# --------------------------------------------------------------------------- kernels vs sklearn


@pytest.mark.parametrize("gamma", [None, 0.05, 2.0])
def test_rbf_matches_sklearn(data, gamma):
    X, Y = data
    for A, B in [(X, None), (X, Y)]:
        got = pairwise_kernel(A, B, kernel="rbf", gamma=gamma)
        np.testing.assert_allclose(got, rbf_kernel(A, B, gamma=gamma), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(np.diag(pairwise_kernel(X, gamma=gamma)), 1.0)


def test_rbf_float32_and_dtype_argument(data):
    X, Y = data
    K32 = pairwise_kernel(X.astype(np.float32), Y.astype(np.float32))
    assert K32.dtype == np.float32
    np.testing.assert_allclose(K32, rbf_kernel(X, Y), rtol=0, atol=1e-5)
    down = pairwise_kernel(X, Y, dtype=np.float32)  # float64 input, float32 result
    assert down.dtype == np.float32
    up = pairwise_kernel(X.astype(np.float32), dtype="float64")
    assert up.dtype == np.float64


def test_rbf_with_gamma_from_sigma_is_the_papers_gaussian(data):
    X, Y = data
    sigma = 1.7
    D2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    got = pairwise_kernel(X, Y, gamma=gamma_from_sigma(sigma))
    np.testing.assert_allclose(got, np.exp(-D2 / (2 * sigma**2)), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("degree", [1, 2, 3, 4.0])
@pytest.mark.parametrize("gamma", [None, 0.5])
@pytest.mark.parametrize("coef0", [1.0, 0.0, -2.5])
def test_poly_matches_sklearn(data, degree, gamma, coef0):
    X, Y = data
    for A, B in [(X, None), (X, Y)]:
        got = pairwise_kernel(A, B, kernel="poly", degree=degree, gamma=gamma, coef0=coef0)
        ref = polynomial_kernel(A, B, degree=degree, gamma=gamma, coef0=coef0)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


def test_linear_matches_sklearn(data):
    X, Y = data
    np.testing.assert_allclose(pairwise_kernel(X, kernel="linear"), linear_kernel(X), rtol=1e-14)
    np.testing.assert_allclose(pairwise_kernel(X, Y, kernel="linear"), linear_kernel(X, Y))


def test_precomputed_is_validated_and_returned_without_copy(data):
    X, Y = data
    K = rbf_kernel(X)
    out = pairwise_kernel(K, kernel="precomputed")
    assert out is K
    Kt = rbf_kernel(Y, X)
    assert pairwise_kernel(Kt, X, kernel="precomputed") is Kt  # Y = the training samples
    assert pairwise_kernel(Kt, K, kernel="precomputed") is Kt  # or the training kernel
    assert pairwise_kernel(K, kernel="precomputed", dtype=np.float32).dtype == np.float32


# --------------------------------------------------------------------------- centring


def test_centering_matches_kernel_centerer(data):
    X, Y = data
    K, Kt = rbf_kernel(X, gamma=0.3), rbf_kernel(Y, X, gamma=0.3)
    centerer = KernelCenterer().fit(K)
    K_before = K.copy()
    Kc, stats = center_kernel_train(K)
    np.testing.assert_array_equal(K, K_before)  # copy=True leaves the input alone
    np.testing.assert_allclose(Kc, centerer.transform(K), rtol=0, atol=1e-14)
    np.testing.assert_allclose(stats.col_means, centerer.K_fit_rows_, rtol=1e-15)
    assert stats.mean == pytest.approx(centerer.K_fit_all_, rel=1e-15)
    np.testing.assert_allclose(center_kernel_test(Kt, stats), centerer.transform(Kt), atol=1e-14)
    # The identity behind it: centring the training kernel is H K H.
    H = np.eye(len(K)) - 1.0 / len(K)
    np.testing.assert_allclose(Kc, H @ K @ H, atol=1e-13)


def test_centering_in_place_and_float32(data):
    X, _ = data
    K = linear_kernel(X)
    ref = KernelCenterer().fit_transform(K)
    Kc, _ = center_kernel_train(K, copy=False)
    assert Kc is K
    np.testing.assert_allclose(K, ref, atol=1e-12 * np.abs(ref).max())
    K32, _ = center_kernel_train(linear_kernel(X).astype(np.float32))
    assert K32.dtype == np.float32
    np.testing.assert_allclose(K32, ref, atol=1e-5 * np.abs(ref).max())


# --------------------------------------------------------------------------- numba kernels


@pytest.fixture
def gram():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(40, 7)), rng.normal(size=(23, 7))
    x_norms, y_norms = (X**2).sum(1), (Y**2).sum(1)
    # Dense rounding noise: give some entries a slightly negative squared distance.
    G = X @ Y.T
    G[:5, :5] = 0.5 * (x_norms[:5, None] + y_norms[None, :5]) + 1e-9
    return G, x_norms, y_norms


@pytest.mark.parametrize("n_threads", [1, None])
def test_numba_passes_match_numpy_reference(gram, n_threads):
    G, xn, yn = gram
    threads = numba.get_num_threads()
    numba.set_num_threads(n_threads or threads)
    try:
        D2_ref = np.maximum(xn[:, None] + yn[None, :] - 2 * G, 0.0)
        assert (D2_ref[:5, :5] == 0).all()  # the clip is exercised

        out = G.copy()
        kernels._squared_distances_from_gram(out, xn, yn, False)
        np.testing.assert_allclose(out, D2_ref, rtol=1e-10, atol=1e-10)

        out = G.copy()
        kernels._rbf_from_gram(out, xn, yn, 0.37, False)
        np.testing.assert_allclose(out, np.exp(-0.37 * D2_ref), rtol=1e-10, atol=1e-10)

        out = G.copy()
        kernels._poly_from_gram(out, 0.2, -0.5, 3)
        np.testing.assert_allclose(out, (0.2 * G - 0.5) ** 3, rtol=1e-10, atol=1e-10)

        K = G @ G.T
        cm, rm = K.mean(0), K.mean(1)
        out = np.empty_like(K)
        kernels._center_into(K, out, cm, rm, K.mean())
        np.testing.assert_allclose(out, K - cm[None, :] - rm[:, None] + K.mean(), rtol=1e-10)
    finally:
        numba.set_num_threads(threads)


def test_diagonal_flags_of_the_passes():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(9, 3))
    G = X @ X.T
    xn = np.diag(G).copy()
    kernels._squared_distances_from_gram(G, xn, xn, True)
    np.testing.assert_array_equal(np.diag(G), 0.0)
    G = X @ X.T
    kernels._rbf_from_gram(G, xn, xn, 1.0, True)
    np.testing.assert_array_equal(np.diag(G), 1.0)


def _exp_array(x, out):
    for i in range(x.size):
        out[i] = kernels.exp_nonpositive(x[i])


# With and without fused multiply-adds (the RBF pass compiles it with fastmath={"contract"}).
_EXP_LOOPS = {
    "plain": numba.njit(_exp_array),
    "contract": numba.njit(fastmath={"contract"})(_exp_array),
}


@pytest.mark.parametrize("variant", sorted(_EXP_LOOPS))
def test_vectorisable_exp_is_within_two_ulp_of_numpy(variant):
    rng = np.random.default_rng(5)
    x = -np.concatenate(
        [
            np.linspace(0.0, 760.0, 400_001),  # every binade of the result, down to underflow
            np.geomspace(1e-300, 1.0, 20_001),  # tiny arguments: exp(x) ~ 1 + x
            rng.exponential(3.0, 200_000),
            [0.0, -0.0, 708.39, 709.0, 744.4, 745.1, 745.2, 746.0, 1e4, 1e300, np.inf],
        ]
    )
    got = np.empty_like(x)
    _EXP_LOOPS[variant](x, got)
    ref = np.exp(x)
    assert np.all(np.abs(got - ref) <= 2 * np.spacing(ref)), np.max(np.abs(got - ref) / ref)
    assert got[x == 0].tolist() == [1.0] * int((x == 0).sum())
    assert np.all(got[x <= -746] == 0.0)


def test_parallel_and_single_thread_paths_agree(data, monkeypatch):
    X, Y = data
    small = pairwise_kernel(X, Y)
    monkeypatch.setattr(kernels, "_PARALLEL_MIN_ENTRIES", 0)
    np.testing.assert_array_equal(pairwise_kernel(X, Y), small)


def test_thread_count_of_the_caller_is_respected_and_restored(data):
    X, _ = data
    threads = numba.get_num_threads()
    pairwise_kernel(X)
    assert numba.get_num_threads() == threads
    numba.set_num_threads(1)
    try:
        pairwise_kernel(X)
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(threads)


# --------------------------------------------------------------------------- memory


def _traced_peak(fn, *args, **kwargs):
    fn(*args, **kwargs)  # compile / load the numba kernels outside the measurement
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        out = fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - start, out


@pytest.mark.parametrize(
    "fn",
    [
        squared_distances,
        pairwise_kernel,
        lambda X: pairwise_kernel(X, kernel="poly", degree=3),
        lambda X: pairwise_kernel(X, X[:1000]),
    ],
    ids=["sqdist", "rbf", "poly", "rbf-XY"],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_peak_memory_is_one_output_matrix(fn, dtype):
    X = np.random.default_rng(6).normal(size=(1500, 8)).astype(dtype)
    peak, K = _traced_peak(fn, X)
    assert K.dtype == dtype
    assert peak < 1.6 * K.nbytes, (peak, K.nbytes)


def test_centering_in_place_allocates_no_matrix():
    K = np.random.default_rng(7).normal(size=(1500, 1500))
    peak, _ = _traced_peak(center_kernel_train, K, copy=False)
    assert peak < 0.05 * K.nbytes, peak


# --------------------------------------------------------------------------- errors


def test_errors_name_the_problem(data):
    X, Y = data
    with pytest.raises(ValueError, match="kernel='sigmoid' is not supported: expected one of"):
        pairwise_kernel(X, kernel="sigmoid")
    with pytest.raises(ValueError, match="X has 6 features but Y has 5"):
        pairwise_kernel(X, Y[:, :5])
    with pytest.raises(ValueError, match="X has 6 features but Y has 5"):
        squared_distances(X, Y[:, :5])
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        pairwise_kernel(bad)
    bad[3, 2] = -np.inf
    with pytest.raises(ValueError, match="Y contains infinity"):
        squared_distances(X, bad)
    for gamma in (0, -1.0, np.inf):
        with pytest.raises(ValueError, match="must be positive and finite"):
            pairwise_kernel(X, gamma=gamma)
    with pytest.raises(ValueError, match="must be positive and finite"):
        pairwise_kernel(X, kernel="poly", gamma=0.0)
    with pytest.raises(ValueError, match="degree=2.5 must be a positive integer"):
        pairwise_kernel(X, kernel="poly", degree=2.5)
    with pytest.raises(ValueError, match="coef0 must be a finite number"):
        pairwise_kernel(X, kernel="poly", coef0=np.nan)
    with pytest.raises(ValueError, match="dtype=.*int32.* is not supported"):
        pairwise_kernel(X, dtype=np.int32)
    with pytest.raises(ValueError, match=r"must be a 2-D array .* got shape \(6,\)"):
        pairwise_kernel(X[0])
    with pytest.raises(ValueError, match="at least one sample and one feature"):
        squared_distances(X[:0])
    with pytest.raises(TypeError, match="scipy.sparse matrix"):
        pairwise_kernel(scipy.sparse.csr_matrix(X))
    with pytest.raises(ValueError, match="sigma=0 must be positive"):
        gamma_from_sigma(0)


def test_overflowing_norms_are_reported_not_turned_into_nan(data):
    X, Y = data
    with pytest.raises(ValueError, match="squared row norms of X overflow float64"):
        pairwise_kernel(X * 1e160)
    with pytest.raises(ValueError, match="overflow float32; rescale the data or use dtype"):
        squared_distances(X.astype(np.float32) * 1e20, Y.astype(np.float32))


def test_precomputed_and_centring_shape_errors(data):
    X, Y = data
    with pytest.raises(ValueError, match=r"must be square .* got shape \(37, 6\)"):
        pairwise_kernel(X, kernel="precomputed")
    with pytest.raises(ValueError, match=r"against 37 training samples must have shape"):
        pairwise_kernel(rbf_kernel(Y, Y), X, kernel="precomputed")
    with pytest.raises(ValueError, match="training kernel must be square"):
        center_kernel_train(rbf_kernel(Y, X))
    _, stats = center_kernel_train(rbf_kernel(X))
    with pytest.raises(ValueError, match="Kt has 11 columns but the training kernel had 37"):
        center_kernel_test(rbf_kernel(Y), stats)


def _health_reference(K, rows):
    """The neighbour similarity of :func:`graphdr.kernels.kernel_health`, written directly from
    its definition (median over the sampled rows of max_{j != i} K_ij / sqrt(|K_ii K_jj|))."""
    d = np.diagonal(K)
    best = []
    for i in rows:
        if not d[i] > 0:
            continue
        vals = [
            K[i, j] / np.sqrt(abs(d[i] * d[j]))
            for j in range(K.shape[0])
            if j != i and d[j] != 0 and np.isfinite(K[i, j])
        ]
        if vals:
            best.append(max(vals))
    return float(np.median(best)) if best else 1.0


@pytest.mark.parametrize(
    "case", ["rbf", "zero_diagonal", "negative_diagonal", "nonfinite", "float32", "large"]
)
def test_kernel_health_similarity_matches_its_definition(case):
    from graphdr.kernels import _HEALTH_ROWS, kernel_health, pairwise_kernel

    rng = np.random.default_rng(3)
    n = 1500 if case == "large" else 60
    K = pairwise_kernel(rng.standard_normal((n, 5)), kernel="rbf", gamma=0.3)
    if case == "zero_diagonal":  # a zero sample of a linear kernel: no one's neighbour
        K[7, :] = K[:, 7] = 0.0
    if case == "negative_diagonal":  # an indefinite precomputed kernel
        K[3, 3] = -0.5
    if case == "nonfinite":  # entries that are no one's neighbour, the diagonal left intact
        K[5, 9], K[9, 5], K[2, 40] = np.nan, np.inf, -np.inf
    if case == "float32":
        K = K.astype(np.float32)
    rows = np.unique(np.linspace(0, n - 1, min(n, _HEALTH_ROWS)).round().astype(np.intp))
    if case == "large":  # the reference on a sample of the sampled rows (its loop is slow)
        found = kernel_health(K)
        assert found.n_rows == rows.size < n
        sub = rows[::25]
        S = K[sub] / np.sqrt(np.outer(np.diagonal(K)[sub], np.diagonal(K)))
        S[np.arange(sub.size), sub] = -np.inf
        assert 0 < found.neighbour_similarity <= 1
        assert abs(np.median(S.max(axis=1)) - found.neighbour_similarity) < 0.05
        return
    found = kernel_health(K)
    assert found.neighbour_similarity == pytest.approx(
        _health_reference(K.astype(np.float64), rows), rel=1e-12
    )
    if case != "nonfinite":  # tr(H S H) / tr(S) of the sampled sub-kernel S, with numpy
        S = K[np.ix_(rows, rows)].astype(np.float64)
        share = (np.trace(S) - S.sum() / rows.size) / np.trace(S)
        assert found.centred_share == pytest.approx(max(share, 0.0), rel=1e-9, abs=1e-15)


def test_reuse_kernels_returns_the_same_matrix_as_fresh_copies():
    from graphdr.kernels import reuse_kernels
    from graphdr.kernels.expected import expected_kernel

    rng = np.random.default_rng(0)
    X, Y, v = rng.normal(size=(30, 4)), rng.normal(size=(7, 4)), rng.uniform(0, 0.1, 30)
    fresh = pairwise_kernel(X, Y, kernel="rbf", gamma=0.3)
    fresh_expected = expected_kernel(X, x_variance=v, kernel="rbf", gamma=0.3)
    with reuse_kernels() as store:
        first = pairwise_kernel(X, Y, kernel="rbf", gamma=0.3)
        first[:] = -1.0  # the caller's to overwrite: the stored matrix must not change
        again = pairwise_kernel(X.copy(), Y.copy(), kernel="rbf", gamma=0.3)  # same content
        other = pairwise_kernel(X, Y, kernel="rbf", gamma=0.31)
        e1 = expected_kernel(X, x_variance=v, kernel="rbf", gamma=0.3)
        e2 = expected_kernel(X, x_variance=v, kernel="rbf", gamma=0.3)
        v2 = v.copy()
        v2[0] += 1e-3
        e3 = expected_kernel(X, x_variance=v2, kernel="rbf", gamma=0.3)
        # the Dirac case delegates to pairwise_kernel: stored once, under expected_kernel
        d1 = expected_kernel(X, Y, kernel="rbf", gamma=0.3)
        assert (store.hits, store.misses) == (2, 5)
        assert len(store.entries) == 5  # the inner pairwise_kernel call kept no copy
        # a dtype argument is part of the key; an argument it cannot key is computed, not kept
        f32 = pairwise_kernel(X, Y, kernel="rbf", gamma=0.3, dtype=np.float32)
        assert f32.dtype == np.float32 and (store.hits, store.misses) == (2, 6)
        again32 = pairwise_kernel(X, Y, kernel="rbf", gamma=0.3, dtype=np.float32)
        assert again32.dtype == np.float32 and (store.hits, store.misses) == (3, 6)
        odd = pairwise_kernel(X.astype(object), Y, kernel="rbf", gamma=0.3, dtype=np.float64)
        np.testing.assert_array_equal(odd, fresh)
        assert (store.hits, store.misses) == (3, 6)  # not keyed: neither a hit nor stored
    np.testing.assert_array_equal(again, fresh)
    np.testing.assert_array_equal(e1, fresh_expected)
    np.testing.assert_array_equal(e2, fresh_expected)
    np.testing.assert_array_equal(d1, fresh)
    assert not np.array_equal(other, fresh) and not np.array_equal(e3, fresh_expected)
    assert e1 is not e2
    # outside the block nothing is kept
    assert pairwise_kernel(X, Y, kernel="rbf", gamma=0.3) is not again


def test_reuse_kernels_forgets_the_least_recently_used_beyond_its_bound():
    from graphdr.kernels import reuse_kernels

    X = np.random.default_rng(1).normal(size=(20, 3))
    size = 20 * 20 * 8
    with reuse_kernels(max_bytes=2 * size) as store:
        for g in (0.1, 0.2, 0.1, 0.3, 0.2, 0.1):  # 0.2 evicted by 0.3 after 0.1 was used again
            pairwise_kernel(X, kernel="rbf", gamma=g)
        assert store.nbytes <= 2 * size
        assert (store.hits, store.misses) == (1, 5)


@pytest.mark.parametrize("n", [7, 300, 513])
def test_eigh_centred_kernel_is_lapack_on_the_lower_triangle_and_shared_in_a_reuse_block(n):
    """The decomposition equals scipy's on a copy of the centred kernel (lower triangle), bit
    for bit, although it works in place on a C-ordered matrix; inside reuse_kernels a second
    call on the same matrix does no decomposition and returns the stored arrays."""
    import scipy.linalg

    from graphdr.pipeline.runtime import count_eigendecompositions

    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 4))
    Kc = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.3))
    Kc[np.triu_indices(n, 1)] += 1e-13  # not symmetric: the lower triangle must decide
    s_ref, U_ref = scipy.linalg.eigh(np.tril(Kc), lower=True, driver="evd")
    s, U = kernels.eigh_centred_kernel(Kc.copy())
    np.testing.assert_array_equal(s, s_ref)
    np.testing.assert_array_equal(U, U_ref)
    scratch = Kc.copy()  # the upper triangle used as scratch (a low-rank path's Cholesky)
    scratch[np.triu_indices(n, 1)] = rng.normal(size=n * (n - 1) // 2)
    with kernels.reuse_kernels(), count_eigendecompositions() as count:
        first = kernels.eigh_centred_kernel(Kc.copy())
        second = kernels.eigh_centred_kernel(Kc.copy())
        third = kernels.eigh_centred_kernel(scratch)  # the same lower triangle: found
        Kc_f = np.asfortranarray(Kc)  # not C-ordered: keyed on a mirrored copy, left intact
        fourth = kernels.eigh_centred_kernel(Kc_f)
        assert kernels.stored_centred_kernel_eigh(np.tril(Kc))[1] is first[1]
        other = Kc.copy()
        other[-1, 0] += 1e-9  # another lower triangle: decomposed again
        kernels.eigh_centred_kernel(other)
    assert count["n"] == 2
    assert second[1] is first[1] and third[1] is first[1] and fourth[1] is first[1]
    np.testing.assert_array_equal(Kc_f, Kc)
    np.testing.assert_array_equal(first[0], s_ref)


def test_rbf_grid_and_blocks_match_sklearn(monkeypatch):
    """RBFGrid's kernels at several widths, the blocked float32 distances and the row blocks of
    their RBF kernel, each against scikit-learn's rbf_kernel / euclidean_distances."""
    from graphdr.kernels import RBFGrid, blocked_squared_distances, rbf_row_blocks

    rng = np.random.default_rng(3)
    X, Xt = rng.normal(size=(40, 6)), rng.normal(size=(23, 6))
    grid = RBFGrid(X, Xt)
    D = euclidean_distances(X, squared=True)
    assert grid.mean_d2 == pytest.approx(D.mean(), rel=1e-12)
    for factor in (0.5, 2.0, 2.0):
        gamma = factor / grid.mean_d2
        np.testing.assert_allclose(grid.train(gamma), rbf_kernel(X, gamma=gamma), atol=1e-12)
        np.testing.assert_allclose(grid.test(gamma), rbf_kernel(Xt, X, gamma=gamma), atol=1e-12)
    assert grid.train(gamma) is grid.train(gamma)  # the last width's kernel is kept
    assert RBFGrid(X).D_test is None
    # small blocks, so that the 23 rows span several of them
    monkeypatch.setattr(kernels, "BLOCK_ENTRIES", 40 * 5)
    Dt = blocked_squared_distances(Xt, X)
    assert Dt.dtype == np.float32
    np.testing.assert_allclose(Dt, euclidean_distances(Xt, X, squared=True), rtol=1e-6)
    blocks = list(rbf_row_blocks(Dt, 0.1))
    assert [start for start, _ in blocks] == [0, 5, 10, 15, 20]
    assert all(block.dtype == np.float64 for _, block in blocks)
    np.testing.assert_allclose(
        np.vstack([b for _, b in blocks]), rbf_kernel(Xt, X, gamma=0.1), rtol=1e-5
    )


def test_centred_kernel_range_keeps_the_eigenpairs_above_rtol_and_refuses_a_zero_kernel():
    """The range of a centred kernel (the basis of KQMI, CKFD, GDA, KNDA, KUDA and KODA) against
    numpy's eigh: the eigenvalues above ``rtol`` times the largest, their eigenvectors (the same
    projector); the null vector 1 and the rounding-level tail dropped; a zero kernel refused."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3))
    Kc = KernelCenterer().fit_transform(X @ X.T)  # rank 3, plus the centring's null vector 1
    w, V = np.linalg.eigh(Kc)
    keep = w > 1e-8 * w.max()
    lam, P = kernels.centred_kernel_range(Kc.copy(), 1e-8)
    assert lam.size == 3 == np.count_nonzero(keep)
    np.testing.assert_allclose(lam, w[keep], rtol=1e-10)
    np.testing.assert_allclose(P @ P.T, V[:, keep] @ V[:, keep].T, atol=1e-10)
    np.testing.assert_allclose(P.T @ np.ones(30), 0.0, atol=1e-10)
    assert kernels.centred_kernel_range(Kc.copy(), 0.5)[0].size == np.count_nonzero(
        w > 0.5 * w.max()
    )
    with pytest.raises(ValueError, match="no positive eigenvalue"):
        kernels.centred_kernel_range(np.zeros((5, 5)), 1e-8)
