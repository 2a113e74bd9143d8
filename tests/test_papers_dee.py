"""Paper 003 (DEE) workflow stages: optimiser runs, their figures and tables, the config plan."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from graphdr import datasets
from graphdr.evaluation.dimensions import one_nn_accuracy
from graphdr.evaluation.splits import per_class_split
from graphdr.methods import DEE
from graphdr.pipeline import io, plan
from graphdr.pipeline.papers.dee import optimisers as dee_optimisers
from graphdr.pipeline.papers.dee import protocol as dee_protocol
from graphdr.pipeline.papers.dee import report as dee_report

PARAMS = {"n_components": 2, "max_iter": 40, "random_state": 0}
OPTIMIZERS = {"ld": "LD", "fp": "FP", "gd": "GD"}


def toy_dataset(seed=0) -> datasets.Dataset:
    """Three Gaussian classes in 6-D, class means along the first two axes."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), [15, 12, 10])
    means = np.array([[0, 0], [3, 0], [0, 3]], dtype=float)
    X = rng.normal(size=(y.size, 6))
    X[:, :2] += means[y]
    return datasets.Dataset(name="toy", X=X, y=y, class_names=["a", "b", "c"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One run per optimiser on the toy set: {label: (npz, timing json)}."""
    root = tmp_path_factory.mktemp("dee")
    prepared = root / "toy.npz"
    datasets.save_npz(toy_dataset(), prepared)
    out = {}
    for opt, label in OPTIMIZERS.items():
        paths = (root / f"{opt}.npz", root / f"{opt}.timing.json")
        dee_optimisers.optimizer_run(
            prepared,
            estimator="DEE",
            params=PARAMS,
            optimizer=opt,
            result_path=paths[0],
            timing_path=paths[1],
        )
        out[label] = paths
    return out


def test_run_records_the_direct_fit(runs):
    data = toy_dataset()
    ref = DEE(**PARAMS, optimizer="fp").fit(data.X, data.y)
    run = dee_report.read_run(*runs["FP"])
    np.testing.assert_array_equal(run["Z"], ref.transform(data.X))
    np.testing.assert_array_equal(run["objective"], ref.history_["objective"])
    np.testing.assert_array_equal(run["y"], data.y)
    assert int(run["n_iter"]) == ref.n_iter_ and bool(run["converged"]) == ref.converged_
    # the objective never increases (line search) and the record starts at iteration 0
    assert run["objective"].size == ref.n_iter_ + 1
    assert np.all(np.diff(run["objective"]) <= 1e-12 * abs(run["objective"][0]))
    timing = run["timing"]
    assert len(timing["iteration_seconds"]) == ref.n_iter_ + 1
    assert set(timing["phases"]) == set(ref.timings_) and timing["fit_seconds"] > 0


def test_run_file_is_deterministic_and_timing_is_separate(runs, tmp_path):
    prepared = tmp_path / "toy.npz"
    datasets.save_npz(toy_dataset(), prepared)
    again = (tmp_path / "ld.npz", tmp_path / "ld.timing.json")
    dee_optimisers.optimizer_run(
        prepared,
        estimator="DEE",
        params=PARAMS,
        optimizer="ld",
        result_path=again[0],
        timing_path=again[1],
    )
    assert again[0].read_bytes() == runs["LD"][0].read_bytes()
    assert not any("time" in key for key in io.read_npz(again[0]))  # no measurement in the npz
    assert dee_optimisers.is_timing_output(again[1]) and not dee_optimisers.is_timing_output(
        again[0]
    )
    assert dee_optimisers.is_timing_output("paper_figures/dee/x_objective_timing.png")


def test_tables_against_paper(runs, tmp_path):
    reference = tmp_path / "ref.csv"
    pd.DataFrame(
        {
            "table": ["iterations", "times_baseline"],
            "row": ["LD", "FP"],
            "column": ["Toy", "Toy"],
            "value": [13, 38],
        }
    ).to_csv(reference, index=False)
    shown = dee_report.optimizer_tables(
        {("Toy", label): paths for label, paths in runs.items()},
        reference=reference,
        baseline="LD",
        iterations_stem=tmp_path / "it",
        objective_stem=tmp_path / "obj",
        timing_stem=tmp_path / "timing",
        long_output=tmp_path / "long.csv",
    )
    long = pd.read_csv(tmp_path / "long.csv")
    for label, paths in runs.items():
        run = dee_report.read_run(*paths)
        row = long[long["optimizer"] == label].iloc[0]
        assert row["iterations"] == int(run["n_iter"])
        assert row["objective"] == pytest.approx(float(run["objective"][-1]), rel=1e-15)
    it = shown["iterations"]
    assert list(it["optimiser"][it["optimiser"] != ""]) == ["LD", "FP", "GD"]
    ld = it.index[it["optimiser"] == "LD"][0]
    n_ld = int(dee_report.read_run(*runs["LD"])["n_iter"])
    assert list(it.loc[ld : ld + 2, "Toy"]) == ["13", str(n_ld), f"{n_ld - 13:+d}"]
    assert it.loc[ld + 3, "Toy"] == dee_report.NOT_REPORTED  # FP iterations: not in the paper
    timing = shown["timing"]
    # the baseline's ratio to itself is 1; FP's ratio is compared with the paper's 38
    assert timing.loc[ld + 1, "Toy (x LD)"] == "1.00"
    assert timing.loc[ld + 3, "Toy (x LD)"] == "38.00"
    assert (tmp_path / "timing.md").read_text().count("not reported in the paper") > 0
    objective = pd.read_csv(tmp_path / "obj.csv")
    assert list(objective.columns) == ["optimiser", "Toy"] and len(objective) == 3


def test_figures_deterministic_except_timing(runs, tmp_path):
    stems = {k: tmp_path / k for k in ("emb", "obj", "obj_timing")}
    kwargs = dict(
        dataset="Toy",
        embeddings_stem=stems["emb"],
        objective_stem=stems["obj"],
        timing_stem=stems["obj_timing"],
    )
    dee_report.plot_optimizer_study(runs, **kwargs)
    first = {k: (v.with_suffix(".png")).read_bytes() for k, v in stems.items()}
    dee_report.plot_optimizer_study(runs, **kwargs)
    for key in ("emb", "obj"):
        assert stems[key].with_suffix(".png").read_bytes() == first[key]
        assert stems[key].with_suffix(".pdf").read_bytes().startswith(b"%PDF")
    assert first["obj_timing"].startswith(b"\x89PNG")


def test_elapsed_time_adds_setup_before_iterations():
    timing = {
        "phases": {"setup": 0.5, "direction": 0.25, "iterations": 3.0},
        "iteration_seconds": [0.0, 1.0, 2.0],
    }
    np.testing.assert_allclose(dee_report._elapsed(timing), [0.75, 1.75, 3.75])


def test_study_plan_and_checks():
    config = {
        "datasets": {"a": {"source": "x"}, "b": {"source": "y"}},
        "experiments": {},
        "optimizer_studies": {
            "s": {
                "paper": "p",
                "datasets": ["a", "b"],
                "estimator": "DEE",
                "optimizers": {"ld": "LD", "fp": "FP"},
                "baseline": "ld",
                "reference": "r.csv",
            }
        },
    }
    jobs = plan.optimizer_study_outputs(config)
    assert jobs[0] == {"kind": "tables", "paper": "p", "study": "s"}
    assert [j.get("dataset") for j in jobs[1:]] == ["a", "b"]
    plan.check_config(config)
    bad = json.loads(json.dumps(config))
    study = bad["optimizer_studies"]["s"]
    study |= {"datasets": ["a", "zz"], "baseline": "cg", "params": {"optimizer": "gd"}}
    with pytest.raises(ValueError) as err:
        plan.check_config(bad)
    for fragment in ("'zz' is not in datasets", "'cg' is not one of", "not in params"):
        assert fragment in str(err.value)


# ---- Figure 11 and Figures 7-10 (graphdr.pipeline.papers.dee.protocol / _report) ------------


def faces_like(seed=0, n_classes=4, per_class=10, n_features=30) -> datasets.Dataset:
    """Classes with few samples in more features than n_samples - n_classes (like ORL/Yale)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    centres = rng.normal(scale=2.0, size=(n_classes, n_features))
    X = centres[y] + rng.normal(size=(y.size, n_features))
    return datasets.Dataset(name="faces", X=X, y=y, class_names=[f"c{k}" for k in range(n_classes)])


@pytest.fixture
def faces_file(tmp_path):
    path = tmp_path / "faces.npz"
    datasets.save_npz(faces_like(), path)
    return path


def test_pca_basis_matches_sklearn():
    from sklearn.decomposition import PCA

    X = faces_like().X
    mean, V = dee_protocol.pca_basis(X, 5)
    np.testing.assert_allclose(V.T @ V, np.eye(5), atol=1e-12)
    ref = PCA(5, svd_solver="full").fit(X).components_
    np.testing.assert_allclose(np.abs(ref @ V), np.eye(5), atol=1e-8)  # same axes, up to sign
    np.testing.assert_allclose(mean, X.mean(axis=0))


@pytest.mark.parametrize("method", ["DCV", "MMPA"])
def test_nested_readout_equals_refitting_at_each_dimension(faces_file, tmp_path, method):
    """DCV and MMPA are fitted once; their smaller dimensions equal a fit at that dimension."""
    from graphdr.methods import DCV, MMPA

    pca = None if method == "DCV" else 12
    frame = dee_protocol.recognition_run(
        faces_file,
        estimator=method,
        params={},
        nested=True,
        split={"train_per_class": 5},
        seeds=[0, 1],
        dimensions=[1, 2, 5, 8],
        output=tmp_path / "run.csv",
        pca=pca,
    )
    data = faces_like()
    top = 3 if method == "DCV" else 8  # DCV: C-1 = 3 (added to the grid); MMPA: the grid
    for seed in (0, 1):
        rows = frame[frame["seed"] == seed]
        assert rows["dim"].tolist() == ([1, 2, 3] if method == "DCV" else [1, 2, 5, 8])
        train, test = per_class_split(data.y, random_state=seed, train_per_class=5)
        Xtr, Xte = data.X[train], data.X[test]
        if pca:
            mean, V = dee_protocol.pca_basis(Xtr, pca)
            Xtr, Xte = (Xtr - mean) @ V, (Xte - mean) @ V
        for d, acc in zip(rows["dim"], rows["accuracy"], strict=True):
            model = (DCV if method == "DCV" else MMPA)(n_components=d).fit(Xtr, data.y[train])
            ref = one_nn_accuracy(
                model.transform(Xtr), data.y[train], model.transform(Xte), data.y[test]
            )
            assert acc == ref
        assert rows["dim"].max() == top
    assert (frame["n_classes"] == 4).all()


def test_non_nested_run_fits_each_dimension(faces_file, tmp_path):
    params = {"max_iter": 30}
    frame = dee_protocol.recognition_run(
        faces_file,
        estimator="DEE",
        params=params,
        nested=False,
        split={"train_fraction": 0.5},
        seeds=[2],
        dimensions=[1, 3, 50],  # 50 > pca: left out
        output=tmp_path / "run.csv",
        pca=10,
    )
    assert frame["dim"].tolist() == [1, 3]
    data = faces_like()
    train, test = per_class_split(data.y, random_state=2, train_fraction=0.5)
    mean, V = dee_protocol.pca_basis(data.X[train], 10)
    Xtr, Xte = (data.X[train] - mean) @ V, (data.X[test] - mean) @ V
    model = DEE(n_components=3, random_state=2, **params).fit(Xtr, data.y[train])
    ref = one_nn_accuracy(model.transform(Xtr), data.y[train], model.transform(Xte), data.y[test])
    row = frame[frame["dim"] == 3].iloc[0]
    assert row["accuracy"] == ref and row["n_iter"] == model.n_iter_
    # the CSV is the returned frame, and a second run writes the same bytes
    dee_protocol.recognition_run(
        faces_file,
        estimator="DEE",
        params=params,
        nested=False,
        split={"train_fraction": 0.5},
        seeds=[2],
        dimensions=[1, 3, 50],
        output=tmp_path / "again.csv",
        pca=10,
    )
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "run.csv").read_bytes()


def test_cv_selects_on_the_training_part_and_the_run_uses_it(faces_file, tmp_path):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier

    data = faces_like()
    train, test = per_class_split(data.y, random_state=1, train_fraction=0.5)
    mean, V = dee_protocol.pca_basis(data.X[train], 10)
    Xtr, Xte = (data.X[train] - mean) @ V, (data.X[test] - mean) @ V
    ytr = data.y[train]
    params = {"max_iter": 30, "random_state": 1}
    values = [0.01, 1.0, 30.0]
    # reference: sklearn's folds and 1-NN classifier
    scores = []
    for lam in values:
        accs = []
        for f, v in StratifiedKFold(3, shuffle=True, random_state=1).split(Xtr, ytr):
            m = DEE(n_components=2, lam=lam, **params).fit(Xtr[f], ytr[f])
            knn = KNeighborsClassifier(1).fit(m.transform(Xtr[f]), ytr[f])
            accs.append(knn.score(m.transform(Xtr[v]), ytr[v]))
        scores.append(np.mean(accs))
    chosen = dee_protocol.select_by_cv(
        "DEE", params, Xtr, ytr, param="lam", values=values, dimension=2, folds=3, seed=1
    )
    assert chosen == values[int(np.argmax(scores))]
    cv = {"param": "lam", "values": values, "dimension": 2, "folds": 3}
    frame = dee_protocol.recognition_run(
        faces_file, estimator="DEE", params={"max_iter": 30}, nested=False,
        split={"train_fraction": 0.5}, seeds=[1], dimensions=[2, 3], output=tmp_path / "cv.csv",
        pca=10, cv=cv,
    )  # fmt: skip
    assert (frame["cv_value"] == chosen).all()
    model = DEE(n_components=3, lam=chosen, **params).fit(Xtr, ytr)
    ref = one_nn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), data.y[test])
    assert frame.loc[frame["dim"] == 3, "accuracy"].item() == ref
    with pytest.raises(ValueError, match="either `grid` or `param`"):
        dee_protocol.recognition_run(
            faces_file, estimator="DEE", params={}, nested=False, split={"train_fraction": 0.5},
            seeds=[1], dimensions=[2], output=tmp_path / "x.csv", cv={"dimension": 2},
        )  # fmt: skip


