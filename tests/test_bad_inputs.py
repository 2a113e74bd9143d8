"""Bad inputs that used to give wrong answers without a word (issue 18), each asserting a clear
warning or error, or the correct result.

* a kernel width that does not fit the data's scale (gamma far too large: the kernel is the
  identity and every new point embeds at the same place; far too small: the centred kernel is
  rounding noise), directly or through unscaled data with the old ``1 / n_features`` default;
* data far from the origin (distances through ``||a||^2 + ||b||^2 - 2 a^T b`` lose every digit);
* the NGEU family on rescaled data (3e-14 embeddings at x 1e4, zeros at x 1e8, before);
* an absolute uncertainty that dwarfs the data;
* an indefinite-looking kernel (the PSD warning must say what it measured);
* renamed classes (the six estimators whose 1-NN accuracy changed with the class names).
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.datasets import load_digits
from sklearn.neighbors import KNeighborsClassifier

from graphdr.kernels import (
    CONSTANT_SHARE,
    IDENTITY_SIMILARITY,
    DegenerateKernelWarning,
    kernel_health,
    pairwise_kernel,
    resolve_gamma,
)
from graphdr.methods import (
    AKDA,
    AKSDA,
    ALL_ESTIMATORS,
    GDA,
    GSDA,
    KDA_GE,
    KDA_NGEU,
    KMFA_NGEU,
    KPCA_NGEU,
    KQMI,
    NGEU,
    SRKDA,
)
from graphdr.uncertainty import UncertaintyScaleWarning

KERNEL_ESTIMATORS = [E for E in ALL_ESTIMATORS if "gamma" in E().get_params()]
NGEU_FAMILY = [NGEU, KPCA_NGEU, KDA_NGEU, KMFA_NGEU]
ids = lambda E: E.__name__  # noqa: E731


def _blobs(seed=0, n_classes=4, per_class=10, n_features=5):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    X = 2.0 * rng.standard_normal((n_classes, n_features))[y] + rng.standard_normal(
        (y.size, n_features)
    )
    return X, y, rng.standard_normal((12, n_features))


def _estimator(E, **params):
    est = E()
    if "random_state" in est.get_params():
        params.setdefault("random_state", 0)
    return est.set_params(**params)


def _fit(E, X, y, **params):
    """Fit; a clear ValueError raised after the warning (e.g. "no positive eigenvalue") is an
    acceptable outcome too: what must not happen is a silent result."""
    try:
        return _estimator(E, **params).fit(X, y)
    except ValueError:
        return None


# --------------------------------------------------------------------------- kernel health


def test_kernel_health_against_hand_computed_values():
    n = 20
    h = kernel_health(np.eye(n))
    assert h.neighbour_similarity == 0.0 and h.identity_like
    assert h.centred_share == pytest.approx(1 - 1 / n)
    h = kernel_health(np.ones((n, n)))
    assert h.neighbour_similarity == pytest.approx(1.0) and h.constant_like
    # a linear kernel of points on two orthogonal axes: cosine 1 with the neighbour on the same
    # axis; centred share = sum of variances / mean squared norm
    X = np.array([[1.0, 0], [2.0, 0], [0, 1.0], [0, 3.0]])
    h = kernel_health(X @ X.T)
    assert h.neighbour_similarity == pytest.approx(1.0)
    Xc = X - X.mean(axis=0)
    assert h.centred_share == pytest.approx(np.sum(Xc**2) / np.sum(X**2))
    assert not (h.identity_like or h.constant_like)
    assert IDENTITY_SIMILARITY < 1e-3 and CONSTANT_SHARE < 1e-6


@pytest.mark.parametrize(
    "case, match",
    [
        ({"gamma": 1e6}, "identity"),
        ({"gamma": 1e-16}, "constant"),
        ({"gamma": None, "scale": 1e4}, "identity"),  # unscaled data, the old default
        ({"gamma": None, "scale": 1e-8}, "constant"),
    ],
    ids=["gamma-1e6", "gamma-1e-16", "x1e4-gamma-None", "x1e-8-gamma-None"],
)
@pytest.mark.parametrize("E", KERNEL_ESTIMATORS, ids=ids)
def test_degenerate_kernel_warns_in_every_kernel_estimator(E, case, match):
    X, y, _ = _blobs()
    case = dict(case)
    scale = case.pop("scale", 1.0)
    with pytest.warns(DegenerateKernelWarning, match=match) as record:
        _fit(E, X * scale, y, **case)
    message = str(record[0].message)
    assert E.__name__ in message and "gamma=" in message
    assert "mean squared distance" in message and "gamma='scale'" in message


@pytest.mark.parametrize("E", KERNEL_ESTIMATORS, ids=ids)
def test_healthy_kernels_do_not_warn(E):
    X, y, _ = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateKernelWarning)
        warnings.simplefilter("error", RuntimeWarning)
        _estimator(E, **({"sigma": 2.0} if E is KQMI else {})).fit(X, y)


def test_precomputed_identity_kernel_warns_without_a_gamma_to_suggest():
    X, y, _ = _blobs()
    K = pairwise_kernel(X, gamma=1e4)
    with pytest.warns(DegenerateKernelWarning, match="smaller gamma"):
        AKDA(kernel="precomputed").fit(K, y)


@pytest.mark.parametrize("E", [AKDA, KDA_GE, NGEU, KQMI, GDA], ids=ids)
def test_linear_kernel_on_data_far_from_the_origin_warns(E):
    X, y, _ = _blobs()
    with pytest.warns(DegenerateKernelWarning, match="offset much larger than its spread"):
        _fit(E, X + 1e8, y, kernel="linear")


def test_rbf_kernel_and_distances_far_from_the_origin_keep_their_digits():
    X, _, Xt = _blobs()
    K = pairwise_kernel(X, Xt, gamma=0.1)
    K_far = pairwise_kernel(X + 1e8, Xt + 1e8, gamma=0.1)
    # the inputs themselves carry only ~1e-8 absolute precision at 1e8
    np.testing.assert_allclose(K_far, K, atol=1e-6)
    assert np.abs(K_far - K).max() < 1e-6 * np.abs(K).max()


def test_psd_warning_says_what_it_measured_and_the_likely_cause():
    X, y, _ = _blobs()
    K = pairwise_kernel(X, gamma=0.2)
    K[0, 1] = K[1, 0] = -3.0
    with pytest.warns(RuntimeWarning, match=r"most negative is -?\d.* of the largest") as rec:
        KDA_GE(kernel="precomputed").fit(K, y)
    message = str(rec[0].message)
    assert "round-off" in message and "nearly constant" in message
    assert "use a PSD kernel (linear, rbf" not in message  # the old, misleading advice


# --------------------------------------------------------------------------- gamma


@pytest.mark.parametrize("E", [E for E in KERNEL_ESTIMATORS if E is not KQMI], ids=ids)
def test_default_gamma_is_scale(E):
    X, y, _ = _blobs()
    assert E().gamma == "scale"
    est = _estimator(E).fit(X, y)
    assert est.gamma_ == pytest.approx(1.0 / (X.shape[1] * X.var()))
    assert resolve_gamma("scale", X) == est.gamma_


@pytest.mark.parametrize("gamma", ["auto", "Scale", 0, -1.0, np.nan, np.inf, True])
@pytest.mark.parametrize("E", [AKDA, KDA_GE, NGEU, KQMI, AKSDA], ids=ids)
def test_bad_gamma_is_a_clear_error(E, gamma):
    X, y, _ = _blobs()
    with pytest.raises(ValueError, match="gamma"):
        E(gamma=gamma).fit(X, y)


def test_gamma_scale_of_constant_data_is_one():
    assert resolve_gamma("scale", np.ones((5, 3))) == 1.0


# --------------------------------------------------------------------------- NGEU scale


@pytest.mark.parametrize("scale", [1e-4, 1e4, 1e8])
@pytest.mark.parametrize("E", NGEU_FAMILY, ids=ids)
def test_ngeu_family_embeds_rescaled_data_identically(E, scale):
    """With gamma="scale" and the "nn" uncertainty (sigma_i proportional to distances) the
    expected kernel, hence the embedding, does not change when the data are rescaled."""
    X, y, Xt = _blobs()
    Z = _estimator(E, n_components=2).fit(X, y).transform(Xt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Zs = _estimator(E, n_components=2).fit(X * scale, y).transform(Xt * scale)
    assert np.abs(Z).max() > 1e-3  # a real embedding, not the collapse of the issue
    np.testing.assert_allclose(Zs, Z, rtol=1e-6, atol=1e-8 * np.abs(Z).max())


@pytest.mark.parametrize("E", NGEU_FAMILY, ids=ids)
def test_ngeu_explicit_variances_that_scale_with_the_data(E):
    X, y, Xt = _blobs()
    v = np.random.default_rng(1).uniform(0.01, 0.1, X.shape[0])
    Z = _estimator(E, n_components=2).fit(X, y, sample_variance=v).transform(Xt)
    Zs = _estimator(E, n_components=2).fit(X * 1e4, y, sample_variance=v * 1e8).transform(Xt * 1e4)
    np.testing.assert_allclose(Zs, Z, rtol=1e-6, atol=1e-8 * np.abs(Z).max())


@pytest.mark.parametrize("E", NGEU_FAMILY, ids=ids)
def test_ngeu_absolute_uncertainty_that_dwarfs_the_data_warns(E):
    X, y, _ = _blobs()
    with pytest.warns(UncertaintyScaleWarning, match="s0 <="):
        _fit(E, X * 1e-2, y, uncertainty="constant", s0=0.01)
    with warnings.catch_warnings():  # the same s0 on data of unit scale is fine
        warnings.simplefilter("error", UncertaintyScaleWarning)
        _estimator(E, uncertainty="constant", s0=0.01).fit(X, y)


# --------------------------------------------------------------------------- class names


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    idx = np.random.default_rng(0).permutation(y.size)[:500]
    X = X[idx] / 16.0
    return X[:300], y[idx][:300], X[300:], y[idx][300:]


@pytest.mark.parametrize("n_components", [3, None])
@pytest.mark.parametrize("E", [AKDA, SRKDA, GDA, AKSDA, GSDA, KQMI], ids=ids)
def test_renamed_classes_give_the_same_1nn_accuracy(digits, E, n_components):
    """The issue's six failures (plus KQMI, whose equal-QMI directions followed class order):
    the same groups under other names must give the same subspace and the same score."""
    X, y, Xt, yt = digits
    rename = np.array([7, 3, 9, 0, 5, 1, 8, 2, 6, 4]) * 11

    def run(labels):
        est = _estimator(E, n_components=n_components).fit(X, labels)
        knn = KNeighborsClassifier(1).fit(est.transform(X), y)
        Zt = est.transform(Xt)
        return knn.score(Zt, yt), Zt

    score, Z = run(y)
    score_renamed, Z_renamed = run(rename[y])
    assert np.max(scipy.linalg.subspace_angles(Z, Z_renamed)) < 1e-6
    assert score_renamed == score


# --------------------------------------------------------------------------- DCV


def test_dcv_ignores_constant_features_instead_of_collapsing():
    """Constant features lie in the null space of S_w but carry nothing: counted, they made
    every common vector the same point (all training samples embedded at one place)."""
    from graphdr.methods import DCV

    X, y, _ = _blobs(n_features=5)
    X = np.hstack([X, np.zeros((X.shape[0], 4))])  # 4 constant features: null(S_w) has dim 4
    with pytest.warns(UserWarning, match="null space of dimension 0"):
        Z = DCV(n_components=3).fit(X, y).transform(X)
    class_means = np.array([Z[y == c].mean(axis=0) for c in np.unique(y)])
    assert np.ptp(class_means, axis=0).min() > 1e-3 * np.abs(Z).max()  # classes apart
    Z_ref = DCV(n_components=3).fit(X[:, :5], y).transform(X[:, :5])
    assert np.max(scipy.linalg.subspace_angles(Z, Z_ref)) < 1e-8  # the same as without them
