"""Argument checks and message helpers shared by the evaluation modules."""

from __future__ import annotations

import numbers

import numpy as np


def label_text(c) -> str:
    """A class label for messages: ``3``, not numpy 2's ``np.int64(3)``."""
    return repr(c.item() if isinstance(c, np.generic) else c)


def check_embeddings(Z_train, Z_test, names=("Z_train", "Z_test")):
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


def check_labels(y, n, what="y"):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {y.shape}.")
    if y.shape[0] != n:
        raise ValueError(f"{what} has {y.shape[0]} labels but the data has {n} samples.")
    return y


def check_dims(dims, n_columns: int) -> None:
    """Raise unless ``dims`` is a non-empty sequence of integers in ``1..n_columns``."""
    values = np.asarray(dims)
    if (
        values.ndim != 1
        or values.size == 0
        or not np.issubdtype(values.dtype, np.integer)
        or values.min() < 1
        or values.max() > n_columns
    ):
        raise ValueError(
            f"dims must be integers in 1..{n_columns} (the embedding has {n_columns} columns: "
            f"a dimension is a number of leading columns), got {values.tolist()}."
        )


def check_k(k, n_train: int) -> None:
    """Raise unless ``k`` is an integer in ``1..n_train`` (the voting neighbours)."""
    if not (isinstance(k, numbers.Integral) and 1 <= k <= n_train):
        raise ValueError(
            f"k={k!r} must be an integer in 1..{n_train}: the neighbours that vote are training "
            "samples."
        )