def test_cv_grid_with_relative_width_and_a_nested_method(faces_file, tmp_path):
    """A two-parameter grid (every combination; sigma as a factor of the training part's mean
    within-class distance) against a loop written out here, and cv on a nested method."""
    from sklearn.model_selection import StratifiedKFold

    from graphdr.kernels import mean_distance
    from graphdr.methods import MMPA

    data = faces_like()
    train, test = per_class_split(data.y, random_state=0, train_fraction=0.5)
    mean, V = dee_protocol.pca_basis(data.X[train], 8)
    Xtr, Xte, ytr = (data.X[train] - mean) @ V, (data.X[test] - mean) @ V, data.y[train]
    D2 = ((Xtr[:, None] - Xtr[None]) ** 2).sum(-1)
    same = (ytr[:, None] == ytr[None]) & ~np.eye(len(ytr), dtype=bool)
    unit = mean_distance(D2, same)
    assert dee_protocol.within_class_distance(Xtr, ytr) == pytest.approx(unit, rel=1e-12)
    params = {"max_iter": 20, "random_state": 0}
    best, best_score = None, -1.0
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(Xtr, ytr))
    for lam in (1.0, 10.0):
        for factor in (0.5, 2.0):
            accs = []
            for f, v in folds:
                m = DEE(2, lam=lam, sigma=factor * unit, **params).fit(Xtr[f], ytr[f])
                accs.append(
                    one_nn_accuracy(m.transform(Xtr[f]), ytr[f], m.transform(Xtr[v]), ytr[v])
                )
            if np.mean(accs) > best_score:
                best, best_score = (lam, factor), np.mean(accs)
    cv = {"grid": {"lam": [1.0, 10.0], "sigma": [0.5, 2.0]}, "relative": ["sigma"], "dimension": 2}
    frame = dee_protocol.recognition_run(
        faces_file, estimator="DEE", params={"max_iter": 20}, nested=False,
        split={"train_fraction": 0.5}, seeds=[0], dimensions=[2], output=tmp_path / "g.csv",
        pca=8, cv=cv,
    )  # fmt: skip
    assert frame["cv_value"].item() == best[0]
    assert frame["cv_choice"].item() == f"lam={best[0]:g};sigma={best[1]:g}"
    model = DEE(2, lam=best[0], sigma=best[1] * unit, **params).fit(Xtr, ytr)
    ref = one_nn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), data.y[test])
    assert frame["accuracy"].item() == ref
    nested = dee_protocol.recognition_run(
        faces_file, estimator="MMPA", params={}, nested=True, split={"train_fraction": 0.5},
        seeds=[0], dimensions=[1, 2], output=tmp_path / "m.csv", pca=8,
        cv={"grid": {"n_between": [2, 5]}, "dimension": 2},
    )  # fmt: skip
    k = int(nested["cv_value"].iloc[0])
    model = MMPA(2, n_between=k).fit(Xtr, ytr)
    ref = one_nn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), data.y[test])
    assert nested.loc[nested["dim"] == 2, "accuracy"].item() == ref


