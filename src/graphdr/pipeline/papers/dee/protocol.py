"""Paper 003 (DEE): the fits of the method comparisons (Figure 11 and Figures 7-10).

* **Recognition** (Figure 11): one *recognition run* fits one method on the training part of
  every replication of one dataset (seeded per-class splits) and scores 1-NN on the test part
  at every dimension of the grid. Eigen-solutions (DCV, MMPA: ``nested``) are fitted once per
  replication at their largest dimension and read at the smaller ones (leading columns); DEE and
  DSNE are non-convex and not nested, so each dimension is a separate fit (a different model).
  Writes one long CSV (``seed, dim, accuracy, n_iter, converged, n_classes``): deterministic.
* **Visualisation** (Figures 7-10): one *embedding run* fits one method in 2-D on every sample
  of one dataset and writes ``Z``, ``y`` and ``class_names`` (npz, deterministic).

Estimators are named as in :mod:`graphdr.methods` (``"DEE"``) or by a dotted path
(``"sklearn.manifold.TSNE"``); both are imported by name, so a run depends only on the module
that defines its estimator (the workflow adds it as a code input). No plotting here: editing
the figures does not re-run the fits.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphdr.datasets.prepared import load_npz
from graphdr.evaluation.dimensions import one_nn_accuracy, one_nn_accuracy_by_dimension
from graphdr.evaluation.selection import select_hyperparameters_cv
from graphdr.evaluation.splits import per_class_split, stratified_kfold
from graphdr.kernels import mean_distance
from graphdr.methods.registry import estimator_class, make_estimator
from graphdr.pipeline import io
from graphdr.solvers import column_signs

__all__ = [
    "embedding_run",
    "nested_dimensions",
    "pca_basis",
    "recognition_run",
    "select_by_cv",
    "select_params_by_cv",
]


class RawInput:
    """The raw-input baseline of Figure 11: 1-NN on the method's input itself (the raw pixels
    when ``pca`` is off). A recognition run scores it once per replication, at the input's full
    dimension (``full_dimension_only``), not at the grid's leading columns."""

    full_dimension_only = True

    def __init__(self, n_components=None):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.n_components_ = np.asarray(X).shape[1]
        return self

    def transform(self, X):
        return np.asarray(X, dtype=np.float64)


#: dotted name of :class:`RawInput` (the config's ``estimator``)
RAW = "graphdr.pipeline.papers.dee.protocol.RawInput"

#: columns of a recognition run's CSV (``cv_value``: the value of the first cross-validated
#: parameter chosen on the replication's training part, NaN without one; ``cv_choice``: every
#: chosen value, ``name=value`` joined by ``;``, empty without one)
RUN_COLUMNS = [
    "seed", "dim", "accuracy", "n_iter", "converged", "n_classes", "cv_value", "cv_choice",
]  # fmt: skip


def nested_dimensions(grid: Sequence[int], n_columns: int) -> list[int]:
    """The grid's dimensions a nested fit with ``n_columns`` columns offers, plus ``n_columns``
    itself when it is below the grid's largest (DCV ends at C-1, which the grid may not list)."""
    dims = {int(d) for d in grid if d <= n_columns}
    if n_columns < max(grid):
        dims.add(int(n_columns))
    return sorted(dims)


