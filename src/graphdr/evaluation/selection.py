"""Scoring every dimension from one fit, and validation-based selection of parameters.

The central rule of the project lives in :func:`score_dimensions`: a DR model is fit once at
the largest dimension and every smaller dimension is scored on the leading columns of that one
embedding. :func:`validation_table`, :func:`select_hyperparameters`,
:func:`select_hyperparameters_cv` and :func:`cross_validate_dimensions` fit one DR model per grid
point (and split); :func:`min_error_over_dimensions` summarises CV curves;
:func:`grid_edge` says whether a selected value sits on the edge of the values tried.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import _safe_indexing
from tqdm.auto import tqdm

from graphdr.evaluation._checks import check_embeddings, check_labels
from graphdr.evaluation.classifiers import make_classifier
from graphdr.evaluation.metrics import accuracy

__all__ = [
    "Selection",
    "DimensionOptimum",
    "score_dimensions",
    "validation_table",
    "select_hyperparameters",
    "select_hyperparameters_cv",
    "cross_validate_dimensions",
    "min_error_over_dimensions",
    "grid_edge",
]


def _as_scorer(classifier, params: Mapping[str, Any] | None = None) -> Callable[..., float]:
    """Turn a classifier spec into ``scorer(Z_train, y_train, Z_eval, y_eval) -> float``.

    A spec is a name for :func:`make_classifier`, an (unfitted) scikit-learn classifier, or a
    scorer callable; ``params`` configure it (make_classifier keywords, set_params, or keywords
    of the callable). Estimators score by accuracy.
    """
    params = dict(params or {})
    if isinstance(classifier, str):
        template = make_classifier(classifier, **params)
    elif hasattr(classifier, "fit"):
        template = clone(classifier).set_params(**params)
    elif callable(classifier):
        return functools.partial(classifier, **params)
    else:
        raise TypeError(
            f"classifier must be a name, a scikit-learn classifier or a scorer callable, "
            f"got {type(classifier).__name__}."
        )

    def score(Z_train, y_train, Z_eval, y_eval):
        return accuracy(y_eval, clone(template).fit(Z_train, y_train).predict(Z_eval))

    return score


def _check_dims(dims, n_columns: int) -> np.ndarray:
    if dims is None:
        return np.arange(1, n_columns + 1)
    dims = np.unique(np.asarray(dims))
    if dims.size == 0 or not np.issubdtype(dims.dtype, np.integer) or dims[0] < 1:
        raise ValueError(f"dims must be positive integers, got {dims.tolist()}.")
    if dims[-1] > n_columns:
        raise ValueError(
            f"dims contains {dims[-1]}, larger than the {n_columns} columns of the embedding: "
            f"fit the DR model once at n_components = max(dims) = {dims[-1]}."
        )
    return dims


def _score_leading_columns(Z_train, y_train, Z_eval, y_eval, dims, scorer) -> np.ndarray:
    scores = np.empty(dims.size)
    for i, d in enumerate(dims):
        value = scorer(Z_train[:, :d], y_train, Z_eval[:, :d], y_eval)
        if not np.isfinite(value):
            raise ValueError(f"the classifier's score at dimension {d} is {value}.")
        scores[i] = value
    return scores


def score_dimensions(Z_train, y_train, Z_eval, y_eval, dims=None, classifier="1nn") -> pd.DataFrame:
    """Score a classifier on the leading d columns of one embedding, for each d in ``dims``.

    ``Z_train``/``Z_eval`` come from ONE DR model fit at the largest dimension; nothing is refit
    but the classifier. ``dims=None`` means 1..n_columns. ``classifier`` is a
    :func:`make_classifier` name, a scikit-learn classifier (scored by accuracy) or a scorer
    callable ``f(Z_train, y_train, Z_eval, y_eval) -> float`` such as :func:`ovr_svm_map`.
    Returns a DataFrame with columns ``dim`` and ``score`` (higher is better), sorted by dim.
    """
    Z_train, Z_eval = check_embeddings(Z_train, Z_eval, ("Z_train", "Z_eval"))
    y_train = check_labels(y_train, Z_train.shape[0], "y_train")
    y_eval = check_labels(y_eval, Z_eval.shape[0], "y_eval")
    dims = _check_dims(dims, Z_train.shape[1])
    scores = _score_leading_columns(Z_train, y_train, Z_eval, y_eval, dims, _as_scorer(classifier))
    return pd.DataFrame({"dim": dims, "score": scores})


def _expand_grid(grid) -> list[dict]:
    """Grid points in a fixed order (scikit-learn's ParameterGrid order).

    ``grid`` is a mapping ``param -> list of values``, or a sequence of such mappings (in which
    a scalar or string value stands for a one-value list). ``None`` or ``{}`` is one empty point.
    """
    if grid is None:
        return [{}]
    if isinstance(grid, Mapping):
        grid = [grid]

    def as_list(v):
        return v if isinstance(v, Sequence | np.ndarray) and not isinstance(v, str) else [v]

    return list(ParameterGrid([{k: as_list(v) for k, v in g.items()} for g in grid]))


def _embed(make_estimator, params, X_train, y_train, X_eval, fit_kwargs, transform_kwargs):
    """Fit one DR model (``make_estimator(**params)``) and embed the training and eval data."""
    est = make_estimator(**params)
    Z_train = est.fit_transform(X_train, y_train, **(fit_kwargs or {}))
    Z_eval = est.transform(X_eval, **(transform_kwargs or {}))
    return Z_train, Z_eval


def validation_table(
    make_estimator: Callable[..., Any],
    grid,
    X_train,
    y_train,
    X_val,
    y_val,
    dims,
    classifier="1nn",
    *,
    classifier_grid=None,
    fit_kwargs: Mapping[str, Any] | None = None,
    transform_kwargs: Mapping[str, Any] | None = None,
    verbose: bool = False,
) -> pd.DataFrame:
    """Tidy validation scores of every (grid point, classifier setting, dimension).

    The DR model ``make_estimator(**params)`` is fit ONCE per point of ``grid`` (which holds
    only parameters that change the model, never the dimension: the estimator must produce at
    least ``max(dims)`` columns); its two embeddings are then scored at every dimension and for
    every point of ``classifier_grid`` (e.g. ``{"C": [1, 10]}`` for an SVM). Columns:
    ``grid_index``, the DR parameters, ``classifier_index``, the classifier parameters prefixed
    ``classifier__``, ``dim``, ``score``.
    """
    points, cpoints = _expand_grid(grid), _expand_grid(classifier_grid)
    scorers = [_as_scorer(classifier, cp) for cp in cpoints]
    reserved = {"grid_index", "classifier_index", "dim", "score", "fold"}
    if clash := reserved & {k for p in points for k in p}:
        raise ValueError(f"grid parameters {sorted(clash)} clash with the table's own columns.")
    rows = []
    for g, params in enumerate(tqdm(points, desc="grid", disable=not verbose)):
        Z_train, Z_val = _embed(
            make_estimator, params, X_train, y_train, X_val, fit_kwargs, transform_kwargs
        )
        Z_train, Z_val = check_embeddings(Z_train, Z_val, ("Z_train", "Z_val"))
        dim_values = _check_dims(dims, Z_train.shape[1])
        for c, (cparams, scorer) in enumerate(zip(cpoints, scorers, strict=True)):
            scores = _score_leading_columns(
                Z_train, np.asarray(y_train), Z_val, np.asarray(y_val), dim_values, scorer
            )
            prefixed = {f"classifier__{k}": v for k, v in cparams.items()}
            for d, s in zip(dim_values, scores, strict=True):
                rows.append(
                    {
                        "grid_index": g,
                        **params,
                        "classifier_index": c,
                        **prefixed,
                        "dim": d,
                        "score": s,
                    }
                )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Selection:
    """Result of a validation-based selection.

    ``table`` holds every scored (grid point, classifier setting, dimension); ``best`` is its
    winning row; ``params``/``classifier_params`` are the winning grid points exactly as given
    (not read back from the table), ``dim`` the winning dimension and ``score`` its score.
    ``fold_table`` holds the per-fold scores when the selection used several splits.
    """

    table: pd.DataFrame
    best: pd.Series
    params: dict
    classifier_params: dict
    dim: int
    score: float
    fold_table: pd.DataFrame | None = None


def _best_row(table: pd.DataFrame) -> int:
    """Row label of the highest score; ties go to the smallest dim, then grid order."""
    top = table[table["score"] == table["score"].max()]
    order = top.sort_values(["dim", "grid_index", "classifier_index"], kind="stable")
    return order.index[0]


def _selection(table, points, cpoints, fold_table=None) -> Selection:
    best = table.loc[_best_row(table)]
    return Selection(
        table=table,
        best=best,
        params=dict(points[int(best["grid_index"])]),
        classifier_params=dict(cpoints[int(best["classifier_index"])]),
        dim=int(best["dim"]),
        score=float(best["score"]),
        fold_table=fold_table,
    )


def select_hyperparameters(
    make_estimator: Callable[..., Any],
    grid,
    X_train,
    y_train,
    X_val,
    y_val,
    dims,
    classifier="1nn",
    *,
    classifier_grid=None,
    fit_kwargs: Mapping[str, Any] | None = None,
    transform_kwargs: Mapping[str, Any] | None = None,
    verbose: bool = False,
) -> Selection:
    """Pick DR parameters, classifier parameters and dimension on one validation split.

    Runs :func:`validation_table` (one DR fit per grid point, every dimension scored from it)
    and returns the best row: highest score, ties broken by the smallest dimension, then grid
    order, then classifier-grid order.
    """
    table = validation_table(
        make_estimator,
        grid,
        X_train,
        y_train,
        X_val,
        y_val,
        dims,
        classifier,
        classifier_grid=classifier_grid,
        fit_kwargs=fit_kwargs,
        transform_kwargs=transform_kwargs,
        verbose=verbose,
    )
    return _selection(table, _expand_grid(grid), _expand_grid(classifier_grid))


def _index_sample_params(params: Mapping[str, Any] | None, idx, n_samples: int) -> dict:
    """Subset the per-sample entries (length n_samples) of fit/transform keywords to ``idx``."""
    out = {}
    for key, value in (params or {}).items():
        if hasattr(value, "__len__") and not isinstance(value, str) and len(value) == n_samples:
            value = _safe_indexing(value, idx)
        out[key] = value
    return out


def _fold_tables(
    make_estimator,
    grid,
    X,
    y,
    splits,
    dims,
    classifier,
    classifier_grid,
    fit_kwargs,
    transform_kwargs,
    verbose,
):
    y = np.asarray(y)
    n = y.shape[0]
    tables = []
    for f, (train, val) in enumerate(tqdm(list(splits), desc="splits", disable=not verbose)):
        table = validation_table(
            make_estimator,
            grid,
            _safe_indexing(X, train),
            y[train],
            _safe_indexing(X, val),
            y[val],
            dims,
            classifier,
            classifier_grid=classifier_grid,
            fit_kwargs=_index_sample_params(fit_kwargs, train, n),
            transform_kwargs=_index_sample_params(transform_kwargs, val, n),
        )
        tables.append(table.assign(fold=f))
    return pd.concat(tables, ignore_index=True)


def select_hyperparameters_cv(
    make_estimator: Callable[..., Any],
    grid,
    X,
    y,
    splits: Iterable[tuple[np.ndarray, np.ndarray]],
    dims,
    classifier="1nn",
    *,
    classifier_grid=None,
    fit_kwargs: Mapping[str, Any] | None = None,
    transform_kwargs: Mapping[str, Any] | None = None,
    verbose: bool = False,
) -> Selection:
    """Like :func:`select_hyperparameters`, with the score averaged over several splits.

    ``splits`` yields ``(train_idx, val_idx)`` into X and y (e.g. :func:`stratified_kfold` or
    :func:`stratified_shuffle_splits`). Keywords in ``fit_kwargs``/``transform_kwargs`` whose
    length is ``len(y)`` (per-sample uncertainties, weights) are subset with the split. The
    returned table has the mean ``score``, its ``score_std`` (ddof=0) and ``n_folds``.
    """
    folds = _fold_tables(
        make_estimator,
        grid,
        X,
        y,
        splits,
        dims,
        classifier,
        classifier_grid,
        fit_kwargs,
        transform_kwargs,
        verbose,
    )
    keys = ["grid_index", "classifier_index", "dim"]
    grouped = folds.groupby(keys, sort=True)["score"]
    stats = pd.DataFrame(
        {"score": grouped.mean(), "score_std": grouped.std(ddof=0), "n_folds": grouped.size()}
    )
    n_splits = folds["fold"].nunique()
    if (stats["n_folds"] != n_splits).any():
        raise ValueError(
            f"some (grid point, dimension) pairs were scored on fewer than the {n_splits} splits: "
            "give dims explicitly so that every split scores the same dimensions."
        )
    labels = folds.drop(columns=["score", "fold"]).drop_duplicates(keys).set_index(keys)
    table = labels.join(stats).reset_index()
    table = table[[c for c in folds.columns if c not in ("score", "fold")] + list(stats.columns)]
    return _selection(table, _expand_grid(grid), _expand_grid(classifier_grid), fold_table=folds)


def cross_validate_dimensions(
    make_estimator: Callable[..., Any],
    X,
    y,
    splits: Iterable[tuple[np.ndarray, np.ndarray]],
    dims,
    classifier="1nn",
    *,
    params: Mapping[str, Any] | None = None,
    fit_kwargs: Mapping[str, Any] | None = None,
    transform_kwargs: Mapping[str, Any] | None = None,
    verbose: bool = False,
) -> pd.DataFrame:
    """Test score at every dimension on every split, one DR fit per split.

    Returns columns ``fold``, ``dim``, ``score``: the input of :func:`min_error_over_dimensions`
    (paper 001's CV tables) and of accuracy-against-dimension curves (paper 003).
    """
    grid = [{k: [v] for k, v in (params or {}).items()}]
    folds = _fold_tables(
        make_estimator,
        grid,
        X,
        y,
        splits,
        dims,
        classifier,
        None,
        fit_kwargs,
        transform_kwargs,
        verbose,
    )
    return folds[["fold", "dim", "score"]]


class DimensionOptimum(NamedTuple):
    """Lowest mean error over dimensions: its value, its dimension, the spread over folds."""

    error: float
    dim: int
    std: float
    curve: pd.DataFrame


def min_error_over_dimensions(scores: pd.DataFrame | Sequence[pd.DataFrame]) -> DimensionOptimum:
    """Minimum over dimensions of the mean error (1 - accuracy), with that dimension.

    ``scores`` has columns ``dim`` and ``score`` (accuracy), one row per dimension and fold
    (from :func:`cross_validate_dimensions`), or is a list of :func:`score_dimensions` frames,
    one per fold. Errors are averaged over folds first, then minimised; ties go to the smallest
    dimension. ``std`` is the standard deviation (ddof=0) of the fold errors at that dimension
    and ``curve`` the mean error at every dimension (columns ``dim``, ``error``, ``std``).
    """
    if not isinstance(scores, pd.DataFrame):
        scores = pd.concat([s.assign(fold=i) for i, s in enumerate(scores)], ignore_index=True)
    if not {"dim", "score"} <= set(scores.columns):
        raise ValueError(f"scores needs columns 'dim' and 'score', got {list(scores.columns)}.")
    counts = scores.groupby("dim").size()
    if counts.nunique() != 1:
        raise ValueError(
            f"every dimension needs the same number of folds, got {counts.to_dict()}: "
            "a fold is missing some dimensions."
        )
    errors = scores.assign(error=1.0 - scores["score"]).groupby("dim", sort=True)["error"]
    curve = pd.DataFrame({"error": errors.mean(), "std": errors.std(ddof=0)}).reset_index()
    best = curve.index[curve["error"] == curve["error"].min()][0]
    row = curve.loc[best]
    return DimensionOptimum(float(row["error"]), int(row["dim"]), float(row["std"]), curve)


def grid_edge(value, tried) -> str | None:
    """``"low"`` / ``"high"`` when ``value`` is (``np.isclose``) the smallest / largest of the
    distinct values ``tried``, ``None`` when it is inside them or only one value was tried.

    A value selected on the edge of its grid is not a tuned value: the optimum may lie beyond it
    (``../shared/docs/evidence.md``, section 5). Papers 002 and 004 flag such selections.
    """
    tried = np.unique(np.asarray(tried, dtype=float))
    if tried.size < 2:
        return None
    if np.isclose(value, tried[0]):
        return "low"
    if np.isclose(value, tried[-1]):
        return "high"
    return None
