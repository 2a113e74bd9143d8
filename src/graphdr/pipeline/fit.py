"""Workflow stage: fit one configured DR method on one fold and embed every part.

A *method spec* comes from the config::

    {"estimator": "KDA_GE", "params": {"kernel": "rbf"},
     "grid": {"gamma": [0.01, 0.1]}}          # optional: chosen on the validation part

The estimator is looked up by name in :mod:`graphdr.methods`. Optional *preprocessing* steps
(learnt on the training part only) come first, e.g. ``[{"name": "standard_scaler"}]``.
The model is fit once at its largest dimension; smaller dimensions are its leading columns.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler

from graphdr.datasets.prepared import load_npz
from graphdr.evaluation.classifiers import make_classifier
from graphdr.evaluation.selection import select_hyperparameters
from graphdr.methods.registry import estimator_class
from graphdr.pipeline import io, splits

#: preprocessing steps a config may name, fitted on the training part
PREPROCESSORS: dict[str, Callable] = {
    "standard_scaler": StandardScaler,
    "minmax_scaler": MinMaxScaler,
    "normalizer": Normalizer,
}


def resolve_estimator(name: str) -> type:
    """The estimator class registered as ``name`` (:mod:`graphdr.methods.registry`)."""
    return estimator_class(name)


def estimator_factory(
    spec: Mapping, preprocessing: Sequence[Mapping] = ()
) -> Callable[..., Pipeline]:
    """``make(**grid_params) -> Pipeline`` of the preprocessing steps and the configured estimator.

    Grid parameters override ``spec["params"]``; each call builds fresh, unfitted objects.
    """
    estimator = resolve_estimator(spec["estimator"])
    base = dict(spec.get("params") or {})
    for step in preprocessing:
        if step["name"] not in PREPROCESSORS:
            raise ValueError(
                f"preprocessing step {step['name']!r} is not supported: "
                f"use one of {sorted(PREPROCESSORS)}."
            )

    def make(**params):
        steps = [
            (f"{i}_{step['name']}", PREPROCESSORS[step["name"]](**(step.get("params") or {})))
            for i, step in enumerate(preprocessing)
        ]
        return Pipeline([*steps, ("dr", estimator(**(base | params)))])

    return make


def select_params(make, spec, X, y, parts, selection) -> tuple[dict, dict]:
    """Grid point of ``spec["grid"]`` with the best validation score (none: ``{}``).

    ``selection`` gives the ``classifier`` (a :func:`graphdr.evaluation.make_classifier` name
    and its ``params``) and the ``dims`` scored on the validation part (a list, or ``"all"``
    for every dimension of each grid point). Returns the chosen parameters and a small summary
    for the info file; the model is still fit at its full dimension (smaller ones are its
    leading columns), the chosen dimension is recorded.
    """
    grid = spec.get("grid")
    if not grid:
        return {}, {}
    if "val" not in parts:
        raise ValueError(
            f"method {spec['estimator']} has a grid but the split has no 'val' part: add one "
            "(e.g. sizes: {train: .., val: .., test: ..}) to select parameters on it."
        )
    classifier = selection["classifier"]
    result = select_hyperparameters(
        make,
        grid,
        X[parts["train"]],
        y[parts["train"]],
        X[parts["val"]],
        y[parts["val"]],
        None if selection.get("dims", "all") == "all" else selection["dims"],
        make_classifier(classifier["name"], **(classifier.get("params") or {})),
    )
    summary = {"params": result.params, "dim": result.dim, "val_score": result.score}
    return result.params, summary


def embed_parts(model, X, y, parts) -> dict[str, np.ndarray]:
    """``Z_<part>``, ``y_<part>`` and ``idx_<part>`` of every part, from the fitted model."""
    arrays = {}
    for part in sorted(parts):
        idx = parts[part]
        arrays[f"Z_{part}"] = np.asarray(model.transform(X[idx]), dtype=np.float64)
        arrays[f"y_{part}"] = y[idx]
        arrays[f"idx_{part}"] = idx
    return arrays


def fit_embed(
    prepared: str | os.PathLike,
    split_file: str | os.PathLike,
    *,
    fold: int,
    method: Mapping,
    preprocessing: Sequence[Mapping] = (),
    selection: Mapping | None = None,
    model_path: str | os.PathLike,
    embedding_path: str | os.PathLike,
    info_path: str | os.PathLike,
) -> dict:
    """Fit ``method`` on the training part of ``fold`` and write model, embedding and info.

    The embedding file holds ``Z_<part>``, ``y_<part>``, ``idx_<part>`` for every part of the
    fold and ``class_names``. The info file (JSON) holds the parameters used, the grid choice
    and the fit/transform times (times vary run to run, so they stay out of the embedding).
    """
    dataset = load_npz(prepared)
    parts = splits.read_fold(split_file, fold)
    X, y = dataset.X, dataset.y
    make = estimator_factory(method, preprocessing)
    chosen, summary = select_params(make, method, X, y, parts, selection or {})
    model = make(**chosen)
    start = time.perf_counter()
    model.fit(X[parts["train"]], y[parts["train"]])
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    arrays = embed_parts(model, X, y, parts)
    transform_seconds = time.perf_counter() - start
    arrays["class_names"] = np.asarray(dataset.class_names, dtype=np.str_)
    info = {
        "estimator": method["estimator"],
        "params": dict(method.get("params") or {}) | chosen,
        "selection": summary,
        "n_components": int(arrays["Z_train"].shape[1]),
        "parts": {part: int(idx.size) for part, idx in parts.items()},
        "fit_seconds": fit_seconds,
        "transform_seconds": transform_seconds,
    }
    io.write_pickle(model, model_path)
    io.write_npz(embedding_path, arrays)
    io.write_json(info, info_path)
    return info
