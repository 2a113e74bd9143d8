"""Paper 004 (NGEU, Laakom et al.): Tables I-II and Figure 3, stage by stage.

Stages (one function per workflow rule; docs/ngeu.md, "Reproduction"):

* the folds of a task come from the shared split reader
  (:func:`graphdr.pipeline.splits.make_splits`; Table I: one fixed split or seeded draws per
  dataset; Table II: 3-fold CV, each training fold split again into training and validation
  parts);
* :func:`estimate_uncertainty` -- the uncertainty stage: each training sample's squared
  distance to its nearest other training sample (unsupervised) and to its nearest same-class
  sample (supervised). The nearest-neighbour scheme's variance is ``beta^2 d_i^2``, so one file
  serves the whole ``beta`` grid;
* :func:`select_task` -- the validation grid of every method of one task. Each grid point that
  changes the model (kernel, kernel width, uncertainty width) is fitted ONCE with the largest
  dimension of the grid; every smaller dimension reads the leading columns of the same
  embedding (the directions are the leading eigenvectors, so the first ``d`` columns of the
  largest fit are the ``d``-dimensional model). Every eigendecomposition is counted. The model
  :func:`select` picks on validation (overall, and with each kernel fixed) also leaves its
  per-sample test correctness, the paired units of the exact McNemar test with one test split;
* tables and Figure 3: :mod:`graphdr.pipeline.papers.ngeu.report` (separate, so editing a
  table does not re-run the grid).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from graphdr.datasets.prepared import load_npz
from graphdr.evaluation.classifiers import make_classifier
from graphdr.evaluation.metrics import accuracy
from graphdr.evaluation.selection import score_dimensions
from graphdr.kernels import reuse_kernels
from graphdr.methods.registry import make_estimator
from graphdr.pipeline import io
from graphdr.pipeline.runtime import count_eigendecompositions
from graphdr.pipeline.splits import read_folds

__all__ = [
    "RAW_METHODS",
    "run_methods",
    "estimate_nn_sq_distances",
    "estimate_uncertainty",
    "fit_grid_point",
    "kernel_grid",
    "method_grid",
    "nested_scores",
    "select",
    "select_task",
    "split_variant",
    "searched_grid",
    "unvalidated_rbf",
]

#: classifiers on the raw features (no embedding)
RAW_METHODS = ("knn", "svm", "tree")

#: the selection of every method ("primary", the paper's), and of the kernel methods with the
#: kernel fixed ("kernel=<name>": the kernel sensitivity of the gain claims)
PRIMARY = "primary"
#: what one fold keeps of its kernel matrices for the methods that share them (least recently
#: used first out): MNIST's 25 kernel settings x (training, training rows against the fit,
#: validation, test) are 2.4 GB; the select_ngeu_models resource counts this bound in (config)
KERNEL_REUSE_BYTES = 2 << 30
#: a sensitivity copy of a method is named ``<method>@<variant>`` (``KDA_GE@solver=positive``;
#: graphdr.pipeline.papers.ngeu.plan, ``expand_variants``)
VARIANT_SEP = "@"


def split_variant(name: str) -> tuple[str, str]:
    """``("KDA_GE", "solver=positive")`` of ``"KDA_GE@solver=positive"``; ``(name, "primary")``
    for a method of the primary run."""
    base, _, variant = name.partition(VARIANT_SEP)
    return base, variant or PRIMARY


# ---- uncertainty stage ------------------------------------------------------------------------


def estimate_uncertainty(
    prepared: str | os.PathLike, splits: str | os.PathLike, output: str | os.PathLike
) -> dict:
    """Squared nearest-neighbour distances of every fold's training samples.

    ``nn<f>``: to the nearest other training sample; ``nn_supervised<f>``: to the nearest one of
    the same class (:class:`graphdr.uncertainty.NearestNeighborUncertainty` with ``beta=1``,
    duplicates skipped). The nearest-neighbour scheme with width ``beta`` gives the variances
    ``beta^2 * nn<f>``.
    """
    data = load_npz(prepared)
    arrays = {}
    for f, fold in enumerate(read_folds(splits)):
        d2 = estimate_nn_sq_distances(data.X[fold["train"]], data.y[fold["train"]])
        arrays |= {f"{scheme}{f}": value for scheme, value in d2.items()}
    io.write_npz(output, arrays)
    return arrays


def estimate_nn_sq_distances(X: np.ndarray, y: np.ndarray) -> dict:
    """``{"nn": d_i^2, "nn_supervised": d_i^2 within the class}`` of the rows of X."""
    from graphdr.uncertainty import NearestNeighborUncertainty

    return {
        "nn": NearestNeighborUncertainty(beta=1.0).fit(X).sample_variance_,
        "nn_supervised": NearestNeighborUncertainty(beta=1.0, supervised=True)
        .fit(X, y)
        .sample_variance_,
    }


# ---- the grid ---------------------------------------------------------------------------------


def _mean_sq_distance(X: np.ndarray) -> float:
    """Mean squared Euclidean distance over all ordered pairs of rows (i = j included)."""
    mean = X.mean(axis=0)
    return float(2.0 * (np.einsum("ij,ij->", X, X) / X.shape[0] - mean @ mean))


def kernel_grid(grid: Mapping, X: np.ndarray) -> list[dict]:
    """Kernel settings: linear; degree-2 polynomial ``(a^T b / D + coef0)^2``; RBF with
    ``gamma = scale / mean squared distance`` of the training rows, for each scale."""
    settings = []
    for kernel in grid["kernels"]:
        if kernel == "linear":
            settings.append({"kernel": "linear"})
        elif kernel == "poly":
            settings.append({"kernel": "poly", "gamma": 1.0 / X.shape[1], "coef0": grid["coef0"]})
        elif kernel == "rbf":
            msd = _mean_sq_distance(X)
            settings += [
                {"kernel": "rbf", "gamma": float(s) / msd, "gamma_scale": float(s)}
                for s in grid["gamma_scale"]
            ]
        else:
            raise ValueError(f"kernel must be 'linear', 'poly' or 'rbf', got {kernel!r}.")
    return settings


def _family(method: Mapping) -> str:
    """raw (a classifier on raw features), linear (no kernel grid: GEU rows, RSLDA, TRPCA) or
    kernel (the kernel grid); a method's ``family`` key overrides the estimator's default."""
    estimator = method["estimator"]
    if estimator in RAW_METHODS:
        return "raw"
    if method.get("family"):
        return method["family"]
    return "linear" if estimator.endswith("_GEU") else "kernel"


def _product(grid: Mapping) -> list[dict]:
    """Every combination of a method's own grid ``{param: [values]}`` (config order)."""
    points = [{}]
    for name, values in grid.items():
        points = [p | {name: v} for p in points for v in values]
    return points


