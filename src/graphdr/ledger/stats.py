"""Paired tests of the claims ledger, from :mod:`scipy.stats` (Demšar 2006; Dietterich 1998).

Small pure functions: each takes paired values and returns a :class:`Test` (name, statistic,
p-value, number of units), so a rule can quote its evidence. Our own code in two places: Holm's
step-down correction (ten lines; scipy has Bonferroni-free FDR control only,
``false_discovery_control``), and the exact Wilcoxon null distribution for tied differences,
where scipy's enumeration is 2600x slower and ours returns its p-value bitwise
(:func:`_signed_rank_exact_tied`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "TIE_RTOL",
    "Test",
    "average_ranks",
    "friedman",
    "holm",
    "log_rate_test",
    "mcnemar_exact",
    "merge_ties",
    "min_wilcoxon_p",
    "spearman",
    "wilcoxon_paired",
]


@dataclass(frozen=True)
class Test:
    """Outcome of one paired test: ``p`` is two-sided; ``n`` the number of paired units."""

    name: str
    statistic: float
    p: float
    n: int

    def text(self) -> str:
        return f"{self.name}: statistic {self.statistic:.4g}, p = {self.p:.3g}, n = {self.n}"


#: Values closer than this, relative to their scale, are one value. The results files carry ten
#: significant digits (``%.10g``), so two values equal in exact arithmetic (two methods with
#: the same errors, two datasets with the same gap) can differ there by about 1e-9 of their
#: scale, depending on how each was computed and written; ranks, ties and "no difference" must
#: not depend on that.
TIE_RTOL = 1e-8


def merge_ties(values, scale: float) -> np.ndarray:
    """``values`` with each run of values within ``TIE_RTOL * scale`` of the previous one (in
    sorted order) set to the run's smallest: ties that rounding split become exact ties for
    ``scipy.stats.rankdata``. Values farther apart are returned unchanged."""
    v = np.asarray(values, dtype=float)
    order = np.argsort(v, kind="stable")
    s = v[order]
    merged = s.copy()
    tol = TIE_RTOL * scale
    for i in range(1, s.size):
        if s[i] - s[i - 1] <= tol:
            merged[i] = merged[i - 1]
    out = np.empty_like(v)
    out[order] = merged
    return out


def _row_scale(values: np.ndarray) -> float:
    return max(float(np.max(np.abs(values))) if values.size else 0.0, 1.0)


def _signed_differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The differences ``a - b`` the signed-rank test ranks: those within :data:`TIE_RTOL` of
    the values' scale dropped (no difference), the others with near-equal magnitudes tied
    (:func:`merge_ties`)."""
    d = a - b
    scale = _row_scale(np.concatenate([a, b]))
    d = d[np.abs(d) > TIE_RTOL * scale]  # rounding is not a difference
    return np.sign(d) * merge_ties(np.abs(d), scale)


