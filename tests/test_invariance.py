"""What an embedding must not depend on: class names, sample order, a duplicated dataset, and
(per estimator, as stated below) the data's scale and translation.

Compared through the span of the embedding of fixed new points: the largest principal angle
(``scipy.linalg.subspace_angles``) between the two embeddings' column spaces. Signs, an
orthogonal rotation within a degenerate eigenspace, or a rescaling of the directions do not
change it; a different subspace does. Tolerances: rounding of the eigen-solvers on these small,
well-conditioned problems stays below 1e-8 rad (measured: at most 3e-12 for renaming, 4e-10
for scaling); 1e-6 rad leaves margin and still fails on any real change (the label-order
defects this guards against moved the span by 1e-2 to 1.3 rad).

Per-estimator expectations (measured, and why):

* class names and sample order: every supervised estimator.
* duplicated dataset (every sample twice): the same span for estimators whose criteria are
  ratios of scatters (LDA/KDA graph embedding, QMI, CKFD, DCV). Those with an absolute ridge
  on an N x N kernel matrix see a doubled kernel, so the duplicate equals the original with the
  ridge doubled (AKDA, AKSDA, GDA, SRKDA, GSDA, FastSDA: ``(2K + reg I)`` is ``2 (K + reg/2 I)``) or
  quadrupled (KDA: its denominator is ``K K``); this is tested. Not invariant, by
  construction: k-nearest-neighbour graphs (MFA, LPP, KMFA, KLPP, MMPA, LFDA's local scales,
  KSDA's split: a copy is a nearest neighbour), the uncertainty methods (GEU/NGEU: the expected scatters weight the
  variances by ``1 - 1/N_c``, which duplication changes) and RSLDA (its l2,1 penalty is not a
  sum over samples, the other terms are).
* scale (x 1e3, x 1e-3) and translation (+ 1e3, + 1e8): every estimator (supervised or not)
  except KQMI, whose
  Parzen width ``sigma`` is absolute (paper 001; it warns, DegenerateKernelWarning, when the
  width does not fit the data) and the elastic embeddings (iterative, tested elsewhere). The
  kernel estimators get this from ``gamma="scale"`` (``1 / (D X.var())``) and the NGEU family
  from it plus the "nn" uncertainty, which scales with the data.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from graphdr.methods import AKDA, AKSDA, ALL_ESTIMATORS, GDA, GSDA, KDA, SRKDA, FastSDA

SLOW = {"DEE", "DSNE", "EE"}  # iterative embeddings: seconds per fit, tested below on one case
SUPERVISED = [
    E
    for E in ALL_ESTIMATORS
    if E.__name__ not in SLOW and E().__sklearn_tags__().target_tags.required
]
#: duplicated data == original data with the absolute ridge multiplied by this factor
RIDGE_FACTOR = {AKDA: 2, AKSDA: 2, GDA: 2, SRKDA: 2, GSDA: 2, FastSDA: 2, KDA: 4}
DUPLICATE_INVARIANT = {
    "GraphEmbedding",
    "KernelGraphEmbedding",
    "LDA_GE",
    "KDA_GE",
    "KQMI",
    "LQMI",
    "CKFD",
    "DCV",
}
NOT_SCALE_INVARIANT = {"KQMI"}
TOL = 1e-6


def _angle(A, B) -> float:
    return float(np.max(scipy.linalg.subspace_angles(A, B), initial=0.0))


def _dataset(seed: int, n_classes: int, per_class: int, n_features: int):
    rng = np.random.default_rng(seed)
    centres = 2.0 * rng.standard_normal((n_classes, n_features))
    y = np.repeat(np.arange(n_classes), per_class)
    X = centres[y] + rng.standard_normal((y.size, n_features))
    X_new = 1.5 * rng.standard_normal((15, n_features))
    return X, y, X_new, rng


def _embed(E, X, y, X_new, **params):
    est = E()
    names = est.get_params()
    if "random_state" in names:
        params.setdefault("random_state", 0)
    # a low dimension, so that the span is a real constraint (a full-dimensional span of 15
    # points is trivially equal)
    params.setdefault("n_components", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. DCV's documented fallback warning
        return est.set_params(**params).fit(X, y).transform(X_new)


data = st.tuples(
    st.integers(0, 2**16),  # seed
    st.integers(3, 4),  # classes (3+: AKDA's degenerate eigenspace needs C-1 >= 2)
    st.integers(5, 8),  # samples per class
    st.integers(3, 6),  # features
)


@pytest.mark.parametrize("E", SUPERVISED, ids=lambda E: E.__name__)
@settings(max_examples=2, deadline=None, derandomize=True)
@given(case=data, perm=st.randoms(use_true_random=False))
def test_span_ignores_class_names_sample_order_and_duplicates(E, case, perm):
    X, y, X_new, rng = _dataset(*case)
    n_classes = case[1]
    # renamed classes (same groups): a random permutation of the names, as strings (whose
    # sorted order is a different order again: "class 10" < "class 3")
    names = np.array([f"class {v}" for v in perm.sample(range(1, 3 * n_classes + 1, 3), n_classes)])
    Z = _embed(E, X, y, X_new)
    assert _angle(Z, _embed(E, X, names[y], X_new)) < TOL

    # sample order
    order = rng.permutation(y.size)
    assert _angle(Z, _embed(E, X[order], y[order], X_new)) < TOL

    # every sample twice
    X2, y2 = np.vstack([X, X]), np.concatenate([y, y])
    if E.__name__ in DUPLICATE_INVARIANT:
        assert _angle(Z, _embed(E, X2, y2, X_new)) < TOL
    elif E in RIDGE_FACTOR:
        reg = RIDGE_FACTOR[E] * E().reg
        assert _angle(Z, _embed(E, X2, y2, X_new, reg=reg)) < TOL


@pytest.mark.parametrize(
    "E", [E for E in ALL_ESTIMATORS if E.__name__ not in SLOW], ids=lambda E: E.__name__
)
def test_span_follows_scale_and_translation(E):
    X, y, X_new, _ = _dataset(7, 4, 8, 5)
    Z = _embed(E, X, y, X_new, n_components=2)
    for scale, shift in [(1e3, 0.0), (1e-3, 0.0), (1.0, 1e3), (1.0, 1e8)]:
        Zs = _embed(E, X * scale + shift, y, X_new * scale + shift, n_components=2)
        if E.__name__ in NOT_SCALE_INVARIANT and scale != 1.0:
            continue
        assert _angle(Z, Zs) < TOL, (scale, shift)


def test_kqmi_warns_when_its_fixed_width_does_not_fit_the_scale():
    from graphdr.kernels import DegenerateKernelWarning
    from graphdr.methods import KQMI

    X, y, _, _ = _dataset(7, 4, 8, 5)
    with pytest.warns(DegenerateKernelWarning, match="identity"):
        KQMI().fit(X * 1e3, y)
    with pytest.warns(DegenerateKernelWarning, match="constant"):
        KQMI().fit(X * 1e-5, y)


@pytest.mark.parametrize("name", ["DEE", "DSNE"])
def test_elastic_embeddings_ignore_class_names(name):
    import graphdr.methods as m

    X, y, _, _ = _dataset(3, 3, 6, 4)
    E = getattr(m, name)
    fit = dict(max_iter=30, random_state=0)
    Z = E(**fit).fit_transform(X, y)
    Zr = E(**fit).fit_transform(X, np.array([5, 1, 9])[y])
    np.testing.assert_allclose(Zr, Z, atol=1e-10)