def searched_grid(method: Mapping, grid: Mapping) -> dict:
    """The shared grid as ``method`` searches it: its own ``beta`` / ``s0`` where it lists them,
    and with ``kernel_width: auto`` the RBF kernel alone and no width to search (its one kernel
    is :func:`unvalidated_rbf`'s). The grid points (:func:`method_grid`) and the report's edge
    flags both read it."""
    own = dict(grid) | {k: method[k] for k in ("beta", "s0") if k in method}
    if method.get("kernel_width") == "auto":
        own |= {"kernels": ["rbf"], "gamma_scale": []}
    return own


def _uncertainty_grid(method: Mapping, grid: Mapping) -> list[dict]:
    scheme = method.get("uncertainty", "none")
    if scheme == "none":
        return [{}]
    if scheme == "constant":
        return [{"s0": float(s)} for s in grid["s0"]]
    return [{"beta": float(b)} for b in grid["beta"]]


def unvalidated_rbf(X: np.ndarray) -> dict:
    """The RBF kernel at ``gamma = 1 / D`` (scikit-learn's former default width, ``"auto"``),
    the one kernel setting of a method with ``kernel_width: auto`` (a sensitivity run: the
    width not validated); ``gamma_scale`` records it on the grid's scale (``gamma`` times the
    training rows' mean squared distance)."""
    gamma = 1.0 / X.shape[1]
    return {"kernel": "rbf", "gamma": gamma, "gamma_scale": gamma * _mean_sq_distance(X)}


