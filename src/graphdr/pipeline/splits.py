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
    stratified_kfold,
    stratified_split,
)
from graphdr.pipeline import io
from graphdr.pipeline.plan import SPLIT_KINDS, n_folds

__all__ = ["SPLIT_KINDS", "make_splits", "n_folds", "read_fold", "split_indices"]


def split_indices(dataset: Dataset, spec: Mapping, seed: int) -> list[dict[str, np.ndarray]]:
    """Index arrays of every fold: a list of ``{part: indices}`` (parts train, test, maybe val).

    Kinds (``spec["kind"]``):

    * ``stratified`` — ``sizes: {train: .., val: .., test: ..}`` counts, fractions or one null
      for the rest (:func:`graphdr.evaluation.stratified_split`);
    * ``predefined`` — the dataset's own split; ``val_size`` carves a seeded stratified
      validation part out of ``train`` (USPS 6000/1000;
      :func:`graphdr.evaluation.stratified_split` with ``pool``);
    * ``per_class_index`` — ``ranges: {part: [start, stop]}`` by position within each class
      (COIL20: images 1-55 / 56-60 / 61-72);
    * ``per_class_count`` — ``n_per_class`` training samples per class, the rest test
      (``max_train_fraction`` caps small classes);
    * ``kfold`` — ``n_folds`` seeded stratified folds (train/test).
    """
    kind, y = spec["kind"], dataset.y
    if kind == "stratified":
        return [stratified_split(y, dict(spec["sizes"]), random_state=seed)]
    if kind == "predefined":
        return [_predefined(dataset, spec.get("val_size"), seed)]
    if kind == "per_class_index":
        ranges = {part: tuple(r) for part, r in spec["ranges"].items()}
        return [per_class_index_split(y, ranges)]
    if kind == "per_class_count":
        train, test = per_class_count_split(
            y,
            int(spec["n_per_class"]),
            random_state=seed,
            max_train_fraction=float(spec.get("max_train_fraction", 0.5)),
        )
        return [{"train": train, "test": test}]
    if kind == "kfold":
        folds = stratified_kfold(y, int(spec["n_folds"]), random_state=seed)
        return [{"train": train, "test": test} for train, test in folds]
    raise ValueError(f"split kind {kind!r} is not supported: use one of {', '.join(SPLIT_KINDS)}.")


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
    prepared: str | os.PathLike, output: str | os.PathLike, *, spec: Mapping, seed: int
) -> list[dict[str, np.ndarray]]:
    """Read a prepared dataset, draw the folds of ``spec`` with ``seed``, write the split file."""
    folds = split_indices(load_npz(prepared), spec, int(seed))
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
    suffix = f".{int(fold)}"
    return {k[: -len(suffix)]: v for k, v in arrays.items() if k.endswith(suffix)}