def wilcoxon_paired(a, b) -> Test:
    """Wilcoxon signed-rank test of paired values ``a`` vs ``b`` (two-sided, exact when scipy
    can). Pairs whose difference is within :data:`TIE_RTOL` of the values' scale are equal and
    dropped (Wilcoxon's rule), and differences that close to each other are tied
    (:func:`merge_ties`); when every pair is equal the test is undefined and we return
    ``p = 1`` (nothing distinguishes the two)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(
            f"paired values must be two 1-D arrays of one length, got {a.shape} and {b.shape}."
        )
    d = _signed_differences(a, b)
    if not d.size:
        return Test("Wilcoxon signed-rank", 0.0, 1.0, int(a.size))
    tied = d.size <= _PERMUTATION_MAX_N and np.unique(np.abs(d)).size < d.size
    if tied:  # scipy would enumerate the 2**n sign flips with permutation_test: same p, faster
        statistic, p = _signed_rank_exact_tied(d)
        return Test("Wilcoxon signed-rank", statistic, p, int(a.size))
    res = stats.wilcoxon(d)
    return Test("Wilcoxon signed-rank", float(res.statistic), float(res.pvalue), int(a.size))


def log_rate_test(rates) -> tuple[Test, int]:
    """Wilcoxon signed-rank test of positive rates (speed-ups, ratios) against 1, on their
    logarithms (a ratio is symmetric there: 2x and 0.5x are equally far from 1). Returns the
    test and its side: +1 when the positive log-rates carry the larger rank sum (R+ > R-), -1
    when the negative ones do, 0 when they balance, on the ranks the test used (rates within
    :data:`TIE_RTOL` of 1 dropped, near-equal ones tied)."""
    logs = np.log(np.asarray(rates, dtype=float))
    test = wilcoxon_paired(logs, np.zeros_like(logs))
    d = _signed_differences(logs, np.zeros_like(logs))  # the ranks the test used
    return test, int(np.sign(np.sum(np.sign(d) * stats.rankdata(np.abs(d)))))


#: scipy's ``wilcoxon(method="auto")`` computes the exact null distribution by enumerating the
#: 2**n sign flips (``permutation_test``) when |d| has ties and n <= 13 (scipy 1.17,
#: ``_wilcoxon._wilcoxon_nd``); above 13 it uses the normal approximation
_PERMUTATION_MAX_N = 13


def _signed_rank_exact_tied(d: np.ndarray) -> tuple[float, float]:
    """Two-sided exact signed-rank test of nonzero differences ``d`` with tied ``|d|``:
    ``(min(R+, R-), p)``, the values scipy's ``wilcoxon`` returns for them.

    Our own (measured: scipy's ``permutation_test`` over the 2**13 sign flips, which recomputes
    the ranks for each, was 87 % of the 75 CPU-s of QMI's claims job): the null distribution of
    R+ (the sum of the average ranks of the positive differences, twice of which is an integer)
    counted over every sign vector by one subset-sum pass, and the p-value as scipy's exact
    permutation test defines it, ``2 min(P(R+ <= r), P(R+ >= r))`` clipped to 1: counts over
    ``2**n``, a power of two, so both divisions are exact and the p-values equal scipy's
    bitwise (``tests/test_ledger.py``).
    """
    twice = np.rint(2.0 * stats.rankdata(np.abs(d))).astype(np.int64)  # average ranks x 2
    counts = np.zeros(int(twice.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for r in twice:  # subset sums: each rank counted with a + sign or not
        counts[r:] += counts[:-r].copy()  # r >= 2: the smallest average rank is 1
    observed = int(twice[d > 0].sum())
    total = float(2**d.size)
    less = counts[: observed + 1].sum() / total
    greater = counts[observed:].sum() / total
    r_plus = observed / 2.0
    r_minus = float(twice.sum()) / 2.0 - r_plus
    return min(r_plus, r_minus), float(min(1.0, 2.0 * min(less, greater)))


def min_wilcoxon_p(n: int) -> float:
    """The smallest two-sided p-value the exact Wilcoxon test can give with ``n`` pairs:
    every difference of one sign, ``2 / 2**n``. Below 6 pairs it exceeds 0.05."""
    return 1.0 if n < 1 else min(1.0, 2.0 / 2.0**n)


def mcnemar_exact(correct_a, correct_b) -> Test:
    """Exact McNemar test on one test set: a binomial test of the discordant pairs,
    ``binomtest(b, b + c, 0.5)`` (b: only ``a`` right, c: only ``b`` right)."""
    a, b = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(
            f"per-sample correctness of both methods needs one shape, got {a.shape} and {b.shape}."
        )
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if only_a + only_b == 0:
        return Test("exact McNemar", 0.0, 1.0, int(a.size))
    res = stats.binomtest(only_a, only_a + only_b, 0.5)
    return Test("exact McNemar", float(only_a), float(res.pvalue), int(a.size))


def spearman(x, y) -> Test:
    """Spearman's rank correlation of ``y`` with ``x`` (``scipy.stats.spearmanr``: average ranks
    for ties, two-sided p from the t distribution with n - 2 degrees of freedom); the statistic
    is rho. A constant ``x`` or ``y`` has no rank correlation and raises."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"spearman needs two 1-D arrays of one length, got {x.shape}, {y.shape}.")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        raise ValueError("spearman: a constant variable has no rank correlation.")
    res = stats.spearmanr(x, y)
    return Test("Spearman rank correlation", float(res.statistic), float(res.pvalue), int(x.size))


def _merge_row_ties(m: np.ndarray) -> np.ndarray:
    """Each row (block) with its values within :data:`TIE_RTOL` of the row's scale tied."""
    return np.array([merge_ties(row, _row_scale(row)) for row in m]).reshape(m.shape)


def friedman(matrix) -> Test:
    """Friedman test over blocks (rows) of k >= 3 methods (columns); values of a block within
    :data:`TIE_RTOL` of its scale are tied."""
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[1] < 3:
        raise ValueError(
            f"Friedman needs a blocks x methods matrix with at least 3 methods, got shape {m.shape}."
        )
    m = _merge_row_ties(m)
    if m.shape[0] < 2 or np.all(np.ptp(m, axis=1) == 0):
        return Test("Friedman", 0.0, 1.0, int(m.shape[0]))
    res = stats.friedmanchisquare(*m.T)
    return Test("Friedman", float(res.statistic), float(res.pvalue), int(m.shape[0]))


def average_ranks(matrix, *, higher_is_better: bool) -> np.ndarray:
    """Average rank of each column over the rows (1 = best; ties, within :data:`TIE_RTOL` of
    the row's scale, share their mean rank)."""
    m = _merge_row_ties(np.asarray(matrix, dtype=float))
    ranked = stats.rankdata(-m if higher_is_better else m, axis=1)
    return ranked.mean(axis=0)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control), in input order."""
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted
