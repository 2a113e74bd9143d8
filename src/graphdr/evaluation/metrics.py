"""Scores of predictions: accuracy, error rate, average precision per class and its mean (MAP)."""

from __future__ import annotations

import numpy as np

from graphdr.evaluation._checks import check_labels, label_text

__all__ = ["accuracy", "error_rate", "average_precision_per_class", "mean_average_precision"]


def accuracy(y_true, y_pred) -> float:
    """Fraction of correct predictions, ``mean(y_true == y_pred)``."""
    y_true = np.asarray(y_true)
    y_pred = check_labels(y_pred, y_true.shape[0], "y_pred")
    return float(np.mean(y_true == y_pred))


def error_rate(y_true, y_pred) -> float:
    """Fraction of wrong predictions, ``mean(y_true != y_pred)`` (= 1 - accuracy)."""
    y_true = np.asarray(y_true)
    y_pred = check_labels(y_pred, y_true.shape[0], "y_pred")
    return float(np.mean(y_true != y_pred))


def _average_precision(positive: np.ndarray, score: np.ndarray) -> float:
    """Non-interpolated AP = sum_t (R_t - R_{t-1}) P_t over the distinct score thresholds t.

    Samples with equal scores share one threshold (they enter the ranking together), which is
    the convention of ``sklearn.metrics.average_precision_score``. The AP is therefore the same
    bit for bit whatever order the sort leaves equal scores in (only the counts at the end of
    each run of equal scores enter it): numpy's default sort, 4x faster than its stable one.
    """
    order = np.argsort(score)[::-1]
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
    y_true = check_labels(y_true, scores.shape[0], "y_true")
    ap = np.empty(classes.size)
    for k, c in enumerate(classes):
        positive = y_true == c
        if not positive.any():
            raise ValueError(
                f"class {label_text(c)} has no sample in y_true: its average precision is undefined."
            )
        ap[k] = _average_precision(positive, scores[:, k])
    return ap


def mean_average_precision(y_true, scores, classes) -> float:
    """MAP = mean over classes of :func:`average_precision_per_class`."""
    return float(np.mean(average_precision_per_class(y_true, scores, classes)))
