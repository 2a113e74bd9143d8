"""Class coding shared by every loader: raw labels -> codes 0..C-1 and class names.

Rule (deterministic, documented in docs/datasets.md): a registry ``class_order`` (raw values in
code order) wins; otherwise numeric labels are sorted by value, and text labels keep the order the
file declares them in (KEEL/ARFF headers), or sorted order when nothing is declared. Only classes
that occur are coded, so codes always run over 0..C-1.
"""

from __future__ import annotations

import numpy as np


def raw_label_strings(raw) -> np.ndarray:
    """Labels as strings; integral numbers lose any ``.0`` so ``1``, ``1.0`` and ``"1"`` agree."""
    raw = np.asarray(raw).ravel()
    if raw.dtype.kind in "iub":
        return raw.astype(np.int64).astype(str)
    if raw.dtype.kind == "f":
        if np.all(raw == np.round(raw)):
            return raw.astype(np.int64).astype(str)
        return raw.astype(str)
    return np.char.strip(raw.astype(str))


def _as_number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def class_order(observed, declared=None) -> list[str]:
    """Order of the observed raw labels (see the module doc)."""
    observed = list(dict.fromkeys(observed))
    numbers = [_as_number(v) for v in observed]
    if all(x is not None for x in numbers):
        return [v for _, v in sorted(zip(numbers, observed, strict=True))]
    if declared:
        present = set(observed)
        undeclared = present - set(declared)
        if undeclared:
            raise ValueError(f"class labels {sorted(undeclared)} are not declared in the header")
        return [v for v in declared if v in present]
    return sorted(observed)


def encode_labels(raw, *, order=None, declared=None) -> tuple[np.ndarray, list[str]]:
    """Codes ``y`` (int64) and the raw label of each code."""
    labels = raw_label_strings(raw)
    uniques = np.unique(labels)
    if order is None:
        classes = class_order(uniques, declared)
    else:
        order = [str(v) for v in order]
        unknown = sorted(set(uniques) - set(order))
        if unknown:
            raise ValueError(f"labels {unknown} are missing from the registry's class_order")
        present = set(uniques)
        classes = [v for v in order if v in present]
    lookup = {v: i for i, v in enumerate(classes)}
    y = np.fromiter((lookup[v] for v in labels), dtype=np.int64, count=labels.size)
    return y, classes


def class_names(classes: list[str], entry: dict) -> list[str]:
    """Display names: registry ``class_names`` (list or table) or ``class_name_format``."""
    names = entry.get("class_names")
    if isinstance(names, list):
        if len(names) != len(classes):
            raise ValueError(
                f"{entry['name']}: registry class_names has {len(names)} names for "
                f"{len(classes)} classes."
            )
        return [str(n) for n in names]
    if isinstance(names, dict):
        return [str(names.get(c, c)) for c in classes]
    fmt = entry.get("class_name_format")
    if fmt:
        return [fmt.format(int(c)) if c.lstrip("-").isdigit() else fmt.format(c) for c in classes]
    return list(classes)
