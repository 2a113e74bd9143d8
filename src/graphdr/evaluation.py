"""Evaluation protocol shared by the reproduced papers: classifiers, metrics, splits, selection.

Everything here works on index arrays and embeddings, never on a DR model's internals, so one
protocol serves every method. The central rule of the project lives in :func:`score_dimensions`:
a DR model is fit once at the largest dimension and every smaller dimension is scored on the
leading columns of that one embedding.

* Classifiers: :func:`make_classifier` (1-NN, k-NN, nearest class centroid, linear and RBF SVM,
  decision tree) and :func:`ovr_linear_svm_scores` (one-vs-rest confidence scores for MAP).
* Metrics: :func:`accuracy`, :func:`error_rate`, :func:`average_precision_per_class`,
  :func:`mean_average_precision`.
* Splits (all return sorted index arrays and are reproducible from ``random_state``):
  :func:`per_class_index_split`, :func:`stratified_split`, :func:`per_class_count_split`,
  :func:`stratified_kfold`, :func:`stratified_shuffle_splits`.
* Selection: :func:`score_dimensions`, :func:`validation_table`, :func:`select_hyperparameters`,
  :func:`select_hyperparameters_cv`, :func:`cross_validate_dimensions`,
  :func:`min_error_over_dimensions`.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import _safe_indexing, check_random_state
from tqdm.auto import tqdm

__all__ = [
    "CLASSIFIERS",
    "Selection",
    "DimensionOptimum",
    "make_classifier",
    "ovr_linear_svm_scores",
    "ovr_svm_map",
    "accuracy",
    "error_rate",
    "average_precision_per_class",
    "mean_average_precision",
    "per_class_index_split",
    "stratified_split",
    "per_class_count_split",
    "stratified_kfold",
    "stratified_shuffle_splits",
    "score_dimensions",
    "validation_table",
    "select_hyperparameters",
    "select_hyperparameters_cv",
    "cross_validate_dimensions",
    "min_error_over_dimensions",
]

CLASSIFIERS = ("1nn", "knn", "ncc", "linear_svm", "rbf_svm", "tree")

# --------------------------------------------------------------------------------------------
# Classifiers
# --------------------------------------------------------------------------------------------


def _linear_svm(C, solver, random_state, class_weight=None):
    """Hinge-loss linear SVM: libsvm (exact, the papers' tool) or liblinear (fast on large n)."""
    if solver == "libsvm":
        return SVC(kernel="linear", C=C, class_weight=class_weight)
    if solver == "liblinear":
        # loss="hinge" keeps the objective of libsvm; liblinear also penalises the intercept.
        return LinearSVC(
            C=C,
            loss="hinge",
            dual=True,
            max_iter=10_000,
            class_weight=class_weight,
            random_state=random_state,
        )
    raise ValueError(f"solver={solver!r} is not supported: use 'libsvm' or 'liblinear'.")


def _rbf_gamma(sigma, gamma):
    """RBF width: k(a, b) = exp(-gamma ||a - b||^2) with gamma = 1 / (2 sigma^2)."""
    if sigma is not None and gamma is not None:
        raise ValueError(
            f"Give sigma or gamma, not both (sigma={sigma}, gamma={gamma}): "
            "gamma = 1 / (2 sigma^2) is derived from sigma."
        )
    if sigma is None:
        return "scale" if gamma is None else gamma
    if not sigma > 0:
        raise ValueError(f"sigma={sigma} must be positive: it is the RBF kernel width.")
    return 1.0 / (2.0 * float(sigma) ** 2)


def make_classifier(name: str, *, random_state=0, **params):
    """Return an unfitted scikit-learn classifier for a subspace, chosen by name.

    ``name`` is one of :data:`CLASSIFIERS`:

    ========== ===================================== ===========================================
    name       estimator                             parameters
    ========== ===================================== ===========================================
    1nn        ``KNeighborsClassifier(n_neighbors=1)``
    knn        ``KNeighborsClassifier``              ``k`` (default 1)
    ncc        ``NearestCentroid``                   (nearest class mean, Euclidean)
    linear_svm ``SVC(kernel="linear")``              ``C`` (default 1), ``solver`` ("libsvm" or
                                                     "liblinear" for ``LinearSVC(loss="hinge")``)
    rbf_svm    ``SVC(kernel="rbf")``                 ``C``, ``sigma`` (gamma = 1/(2 sigma^2)) or
                                                     ``gamma`` (default scikit-learn's "scale")
    tree       ``DecisionTreeClassifier``            ``random_state``
    ========== ===================================== ===========================================

    Any other keyword is passed to the estimator's ``set_params`` (so a wrong name raises).
    ``random_state`` is accepted for every name and used where the estimator is random (tree,
    liblinear); its default 0 keeps results identical run to run (a tree breaks ties between
    equally good splits at random).
    """
    if name == "1nn":
        if params.pop("k", 1) != 1:
            raise ValueError("'1nn' has k=1 by definition: use name='knn' to choose k.")
        est = KNeighborsClassifier(n_neighbors=1)
    elif name == "knn":
        est = KNeighborsClassifier(n_neighbors=params.pop("k", 1))
    elif name == "ncc":
        est = NearestCentroid()
    elif name == "linear_svm":
        est = _linear_svm(params.pop("C", 1.0), params.pop("solver", "libsvm"), random_state)
    elif name == "rbf_svm":
        gamma = _rbf_gamma(params.pop("sigma", None), params.pop("gamma", None))
        est = SVC(kernel="rbf", C=params.pop("C", 1.0), gamma=gamma)
    elif name == "tree":
        est = DecisionTreeClassifier(random_state=random_state)
    else:
        raise ValueError(f"Unknown classifier {name!r}: expected one of {', '.join(CLASSIFIERS)}.")
    return est.set_params(**params)


def _label(c) -> str:
    """A class label for messages: ``3``, not numpy 2's ``np.int64(3)``."""
    return repr(c.item() if isinstance(c, np.generic) else c)


def _check_embeddings(Z_train, Z_test, names=("Z_train", "Z_test")):
    """2-D, finite, float arrays with the same number of columns."""
    Z_train = np.asarray(Z_train, dtype=float)
    Z_test = np.asarray(Z_test, dtype=float)
    for Z, what in zip((Z_train, Z_test), names, strict=True):
        if Z.ndim != 2:
            raise ValueError(f"{what} must be 2-D (samples x dimensions), got shape {Z.shape}.")
        if not np.isfinite(Z).all():
            raise ValueError(f"{what} contains NaN or inf: the DR model produced invalid values.")
    if Z_train.shape[1] != Z_test.shape[1]:
        raise ValueError(
            f"{names[0]} has {Z_train.shape[1]} columns but {names[1]} has {Z_test.shape[1]}: "
            "both must come from the same fitted model."
        )
    return Z_train, Z_test


def _check_labels(y, n, what="y"):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {y.shape}.")
    if y.shape[0] != n:
        raise ValueError(f"{what} has {y.shape[0]} labels but the data has {n} samples.")
    return y


def ovr_linear_svm_scores(
    Z_train,
    y_train,
    Z_test,
    C: float = 1.0,
    *,
    classes=None,
    solver: str = "libsvm",
    class_weight=None,
    random_state=0,
) -> np.ndarray:
    """One-vs-rest linear-SVM decision values, shape (n_test, n_classes).

    Column k holds ``w_k . z + b_k`` of the binary SVM trained with class ``classes[k]`` as
    positive and every other class as negative (the AKDA/AKSDA protocol, which ranks test
    samples per class for average precision). ``classes`` defaults to the sorted labels of
    ``y_train``.
    """
    Z_train, Z_test = _check_embeddings(Z_train, Z_test)
    y_train = _check_labels(y_train, Z_train.shape[0], "y_train")
    classes = np.unique(y_train) if classes is None else np.asarray(classes)
    scores = np.empty((Z_test.shape[0], classes.size))
    for k, c in enumerate(classes):
        target = (y_train == c).astype(int)
        if target.all() or not target.any():
            raise ValueError(
                f"class {_label(c)} has {int(target.sum())} of {target.size} training samples: "
                "a one-vs-rest SVM needs both positive and negative samples."
            )
        svm = _linear_svm(C, solver, random_state, class_weight).fit(Z_train, target)
        scores[:, k] = svm.decision_function(Z_test)
    return scores


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


def accuracy(y_true, y_pred) -> float:
    """Fraction of correct predictions, ``mean(y_true == y_pred)``."""
    y_true = np.asarray(y_true)
    y_pred = _check_labels(y_pred, y_true.shape[0], "y_pred")
    return float(np.mean(y_true == y_pred))


def error_rate(y_true, y_pred) -> float:
    """Fraction of wrong predictions, ``mean(y_true != y_pred)`` (= 1 - accuracy)."""
    y_true = np.asarray(y_true)
    y_pred = _check_labels(y_pred, y_true.shape[0], "y_pred")
    return float(np.mean(y_true != y_pred))


def _average_precision(positive: np.ndarray, score: np.ndarray) -> float:
    """Non-interpolated AP = sum_t (R_t - R_{t-1}) P_t over the distinct score thresholds t.

    Samples with equal scores share one threshold (they enter the ranking together), which is
    the convention of ``sklearn.metrics.average_precision_score``.
    """
    order = np.argsort(score, kind="stable")[::-1]
    s, pos = score[order], positive[order]
    last_of_run = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]
    tp = np.cumsum(pos)[last_of_run]
    n_ranked = last_of_run + 1
    precision = tp / n_ranked
    recall_step = np.diff(np.r_[0, tp]) / tp[-1]
    return float(np.sum(recall_step * precision))