def method_grid(method: Mapping, grid: Mapping, X: np.ndarray) -> list[dict]:
    """The model-changing grid points of one method (dimensions excluded) on its
    :func:`searched_grid`: kernels (kernel family; ``kernel_width: auto``: the RBF kernel at
    ``gamma = 1 / D`` alone, :func:`unvalidated_rbf`) x uncertainty widths x the method's own
    ``grid`` (baselines: ``n_subclasses``, ``lambda1``, ...)."""
    family = _family(method)
    if family == "raw":
        if method["estimator"] == "svm":
            return [{"C": float(c)} for c in grid["svm_C"]]
        return [{}]
    grid = searched_grid(method, grid)
    if family != "kernel":
        kernels = [{}]
    elif method.get("kernel_width") == "auto":
        kernels = [unvalidated_rbf(X)]
    else:
        kernels = kernel_grid(grid, X)
    own = _product(method.get("grid", {}))
    return [k | u | o for k in kernels for u in _uncertainty_grid(method, grid) for o in own]


def _dimension_grid(method: Mapping, grid: Mapping, n_classes: int) -> list[int]:
    """A method's own ``dims``; LDA-type methods: every dimension 1..C-1 (the paper caps LDA
    grids at C-1); others the configured grid."""
    if method.get("dims"):
        return sorted({int(d) for d in method["dims"]})
    if method["estimator"] in ("KDA_GE", "KDA_NGEU", "LDA_GEU"):
        return list(range(1, n_classes))
    return sorted({int(d) for d in grid["dims"]})


def _variance(method: Mapping, point: Mapping, nn: Mapping, fold: int):
    """The training variances of one grid point: ``beta^2`` times the fold's squared
    neighbour distances of the method's scheme (``nn<f>``, ``nn_supervised<f>``: the
    uncertainty stage's; ``nn_diagonal<f>``: per feature, :func:`nn_sq_differences`), or None
    (no uncertainty, or the estimator's own constant scheme, ``s0`` being a parameter)."""
    scheme = method.get("uncertainty", "none")
    if scheme in ("none", "constant"):
        return None
    return point["beta"] ** 2 * nn[f"{scheme}{fold}"]


def nn_sq_differences(X: np.ndarray) -> np.ndarray:
    """``(x_ik - x_n(i)k)^2`` per feature, ``x_n(i)`` the nearest other row of X (the scheme
    ``nn_diagonal`` at ``beta = 1``; its row sums are the stage's ``nn`` distances)."""
    from graphdr.uncertainty import NearestNeighborUncertainty

    return NearestNeighborUncertainty(beta=1.0, covariance="diagonal").fit(X).sample_variance_


def _estimator(method: Mapping, point: Mapping, n_components: int | None):
    """The method's estimator at one grid point. GEU / NGEU get their training variances in
    ``fit`` (:func:`_variance`) or use their own constant scheme; with
    ``test_uncertainty="estimate"`` (a sensitivity run) NGEU also gets the scheme itself, at
    the point's ``beta``, to give the new points variances the same way (the explicit training
    variances still take precedence for the training set)."""
    name = method["estimator"]
    params = {k: v for k, v in point.items() if k not in ("gamma_scale", "beta")}
    scheme = method.get("uncertainty", "none")
    if name.endswith("GEU"):  # GEU / NGEU: variances are given to fit, or the constant scheme
        params["uncertainty"] = "constant" if scheme == "constant" else None
    params |= dict(method.get("params", {}))
    if params.get("test_uncertainty") == "estimate" and scheme not in ("none", "constant"):
        params |= {"uncertainty": scheme, "beta": point["beta"]}
    return make_estimator(name, n_components=n_components, **params)


