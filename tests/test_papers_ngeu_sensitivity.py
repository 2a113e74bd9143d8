"""The settings of the NGEU paper's sensitivity runs.

* The solver rule ``solve_graph_embedding(..., solver="positive")``: "the eigenvector with the
  minimal positive eigenvalue" (null-space directions of the intrinsic scatter skipped), against
  an independent dense reference built from ``scipy.linalg.null_space`` and ``scipy.linalg.eigh``
  on small random problems.
* The diagonal convention of the expected kernel (``NGEU(diagonal="mean_embedding")``:
  ``<mu_i, mu_i>`` instead of ``E k(x, x)``), against closed forms and Monte Carlo.
* The uncertainty settings (another scheme: supervised, per-feature; test points as Gaussians):
  what the selection job hands the estimator, against a fit written out by hand.
* The unvalidated kernel width (``kernel_width: auto``): scikit-learn's ``gamma="auto"`` RBF.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist
from sklearn.neighbors import KNeighborsClassifier

from graphdr.kernels.expected import mean_embedding_norms
from graphdr.methods.graph_embedding import KDA_GE, solve_graph_embedding
from graphdr.methods.uncertain import KDA_NGEU, KMFA_NGEU
from graphdr.pipeline.papers.ngeu import protocol as ngeu
from graphdr.pipeline.papers.ngeu import report as ngeu_report
from graphdr.pipeline.splits import split_indices


def _psd(rng, n, rank):
    A = rng.normal(size=(n, rank))
    return A @ A.T


def _reference(S_int, S_pen, k):
    """Minimal positive eigenvalues of ``S_int w = lambda S_pen w`` on the orthogonal complement
    of the null space of ``S_int`` (``Q``), where ``S_int`` is positive definite: the largest
    ``mu = 1 / lambda`` of the pencil ``(Q^T S_pen Q, Q^T S_int Q)``."""
    null = scipy.linalg.null_space(S_int, rcond=1e-9)
    Q = scipy.linalg.null_space(null.T) if null.size else np.eye(S_int.shape[0])
    mu, U = scipy.linalg.eigh(Q.T @ S_pen @ Q, Q.T @ S_int @ Q)
    mu, U = mu[::-1][:k], U[:, ::-1][:, :k]
    return 1.0 / mu, Q @ U, null


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("pen_rank", [3, 9])  # singular (LDA-like) and definite penalty
def test_positive_rule_matches_the_dense_reference(seed, pen_rank):
    rng = np.random.default_rng(seed)
    n, k = 9, 3
    S_int, S_pen = _psd(rng, n, 6), _psd(rng, n, pen_rank)  # S_int: a 3-dim null space
    lam, W = solve_graph_embedding(S_int, S_pen, k, solver="positive", tol=1e-10)
    ref_lam, ref_W, null = _reference(S_int, S_pen, k)
    assert null.shape[1] == 3
    np.testing.assert_allclose(lam, ref_lam, rtol=1e-7)
    assert np.all(lam > 0)
    # same directions up to sign and scale (the eigenvalues are distinct)
    cos = np.abs(np.einsum("ij,ij->j", W, ref_W))
    cos /= np.linalg.norm(W, axis=0) * np.linalg.norm(ref_W, axis=0)
    np.testing.assert_allclose(cos, 1.0, atol=1e-7)
    # the null space of S_int is skipped, and the GE constraint holds
    assert np.abs(null.T @ W).max() < 1e-8 * np.abs(W).max()
    np.testing.assert_allclose(np.einsum("ij,ij->j", W, S_pen @ W), 1.0, rtol=1e-8)
    np.testing.assert_allclose(np.einsum("ij,ij->j", W, S_int @ W), lam, rtol=1e-7)


def test_regularized_rule_takes_the_null_space_first_positive_skips_it():
    rng = np.random.default_rng(3)
    S_int, S_pen = _psd(rng, 8, 5), _psd(rng, 8, 8)
    lam_reg, W_reg = solve_graph_embedding(S_int, S_pen, 2, solver="regularized")
    lam_pos, W_pos = solve_graph_embedding(S_int, S_pen, 2, solver="positive")
    ratio = np.einsum("ij,ij->j", W_reg, S_int @ W_reg) / np.einsum("ij,ij->j", W_reg, W_reg)
    assert np.all(ratio < 1e-6 * np.trace(S_int))  # null-space discriminants: lambda ~ 0
    assert np.all(lam_reg < 1e-6) and np.all(lam_pos > 1e-3)


def test_positive_equals_regularized_without_an_intrinsic_null_space():
    rng = np.random.default_rng(4)
    S_int, S_pen = _psd(rng, 7, 7) + np.eye(7), _psd(rng, 7, 4)
    lam_reg, W_reg = solve_graph_embedding(S_int, S_pen, 3, solver="regularized")
    lam_pos, W_pos = solve_graph_embedding(S_int, S_pen, 3, solver="positive")
    np.testing.assert_allclose(lam_pos, lam_reg, rtol=1e-6)
    np.testing.assert_allclose(np.abs(W_pos), np.abs(W_reg), rtol=1e-5, atol=1e-9)


def test_penalty_free_directions_rank_last_with_infinite_lambda():
    rng = np.random.default_rng(5)
    S_int, S_pen = _psd(rng, 6, 6), _psd(rng, 6, 2)
    lam, W = solve_graph_embedding(S_int, S_pen, 4, solver="positive")
    assert np.all(np.isfinite(lam[:2])) and np.all(np.isinf(lam[2:]))


def test_more_directions_than_the_intrinsic_rank_is_an_error():
    rng = np.random.default_rng(6)
    with pytest.raises(ValueError, match="n_components=5 is larger than the rank"):
        solve_graph_embedding(_psd(rng, 6, 4), _psd(rng, 6, 6), 5, solver="positive")


def test_estimators_accept_the_rule_and_ngeu_leaves_the_null_space():
    """Expected linear kernel ``X X^T + diag(tr S_i)``: full rank N, so the within-class
    scatter has a null direction that the default rule takes (lambda ~ 0) and the paper's rule
    skips; plain linear KDA (rank D < N) has none, so both rules agree there."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 15)
    X = rng.normal(size=(45, 3)) + 3.0 * rng.normal(size=(3, 3))[y]
    S = rng.uniform(0.05, 0.5, size=45)
    ngeu = {
        s: KDA_NGEU(n_components=2, kernel="linear", uncertainty=None, solver=s).fit(
            X, y, sample_variance=S
        )
        for s in ("regularized", "positive")
    }
    assert np.all(ngeu["regularized"].eigenvalues_ < 1e-4)
    assert np.all(ngeu["positive"].eigenvalues_ > 1e-2)
    # full rank: the rule is solved from a Cholesky and a thin SVD, as the dense rule
    assert ngeu["positive"].solver_path_ == "lowrank"
    full = KDA_NGEU(
        n_components=2, kernel="linear", uncertainty=None, solver="positive", path="full"
    ).fit(X, y, sample_variance=S)
    np.testing.assert_allclose(ngeu["positive"].eigenvalues_, full.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(
        np.abs(ngeu["positive"].transform(X)), np.abs(full.transform(X)), atol=1e-8
    )
    ge = {s: KDA_GE(n_components=2, kernel="linear", solver=s).fit(X, y) for s in ngeu}
    np.testing.assert_allclose(
        np.abs(ge["positive"].transform(X)), np.abs(ge["regularized"].transform(X)), atol=1e-6
    )
    with pytest.raises(ValueError, match="solver must be one of"):
        KDA_GE(solver="smallest").fit(X, y)


# ---- the diagonal convention --------------------------------------------------------------


def test_mean_embedding_norms_closed_forms_and_monte_carlo():
    rng = np.random.default_rng(0)
    X, v = rng.normal(size=(4, 3)), rng.uniform(0.1, 0.5, size=4)
    np.testing.assert_allclose(
        mean_embedding_norms(X, v, kernel="linear"), np.einsum("ij,ij->i", X, X), atol=1e-12
    )
    np.testing.assert_allclose(
        mean_embedding_norms(X, v, kernel="rbf", gamma=0.3), (1 + 4 * 0.3 * v) ** -1.5, rtol=1e-12
    )
    # diagonal covariances, rbf and poly-2: E k(x, x') over independent draws of one Gaussian
    S = rng.uniform(0.05, 0.4, size=(4, 3))
    x = X[:, None, :] + np.sqrt(S)[:, None, :] * rng.normal(size=(4, 200_000, 3))
    x2 = X[:, None, :] + np.sqrt(S)[:, None, :] * rng.normal(size=(4, 200_000, 3))
    rbf = np.exp(-0.3 * ((x - x2) ** 2).sum(axis=2)).mean(axis=1)
    poly = ((0.5 * (x * x2).sum(axis=2) + 1.0) ** 2).mean(axis=1)
    np.testing.assert_allclose(mean_embedding_norms(X, S, kernel="rbf", gamma=0.3), rbf, rtol=5e-3)
    np.testing.assert_allclose(
        mean_embedding_norms(X, S, kernel="poly", gamma=0.5, coef0=1.0), poly, rtol=1e-2
    )


def test_mean_embedding_diagonal_makes_linear_ngeu_linear_ge():
    """The paper's remark: with a linear kernel the uncertainty enters only through the
    diagonal; without it (the two-variable convention) NGEU is GE."""
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 15)
    X = rng.normal(size=(45, 4)) + 2.0 * rng.normal(size=(3, 4))[y]
    ngeu = KDA_NGEU(kernel="linear", beta=0.3, diagonal="mean_embedding").fit(X, y)
    ge = KDA_GE(kernel="linear").fit(X, y)
    np.testing.assert_allclose(np.abs(ngeu.transform(X)), np.abs(ge.transform(X)), atol=1e-8)
    one = KDA_NGEU(kernel="linear", beta=0.3).fit(X, y)
    assert np.abs(np.abs(one.transform(X)) - np.abs(ge.transform(X))).max() > 1e-3
    # rbf: the diagonal changes (1 -> (1 + 4 gamma sigma^2)^(-D/2)), and with it the model
    rbf = {
        d: KMFA_NGEU(n_components=2, beta=0.3, diagonal=d).fit(X, y)
        for d in ("one_variable", "mean_embedding")
    }
    gap = np.abs(rbf["one_variable"].transform(X)) - np.abs(rbf["mean_embedding"].transform(X))
    assert np.abs(gap).max() > 1e-3
    with pytest.raises(ValueError, match="diagonal must be one of"):
        KDA_NGEU(diagonal="two").fit(X, y)


