"""Paper 001 (QMI) pipeline: the shared-decomposition sweep, the classifiers over leading
columns, the min-over-dimension tables, wins and the results frame (graphdr.pipeline.papers.qmi.report*)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.datasets import make_classification

from graphdr.datasets import load, save_npz
from graphdr.evaluation.fusion import fusion_error_by_dimension
from graphdr.evaluation.splits import stratified_halves, stratified_kfold
from graphdr.kernels import reuse_kernels
from graphdr.methods import KQMI, LPP_GE, LQMI
from graphdr.methods.kernel_fisher import FusionDistanceClassifier
from graphdr.pipeline.papers.qmi import protocol as qs
from graphdr.pipeline.papers.qmi import report as qmi
from graphdr.pipeline.papers.qmi import settings as qmi_protocol
from graphdr.pipeline.papers.qmi import visualise as qmi_visualise
from graphdr.pipeline.runtime import count_eigendecompositions

GAMMA, TOL = 0.5, 1e-6


@pytest.fixture(scope="module")
def data():
    """Unbalanced classes (no degenerate eigenspaces, so every basis is unique up to sign)."""
    X, y = make_classification(
        n_samples=150,
        n_features=6,
        n_informative=4,
        n_redundant=0,
        n_classes=4,
        n_clusters_per_class=1,
        weights=[0.4, 0.3, 0.2, 0.1],
        random_state=0,
    )
    X_tr, X_te = qs.scale_features(X[:120], X[120:], "minmax")
    return X_tr, y[:120], X_te, y[120:]


#: the sweep's protocol with this module's kernel settings
CFG = {**qs.protocol({}), "gamma": GAMMA, "kernel_tol": TOL}


@pytest.fixture(scope="module")
def fold(data):
    """The fold and each kernel method fitted inside one reuse block: (fold, {method: est},
    O(N^3) decompositions counted)."""
    X_tr, y_tr, X_te, _ = data
    with reuse_kernels(), count_eigendecompositions(min_size=10) as count:
        fold = qs.KernelFold(X_tr, X_te, gamma=GAMMA, tol=TOL)
        fitted = {
            m: qs.kernel_estimator(m, k, CFG).fit(X_tr, y_tr)
            for m, k in [("KQMI", 3), ("GDA", 3), ("CKFD", None), ("KPCA", 5), ("KLPP", 4)]
            + [("KQMI_noUC", 3)]
        }
    return fold, fitted, count["n"]


def _same_up_to_sign(A, B, rtol=1e-6):
    """Columns equal up to one sign each (relative to the column norm)."""
    assert A.shape == B.shape
    for a, b in zip(A.T, B.T, strict=True):
        s = np.sign(a @ b) or 1.0
        np.testing.assert_allclose(a, s * b, atol=rtol * np.linalg.norm(b))


# ---- the shared decomposition gives each estimator's own embedding -----------------------------


def test_shared_fold_fits_each_estimator_as_alone_with_one_decomposition(data, fold):
    """Inside the reuse block each kernel method is the library estimator, bit for bit the
    estimator fitted alone (KPCA to round-off), and the block decomposes the centred kernel once: the fold's
    decomposition, plus KLPP's and the unconstrained KQMI's r x r generalised eigenproblems."""
    X_tr, y_tr, X_te, _ = data
    fold, fitted, n_decompositions = fold
    assert n_decompositions == 3
    for m, est in fitted.items():
        alone = clone(est).fit(X_tr, y_tr)
        if m == "KPCA":  # alone: a subset decomposition of the leading pairs (equal to round-off)
            _same_up_to_sign(est.dual_coef_, alone.dual_coef_, rtol=1e-9)
        else:
            np.testing.assert_array_equal(est.dual_coef_, alone.dual_coef_, err_msg=m)
        emb = fold.embedding(est)
        np.testing.assert_allclose(emb.test, alone.transform(X_te), atol=1e-8, err_msg=m)
        np.testing.assert_allclose(emb.train, alone.transform(X_tr), atol=1e-8, err_msg=m)
    assert fold.rank == fitted["KQMI"].n_kernel_components_
    ckfd = fitted["CKFD"]
    assert ckfd.n_components_ == 2 * 3 and fold.embedding(ckfd).kinds is ckfd.feature_kinds_


def test_shared_kqmi_unit_variance_is_eq_22(data, fold):
    """unit_variance scaling of KQMI's embedding is the estimator's eq. 22 normalisation
    (A^T K K A = N I)."""
    X_tr, y_tr, X_te, _ = data
    fold, fitted, _ = fold
    scaled = qs.scale_columns(fold.embedding(fitted["KQMI"]), "unit_variance")
    est22 = KQMI(gamma=GAMMA, tol=TOL, unit_covariance=True).fit(X_tr, y_tr)
    np.testing.assert_allclose(scaled.test, est22.transform(X_te), atol=1e-7)


def test_shared_gda_is_baudat_anouar_without_ridge(data, fold):
    """The sweep's GDA: unit feature-space norms, reg ~ 0 (Baudat & Anouar regularise only by
    the eigenvalue threshold)."""
    fold, fitted, _ = fold
    assert fitted["GDA"].reg == qs.GDA_REG == 1e-8
    np.testing.assert_allclose(fold.embedding(fitted["GDA"]).norms, 1.0, rtol=1e-8)


def test_unconstrained_kqmi_has_unit_norm_directions(fold):
    """The ablation of Sec. III-C (paper eq. 21: no unit-covariance constraint) is the generic
    kernel GE with QMIGraph(penalty="none"): directions of unit norm in feature space."""
    fold, fitted, _ = fold
    np.testing.assert_allclose(fold.embedding(fitted["KQMI_noUC"]).norms, 1.0, rtol=1e-8)


def test_unit_norm_scaling_reads_feature_space_norms(data, fold):
    """unit_norm divides by sqrt(alpha^T Kc alpha); after it every direction has norm 1."""
    X_tr, y_tr, X_te, _ = data
    fold, fitted, _ = fold
    kpca = fold.embedding(fitted["KPCA"])
    emb = qs.scale_columns(kpca, "unit_norm")
    np.testing.assert_allclose(emb.norms, 1.0)
    # KPCA directions already have unit norm in feature space: the scaling changes nothing
    np.testing.assert_allclose(emb.test, kpca.test, atol=1e-10)


def test_linear_embeddings_have_unit_norm_directions(data):
    X_tr, y_tr, X_te, _ = data
    emb = qs.linear_embedding("LPP", X_tr, y_tr, X_te, max_dim=3, n_neighbors=5)
    est = LPP_GE(n_neighbors=5).fit(X_tr, y_tr)
    W = est.components_[:3]
    np.testing.assert_allclose(emb.test, (X_te - est.mean_) @ W.T)
    np.testing.assert_allclose(emb.norms, np.linalg.norm(W, axis=1))
    scaled = qs.scale_columns(emb, "unit_norm")
    np.testing.assert_allclose(scaled.norms, 1.0)
    lq = qs.linear_embedding("LQMI", X_tr, y_tr, X_te, max_dim=1, n_neighbors=5)
    assert lq.test.shape[1] == 3  # C-1 directions whatever max_dim (the cap is for PCA/LPP)
    np.testing.assert_allclose(lq.test, LQMI().fit(X_tr, y_tr).transform(X_te))


def test_scaling_of_features():
    X_tr = np.array([[0.0, 5.0, 1.0], [2.0, 7.0, 1.0]])
    X_te = np.array([[1.0, 9.0, 3.0]])
    tr, te = qs.scale_features(X_tr, X_te, "minmax")
    np.testing.assert_allclose(tr, [[-1, -1, 0], [1, 1, 0]])
    np.testing.assert_allclose(te, [[0, 3, 0]])  # training range; a constant feature is 0
    tr, te = qs.scale_features(X_tr, X_te, "unit_length")
    np.testing.assert_allclose(np.linalg.norm(tr, axis=1), 1.0)
    with pytest.raises(ValueError, match="preprocessing"):
        qs.scale_features(X_tr, X_te, "zscore")


# ---- classifiers over the leading columns ----------------------------------------------------


def test_fusion_errors_match_the_fusion_classifier(data, fold):
    _, y_tr, _, y_te = data
    fold, estimators, _ = fold
    fitted = estimators["CKFD"]
    emb = fold.embedding(fitted)
    dims = [1, 2, 4]
    for rule in ("ncc", "knn"):
        errs = fusion_error_by_dimension(
            emb.train, y_tr, emb.test, y_te, dims, emb.kinds, rule, theta=1.0, k=3
        )
        for e, d in zip(errs, dims, strict=True):
            clf = FusionDistanceClassifier(1.0, rule, 3, kinds=fitted.feature_kinds_)
            pred = clf.fit(emb.train[:, :d], y_tr).predict(emb.test[:, :d])
            # the k-NN tie rules differ (fusion classifier: nearest tied class; ours: smallest)
            assert e == pytest.approx(np.mean(pred != y_te), abs=0.1 if rule == "knn" else 0)


def test_dimension_grid():
    assert qs.dimension_grid(5, 20) == [1, 2, 3, 4, 5]
    assert qs.dimension_grid(50, 5) == [1, 2, 3, 4, 5, 8, 11, 17, 25, 38, 50]
    assert qs.dimension_grid(7, 5, step=3.0) == [1, 2, 3, 4, 5, 7]


def test_fold_errors_cover_every_method_classifier_and_dimension(data):
    X_tr, y_tr, X_te, y_te = data
    cfg = qmi.protocol({"max_dim": 6, "classifiers": ["ncc", "knn", "rbf_svm"]})
    frame, counts = qs.fold_errors(X_tr, y_tr, X_te, y_te, cfg)
    angles = counts.pop("angles")
    assert {k: counts[k] for k in ("decompositions", "svm_capped")} == {
        "decompositions": 2,
        "svm_capped": 0,
    }
    assert counts["klpp_components"] >= 4 and counts["kernel_rank"] == pytest.approx(1.0)
    # KQMI / GDA and LQMI / LDA span one subspace here (full-rank kernel, the ledger's diagnostic)
    assert set(angles) == {"KQMI~GDA", "LQMI~LDA"} and max(angles.values()) < 1e-2
    assert set(frame["method"]) == set(cfg["methods"])
    dims = frame[frame["classifier"] == "ncc"].groupby("method")["dim"].max()
    assert dims["KQMI"] == dims["LQMI"] == dims["GDA"] == 3  # C-1
    assert dims["CKFD"] <= 6 and dims["KPCA"] == dims["PCA"] == 6
    assert frame["error"].between(0, 1).all()


# ---- tables, wins and claims -----------------------------------------------------------------


def _errors(rows):
    return pd.DataFrame(rows, columns=["dataset", "method", "classifier", "dim", "fold", "error"])


def test_min_error_over_dimensions_averages_folds_first_and_ties_to_the_smallest_dim():
    errors = _errors(
        [
            ("A", "KQMI", "ncc", 1, 0, 0.4),
            ("A", "KQMI", "ncc", 1, 1, 0.0),  # mean 0.2 at dim 1
            ("A", "KQMI", "ncc", 2, 0, 0.1),
            ("A", "KQMI", "ncc", 2, 1, 0.3),  # mean 0.2 at dim 2: tie, dim 1 wins
            ("A", "KQMI", "ncc", 3, 0, 0.0),
            ("A", "KQMI", "ncc", 3, 1, 0.5),  # best single fold, worse mean
        ]
    )
    best = qmi.min_error_table(errors)
    assert len(best) == 1
    assert best.loc[0, "min_error"] == pytest.approx(0.2)
    assert best.loc[0, "dim"] == 1


def _fold_errors(means, folds=8, spread=0.001):
    """Long errors: (dataset, method) -> mean error at dim 1, folds alternating +-spread."""
    rows = []
    for (d, m), e in means.items():
        for f in range(folds):
            rows.append((d, m, "ncc", 1, f, e + (spread if f % 2 else -spread) * (1 + f / 10)))
    return _errors(rows)


def test_wins_are_counted_within_each_group_and_ties_by_test_count_for_all():
    errors = _fold_errors(
        {
            ("A", "KQMI"): 0.10,
            ("A", "GDA"): 0.10,  # identical folds: a tie, both win
            ("A", "KPCA"): 0.30,
            ("A", "LQMI"): 0.50,  # worst overall, best of its (linear) group
            ("A", "PCA"): 0.60,
            ("B", "KQMI"): 0.20,
            ("B", "GDA"): 0.10,
            ("B", "KPCA"): 0.30,
            ("B", "LQMI"): 0.50,
            ("B", "PCA"): 0.40,
        }
    )
    assert qmi.wins(errors, "ncc") == {"KQMI": 1, "GDA": 2, "KPCA": 0, "LQMI": 1, "PCA": 1}
    # a gap smaller than the fold-to-fold noise is a tie: both methods win
    noisy = _fold_errors({("A", "KQMI"): 0.100, ("A", "GDA"): 0.101}, spread=0.05)
    gda = noisy["method"] == "GDA"
    noisy.loc[gda, "error"] = 0.202 - noisy.loc[gda, "error"]  # mirrored folds: mean 0.101
    assert qmi.wins(noisy, "ncc") == {"KQMI": 1, "GDA": 1}


def test_results_frame_has_one_row_per_fold_and_sensitivity_studies_as_variants(tmp_path):
    errors = _fold_errors({("A", "KQMI"): 0.1, ("A", "GDA"): 0.2}, folds=3)
    files = []
    for study in ("benchmarks", "tol"):
        err, rec, tim = (tmp_path / f"{study}.{x}" for x in ("csv", "json", "t.json"))
        errors.drop(columns="dataset").to_csv(err, index=False)
        rec.write_text("{}")
        tim.write_text("{}")
        files.append({"A": (err, rec, tim)})
    frame = qmi.results_frame(
        {
            "benchmarks": {"runs": files[0]},
            "tol": {"runs": files[1], "sensitivity_of": "benchmarks"},
        }
    )
    assert set(frame["study"]) == {"benchmarks"}
    assert set(frame["variant"]) == {"primary", "tol"}
    cells = frame[(frame["metric"] == "error") & (frame["variant"] == "primary")]
    assert len(cells) == 2 * 3 and set(cells["split"]) == {"0", "1", "2"}
    assert cells[cells["method"] == "KQMI"]["value"].mean() == pytest.approx(10.0, abs=0.1)
    from graphdr import ledger

    ledger.check_results(frame)  # the ledger's columns


def test_protocol_merges_defaults_and_rejects_unknown_keys():
    cfg = qmi.protocol({"folds": 3, "scale": {"GDA": "native"}})
    assert cfg["folds"] == 3 and cfg["svm_C"] == 100.0
    assert cfg["scale"] == {**qmi_protocol.OWN_SCALE, "GDA": "native"}
    assert qmi.protocol({})["scale"] == qmi_protocol.OWN_SCALE
    assert set(qmi.protocol({"scale": "unit_variance"})["scale"].values()) == {"unit_variance"}
    with pytest.raises(ValueError, match="unknown protocol keys"):
        qmi.protocol({"fold": 3})
    with pytest.raises(ValueError, match="scale must be"):
        qmi.protocol({"scale": "whiten"})
    with pytest.raises(ValueError, match="unknown method"):
        qmi.protocol({"scale": {"KDA": "native"}})


# ---- each method scaled by its own constraint ---------------------------------------------------


def test_own_scaling_meets_each_methods_constraint(data, fold):
    """The primary run's columns satisfy the constraint each method defines: KQMI unit
    covariance (eq. 22), GDA / KPCA / KQMI_noUC unit feature-space norm, KLPP the GE constraint
    a^T K D K a = 1 (D: degrees of its graph), LPP w^T X^T D X w = 1, LDA w^T X^T H X w = 1,
    LQMI / PCA unit-norm directions."""
    from graphdr.graphs import LPPGraph, kernel_sq_distances

    X_tr, y_tr, X_te, _ = data
    cfg = qs.protocol({"lpp_mutual": True, "lpp_connect": True})
    embs, _, extras = qs.method_embeddings(X_tr, y_tr, X_te, {**cfg, "methods": cfg["methods"]})
    n = X_tr.shape[0]
    Z = embs["KQMI"].train
    np.testing.assert_allclose(Z.T @ Z / n, np.eye(Z.shape[1]), atol=1e-8)
    for m in ("GDA", "KPCA"):
        np.testing.assert_allclose(embs[m].norms, 1.0, rtol=1e-8)
    for m in ("LQMI", "PCA"):
        np.testing.assert_allclose(embs[m].norms, 1.0, rtol=1e-8)
    fold, _, _ = fold
    sq_dist = kernel_sq_distances(fold.Kc)  # feature-space distances, centring-free
    graph = LPPGraph(5, None, True, mutual=True, connect=True)(y_tr, sq_distances=sq_dist)
    D = graph.penalty.diagonal()
    K = embs["KLPP"].train
    np.testing.assert_allclose(K.T @ (D[:, None] * K), np.eye(K.shape[1]), atol=1e-6)
    lin = LPPGraph(5, None, True, mutual=True, connect=True)(y_tr, X_tr)
    L = embs["LPP"].train
    np.testing.assert_allclose(
        L.T @ (lin.penalty.diagonal()[:, None] * L), np.eye(L.shape[1]), atol=1e-6
    )
    A = embs["LDA"].train
    np.testing.assert_allclose((A - A.mean(0)).T @ (A - A.mean(0)), np.eye(A.shape[1]), atol=1e-6)
    assert extras["klpp_graph"]["mutual"] is True


def test_uniform_scalings_are_sensitivity_rules(data):
    X_tr, y_tr, X_te, _ = data
    for rule in ("unit_norm", "unit_variance"):
        embs = qs.method_embeddings(X_tr, y_tr, X_te, qs.protocol({"scale": rule}))[0]
        for m, emb in embs.items():
            if rule == "unit_norm":
                np.testing.assert_allclose(emb.norms[emb.norms > 0], 1.0, rtol=1e-8, err_msg=m)
            else:
                np.testing.assert_allclose(emb.train.std(axis=0), 1.0, rtol=1e-8, err_msg=m)


def test_sweep_records_kernel_rank_and_klpp_graph_per_split(data):
    X_tr, y_tr, _, _ = data
    cfg = qs.protocol({"classifiers": ["ncc"], "folds": 3, "repeats": 2})
    errors, rec = qs.sweep_dataset(X_tr, y_tr, cfg)
    assert sorted(set(errors["fold"])) == list(range(6))
    # the default folds are stratified_kfold's: 3 folds, 2 repeats (seeds 0, 1)
    folds = stratified_kfold(y_tr, 3, n_repeats=2, random_state=0)
    again, _ = qs.sweep_dataset(X_tr, y_tr, cfg, folds=folds)
    pd.testing.assert_frame_equal(errors, again)
    assert len(rec["kernel_rank_fraction"]) == 6
    assert all(0 < r <= 1 for r in rec["kernel_rank_fraction"])
    pieces = np.array(rec["klpp_graph_components"])
    assert pieces.shape == (6, 2) and (pieces[:, 0] >= 4).all()  # at least one piece per class


# ---- Figures 1-4 scored: LOO 1-NN error of held-out 2-D projections ----------------------------


def test_visual_splits_are_stratified_halves_and_projections_are_held_out():
    y = np.repeat([0, 1, 2], 20)
    splits = stratified_halves(y, 3, random_state=0)  # the halves visualise draws
    assert len(splits) == 3
    for train, test in splits:
        assert len(test) == 30 and not set(train) & set(test)
        assert np.bincount(y[test]).tolist() == [10, 10, 10]
    X = np.random.default_rng(1).normal(size=(60, 4)) + y[:, None]
    cfg = qmi.protocol({"preprocessing": "minmax"})
    proj = qmi_visualise.visual_projections(X, y, cfg, *splits[0])
    assert {"kernel", "linear"} == set(proj)
    for group in proj.values():
        for Z in group.values():
            assert Z.shape == (30, 2) and np.isfinite(Z).all()


def test_results_frame_carries_the_visual_scores(tmp_path):
    errors = _fold_errors({("A", "KQMI"): 0.1, ("A", "GDA"): 0.2}, folds=2)
    err, rec, tim = (tmp_path / x for x in ("e.csv", "r.json", "t.json"))
    errors.drop(columns="dataset").to_csv(err, index=False)
    rec.write_text("{}")
    tim.write_text("{}")
    vis = tmp_path / "v.csv"
    pd.DataFrame(
        {"dataset": "d", "method": ["KQMI", "GDA"] * 2, "split": [0, 0, 1, 1], "loo_1nn_error": 5.0}
    ).to_csv(vis, index=False)
    frame = qmi.results_frame({"benchmarks": {"runs": {"A": (err, rec, tim)}}}, {"Swiss": vis})
    part = frame[frame["study"] == "visualisation"]
    assert len(part) == 4 and set(part["metric"]) == {"loo_1nn_error"}
    assert set(part["dataset"]) == {"Swiss"} and set(part["split"]) == {"0", "1"}


def test_subspace_angle_falls_back_to_gesvd_when_gesdd_does_not_converge(monkeypatch):
    """LAPACK's gesdd can fail on a finite matrix (ORL, 2026-11-27): the diagnostic is then
    computed by gesvd, not lost with the whole sweep."""
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((40, 4)), rng.standard_normal((40, 6))
    expected = float(np.degrees(scipy.linalg.subspace_angles(A, B[:, :4]).max()))

    def fails(*args, **kwargs):
        raise np.linalg.LinAlgError("SVD did not converge")

    monkeypatch.setattr(scipy.linalg, "subspace_angles", fails)
    assert qs.subspace_angle_deg(A, B) == pytest.approx(expected, abs=1e-10)


# ---- a `one_job` study: all its datasets in one process, the files of one job each ------------


def test_one_job_sweeps_write_the_files_of_one_job_per_dataset(tmp_path):
    cfg = qs.protocol({"classifiers": ["ncc", "knn"], "folds": 3, "methods": ["KQMI", "LDA"]})
    paths = {}
    for name in ("wine", "iris"):
        prepared = tmp_path / f"{name}.npz"
        save_npz(load(name), prepared)
        paths[name] = [prepared] + [tmp_path / f"{name}.{k}" for k in ("csv", "json", "t.json")]
    for prepared, *out in paths.values():  # one job per dataset
        qs.run_sweep(prepared, cfg, errors=out[0], record=out[1], timing=out[2])
    alone = {p: p.read_bytes() for _, *out in paths.values() for p in out[:2]}
    prepared, errors, record, timing = (
        [paths[n][i] for n in ("iris", "wine")]
        for i in range(4)  # another order
    )
    qs.run_sweeps(prepared, cfg, errors=errors, record=record, timing=timing)
    assert {p: p.read_bytes() for p in alone} == alone  # byte-identical errors and records
    assert all(p.exists() for p in timing)
    with pytest.raises(ValueError, match="as many files"):
        qs.run_sweeps(prepared, cfg, errors=errors[:1], record=record, timing=timing)