def fit_grid_point(method, point, X_train, y_train, variance, n_components):
    """Fit one grid point; returns the fitted estimator (the largest dimension it allows).

    When ``n_components`` exceeds what the method defines (a rank bound), the fit is repeated
    once with every defined direction (``n_components=None``) and the caller keeps the
    dimensions that exist.
    """
    fit_params = {} if variance is None else {"sample_variance": variance}
    try:
        return _estimator(method, point, n_components).fit(X_train, y_train, **fit_params)
    except ValueError as err:
        if "n_components" not in str(err):
            raise
        return _estimator(method, point, None).fit(X_train, y_train, **fit_params)


def nested_scores(Z_train, y_train, Z_eval: Mapping, y_eval: Mapping, dims, k=1) -> list[dict]:
    """k-NN accuracy of every ``d in dims`` on the leading ``d`` columns of one embedding, for
    each evaluation part (``Z_eval``/``y_eval`` keyed by part); dims beyond the embedding's
    columns are skipped."""
    dims = [d for d in dims if d <= Z_train.shape[1]]
    if not dims:
        return []
    knn = make_classifier("knn", k=k)
    scores = {
        part: score_dimensions(Z_train, y_train, Z, y_eval[part], dims, classifier=knn)
        for part, Z in Z_eval.items()
    }
    return [
        {"dim": int(d)}
        | {f"{part}_accuracy": float(table["score"].iloc[i]) for part, table in scores.items()}
        for i, d in enumerate(scores[next(iter(scores))]["dim"])
    ]


def select(scores: pd.DataFrame) -> pd.DataFrame:
    """Per method and fold, the row with the best validation accuracy (ties: the first in grid
    order, i.e. the smaller grid point, then the smaller dimension)."""
    ordered = scores.sort_values(["method", "fold", "point", "dim"], kind="stable")
    best = ordered.groupby(["method", "fold"], sort=False)["val_accuracy"].transform("max")
    chosen = ordered[ordered["val_accuracy"] == best]
    return chosen.groupby(["method", "fold"], sort=False).head(1).reset_index(drop=True)


def _selections(rows: pd.DataFrame) -> dict[str, pd.Series]:
    """The selected row of one method and fold: ``primary`` over the whole grid, and
    ``kernel=<name>`` with each kernel fixed (kernel methods only)."""
    chosen = {PRIMARY: select(rows).iloc[0]}
    if "kernel" in rows.columns:
        for kernel in sorted(rows["kernel"].dropna().unique()):
            chosen[f"kernel={kernel}"] = select(rows[rows["kernel"] == kernel]).iloc[0]
    return chosen


def _predict_selected(held, selected, y_train, k):
    """Test predictions of a selected grid cell: kept as they are (raw classifiers), or the
    k-NN on the leading ``dim`` columns of the kept (training, test) embeddings."""
    if not isinstance(held, dict):
        return held
    d = int(selected["dim"])
    Z_train, Z_test = held[d]
    return make_classifier("knn", k=k).fit(Z_train[:, :d], y_train).predict(Z_test[:, :d])


def _correct(name, fold, variant, selected, predicted, test, y_test) -> pd.DataFrame:
    """Per test sample, 1 if the selected model classifies it correctly, else 0; checked
    against the test accuracy the grid recorded for that model."""
    correct = (predicted == y_test).astype(np.int64)
    if not np.isclose(correct.mean(), selected["test_accuracy"], rtol=0, atol=1e-12):
        raise RuntimeError(
            f"{name} fold {fold} ({variant}): per-sample test accuracy {correct.mean()} differs "
            f"from the grid's {selected['test_accuracy']}; the prediction must repeat the scored "
            "model exactly."
        )
    return pd.DataFrame(
        {
            "method": name,
            "variant": variant,
            "fold": fold,
            "sample": test,
            "correct": correct,
        }
    )