def recognition_run(
    prepared: str | os.PathLike,
    *,
    estimator: str,
    params: Mapping,
    nested: bool,
    split: Mapping,
    seeds: Sequence[int],
    dimensions: Sequence[int],
    output: str | os.PathLike,
    pca: int | None = None,
    cv: Mapping | None = None,
) -> pd.DataFrame:
    """1-NN test accuracy against dimension of one method on one dataset, every replication.

    ``split`` holds ``train_per_class`` or ``train_fraction``
    (:func:`graphdr.evaluation.splits.per_class_split`);
    replication ``seed`` draws the split and seeds the estimator (``random_state``, when it has
    one). ``pca``: the method sees the data projected on the ``pca`` leading principal axes of
    the training part (:func:`pca_basis`), train and test alike. ``nested``: fit once with
    ``n_components=None`` (every direction the method offers) and score the leading columns;
    otherwise fit once per dimension of the grid that the input allows. ``cv``:
    ``{param, values}`` or ``{grid: {param: values, ...}}``, with ``dimension``, ``folds`` and
    optionally ``relative`` (parameters whose values are factors of the mean within-class
    distance of the training part): per replication, the parameters are chosen by
    :func:`select_params_by_cv` on the training part only, then the method is fitted with them
    (every dimension, or the one nested fit). A ``full_dimension_only`` estimator
    (:class:`RawInput`, :data:`RAW`): 1-NN on the input itself, one row per replication at its
    full dimension. Writes and returns the long
    table (:data:`RUN_COLUMNS`).
    """
    dataset = load_npz(prepared)
    X, y = dataset.X, dataset.y
    rows = []
    for seed in seeds:
        train, test = per_class_split(y, random_state=int(seed), **split)
        X_train, X_test = X[train], X[test]
        if pca is not None:
            mean, basis = pca_basis(X_train, int(pca))
            X_train, X_test = (X_train - mean) @ basis, (X_test - mean) @ basis
        n_classes = np.unique(y[train]).size
        if getattr(estimator_class(estimator), "full_dimension_only", False):
            acc = one_nn_accuracy(X_train, y[train], X_test, y[test])
            rows.append((seed, X_train.shape[1], acc, np.nan, True, n_classes, np.nan, ""))
            continue
        cap = X_train.shape[1]
        seeded = dict(params)
        if _has_random_state(estimator):
            seeded["random_state"] = int(seed)
        chosen, choice = np.nan, ""
        if cv is not None:
            picked, factors = select_params_by_cv(
                estimator, seeded, X_train, y[train], seed=int(seed), **_cv_grid(cv)
            )
            seeded |= picked
            first = next(iter(factors))
            chosen = factors[first]
            choice = ";".join(f"{k}={v:g}" for k, v in factors.items())
        if nested:
            model = make_estimator(estimator, **(seeded | {"n_components": None}))
            model.fit(X_train, y[train])
            dims = nested_dimensions(dimensions, model.n_components_)
            Z_train, Z_test = model.transform(X_train), model.transform(X_test)
            acc = one_nn_accuracy_by_dimension(Z_train, y[train], Z_test, y[test], dims)
            rows += [
                (seed, d, a, np.nan, True, n_classes, chosen, choice)
                for d, a in zip(dims, acc, strict=True)
            ]
            continue
        for d in sorted({int(d) for d in dimensions if d <= cap}):
            model = make_estimator(estimator, **(seeded | {"n_components": d}))
            model.fit(X_train, y[train])
            Z_train, Z_test = model.transform(X_train), model.transform(X_test)
            acc = one_nn_accuracy(Z_train, y[train], Z_test, y[test])
            rows.append(
                (
                    seed, d, acc, int(model.n_iter_), bool(model.converged_), np.unique(y).size,
                    chosen, choice,
                )
            )  # fmt: skip
    frame = pd.DataFrame(rows, columns=RUN_COLUMNS)
    frame["seed"] = frame["seed"].astype(int)
    io.write_csv(frame, output)
    return frame


def _cv_grid(cv: Mapping) -> dict:
    """``select_params_by_cv`` keywords from a ``cv`` spec (``param``/``values`` or ``grid``)."""
    if ("grid" in cv) == ("param" in cv):
        raise ValueError(f"cv needs either `grid` or `param` and `values`, got {sorted(cv)}.")
    grid = dict(cv["grid"]) if "grid" in cv else {cv["param"]: list(cv["values"])}
    return {
        "grid": grid,
        "relative": tuple(cv.get("relative", ())),
        "dimension": int(cv["dimension"]),
        "folds": int(cv.get("folds", 3)),
    }


def within_class_distance(X, y) -> float:
    """Mean Euclidean distance between distinct same-class pairs of ``X`` (the unit of
    ``relative`` cross-validated widths): what DEE's and DSNE's ``sigma="auto"`` computes
    (:func:`graphdr.kernels.mean_distance`, the one definition; the squared distances here by
    the expanded form, tested equal to the estimators' to 1e-12)."""
    sq = np.einsum("ij,ij->i", X, X)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0)
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    return mean_distance(D2, same)