def average_precision_per_class(y_true, scores, classes) -> np.ndarray:
    """Average precision of each class, ranking all samples by ``scores[:, k]``.

    ``scores`` is (n_samples, n_classes), column k the confidence for ``classes[k]`` (e.g. from
    :func:`ovr_linear_svm_scores`). A class without any positive sample in ``y_true`` has no
    defined AP and raises.
    """
    scores = np.asarray(scores, dtype=float)
    classes = np.asarray(classes)
    if scores.ndim != 2 or scores.shape[1] != classes.size:
        raise ValueError(
            f"scores must have shape (n_samples, {classes.size}) for {classes.size} classes, "
            f"got {scores.shape}."
        )
    if not np.isfinite(scores).all():
        raise ValueError("scores contains NaN or inf.")
    y_true = _check_labels(y_true, scores.shape[0], "y_true")
    ap = np.empty(classes.size)
    for k, c in enumerate(classes):
        positive = y_true == c
        if not positive.any():
            raise ValueError(
                f"class {_label(c)} has no sample in y_true: its average precision is undefined."
            )
        ap[k] = _average_precision(positive, scores[:, k])
    return ap


def mean_average_precision(y_true, scores, classes) -> float:
    """MAP = mean over classes of :func:`average_precision_per_class`."""
    return float(np.mean(average_precision_per_class(y_true, scores, classes)))


