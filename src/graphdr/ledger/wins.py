"""Wins per dataset, the ledger's and paper 001's tables' one count: the methods tied with the
best on each dataset (a paired test over its splits), and how many datasets each method wins.

Apart from the rules (:mod:`graphdr.ledger.rules`, which use it) on purpose: code inputs follow
imports (:mod:`graphdr.pipeline.codedeps`), so paper 001's report, whose tables count wins the
ledger's way, does not re-run with every rule edit.
"""

from __future__ import annotations

import pandas as pd

from graphdr.ledger import stats

__all__ = ["ALPHA", "count_wins", "shared_splits", "win_counts", "winners"]

ALPHA = 0.05  # the level of every test; Holm-corrected over the comparisons one claim makes


def shared_splits(data: pd.DataFrame, methods=None) -> pd.DataFrame:
    """The rows of ``data`` on the (dataset, split)s that every one of ``methods`` has (default:
    every method present in ``data``), so that methods are compared on the same units: a
    method's splits that another lacks (e.g. a condition it was not run in) are left out."""
    methods = list(dict.fromkeys(data["method"] if methods is None else methods))
    sub = data[data["method"].isin(methods)]
    present = sub.groupby(["dataset", "split"], sort=False)["method"].nunique()
    shared = present.index[present.to_numpy() == len(methods)]
    return sub[pd.MultiIndex.from_frame(sub[["dataset", "split"]]).isin(shared)]


def winners(
    part: pd.DataFrame, methods: list[str], sign: float, alpha: float, margin: float = 0.0
) -> list[str]:
    """Methods tied with the best on one dataset: the best mean, and every method its paired
    test over the dataset's splits (Holm-corrected) cannot separate from it or whose gap is at
    most ``margin``. One split: only ties (:data:`graphdr.ledger.stats.TIE_RTOL` of the scale: the
    precision of the results files) and the margin share the win.
    Methods absent from the dataset are left out; the others are compared on the splits all of
    them have (:func:`shared_splits`)."""
    part = shared_splits(part)
    means = part.groupby("method")["value"].mean().reindex(methods).dropna()
    methods = list(means.index)
    best = means.idxmax() if sign > 0 else means.idxmin()
    close = {m for m in methods if abs(means[m] - means[best]) <= margin}
    wide = part.pivot_table(index="split", columns="method", values="value")
    if len(wide) < 2:
        scale = max(abs(means[best]), 1.0)
        tol = stats.TIE_RTOL * scale
        return [m for m in methods if m in close or abs(means[m] - means[best]) <= tol]
    others = [m for m in methods if m != best]
    pairs = [wide[[best, m]].dropna() for m in others]
    ps = [
        stats.wilcoxon_paired(w[best].to_numpy(), w[m].to_numpy()).p
        for w, m in zip(pairs, others, strict=True)
    ]
    adjusted = stats.holm(ps) if ps else []
    return [best] + [m for m, p in zip(others, adjusted, strict=True) if p >= alpha or m in close]


def win_counts(
    data: pd.DataFrame, methods: list[str], *, higher_is_better: bool, alpha: float = ALPHA
) -> dict[str, int]:
    """Datasets won by each of ``methods`` (columns dataset, method, split, value), ties shared
    by the per-dataset paired test (:func:`winners`): the count every win-based rule uses."""
    return count_wins(data, methods, 1.0 if higher_is_better else -1.0, alpha)


def count_wins(data, methods, sign, alpha, margin: float = 0.0) -> dict[str, int]:
    """:func:`win_counts` with the direction as a ``sign`` (+1: higher is better) and a
    ``margin`` within which a gap to the best shares the win (the rules' form)."""
    counts = dict.fromkeys(methods, 0)
    for _, part in data[data["method"].isin(methods)].groupby("dataset", sort=False):
        for m in winners(part, methods, sign, alpha, margin):
            counts[m] += 1
    return counts