def _raw_classifier(name: str, point: Mapping, k: int, seed: int):
    """The raw-feature baselines: k-NN, RBF SVM (C from the grid, gamma "scale"), tree."""
    if name == "knn":
        return make_classifier("knn", k=k)
    if name == "svm":
        return make_classifier("rbf_svm", C=point["C"])
    return make_classifier("tree", random_state=seed)


class _MethodRun:
    """One method's grid over the folds of a task, one fold at a time: every (fold, grid point,
    dimension) with its validation and test accuracy, the per-sample test correctness of the
    selected models (:func:`_selections`), and the method's cost counters. Fits of an earlier
    fold with the same training rows (a validation re-draw) are reused.

    A fold is :meth:`start` (its grid points), :meth:`point` for each (in any order: the rows
    are kept in grid order) and :meth:`finish`; :meth:`fold` runs them in grid order.
    """

    def __init__(self, name, method, grid, X, y, nn, k, seed, logger=None):
        self.name, self.method, self.grid = name, method, grid
        self.X, self.y, self.nn, self.k, self.seed, self.logger = X, y, nn, k, seed, logger
        self.rows, self.samples = [], []
        self.cost = {"fits": 0, "eigendecompositions": 0, "grid_cells": 0}
        self.n_classes = int(np.unique(y).size)
        self.shared = {}  # (training rows, grid point) -> embeddings of an earlier fold's fit

    def fold(self, f: int, fold: Mapping, keep_fits: bool = False) -> None:
        """The whole grid of fold ``f``, in grid order."""
        for g, point in self.start(f, fold, keep_fits):
            self.point(g, point)
        self.finish()

    def start(self, f: int, fold: Mapping, keep_fits: bool = False) -> list[tuple[int, dict]]:
        """Begin fold ``f``: its training part, and the grid points ``[(g, point)]`` to run.

        ``keep_fits``: the next fold has the same training rows (a validation re-draw), so
        this fold's fitted models are kept for it; otherwise they are dropped once scored (a
        task's fits held together took 7.7 GB on COIL20's single split)."""
        tr = fold["train"]
        self.f, self.parts = f, {"val": fold["val"], "test": fold["test"]}
        self.train_key, self.keep_fits = tr.tobytes(), keep_fits
        if self.shared and next(iter(self.shared))[0] != self.train_key:
            self.shared = {}  # keep only the current training set's fits
        self.Xtr, self.ytr = self.X[tr], self.y[tr]
        self.fold_nn = self.nn
        if self.method.get("uncertainty") == "nn_diagonal" and f"nn_diagonal{f}" not in self.nn:
            # (N, D): not in the stage
            self.fold_nn = {**self.nn, f"nn_diagonal{f}": nn_sq_differences(self.Xtr)}
        self.y_eval = {p: self.y[idx] for p, idx in self.parts.items()}
        self.fold_rows = {}  # grid point -> its rows
        self.kept = {}  # grid point -> what predicts its test samples again
        return list(enumerate(method_grid(self.method, self.grid, self.Xtr)))

    def point(self, g: int, point: Mapping) -> None:
        """Fit and score grid point ``g`` of the current fold."""
        name, method, X, k, cost = self.name, self.method, self.X, self.k, self.cost
        Xtr, ytr, parts, y_eval, shared = self.Xtr, self.ytr, self.parts, self.y_eval, self.shared
        record = {"fold": self.f, "point": g} | point
        rows = self.fold_rows[g] = []
        if _family(method) == "raw":
            clf = _raw_classifier(method["estimator"], point, k, self.seed).fit(Xtr, ytr)
            predictions = {p: clf.predict(X[idx]) for p, idx in parts.items()}
            acc = {f"{p}_accuracy": accuracy(y_eval[p], predictions[p]) for p in parts}
            rows.append(record | {"dim": X.shape[1]} | acc)
            self.kept[g] = predictions["test"]
            cost["grid_cells"] += 1
            return
        dims = _dimension_grid(method, self.grid, self.n_classes)
        cost["grid_cells"] += len(dims)
        # nested methods: one fit at the largest dimension serves every smaller one (the
        # leading directions); the others (RSLDA, TRPCA: a d-dimensional optimum is not the
        # leading part of a larger one) are fitted at each dimension
        fits = [max(dims)] if method.get("nested", True) else dims
        kept = self.kept[g] = {}
        for n_fit in fits:
            if (self.train_key, g, n_fit) in shared:
                # same training rows as an earlier fold (a validation re-draw): same model
                model, Z_train = shared[(self.train_key, g, n_fit)]
            else:
                variance = _variance(method, point, self.fold_nn, self.f)
                with count_eigendecompositions() as counter:
                    model = fit_grid_point(method, point, Xtr, ytr, variance, n_fit)
                cost["fits"] += 1
                cost["eigendecompositions"] += counter["n"]
                Z_train = model.transform(Xtr)
                if self.keep_fits:
                    shared[(self.train_key, g, n_fit)] = (model, Z_train)
            Z_eval = {p: model.transform(X[idx]) for p, idx in parts.items()}
            scored = dims if len(fits) == 1 else [n_fit]
            # iterative baselines (RSLDA, TRPCA) run on an iteration budget: say if it ran out
            done = {"converged": bool(model.converged_)} if hasattr(model, "converged_") else {}
            for r in nested_scores(Z_train, ytr, Z_eval, y_eval, scored, k):
                rows.append(record | done | r)
                kept[r["dim"]] = (Z_train, Z_eval["test"])
            if self.logger is not None:
                self.logger.info("%s fold %d %s: %d dims", name, self.f, point, model.n_components_)

    def finish(self) -> None:
        """End the current fold: its rows in grid order, the selected models' test samples."""
        fold_rows = [r for g in sorted(self.fold_rows) for r in self.fold_rows[g]]
        chosen = _selections(pd.DataFrame(fold_rows).assign(method=self.name))
        for variant, selected in chosen.items():
            predicted = _predict_selected(
                self.kept[int(selected["point"])], selected, self.ytr, self.k
            )
            self.samples.append(
                _correct(self.name, self.f, variant, selected, predicted, self.parts["test"],
                         self.y_eval["test"])
            )  # fmt: skip
        self.rows += fold_rows
        if not self.keep_fits:  # the next fold trains on other rows: nothing to reuse
            self.shared = {}
        del self.Xtr, self.ytr, self.fold_nn, self.kept, self.fold_rows


