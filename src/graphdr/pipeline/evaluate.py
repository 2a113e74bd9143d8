"""Workflow stage: score one embedding with the configured classifiers at chosen dimensions.

A score file is tidy CSV, one row per (part, classifier, dim): columns ``experiment``,
``dataset``, ``method``, ``seed``, ``fold`` (from the job), ``part`` (val or test),
``classifier``, ``metric``, ``dim``, ``value``. Tables pick and aggregate rows from these.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphdr.evaluation.classifiers import make_classifier, ovr_svm_map
from graphdr.evaluation.selection import score_dimensions
from graphdr.pipeline import io

#: classifier names scored by mean average precision instead of accuracy
MAP_SCORERS = {"ovr_svm_map": ovr_svm_map}

SCORE_COLUMNS = ["part", "classifier", "metric", "dim", "value"]


def dimensions(policy, n_columns: int) -> list[int]:
    """Dimensions to score: ``"max"`` (the fitted one), ``"all"`` (1..n) or a list of ints.

    Listed dimensions above ``n_columns`` are dropped (LDA-like methods stop at C-1, which
    differs between datasets); an empty result is an error.
    """
    if policy in (None, "max"):
        return [n_columns]
    if policy == "all":
        return list(range(1, n_columns + 1))
    dims = sorted({int(d) for d in policy if 1 <= int(d) <= n_columns})
    if not dims:
        raise ValueError(
            f"none of the dimensions {list(policy)} is available: the embedding has "
            f"{n_columns} columns."
        )
    return dims


def _scorer(spec: Mapping):
    """``(classifier argument of score_dimensions, metric name)`` of a classifier spec."""
    name, params = spec["name"], dict(spec.get("params") or {})
    if name in MAP_SCORERS:
        return functools.partial(MAP_SCORERS[name], **params), "map"
    return make_classifier(name, **params), "accuracy"


def score_embedding(
    arrays: Mapping[str, np.ndarray], classifiers: Mapping[str, Mapping], dims_policy
) -> pd.DataFrame:
    """Score every evaluation part (``val``, ``test``) of an embedding; see the module doc."""
    Z_train, y_train = arrays["Z_train"], arrays["y_train"]
    dims = dimensions(dims_policy, Z_train.shape[1])
    frames = []
    for part in ("val", "test"):
        if f"Z_{part}" not in arrays:
            continue
        for label, spec in classifiers.items():
            classifier, metric = _scorer(spec)
            scores = score_dimensions(
                Z_train, y_train, arrays[f"Z_{part}"], arrays[f"y_{part}"], dims, classifier
            )
            frames.append(
                pd.DataFrame(
                    {
                        "part": part,
                        "classifier": label,
                        "metric": metric,
                        "dim": scores["dim"].astype(int),
                        "value": scores["score"].astype(float),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)[SCORE_COLUMNS]


def evaluate_embedding(
    embedding: str | os.PathLike,
    output: str | os.PathLike,
    *,
    classifiers: Mapping[str, Mapping],
    dims: str | Sequence[int] | None = "max",
    labels: Mapping[str, object] | None = None,
) -> pd.DataFrame:
    """Score an embedding file and write the tidy score CSV (``labels`` become first columns)."""
    scores = score_embedding(io.read_npz(embedding), classifiers, dims)
    for i, (key, value) in enumerate((labels or {}).items()):
        scores.insert(i, key, value)
    io.write_csv(scores, output)
    return scores