def test_raw_baseline_is_one_nn_on_the_input(faces_file, tmp_path):
    from sklearn.neighbors import KNeighborsClassifier

    frame = dee_protocol.recognition_run(
        faces_file, estimator=dee_protocol.RAW, params={}, nested=True, split={"train_fraction": 0.5},
        seeds=[0, 1], dimensions=[1, 2], output=tmp_path / "raw.csv",
    )  # fmt: skip
    data = faces_like()
    assert (frame["dim"] == data.X.shape[1]).all() and len(frame) == 2
    for seed, acc in zip(frame["seed"], frame["accuracy"], strict=True):
        train, test = per_class_split(data.y, random_state=seed, train_fraction=0.5)
        knn = KNeighborsClassifier(1).fit(data.X[train], data.y[train])
        assert acc == pytest.approx(knn.score(data.X[test], data.y[test]))


def test_fluctuation_counts_movement_beyond_one_rise():
    assert dee_report.fluctuation([50, 60, 70, 70, 70]) == 0.0  # rise, plateau
    assert dee_report.fluctuation([50, 60, 70, 70, 65]) == pytest.approx(5.0)
    assert dee_report.fluctuation([50, 60, 55, 65, 60]) == pytest.approx(15.0)
    assert dee_report.fluctuation([1.0]) == 0.0