def _method_rows(name, method, grid, X, y, folds, nn, k, seed, logger=None):
    """One method alone over ``folds`` (:class:`_MethodRun`): ``(rows, samples, cost)``."""
    run = _MethodRun(name, method, grid, X, y, nn, k, seed, logger)
    for f, fold in enumerate(folds):
        run.fold(f, fold, _next_fold_same_training(folds, f))
    return run.rows, run.samples, run.cost


def _next_fold_same_training(folds: list[Mapping], f: int) -> bool:
    """True if fold ``f + 1`` trains on the same rows as fold ``f`` (its fits can be reused)."""
    return f + 1 < len(folds) and np.array_equal(folds[f]["train"], folds[f + 1]["train"])


#: grid-point keys that set a kernel matrix: the kernel, then the uncertainty width
_KERNEL_KEYS = ("kernel", "gamma", "coef0")
_UNCERTAINTY_KEYS = ("beta", "s0")


def kernel_order(tasks: list[tuple]) -> list[tuple]:
    """``tasks`` ``[(method, point, ...)]`` reordered so that the grid points asking for the same
    kernel matrices run one after another: grouped by kernel setting, then by uncertainty
    scheme and width, each group in the order of its first task (stable otherwise).

    The kernel store of a fold (:func:`graphdr.kernels.reuse_kernels`) is bounded: run method by
    method, the MNIST grid's 20 NGEU points of the first method filled it before the next method
    asked for the same expected kernels (no reuse at all); in this order each matrix and its
    eigendecomposition is used by every method that needs it while it is still kept.
    """

    def keys(task):
        method, point = task[0], task[1]
        kernel = tuple((k, point[k]) for k in _KERNEL_KEYS if k in point)
        uncertainty = tuple((k, point[k]) for k in _UNCERTAINTY_KEYS if k in point)
        return kernel, (method.get("uncertainty", "none"), uncertainty)

    keyed = [keys(task) for task in tasks]
    first_kernel, first_group = {}, {}
    for kernel, scheme in keyed:
        first_kernel.setdefault(kernel, len(first_kernel))
        first_group.setdefault((kernel, scheme), len(first_group))
    ranks = [(first_kernel[kernel], first_group[(kernel, scheme)]) for kernel, scheme in keyed]
    order = sorted(range(len(tasks)), key=ranks.__getitem__)  # stable: ties keep task order
    return [tasks[i] for i in order]


