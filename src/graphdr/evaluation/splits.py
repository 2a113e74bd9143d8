"""Train/validation/test index splits of the papers' protocols.

Every function returns sorted index arrays and is reproducible from ``random_state``:
:func:`per_class_index_split`, :func:`stratified_split`, :func:`per_class_count_split`,
:func:`stratified_kfold`, :func:`stratified_shuffle_splits`, :func:`capped_shuffle_splits`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state

from graphdr.evaluation._checks import label_text

__all__ = [
    "per_class_index_split",
    "stratified_split",
    "per_class_count_split",
    "stratified_kfold",
    "stratified_shuffle_splits",
    "capped_shuffle_splits",
]


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
                    f"but class {label_text(c)} has {idx.size}."
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
                f"class {label_text(c)} has {idx.size} sample: it cannot be both trained and tested."
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
    y, n_splits: int, train_size: int | float, *, random_state, val_size: int | float | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` independent seeded stratified ``(train_idx, val_idx)`` splits of y.

    AKDA's "3-fold CV, each fold a random 30% learning / 70% validation split" is
    ``stratified_shuffle_splits(y, 3, 0.3, random_state=seed)``. ``val_size`` (a count or a
    fraction) caps the validation part; None validates on every sample not trained on.
    """
    rng = check_random_state(random_state)
    splits = []
    for _ in range(n_splits):
        parts = stratified_split(y, {"train": train_size, "val": val_size}, random_state=rng)
        splits.append((parts["train"], parts["val"]))
    return splits


def capped_shuffle_splits(
    y,
    n_splits: int,
    train_fraction: float,
    *,
    random_state,
    max_train: int | None = None,
    max_val: int | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`stratified_shuffle_splits` with ``train_fraction`` learning and the rest
    validating, each part capped (``max_train`` / ``max_val`` samples; None: no cap).

    AKDA's cross-validation at the paper's largest scale (a documented reduction): the fractions
    are taken of ``len(y)`` first, then capped, so the caps only shrink the parts.
    """
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction={train_fraction} must lie in (0, 1).")
    n = len(y)
    n_train = int(round(train_fraction * n))
    n_val = n - n_train
    if max_train is not None:
        n_train = min(n_train, int(max_train))
    if max_val is not None:
        n_val = min(n_val, int(max_val))
    return stratified_shuffle_splits(
        y, n_splits, n_train, val_size=n_val, random_state=random_state
    )