# ---- the uncertainty settings ------------------------------------------------------------------


def _classes(n_per_class=12, n_classes=3, d=5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = (
        rng.normal(size=(y.size, d)) * rng.uniform(0.3, 2.0, d)
        + 2.5 * rng.normal(size=(n_classes, d))[y]
    )
    return X, y


def test_per_feature_scheme_reaches_the_estimator_as_written_by_hand():
    """``uncertainty: nn_diagonal``: each grid point's NGEU gets ``beta^2 (x_i - x_n(i))^2``
    per feature (neighbour by brute force); its scores equal that fit's, and differ from the
    isotropic scheme's fit at the same point."""
    X, y = _classes()
    (fold,) = split_indices(
        SimpleNamespace(y=y, split=None, name="test"),
        {"kind": "sequential", "train": 21, "val": 6, "test": 9},
    )
    tr, te = fold["train"], fold["test"]
    D = cdist(X[tr], X[tr])
    np.fill_diagonal(D, np.inf)
    by_hand = (X[tr] - X[tr][np.argmin(D, axis=1)]) ** 2
    np.testing.assert_allclose(ngeu.nn_sq_differences(X[tr]), by_hand, rtol=1e-12)
    grid = {"kernels": ["rbf"], "gamma_scale": [1.0], "beta": [0.3], "dims": [2]}
    method = {"estimator": "KDA_NGEU", "label": "KDA-NGEU", "uncertainty": "nn_diagonal"}
    rows, _, _ = ngeu._method_rows("m", method, grid, X, y, [fold], {}, k=1, seed=0)
    (point,) = ngeu.method_grid(method, grid, X[tr])
    model = ngeu._estimator(method, point, 2).fit(
        X[tr], y[tr], sample_variance=0.3**2 * ngeu.nn_sq_differences(X[tr])
    )
    assert model.sample_variance_.shape == (tr.size, X.shape[1])
    clf = KNeighborsClassifier(1).fit(model.transform(X[tr]), y[tr])
    (row,) = [r for r in rows if r["dim"] == 2]
    assert row["test_accuracy"] == np.mean(clf.predict(model.transform(X[te])) == y[te])
    iso = ngeu._estimator(method, point, 2).fit(
        X[tr], y[tr], sample_variance=0.3**2 * by_hand.sum(axis=1)
    )
    assert not np.allclose(np.abs(iso.dual_coef_), np.abs(model.dual_coef_), atol=1e-6)


def test_test_time_uncertainty_gives_new_points_the_training_scheme():
    """``test_uncertainty: estimate``: the training variances stay the given ones; a new point
    becomes a Gaussian of variance ``(beta d)^2``, ``d`` its distance to the nearest training
    sample (brute force), instead of a Dirac."""
    X, y = _classes(seed=1)
    tr, new = np.arange(0, 36, 2), np.arange(1, 36, 2)
    method = {
        "estimator": "KDA_NGEU",
        "uncertainty": "nn",
        "params": {"test_uncertainty": "estimate"},
    }
    point = {"kernel": "rbf", "gamma": 0.1, "beta": 0.4}
    given = 0.4**2 * ngeu.estimate_nn_sq_distances(X[tr], y[tr])["nn"]
    model = ngeu._estimator(method, point, 2).fit(X[tr], y[tr], sample_variance=given)
    np.testing.assert_array_equal(model.sample_variance_, given)
    d = cdist(X[new], X[tr]).min(axis=1)
    np.testing.assert_allclose(
        model.transform(X[new]),
        model.transform(X[new], sample_variance=(0.4 * d) ** 2),
        rtol=1e-10,
        atol=1e-12,
    )
    dirac = ngeu._estimator(method | {"params": {}}, point, 2)
    dirac = dirac.fit(X[tr], y[tr], sample_variance=given)
    np.testing.assert_array_equal(dirac.dual_coef_, model.dual_coef_)  # same training problem
    assert not np.allclose(dirac.transform(X[new]), model.transform(X[new]), atol=1e-6)


def test_uncertainty_variants_leave_methods_without_the_setting_on_their_primary_rows():
    """A scheme variant changes every method with an uncertainty scheme and no GE; a test-time
    variant changes NGEU only (GEU: a linear map of a Gaussian's mean, unchanged by construction;
    GE: no such parameter), so those keep their primary rows under it."""
    supervised = {"method": {"uncertainty": "nn_supervised"}, "methods": ["KDA_NGEU"]}
    test_time = {"params": {"test_uncertainty": "estimate"}, "methods": ["KDA_NGEU"]}
    ge = {"estimator": "KDA_GE"}
    geu = {"estimator": "LDA_GEU", "uncertainty": "nn"}
    ngeu_nn = {"estimator": "KDA_NGEU", "uncertainty": "nn"}
    constant = {"estimator": "KDA_NGEU", "uncertainty": "constant"}
    lacks = ngeu_report._lacks_setting
    assert lacks(ge, supervised) and lacks(ge, test_time)
    assert not lacks(geu, supervised) and lacks(geu, test_time)
    assert not lacks(ngeu_nn, supervised) and not lacks(ngeu_nn, test_time)
    assert not lacks(constant, supervised)
    assert not lacks(ngeu_nn, {"method": {"unknown": [1]}})  # an unknown key may change it


def test_unchanged_methods_are_copied_under_a_run_with_their_kernel_selections():
    """Under a test-time run that re-ran KDA_NGEU only: KDA_GE (no such setting) gets its
    primary rows as the run's and its kernel-fixed rows as ``<run>+kernel=<k>``, LDA_GEU (a
    linear map of the mean: unchanged) its primary rows; the re-run method keeps its own rows
    only, and KMFA_NGEU (has the setting, not re-run) stays absent. The
    per-sample frame comes filtered (its index has gaps), as results_frame passes it."""
    import pandas as pd

    rows = []
    for method, variants in (
        ("KDA_GE", ["primary", "kernel=rbf"]),
        ("KDA_NGEU", ["primary", "kernel=rbf", "test_uncertainty=estimate",
                      "test_uncertainty=estimate+kernel=rbf"]),
        ("LDA_GEU", ["primary"]),
        ("KMFA_NGEU", ["primary"]),
    ):  # fmt: skip
        for v in variants:
            rows += [{"method": method, "variant": v, "fold": 0, "sample": k, "correct": k % 2}
                     for k in range(3)]  # fmt: skip
    samples = pd.DataFrame(rows)
    samples.index = 10 * samples.index + 7  # gaps, as after a filter
    methods = {"KDA_GE": {"estimator": "KDA_GE"},
               "KDA_NGEU": {"estimator": "KDA_NGEU", "uncertainty": "nn"},
               "LDA_GEU": {"estimator": "LDA_GEU", "uncertainty": "nn"},
               "KMFA_NGEU": {"estimator": "KMFA_NGEU", "uncertainty": "nn"}}  # fmt: skip
    run = {"test_uncertainty=estimate": {"params": {"test_uncertainty": "estimate"}}}
    out = ngeu_report._unchanged_under_variants(samples, methods, run)
    counts = out.groupby(["variant", "method"]).size().to_dict()
    assert counts == {
        ("kernel=rbf", "KDA_GE"): 3, ("kernel=rbf", "KDA_NGEU"): 3, ("primary", "KDA_GE"): 3,
        ("primary", "KDA_NGEU"): 3, ("primary", "LDA_GEU"): 3, ("primary", "KMFA_NGEU"): 3,
        ("test_uncertainty=estimate", "KDA_NGEU"): 3, ("test_uncertainty=estimate", "KDA_GE"): 3,
        ("test_uncertainty=estimate", "LDA_GEU"): 3,
        ("test_uncertainty=estimate+kernel=rbf", "KDA_GE"): 3,
        ("test_uncertainty=estimate+kernel=rbf", "KDA_NGEU"): 3,
    }  # fmt: skip
    copied = out[(out["variant"] == "test_uncertainty=estimate") & (out["method"] == "KDA_GE")]
    assert copied["correct"].tolist() == [0, 1, 0]


def test_unvalidated_width_is_scikit_learns_auto_rbf_for_every_kernel_row():
    """``kernel_width: auto`` replaces the kernel grid of a kernel method by one point, the RBF
    kernel of scikit-learn's ``gamma="auto"`` (1 / n_features), for GE and NGEU rows alike
    (times the uncertainty widths); linear GEU rows and raw baselines are untouched; the fit at
    that point equals KDA-GE with ``gamma=1/D`` written out by hand, and the selected-parameter
    table sees a one-width grid (no edge flag)."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = _classes()
    grid = {"kernels": ["linear", "rbf"], "gamma_scale": [0.25, 4.0], "beta": [0.1, 0.3],
            "svm_C": [1.0], "dims": [2]}  # fmt: skip
    auto = {"kernel_width": "auto"}
    (ge,) = ngeu.method_grid({"estimator": "KDA_GE"} | auto, grid, X)
    assert ge["kernel"] == "rbf" and ge["gamma"] == 1.0 / X.shape[1]
    msd = np.mean(cdist(X, X, "sqeuclidean"))
    assert ge["gamma_scale"] == pytest.approx(msd / X.shape[1], rel=1e-12)
    nge = ngeu.method_grid({"estimator": "KDA_NGEU", "uncertainty": "nn"} | auto, grid, X)
    assert [(p["gamma"], p["beta"]) for p in nge] == [
        (1.0 / X.shape[1], 0.1),
        (1.0 / X.shape[1], 0.3),
    ]
    linear = {"estimator": "LDA_GEU", "uncertainty": "nn"}
    assert ngeu.method_grid(linear | auto, grid, X) == ngeu.method_grid(linear, grid, X)
    assert len(ngeu.method_grid({"estimator": "KDA_GE"}, grid, X)) == 3  # linear + 2 widths
    model = ngeu._estimator({"estimator": "KDA_GE"} | auto, ge, 2).fit(X, y)
    by_hand = KDA_GE(n_components=2, kernel="precomputed").fit(
        rbf_kernel(X, gamma=1 / X.shape[1]), y
    )
    np.testing.assert_allclose(np.abs(model.dual_coef_), np.abs(by_hand.dual_coef_), atol=1e-8)
    rec = {"gamma_scale": ge["gamma_scale"], "beta": 0.3}
    own = ngeu.searched_grid({"estimator": "KDA_NGEU"} | auto, grid)
    assert ngeu_report.grid_edges(rec, own) == "beta=0.3 (upper edge)"
    # a method's own uncertainty widths replace the shared ones, in its points and its flags
    narrow = {"estimator": "KDA_NGEU", "uncertainty": "nn", "beta": [0.3, 0.5]}
    assert {p["beta"] for p in ngeu.method_grid(narrow, grid, X)} == {0.3, 0.5}
    assert ngeu_report.grid_edges(rec, ngeu.searched_grid(narrow, grid)) == "beta=0.3 (lower edge)"
    rec_primary = {"gamma_scale": 4.0, "beta": 0.3}
    assert "gamma_scale=4 (upper edge)" in ngeu_report.grid_edges(rec_primary, grid)
