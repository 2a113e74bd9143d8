"""Train/validation/test index splits of the papers' protocols, in one vocabulary.

The vocabulary of every function here:

* ``y`` (the labels, 1-D) comes first; the sizes follow it; everything else is keyword-only.
  Sizes are named ``n_*`` (a count), ``*_fraction`` (a fraction of the samples), ``*_size`` (a
  count or a fraction) or given as a mapping ``{part: size}`` when the parts are named by the
  caller.
* Random splits take a keyword ``random_state`` (required: a split seed is part of the
  protocol). ``n_repeats`` repeats a whole split with the seeds ``random_state``,
  ``random_state + 1``, ..., so a repeat can be reproduced alone (an int seed is then needed).
* Indices are into ``y``; ``pool`` (where offered) restricts a draw to some of them (a
  predefined part of a dataset), the returned indices still being into ``y``.
* One split of two parts is a ``(train, test)`` tuple; one split of named parts a dict
  ``{part: indices}``; several splits a list of either, in order (fold ``r * n_splits + i`` is
  fold ``i`` of repeat ``r``).
* Index arrays are sorted, except :func:`stratified_halves`, which keeps scikit-learn's draw
  order (paper 001's figures were fitted in that order).

The splits, and the protocols they serve:

=================================== ==========================================================
function                            protocol
=================================== ==========================================================
:func:`per_class_index_split`       fixed positions within each class (COIL20 1-55/56-60/61-72)
:func:`per_class_ordered_split`     consecutive per-class counts in file order (NGEU COIL20)
:func:`per_class_count_split`       ``n`` random training samples per class (AKDA 10Ex/100Ex)
:func:`per_class_split`             a per-class count or fraction trains (DEE recognition)
:func:`stratified_split`            named parts of exact totals, classes proportional (USPS)
:func:`sequential_stratified_split` stratified draws of train, then val, then test (NGEU)
:func:`stratified_kfold`            (repeated) stratified shuffled k-fold (QMI sweeps)
:func:`stratified_kfold_validation` k-fold with a stratified validation part per fold (NGEU)
:func:`stratified_shuffle_splits`   independent stratified learning/validation splits (AKDA)
:func:`capped_shuffle_splits`       the same with capped part sizes (AKDA at scale)
:func:`stratified_halves`           scikit-learn's stratified halves (QMI figures)
=================================== ==========================================================
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state

from graphdr.datasets._load import stratified_indices
from graphdr.evaluation._checks import label_text

__all__ = [
    "per_class_index_split",
    "per_class_ordered_split",
    "per_class_count_split",
    "per_class_split",
    "stratified_split",
    "sequential_stratified_split",
    "stratified_kfold",
    "stratified_kfold_validation",
    "stratified_shuffle_splits",
    "capped_shuffle_splits",
    "stratified_halves",
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


def per_class_ordered_split(y, counts: Mapping[str, int | None]) -> dict[str, np.ndarray]:
    """Consecutive parts of every class in file order: ``counts = {part: samples per class}``.

    Within each class, in the order its samples appear in ``y``, the first ``counts[first]``
    samples go to the first part, the next ones to the second, and so on; the last part may be
    ``None``: the rest of every class. NGEU's COIL20 split is ``{"train": 55, "val": 5, "test":
    None}``. This is :func:`per_class_index_split` with ranges of those lengths; every class
    must hold what is asked (a class cut short would test on fewer samples than asked).
    """
    names = list(counts)
    if not names:
        raise ValueError(
            "counts is empty: give at least one part, e.g. {'train': 5, 'test': None}."
        )
    for i, (name, n) in enumerate(counts.items()):
        if n is None:
            if i != len(names) - 1:
                raise ValueError(
                    f"only the last part may be None (the rest of each class), got {name}=None "
                    f"before {names[i + 1 :]}."
                )
        elif not (isinstance(n, numbers.Integral) and n >= 1):
            raise ValueError(
                f"count {name}={n!r} must be a positive integer: samples per class in that part."
            )
    fixed = sum(int(n) for n in counts.values() if n is not None)
    need = fixed + 1 if counts[names[-1]] is None else fixed
    smallest = int(np.bincount(np.unique(np.asarray(y), return_inverse=True)[1].ravel()).min())
    if smallest < need:
        asked = " + ".join(f"{name} {n}" for name, n in counts.items())
        raise ValueError(
            f"an ordered split of {asked} per class needs {need} samples per class, but the "
            f"smallest class has {smallest}; lower the counts (a class cut short would test on "
            "fewer samples than asked)."
        )
    ranges, start = {}, 0
    for name, n in counts.items():
        stop = None if n is None else start + int(n)
        ranges[name] = (start, stop)
        start = stop
    return per_class_index_split(y, ranges)


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
    y, sizes: Mapping[str, int | float | None], *, random_state, pool=None
) -> dict[str, np.ndarray]:
    """Seeded stratified split into named disjoint parts, e.g. ``{"train": 6000, "val": 1000}``.

    Each part has exactly the requested total; within it, class counts are proportional to the
    class frequencies of ``y`` (largest-remainder rounding, so they are exact whenever the
    proportions are integers). Sizes are counts, fractions of ``len(y)`` or one ``None`` for
    everything left; samples not requested by any part are left out (USPS: 6000 + 1000 of 7291).
    ``pool`` (indices into ``y``) splits only those samples, sizes then counting in the pool: a
    validation part carved out of a predefined training part.
    """
    if pool is not None:
        pool = np.asarray(pool)
        parts = stratified_split(np.asarray(y)[pool], sizes, random_state=random_state)
        return {name: np.sort(pool[idx]) for name, idx in parts.items()}
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


def _stratified_draw(y, pool, n, random_state, part="part"):
    """``n`` indices of ``pool`` (a stratified seeded draw; all of it when n is None or its
    size). More than the pool holds is an error, not a smaller part."""
    if n is not None and n > pool.size:
        raise ValueError(
            f"the {part} part asks for {n} samples, but only {pool.size} remain to draw from; "
            "lower the split's counts."
        )
    if n is None or n == pool.size:
        return np.sort(pool)
    if not n >= 1:
        raise ValueError(f"the {part} part asks for {n} samples: a part needs at least 1.")
    # the data layer's seeded stratified draw (it subsamples datasets with the same draw)
    return np.sort(pool[stratified_indices(y[pool], int(n), random_state)])


def sequential_stratified_split(
    y,
    n_train: int | None,
    n_val: int | None,
    n_test: int | None = None,
    *,
    random_state,
    pool=None,
    test_pool=None,
    train_random_state=None,
) -> dict[str, np.ndarray]:
    """Seeded stratified draws of disjoint parts, one after the other (NGEU's MNIST and USPS).

    ``n_train`` samples of ``pool`` (indices into ``y``; None: every sample) train, ``n_val``
    of the rest validate and ``n_test`` of what is left after that test, or, with
    ``test_pool`` (a predefined test part), ``n_test`` of ``test_pool``. A size of None takes
    all of it. Each draw is scikit-learn's stratified ``train_test_split`` seeded with
    ``random_state``; ``train_random_state`` (default ``random_state``) seeds the training draw
    alone, so repeated draws can keep one training part and re-draw the rest. Asking for more
    than is left is an error, not a smaller part. Returns ``{"train", "val", "test"}``.
    """
    y = np.asarray(y)
    pool = np.arange(y.size) if pool is None else np.asarray(pool)
    train_seed = random_state if train_random_state is None else train_random_state
    train = _stratified_draw(y, pool, n_train, train_seed, "train")
    rest = np.setdiff1d(pool, train)
    val = _stratified_draw(y, rest, n_val, random_state, "val")
    if test_pool is not None:
        test = _stratified_draw(y, np.asarray(test_pool), n_test, random_state, "test")
    else:
        test = _stratified_draw(y, np.setdiff1d(rest, val), n_test, random_state, "test")
    return {"train": train, "val": val, "test": test}


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


def per_class_split(
    y, *, train_per_class: int | None = None, train_fraction: float | None = None, random_state
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded per-class split: ``train_per_class`` random samples of each class train (DEE's
    COIL20 15, USPS 25) or ``floor(train_fraction * n_c)`` of each, at least 1 (ORL, Yale:
    0.5); the rest test. Returns ``(train_idx, test_idx)``.

    Both are :func:`per_class_count_split`; with a count, a class with fewer than twice that
    many samples trains on half of them (rounded down).
    """
    if (train_per_class is None) == (train_fraction is None):
        raise ValueError("give exactly one of train_per_class and train_fraction.")
    if train_per_class is not None:
        return per_class_count_split(y, int(train_per_class), random_state=random_state)
    if not 0 < train_fraction < 1:
        raise ValueError(
            f"train_fraction={train_fraction} must lie in (0, 1): every class needs samples "
            "both to train and to test."
        )
    # every class trains on floor(fraction * n_c): a per-class count no class reaches, capped
    return per_class_count_split(
        y,
        np.iinfo(np.int32).max,
        random_state=random_state,
        max_train_fraction=float(train_fraction),
    )


def _repeat_seeds(random_state, n_repeats) -> list:
    """The seeds of ``n_repeats`` repeats: ``random_state`` alone, or ``random_state + r``."""
    if not (isinstance(n_repeats, numbers.Integral) and n_repeats >= 1):
        raise ValueError(
            f"n_repeats={n_repeats!r} must be a positive integer: how often the whole split is "
            "drawn."
        )
    if n_repeats == 1:
        return [random_state]
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise ValueError(
            f"n_repeats={n_repeats} needs an integer random_state (repeat r is drawn with the "
            f"seed random_state + r), got {random_state!r}."
        )
    return [int(random_state) + r for r in range(int(n_repeats))]


def stratified_kfold(
    y, n_splits: int, *, random_state, n_repeats: int = 1
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded stratified, shuffled k-fold (scikit-learn's ``StratifiedKFold``): a list of
    ``(train_idx, test_idx)``; the test folds of one repeat partition y.

    ``n_repeats`` repeats the k-fold with the seeds ``random_state``, ``random_state + 1``, ...
    (QMI's repeated 10-fold CV), folds concatenated: split ``r * n_splits + i`` is fold ``i`` of
    repeat ``r``. A class smaller than ``n_splits`` is spread over as many folds as it has
    samples (scikit-learn's warning about it is silenced: the protocols keep their number of
    folds rather than shrink it for every dataset).
    """
    if not (isinstance(n_splits, numbers.Integral) and n_splits >= 2):
        raise ValueError(
            f"n_splits={n_splits!r} must be an integer of at least 2: each fold is tested once "
            "and trained on the others."
        )
    y = np.asarray(y)
    folds = []
    for seed in _repeat_seeds(random_state, n_repeats):
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", message="The least populated class", category=UserWarning
            )
            folds += [(train, test) for train, test in cv.split(np.zeros((y.size, 1)), y)]
    return folds


def stratified_kfold_validation(
    y, n_splits: int, val_fraction: float, *, random_state, n_repeats: int = 1
) -> list[dict[str, np.ndarray]]:
    """Stratified k-fold in which each training fold also gives a stratified ``val_fraction``
    to validation (NGEU's AWGN-MNIST: 3 folds, 0.2): ``[{"train", "val", "test"}, ...]``.

    The folds are :func:`stratified_kfold`'s (``n_repeats``: seeds ``random_state + r``); the
    validation part is scikit-learn's stratified ``train_test_split`` of the fold's training
    part, seeded with the repeat's seed.
    """
    from sklearn.model_selection import train_test_split

    if not 0 < val_fraction < 1:
        raise ValueError(
            f"val_fraction={val_fraction} must lie in (0, 1): the fraction of each training fold "
            "that validates."
        )
    y = np.asarray(y)
    folds = []
    for seed in _repeat_seeds(random_state, n_repeats):
        for learn, test in stratified_kfold(y, n_splits, random_state=seed):
            train, val = train_test_split(
                learn, test_size=float(val_fraction), stratify=y[learn], random_state=seed
            )
            folds.append({"train": np.sort(train), "val": np.sort(val), "test": test})
    return folds


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


def stratified_halves(y, n_splits: int, *, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` seeded stratified halves: scikit-learn's ``StratifiedShuffleSplit`` with
    ``test_size=0.5``, ``(train_idx, test_idx)`` pairs (paper 001's figures: fit on one half,
    project the other).

    The indices keep scikit-learn's draw order (not sorted, unlike every other split here): the
    committed figures were fitted in that order. :func:`stratified_shuffle_splits` draws other
    halves.
    """
    from sklearn.model_selection import StratifiedShuffleSplit

    sss = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=random_state)
    return list(sss.split(np.zeros(len(y)), y))