def ovr_svm_map(Z_train, y_train, Z_eval, y_eval, *, C: float = 1.0, **svm_params) -> float:
    """Scorer: MAP of one-vs-rest linear SVMs trained on Z_train, ranked on Z_eval.

    Usable as the ``classifier`` of :func:`score_dimensions` and the selection functions (with
    ``classifier_grid={"C": [...]}`` to search the SVM cost).
    """
    classes = np.unique(y_train)
    scores = ovr_linear_svm_scores(Z_train, y_train, Z_eval, C, classes=classes, **svm_params)
    return mean_average_precision(y_eval, scores, classes)


# --------------------------------------------------------------------------------------------
# Splits
# --------------------------------------------------------------------------------------------


def _class_indices(y):
    """Sorted class labels and, per class, its sample indices in the order they appear in y."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}.")
    classes, inverse = np.unique(y, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.cumsum(np.bincount(inverse, minlength=classes.size))[:-1]
    return classes, np.split(order, bounds)


def per_class_index_split(y, ranges: Mapping[str, tuple[int, int | None]]) -> dict[str, np.ndarray]:
    """Split every class by position within the class: ``ranges = {name: (start, stop)}``.

    Positions are 0-based and half-open, counted in the order the samples of a class appear in
    ``y``. COIL20's "images 1-55 train, 56-60 validation, 61-72 test" of each object is
    ``{"train": (0, 55), "val": (55, 60), "test": (60, 72)}``; ``stop=None`` means the end of
    the class. Ranges must not overlap.
    """
    spans = {}
    for name, (start, stop) in ranges.items():
        if start < 0 or (stop is not None and stop <= start):
            raise ValueError(f"range {name}=({start}, {stop}) must satisfy 0 <= start < stop.")
        spans[name] = (int(start), None if stop is None else int(stop))
    ordered = sorted(spans.items(), key=lambda kv: kv[1][0])
    for (a, (_, a_stop)), (b, (b_start, _)) in zip(ordered, ordered[1:], strict=False):
        if a_stop is None or a_stop > b_start:
            raise ValueError(f"ranges {a!r} and {b!r} overlap: the parts must be disjoint.")
    classes, members = _class_indices(y)
    parts = {name: [] for name in spans}
    for c, idx in zip(classes, members, strict=True):
        for name, (start, stop) in spans.items():
            if (stop or start + 1) > idx.size:
                raise ValueError(
                    f"range {name}=({start}, {stop}) needs {stop or start + 1} samples per class "
                    f"but class {_label(c)} has {idx.size}."
                )
            parts[name].append(idx[start:stop])
    return {name: np.sort(np.concatenate(chunks)) for name, chunks in parts.items()}


def _apportion(total: int, weights: np.ndarray, capacity: np.ndarray | None = None) -> np.ndarray:
    """Integers summing to ``total``, proportional to ``weights`` (largest remainder).

    Each share is floor(total * w_i / sum w), then the units left go one by one to the largest
    fractional parts (ties to the lower index), never above ``capacity``.
    """
    weights = np.asarray(weights, dtype=float)
    capacity = np.full(weights.size, np.iinfo(np.int64).max) if capacity is None else capacity
    exact = total * weights / weights.sum()
    shares = np.minimum(np.floor(exact).astype(np.int64), capacity)
    order = np.argsort(-(exact - shares), kind="stable")
    while (left := total - shares.sum()) > 0:
        room = order[shares[order] < capacity[order]]
        if room.size == 0:
            raise ValueError(f"cannot place {total} samples: only {capacity.sum()} available.")
        shares[room[:left]] += 1
    return shares


def _part_sizes(sizes: Mapping[str, int | float | None], n: int) -> dict[str, int]:
    """Counts per part: ints are counts, floats in (0, 1] fractions of n, one None the rest."""
    counts, fractions, rest = {}, {}, [k for k, v in sizes.items() if v is None]
    for name, v in sizes.items():
        if v is None:
            continue
        if isinstance(v, numbers.Integral):
            if v < 0:
                raise ValueError(f"size {name}={v} must be non-negative.")
            counts[name] = int(v)
        elif isinstance(v, numbers.Real) and 0 < v <= 1:
            fractions[name] = float(v)
        else:
            raise ValueError(f"size {name}={v!r} must be a count, a fraction in (0, 1] or None.")
    if len(rest) > 1:
        raise ValueError(f"only one part may be None (the rest), got {rest}.")
    if fractions:
        total = round(sum(fractions.values()) * n)
        shares = _apportion(total, np.array(list(fractions.values())))
        counts.update(zip(fractions, shares, strict=True))
    used = sum(counts.values())
    if used > n:
        raise ValueError(f"sizes {dict(sizes)} ask for {used} samples but y has only {n}.")
    if rest:
        counts[rest[0]] = n - used
    return {name: int(counts[name]) for name in sizes}


def stratified_split(
    y, sizes: Mapping[str, int | float | None], *, random_state
) -> dict[str, np.ndarray]:
    """Seeded stratified split into named disjoint parts, e.g. ``{"train": 6000, "val": 1000}``.

    Each part has exactly the requested total; within it, class counts are proportional to the
    class frequencies of ``y`` (largest-remainder rounding, so they are exact whenever the
    proportions are integers). Sizes are counts, fractions of ``len(y)`` or one ``None`` for
    everything left; samples not requested by any part are left out (USPS: 6000 + 1000 of 7291).
    """
    classes, members = _class_indices(y)
    n_class = np.array([m.size for m in members])
    counts = _part_sizes(sizes, int(n_class.sum()))
    rng = check_random_state(random_state)
    # per-class allocation, part after part, never taking more than a class has left
    alloc, left = {}, n_class.copy()
    for name, count in counts.items():
        alloc[name] = _apportion(count, n_class, capacity=left)
        left = left - alloc[name]
    parts = {name: [] for name in counts}
    for k, idx in enumerate(members):
        shuffled = rng.permutation(idx)
        start = 0
        for name in counts:
            parts[name].append(shuffled[start : start + alloc[name][k]])
            start += alloc[name][k]
    return {name: np.sort(np.concatenate(chunks)) for name, chunks in parts.items()}


def per_class_count_split(
    y, n_per_class: int, *, random_state, max_train_fraction: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded ``n_per_class`` training samples per class, the rest test (AKDA 10Ex/100Ex).

    A class trains on ``min(n_per_class, floor(max_train_fraction * n_c))`` samples (at least 1):
    with the default 0.5, classes with fewer than ``2 * n_per_class`` samples use half.
    Returns ``(train_idx, test_idx)``.
    """
    if not (isinstance(n_per_class, numbers.Integral) and n_per_class >= 1):
        raise ValueError(f"n_per_class={n_per_class!r} must be a positive integer.")
    if not 0 < max_train_fraction < 1:
        raise ValueError(f"max_train_fraction={max_train_fraction} must lie in (0, 1).")
    classes, members = _class_indices(y)
    rng = check_random_state(random_state)
    train, test = [], []
    for c, idx in zip(classes, members, strict=True):
        if idx.size < 2:
            raise ValueError(
                f"class {_label(c)} has {idx.size} sample: it cannot be both trained and tested."
            )
        n_train = max(1, min(int(n_per_class), int(np.floor(max_train_fraction * idx.size))))
        shuffled = rng.permutation(idx)
        train.append(shuffled[:n_train])
        test.append(shuffled[n_train:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


def stratified_kfold(y, n_splits: int, *, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded stratified k-fold: a list of ``(train_idx, test_idx)``; test folds partition y."""
    y = np.asarray(y)
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    return [(train, test) for train, test in cv.split(np.zeros((y.size, 1)), y)]


def stratified_shuffle_splits(
    y, n_splits: int, train_size: int | float, *, random_state
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` independent seeded stratified ``(train_idx, val_idx)`` splits of all of y.

    AKDA's "3-fold CV, each fold a random 30% learning / 70% validation split" is
    ``stratified_shuffle_splits(y, 3, 0.3, random_state=seed)``.
    """
    rng = check_random_state(random_state)
    splits = []
    for _ in range(n_splits):
        parts = stratified_split(y, {"train": train_size, "val": None}, random_state=rng)
        splits.append((parts["train"], parts["val"]))
    return splits


# --------------------------------------------------------------------------------------------
# Scoring every dimension from one fit, and validation-based selection
# --------------------------------------------------------------------------------------------


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
    Z_train, Z_eval = _check_embeddings(Z_train, Z_eval, ("Z_train", "Z_eval"))
    y_train = _check_labels(y_train, Z_train.shape[0], "y_train")
    y_eval = _check_labels(y_eval, Z_eval.shape[0], "y_eval")
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
        Z_train, Z_val = _check_embeddings(Z_train, Z_val, ("Z_train", "Z_val"))
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