def _synthetic_run(path, curve, n_classes, nested):
    rows = [
        {
            "seed": s,
            "dim": d,
            "accuracy": a / 100 + 0.01 * s,
            "n_iter": np.nan if nested else 10,
            "converged": True,
            "n_classes": n_classes,
        }
        for s in (0, 1)
        for d, a in curve.items()
    ]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_recognition_tables(tmp_path):
    curves = {
        "DEE": ({1: 60, 2: 80, 5: 90, 10: 90}, False),
        "DSNE": ({1: 50, 2: 70, 5: 65, 10: 85}, False),
        "DCV": ({1: 55, 2: 70, 3: 82}, True),
        "MMPA": ({1: 50, 2: 72, 5: 70, 10: 91}, True),
    }
    runs = {
        ("USPS", m): _synthetic_run(tmp_path / f"{m}.csv", c, 4, nested)
        for m, (c, nested) in curves.items()
    }
    reference = tmp_path / "ref.csv"
    reference.write_text("table,row,column,value,source\nbest_accuracy,DCV,USPS,83,text\n")
    shown = dee_report.recognition_tables(
        runs,
        reference=reference,
        figure_stem=tmp_path / "fig11",
        best_stem=tmp_path / "best",
        curves_output=tmp_path / "curves.csv",
    )
    assert list(shown["method"][shown["method"] != ""]) == ["DEE", "DSNE", "DCV", "MMPA"]
    dcv = shown.index[shown["method"] == "DCV"][0]
    # best of the mean curve: DCV at d = 3, mean 82.5 (seeds 82 and 83), std 0.5
    assert shown.loc[dcv : dcv + 2, "USPS"].tolist() == ["83.0", "82.5 ± 0.5 (d=3)", "-0.5"]
    assert shown.loc[0, "USPS"] == dee_report.NOT_REPORTED
    table = pd.read_csv(tmp_path / "curves.csv")
    dee_rows = table[table["method"] == "DEE"]
    assert dee_rows["mean"].tolist() == pytest.approx([60.5, 80.5, 90.5, 90.5])
    assert (tmp_path / "fig11.png").read_bytes().startswith(b"\x89PNG")