def select_params_by_cv(
    estimator: str,
    params: Mapping,
    X,
    y,
    *,
    grid: Mapping[str, Sequence],
    dimension: int,
    folds: int = 3,
    relative: Sequence[str] = (),
    seed: int = 0,
) -> tuple[dict, dict]:
    """The combination of ``grid`` values (every product, in order) with the best mean 1-NN
    accuracy over a stratified ``folds``-fold split of (``X``, ``y``) (a replication's training
    part; :func:`graphdr.evaluation.splits.stratified_kfold`), the method fitted at
    ``dimension`` (capped by the features); ties go to the first combination
    (:func:`graphdr.evaluation.selection.select_hyperparameters_cv`, one fit per combination and
    fold). Parameters named in ``relative`` take their values as factors of the mean within-class
    distance of the whole of ``X`` (:func:`within_class_distance`), the same absolute value in
    every fold. Deterministic: the folds are shuffled with ``seed``.

    Returns ``(params, factors)``: the chosen constructor values and the chosen grid values.
    """
    unknown = set(relative) - set(grid)
    if unknown:
        raise ValueError(f"relative names {sorted(unknown)} are not in the cv grid {list(grid)}.")
    folds = min(int(folds), int(np.bincount(np.unique(y, return_inverse=True)[1]).min()))
    if folds < 2:
        raise ValueError(
            f"cross-validation needs at least 2 samples of every class, the smallest class has "
            f"{folds}; drop `cv` or give more training samples."
        )
    unit = within_class_distance(X, y) if relative else 1.0
    d = min(int(dimension), X.shape[1])
    names = list(grid)
    combos = [dict(zip(names, c, strict=True)) for c in itertools.product(*grid.values())]
    points = [{k: (v * unit if k in relative else v) for k, v in c.items()} for c in combos]

    def make(**values):
        return make_estimator(estimator, **(dict(params) | values | {"n_components": d}))

    chosen = select_hyperparameters_cv(
        make, points, X, y, stratified_kfold(y, folds, random_state=seed), [d], one_nn_accuracy
    )
    return chosen.params, combos[int(chosen.best["grid_index"])]


def select_by_cv(
    estimator: str,
    params: Mapping,
    X,
    y,
    *,
    param: str,
    values: Sequence,
    dimension: int,
    folds: int = 3,
    seed: int = 0,
):
    """The value of ``param`` among ``values`` chosen by :func:`select_params_by_cv`."""
    picked, _ = select_params_by_cv(
        estimator, params, X, y, grid={param: values}, dimension=dimension, folds=folds, seed=seed
    )
    return picked[param]


def embedding_run(
    prepared: str | os.PathLike,
    *,
    estimator: str,
    params: Mapping,
    output: str | os.PathLike,
) -> np.ndarray:
    """Fit ``estimator(**params)`` on every sample of ``prepared`` (labels passed; unsupervised
    methods ignore them) and write the embedding ``Z`` with ``y`` and ``class_names``."""
    dataset = load_npz(prepared)
    model = make_estimator(estimator, **params)
    Z = np.asarray(model.fit_transform(dataset.X, dataset.y), dtype=np.float64)
    arrays = {
        "Z": Z,
        "y": dataset.y,
        "class_names": np.asarray(dataset.class_names, dtype=np.str_),
        "n_iter": np.asarray(int(getattr(model, "n_iter_", -1))),
    }
    io.write_npz(output, arrays)
    return Z


def pca_basis(X, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and the ``k`` leading principal axes (D x k, orthonormal) of ``X``, by a thin SVD.

    Each axis's sign is fixed so its largest-magnitude entry is positive (deterministic).
    """
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    if k > Vt.shape[0]:
        raise ValueError(f"pca={k} exceeds the {Vt.shape[0]} principal axes of the data.")
    V = Vt[:k].T
    return mean, V * column_signs(V)


def _has_random_state(estimator: str) -> bool:
    return "random_state" in estimator_class(estimator)().get_params()
