"""TRPCA (Podosinnikova, Setzer & Hein, GCPR 2014), cited by paper 004 for its "TRPCAA" row.

* no trimming (t = N): the trimmed reconstruction error is PCA's, so the components span
  scikit-learn's PCA subspace and the centre is the mean;
* inliers near a k-dimensional subspace plus gross outliers: TRPCA recovers the inlier subspace
  (PCA does not), and its t best-fitted samples are inliers;
* the recorded objective never increases (both steps are descent steps), and the kept run's
  objective is the smallest over the restarts;
* the errors state their bounds; non-convergence warns.
"""

import numpy as np
import pytest
import scipy.linalg
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning

from graphdr.methods import TRPCA
from graphdr.methods.robust_pca import trpca_run


def _angle(A, B) -> float:
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


def _trimmed_error(X, U, m, t):
    XC = X - m
    r = np.sum(XC**2, axis=1) - np.sum((XC @ U) ** 2, axis=1)
    return np.sort(r)[:t].sum()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_without_trimming_it_is_pca(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 8)) * np.r_[3.0, 2.0, np.full(6, 0.5)] + 5.0
    est = TRPCA(n_components=2, n_inliers=60, random_state=seed).fit(X)
    pca = PCA(2).fit(X)
    # the stopping rule is on the objective (relative 1e-10), whose error is quadratic in the
    # angle: 1e-5 rad is the accuracy it guarantees
    assert _angle(est.components_.T, pca.components_.T) < 1e-5
    np.testing.assert_allclose(est.center_, X.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(2), atol=1e-12)


def _outlier_data(seed, n_in=80, n_out=20, d=8, k=2):
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.standard_normal((d, k)))
    inliers = 3.0 * rng.standard_normal((n_in, k)) @ basis.T + 0.05 * rng.standard_normal((n_in, d))
    outliers = 10.0 * rng.standard_normal((n_out, d))
    return np.vstack([inliers, outliers]) + 2.0, basis


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recovers_the_inlier_subspace_where_pca_fails(seed):
    X, basis = _outlier_data(seed)
    est = TRPCA(n_components=2, random_state=0).fit(X)
    assert _angle(est.components_.T, basis) < 0.05
    assert _angle(PCA(2).fit(X).components_.T, basis) > 0.3
    assert est.inliers_.size == 50 and est.inliers_.max() < 80  # only inliers fit best


def test_objective_never_increases_and_the_best_restart_is_kept():
    X, _ = _outlier_data(5)
    t = 50
    rng = np.random.default_rng(0)
    finals = []
    for _ in range(5):
        U0, _ = np.linalg.qr(rng.standard_normal((8, 2)))
        U, m, objectives, converged = trpca_run(X, U0, t, max_iter=1000, tol=1e-10)
        assert converged
        assert np.all(np.diff(objectives) <= 1e-12 * objectives[0])
        # the recorded value is the trimmed error before the final centre update; the centre
        # update can only lower it
        assert _trimmed_error(X, U, m, t) <= objectives[-1] * (1 + 1e-12)
        finals.append(objectives[-1])
    est = TRPCA(n_components=2, n_init=5, random_state=np.random.RandomState(0)).fit(X)
    assert est.objective_[-1] <= min(finals) * (1 + 1e-9)


def test_deterministic_with_a_seed():
    X, _ = _outlier_data(6)
    a = TRPCA(n_components=2, random_state=3).fit_transform(X)
    np.testing.assert_array_equal(a, TRPCA(n_components=2, random_state=3).fit_transform(X))


def test_errors_and_warnings():
    X, _ = _outlier_data(7)
    with pytest.raises(ValueError, match=r"n_components=9 is larger than n_features = 8"):
        TRPCA(n_components=9).fit(X)
    with pytest.raises(ValueError, match=r"n_inliers must be an integer in \[ceil\(N/2\), N\]"):
        TRPCA(n_inliers=10).fit(X)
    with pytest.raises(ValueError, match="n_init must be an integer >= 1"):
        TRPCA(n_init=0).fit(X)
    with pytest.warns(ConvergenceWarning, match="TRPCA did not converge in max_iter=1"):
        TRPCA(n_components=2, max_iter=1, random_state=0).fit(X)