def test_separation_scores_against_sklearn():
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(0)
    Z, y = rng.normal(size=(40, 2)), rng.integers(0, 3, 40)
    scores = dee_report.separation_scores(Z, y)
    nearest = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z)[1][:, 1]
    assert scores["loo_1nn"] == pytest.approx(100 * np.mean(y[nearest] == y))
    D = np.linalg.norm(Z[:, None] - Z[None], axis=2)
    same, off = y[:, None] == y[None], ~np.eye(40, dtype=bool)
    ratio = D[same & off].mean() / D[~same].mean()
    assert scores["within_between"] == pytest.approx(ratio)


def test_embedding_runs_figure_and_table(faces_file, tmp_path):
    from sklearn.manifold import TSNE

    specs = {
        "DEE": ("DEE", {"pca": 10, "max_iter": 30, "random_state": 0}),
        "t-SNE": ("sklearn.manifold.TSNE", {"perplexity": 5, "random_state": 0}),
    }
    runs = {}
    for label, (estimator, params) in specs.items():
        path = tmp_path / f"{label}.npz"
        dee_protocol.embedding_run(faces_file, estimator=estimator, params=params, output=path)
        runs[("Faces", label)] = path
    data = faces_like()
    ref = TSNE(2, perplexity=5, random_state=0).fit_transform(data.X)
    np.testing.assert_array_equal(io.read_npz(runs[("Faces", "t-SNE")])["Z"], ref)
    shown = dee_report.visualisation_table(
        runs,
        stem=tmp_path / "sep",
    )
    assert list(shown.columns) == ["method", "Faces LOO 1-NN (%)", "Faces within/between"]
    stem = tmp_path / "vis"
    dee_report.plot_visualisation({m: p for (_, m), p in runs.items()}, dataset="Faces", stem=stem)
    first = stem.with_suffix(".png").read_bytes()
    dee_report.plot_visualisation({m: p for (_, m), p in runs.items()}, dataset="Faces", stem=stem)
    assert stem.with_suffix(".png").read_bytes() == first