def run_methods(methods, grid, X, y, folds, nn, *, k=1, seed=0, logger=None, reuse=True):
    """Every method's grid over the folds (:class:`_MethodRun`), fold by fold: ``(frames,
    per-sample frames, costs)``, the frames in method order.

    With ``reuse`` (the workflow's setting) each fold runs inside
    :func:`graphdr.kernels.reuse_kernels`, its grid points in :func:`kernel_order`: the methods
    that ask for the same kernel matrix (KDA, MFA and PCA graphs at one kernel setting and
    uncertainty width) get it, and its eigendecomposition, computed once, and the fold's
    matrices are forgotten with it. The numbers are the same either way (tested), to the
    round-off of KPCA's leading eigenpairs read from a full decomposition.
    """
    runs = {
        name: _MethodRun(name, method, grid, X, y, nn, k, seed, logger)
        for name, method in methods.items()
    }
    for f, fold in enumerate(folds):
        keep = _next_fold_same_training(folds, f)
        if not reuse:
            for run in runs.values():
                run.fold(f, fold, keep)
            continue
        with reuse_kernels(KERNEL_REUSE_BYTES) as store:
            tasks = [(run.method, point, run, g) for run in runs.values()
                     for g, point in run.start(f, fold, keep)]  # fmt: skip
            for _, point, run, g in kernel_order(tasks):
                run.point(g, point)
            for run in runs.values():
                run.finish()
        if logger is not None:
            logger.info(
                "fold %d: %d kernel matrices reused, %d computed", f, store.hits, store.misses
            )
    frames = [pd.DataFrame(run.rows).assign(method=name) for name, run in runs.items()]
    per_sample = [frame for run in runs.values() for frame in run.samples]
    return frames, per_sample, {name: run.cost for name, run in runs.items()}


def select_task(
    prepared: str | os.PathLike,
    splits: str | os.PathLike,
    uncertainty: str | os.PathLike,
    methods: Mapping[str, Mapping],
    grid: Mapping,
    scores_path: str | os.PathLike,
    cost_path: str | os.PathLike,
    samples_path: str | os.PathLike | None = None,
    *,
    k: int = 1,
    seed: int = 0,
    logger=None,
) -> pd.DataFrame:
    """Run the validation grid of every method of one task; write the long score table
    (method, fold, grid point, parameters, dim, val_accuracy, test_accuracy), the cost (fits,
    eigendecompositions, grid cells) per method, and (``samples_path``) the per-sample test
    correctness of the selected models (method, variant, fold, sample = row of the prepared
    dataset, correct = 0/1; variant ``primary`` or ``kernel=<name>``)."""
    data = load_npz(prepared)
    folds, nn = read_folds(splits), io.read_npz(uncertainty)
    frames, per_sample, costs = run_methods(
        methods, grid, data.X, data.y, folds, nn, k=k, seed=seed, logger=logger
    )
    scores = pd.concat(frames, ignore_index=True)
    first = ["method", "fold", "point", "dim"]
    scores = scores[first + [c for c in scores.columns if c not in first]]
    io.write_csv(scores, scores_path)
    io.write_json(costs, cost_path)
    if samples_path is not None:
        io.write_csv(pd.concat(per_sample, ignore_index=True), samples_path)
    return scores
