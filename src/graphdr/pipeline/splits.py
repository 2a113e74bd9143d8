"""Workflow stage: draw the train/validation/test index arrays of every fold.

A *split file* (``results/splits/...npz``) holds integer index arrays into the prepared
dataset, named ``<part>.<fold>`` (``train.0``, ``val.0``, ``test.0``, ... ``test.9``) plus
``n_folds``; one file per (experiment, dataset, seed), every fold inside.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from graphdr.datasets.prepared import Dataset, load_npz
from graphdr.evaluation.splits import (
    per_class_count_split,
    per_class_index_split,
    per_class_ordered_split,
    sequential_stratified_split,
    stratified_kfold,
    stratified_kfold_validation,
    stratified_split,
)
from graphdr.pipeline import io
from graphdr.pipeline.plan import SPLIT_KINDS, n_folds

__all__ = ["SPLIT_KINDS", "make_splits", "n_folds", "read_fold", "read_folds", "split_indices"]


def split_indices(
    dataset: Dataset, spec: Mapping, seed: int | None = None
) -> list[dict[str, np.ndarray]]:
    """Index arrays of every fold: a list of ``{part: indices}`` (parts train, test, maybe val).

    ``dataset`` is a :class:`~graphdr.datasets.prepared.Dataset` (what is read: its ``y``, its
    predefined ``split`` and its ``name``).

    The one reader of split specs, for the experiments and the paper protocols alike; each kind
    is a split of :mod:`graphdr.evaluation.splits`. ``seed`` seeds the draws; None takes the
    spec's own ``seed`` (default 0). Kinds (``spec["kind"]``):

    * ``stratified`` — ``sizes: {train: .., val: .., test: ..}`` counts, fractions or one null
      for the rest, drawn together (:func:`graphdr.evaluation.stratified_split`);
    * ``sequential`` — seeded stratified draws of ``train``, then ``val``, then ``test``
      samples (disjoint; null: all the rest) from the predefined part ``pool`` (default: every
      sample); ``test: predefined`` takes the predefined "test" part instead, ``test_size``
      then optionally subsamples it; ``draws: n`` repeats it with the seeds seed, seed + 1,
      ..., and ``fixed_train: true`` keeps the training draw of ``seed`` and re-draws the rest
      (NGEU's MNIST and USPS; :func:`graphdr.evaluation.sequential_stratified_split`);
    * ``predefined`` — the dataset's own split; ``val_size`` carves a seeded stratified
      validation part out of ``train`` (:func:`graphdr.evaluation.stratified_split` with
      ``pool``);
    * ``per_class_index`` — ``ranges: {part: [start, stop]}`` by position within each class
      (:func:`graphdr.evaluation.per_class_index_split`);
    * ``per_class_ordered`` — consecutive ``train``, ``val`` and ``test`` samples per class in
      file order, ``test`` null for the rest (NGEU's COIL20: images 1-55 / 56-60 / 61-72;
      :func:`graphdr.evaluation.per_class_ordered_split`);
    * ``per_class_count`` — ``n_per_class`` training samples per class, the rest test
      (``max_train_fraction`` caps small classes);
    * ``kfold`` — ``n_folds`` seeded stratified folds (train/test) of the ``first`` samples
      (default: all), ``repeats`` times with the seeds seed, seed + 1, ...; with ``val``, a
      stratified fraction of each training fold validates (NGEU's AWGN-MNIST;
      :func:`graphdr.evaluation.stratified_kfold_validation`).
    """
    kind, y = spec["kind"], np.asarray(dataset.y)
    seed = int(spec.get("seed", 0)) if seed is None else int(seed)
    if kind == "stratified":
        return [stratified_split(y, dict(spec["sizes"]), random_state=seed)]
    if kind == "sequential":
        return _sequential(dataset, spec, seed)
    if kind == "predefined":
        return [_predefined(dataset, spec.get("val_size"), seed)]
    if kind == "per_class_index":
        ranges = {part: tuple(r) for part, r in spec["ranges"].items()}
        return [per_class_index_split(y, ranges)]
    if kind == "per_class_ordered":
        test = spec.get("test")
        counts = {
            "train": int(spec["train"]),
            "val": int(spec["val"]),
            "test": None if test is None else int(test),
        }
        return [per_class_ordered_split(y, counts)]
    if kind == "per_class_count":
        train, test = per_class_count_split(
            y,
            int(spec["n_per_class"]),
            random_state=seed,
            max_train_fraction=float(spec.get("max_train_fraction", 0.5)),
        )
        return [{"train": train, "test": test}]
    if kind == "kfold":
        first = min(int(spec.get("first") or y.size), y.size)
        repeats = int(spec.get("repeats", 1))
        if spec.get("val") is not None:
            return stratified_kfold_validation(
                y[:first], int(spec["n_folds"]), float(spec["val"]), random_state=seed,
                n_repeats=repeats,
            )  # fmt: skip
        folds = stratified_kfold(
            y[:first], int(spec["n_folds"]), random_state=seed, n_repeats=repeats
        )
        return [{"train": train, "test": test} for train, test in folds]
    raise ValueError(f"split kind {kind!r} is not supported: use one of {', '.join(SPLIT_KINDS)}.")


def _sequential(dataset, spec, seed) -> list[dict[str, np.ndarray]]:
    """The ``sequential`` kind: ``draws`` seeded draws (seeds seed, seed + 1, ...)."""
    draws = int(spec.get("draws", 1))
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}.")
    predefined = dataset.split or {}
    from_test_part = spec.get("test") == "predefined"
    wanted = (spec.get("pool"), "test" if from_test_part else None)
    missing = [part for part in wanted if part is not None and part not in predefined]
    if missing:
        raise ValueError(
            f"split kind 'sequential' asks for the predefined part(s) {missing} of "
            f"{dataset.name}, which has {sorted(predefined) or 'no predefined split'}."
        )
    pool = None if spec.get("pool") is None else np.asarray(predefined[spec["pool"]])
    # fixed_train: every draw trains on the same seeded draw and re-draws the validation part
    # only (USPS: the paper fixes the training images, not the validation ones)
    return [
        sequential_stratified_split(
            dataset.y,
            spec["train"],
            spec["val"],
            spec.get("test_size") if from_test_part else spec.get("test"),
            random_state=seed + i,
            pool=pool,
            test_pool=np.asarray(predefined["test"]) if from_test_part else None,
            train_random_state=seed if spec.get("fixed_train") else None,
        )
        for i in range(draws)
    ]


def _predefined(dataset, val_size, seed) -> dict[str, np.ndarray]:
    if not dataset.split or not {"train", "test"} <= set(dataset.split):
        found = sorted(dataset.split or {})
        raise ValueError(
            f"split kind 'predefined' needs a dataset with 'train' and 'test' parts; "
            f"{dataset.name} has {found or 'no predefined split'}: use kind 'stratified'."
        )
    parts = {k: np.sort(v) for k, v in dataset.split.items()}
    if val_size is not None:
        carved = stratified_split(
            dataset.y, {"train": None, "val": val_size}, random_state=seed, pool=parts["train"]
        )
        parts["train"], parts["val"] = carved["train"], carved["val"]
    return parts


def make_splits(
    prepared: str | os.PathLike,
    output: str | os.PathLike,
    *,
    spec: Mapping,
    seed: int | None = None,
) -> list[dict[str, np.ndarray]]:
    """Read a prepared dataset, draw the folds of ``spec`` with ``seed`` (None: the spec's own),
    write the split file."""
    folds = split_indices(load_npz(prepared), spec, seed)
    arrays = {f"{part}.{k}": idx for k, fold in enumerate(folds) for part, idx in fold.items()}
    arrays["n_folds"] = np.asarray(len(folds))
    io.write_npz(output, arrays)
    return folds


def read_fold(path: str | os.PathLike, fold: int) -> dict[str, np.ndarray]:
    """The parts of one fold of a split file: ``{"train": idx, "test": idx, ...}``."""
    arrays = io.read_npz(path)
    n = int(arrays["n_folds"])
    if not 0 <= int(fold) < n:
        raise ValueError(f"fold={fold} does not exist in {Path(path).name}: it has {n} folds.")
    return _fold(arrays, int(fold))


def read_folds(path: str | os.PathLike) -> list[dict[str, np.ndarray]]:
    """Every fold of a split file, in order."""
    arrays = io.read_npz(path)
    return [_fold(arrays, f) for f in range(int(arrays["n_folds"]))]


def _fold(arrays: Mapping, fold: int) -> dict[str, np.ndarray]:
    suffix = f".{fold}"
    return {k[: -len(suffix)]: v for k, v in arrays.items() if k.endswith(suffix)}
