"""Assemble a :class:`Dataset` from raw arrays and its registry entry."""

from __future__ import annotations

import numpy as np

from ._labels import class_names, encode_labels
from .prepared import Dataset


def build(entry: dict, X, raw_labels, *, declared=None, **fields) -> Dataset:
    """Code the labels by the shared rule, name the classes, and fill name/description/source."""
    y, classes = encode_labels(raw_labels, order=entry.get("class_order"), declared=declared)
    fields.setdefault("description", entry.get("description", ""))
    fields.setdefault("source", entry.get("citation", ""))
    if "image_shape" not in fields and entry.get("image_shape"):
        fields["image_shape"] = tuple(entry["image_shape"])
    return Dataset(
        name=entry["name"],
        X=np.asarray(X),
        y=y,
        class_names=class_names(classes, entry),
        **fields,
    )


def split_from_parts(sizes, names) -> dict[str, np.ndarray] | None:
    """Predefined split of consecutive parts: ``{names[k]: indices of part k}``."""
    if len(sizes) == 1:
        return None
    if names is None or len(names) != len(sizes):
        raise ValueError(
            f"{len(sizes)} files/parts need {len(sizes)} split_names in the registry entry, "
            f"got {names!r}."
        )
    bounds = np.cumsum([0, *sizes])
    return {name: np.arange(bounds[k], bounds[k + 1]) for k, name in enumerate(names)}
