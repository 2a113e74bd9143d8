"""The rule registry of the claims ledger: small pure functions, one per kind of claim.

A rule takes a :class:`~graphdr.ledger.vocabulary.Claim` and the rows of the tidy results frame
that the claim selects (columns ``dataset``, ``method``, ``split``, ``value``: one metric, one
variant) and returns a :class:`~graphdr.ledger.vocabulary.Judgement`. Rules never read files and
hold no paper number: the paper's value and the tolerance come from the claim's row.

Units of a paired test (``docs/claims.md``): datasets when the claim spans at least
:data:`MIN_UNITS` of them (the fewest pairs for which a two-sided Wilcoxon test can reach 0.05),
otherwise every (dataset, split) pair, the folds, draws or seeds of the protocol. Within one
dataset, methods are compared over its splits.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from graphdr.ledger import stats
from graphdr.ledger.vocabulary import (
    EQUIVALENT,
    NO_DIFFERENCE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Claim,
    Judgement,
    combine,
)
from graphdr.ledger.wins import ALPHA, count_wins, shared_splits, win_counts, winners

__all__ = ["ALPHA", "MIN_UNITS", "RULES", "MissingResults", "judge_rule", "rule", "win_counts"]

MIN_UNITS = 6  # two-sided exact Wilcoxon: 2 / 2**6 = 0.031 < 0.05; 5 pairs give at best 0.0625


class MissingResults(ValueError):
    """The results frame lacks a method or dataset the claim names (e.g. a reduced config)."""


class TooFewUnits(MissingResults):
    """The paired test cannot reach significance with the units the results hold (e.g. one
    split where the claim is judged over splits): the claim is not checked rather than "no
    difference", which would read as evidence of equality."""


RULES: dict[str, Callable[[Claim, pd.DataFrame, float], Judgement]] = {}


def rule(name: str):
    """Register a rule under ``name`` (the ``rule`` column of a claims file)."""

    def add(func):
        if name in RULES:
            raise ValueError(f"rule {name!r} is registered twice.")
        RULES[name] = func
        return func

    return add


def judge_rule(claim: Claim, data: pd.DataFrame, alpha: float = ALPHA) -> Judgement:
    if claim.rule not in RULES:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: unknown rule {claim.rule!r}; the rules are "
            f"{sorted(RULES)} (graphdr.ledger.rules)."
        )
    return RULES[claim.rule](claim, data, alpha)


# ---- shared pieces ---------------------------------------------------------------------------


def _means(data: pd.DataFrame, methods) -> pd.DataFrame:
    """datasets x ``methods`` table of the mean over the splits that all of ``methods`` have on
    the dataset (:func:`shared_splits`); datasets where one of them has no split are dropped."""
    methods = list(dict.fromkeys(methods))
    sub = shared_splits(data, methods)
    means = sub.groupby(["dataset", "method"], sort=False)["value"].mean().unstack("method")
    return means.reindex(columns=methods).dropna()


def _paired(
    data: pd.DataFrame, a: str, b: str, comparisons: int = 1
) -> tuple[np.ndarray, np.ndarray, str]:
    """Paired values of methods ``a`` and ``b``: per-dataset means when the datasets both
    methods ran on are enough for the test to reach the level after Holm's correction over
    ``comparisons`` (at least :data:`MIN_UNITS`, and ``comparisons * 2 / 2**n < ALPHA``), else
    every (dataset, split) the two share. Either way the two are compared on the splits both
    have: a dataset's means are over its shared splits only (:func:`_means`)."""
    sub = data[data["method"].isin([a, b])]
    means = _means(sub, [a, b])
    n = len(means)
    if n >= MIN_UNITS and _reachable(n, comparisons):
        return means[a].to_numpy(), means[b].to_numpy(), f"{n} datasets (means over splits)"
    wide = sub.pivot_table(index=["dataset", "split"], columns="method", values="value").dropna()
    if a not in wide or b not in wide or wide.empty:
        raise MissingResults(
            f"methods {a!r} and {b!r} share no dataset or split in the selected data."
        )
    nd = wide.index.get_level_values("dataset").nunique()
    return (
        wide[a].to_numpy(),
        wide[b].to_numpy(),
        f"{len(wide)} (dataset, split) pairs over {nd} dataset(s)",
    )


def _reachable(n: int, comparisons: int = 1) -> bool:
    """Whether a two-sided exact Wilcoxon test over ``n`` pairs can reach ALPHA after Holm over
    ``comparisons`` (its smallest p, every difference of one sign, times the comparisons)."""
    return comparisons * stats.min_wilcoxon_p(n) < ALPHA


def _compare(
    data, a, b, sign, comparisons: int = 1, margin: float = 0.0
) -> tuple[str, float, stats.Test, str]:
    """(outcome of "a better than b", mean signed gap, test, units): yes / tie / no. A gap of
    at most ``margin`` (the claim's stated tolerance) is a tie whatever the test says."""
    x, y, units = _paired(data, a, b, comparisons)
    gap = float(np.mean(sign * (x - y)))
    binary = np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all()
    if binary and "(dataset, split) pairs" in units and x.size >= MIN_UNITS:
        # per-sample correctness (metric "correct", one split per test sample): exact McNemar
        test = stats.mcnemar_exact(x > 0.5, y > 0.5)
        units = f"{x.size} test samples (exact McNemar)"
    else:
        test = stats.wilcoxon_paired(x, y)
        if not _reachable(test.n, comparisons) and abs(gap) > margin:  # else a tie anyway
            raise TooFewUnits(
                f"{test.n} paired unit(s) ({units}): the exact Wilcoxon test's smallest p "
                f"(x {comparisons} comparison(s)) is "
                f"{comparisons * stats.min_wilcoxon_p(test.n):.3g}, not below {ALPHA:g}; "
                f"it needs at least {MIN_UNITS} units"
            )
    outcome = ("yes" if gap > 0 else "no") if test.p < ALPHA else "tie"
    return ("tie" if abs(gap) <= margin else outcome), gap, test, units


def _blocks(data: pd.DataFrame, methods: list[str]) -> tuple[pd.DataFrame, str]:
    """Blocks x methods for Friedman: per-dataset means with at least :data:`MIN_UNITS`
    datasets, else every (dataset, split) (the same units as :func:`_paired`)."""
    if data["dataset"].nunique() >= MIN_UNITS:
        m = _means(data, methods)
        return m, f"{len(m)} datasets"
    wide = data.pivot_table(index=["dataset", "split"], columns="method", values="value")[
        methods
    ].dropna()
    return wide, f"{len(wide)} (dataset, split) blocks"


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _group(claim: Claim, data: pd.DataFrame) -> list[str]:
    """The subject first, then ``versus`` (or every other method in the data)."""
    present = list(dict.fromkeys(data["method"]))
    others = list(claim.versus) or [m for m in present if m not in claim.subject]
    missing = [m for m in (*claim.subject, *others) if m not in present]
    if missing:
        raise MissingResults(
            f"claim {claim.paper}:{claim.claim}: no results for {missing} (have {present})."
        )
    return [*claim.subject, *[m for m in others if m not in claim.subject]]


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{m} {c}" for m, c in counts.items())


# ---- orderings ---------------------------------------------------------------------------------


@rule("better")
def better(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """The subject beats each method of ``versus``: paired Wilcoxon test per comparison
    (Holm-corrected); significant in the claimed direction = yes, not significant = tie."""
    sign = 1.0 if claim.higher_is_better else -1.0
    subject, *others = _group(claim, data)
    margin = claim.tolerance or 0.0
    results = [_compare(data, subject, v, sign, len(others), margin) for v in others]
    adjusted = stats.holm([r[2].p for r in results])
    outcomes, parts = [], []
    for v, (_, gap, test, units), p in zip(others, results, adjusted, strict=True):
        outcome = ("yes" if gap > 0 else "no") if p < alpha and abs(gap) > margin else "tie"
        outcomes.append(outcome)
        parts.append(
            f"vs {v}: mean gap {_fmt(gap)} ({claim.better} is better), {test.text()}, Holm p = {p:.3g}, over {units}"
        )
    if claim.rule == "more_wins":
        counts = count_wins(data, _group(claim, data), sign, alpha)
        parts.append(f"datasets won (ties shared): {_counts_text(counts)}")
    best = min(range(len(results)), key=lambda i: adjusted[i])
    return Judgement(
        combine(outcomes),
        "; ".join(parts),
        ours=results[best][1],
        test=results[best][2].name,
        statistic=results[best][2].statistic,
        p_value=float(adjusted[best]),
        n=results[best][2].n,
    )


rule("more_wins")(better)


@rule("most_wins")
def most_wins(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """The subject wins most datasets of its group. Wins per dataset with statistical ties
    (:func:`_winners`); then the decision over datasets: Friedman over the group, and the subject
    against each other method by Holm-corrected paired Wilcoxon tests. Not the most wins ->
    not reproduced; Friedman not significant -> no difference; else the post-hoc tests decide."""
    sign = 1.0 if claim.higher_is_better else -1.0
    methods = _group(claim, data)
    subject = methods[0]
    counts = count_wins(data, methods, sign, alpha, claim.tolerance or 0.0)
    means, blocks = _blocks(data[data["method"].isin(methods)], methods)
    ranks = stats.average_ranks(means.to_numpy(), higher_is_better=sign > 0)
    rank_text = ", ".join(f"{m} {r:.2f}" for m, r in zip(methods, ranks, strict=True))
    evidence = f"datasets won (ties shared): {_counts_text(counts)}; average ranks over {blocks}: {rank_text}"
    top = max(counts.values())
    if counts[subject] < top:
        return Judgement(NOT_REPRODUCED, evidence, ours=float(counts[subject]), n=len(means))
    if len(methods) >= 3:
        fr = stats.friedman(means.to_numpy())
        evidence += f"; {fr.text()}"
        if fr.p >= alpha:
            return Judgement(
                NO_DIFFERENCE, evidence, float(counts[subject]), fr.name, fr.statistic, fr.p, fr.n
            )
    margin = claim.tolerance or 0.0
    results = [_compare(data, subject, v, sign, len(methods) - 1, margin) for v in methods[1:]]
    adjusted = stats.holm([r[2].p for r in results])
    outcomes = [
        ("yes" if r[1] > 0 else "no") if p < alpha and abs(r[1]) > margin else "tie"
        for r, p in zip(results, adjusted, strict=True)
    ]
    evidence += "; post-hoc: " + ", ".join(
        f"vs {v} gap {_fmt(r[1])} Holm p = {p:.3g}"
        for v, r, p in zip(methods[1:], results, adjusted, strict=True)
    )
    verdict = combine(outcomes)
    if verdict == REPRODUCED and sum(c == top for c in counts.values()) > 1:
        verdict = PARTLY  # tied for the most wins although better on average
    return Judgement(
        verdict,
        evidence,
        float(counts[subject]),
        "Holm-Wilcoxon",
        None,
        float(min(adjusted)),
        len(means),
    )


@rule("equal_wins")
def equal_wins(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """The subject wins as many datasets as ``versus[0]`` (within ``tolerance`` datasets, default
    1) and the paired test finds no difference; equal counts with a significant gap: partly."""
    sign = 1.0 if claim.higher_is_better else -1.0
    methods = _group(claim, data)
    counts = count_wins(data, methods, sign, alpha)
    a, b = methods[0], claim.versus[0]
    outcome, gap, test, units = _compare(data, a, b, sign)
    tol = 1.0 if claim.tolerance is None else claim.tolerance
    same = abs(counts[a] - counts[b]) <= tol
    evidence = f"datasets won (ties shared): {_counts_text(counts)}; {a} - {b} mean gap {_fmt(gap)}, {test.text()} over {units}"
    verdict = (REPRODUCED if outcome == "tie" else PARTLY) if same else NOT_REPRODUCED
    return Judgement(
        verdict, evidence, float(counts[a] - counts[b]), test.name, test.statistic, test.p, test.n
    )


@rule("comparable")
def comparable(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """The subject and ``versus[0]`` perform alike: mean absolute gap within ``tolerance`` (in the
    metric's unit). Gap beyond it and significant: not reproduced; beyond it but not significant:
    partly reproduced (the test cannot separate them, the means are still apart)."""
    if claim.tolerance is None:
        raise ValueError(f"claim {claim.paper}:{claim.claim}: rule 'comparable' needs a tolerance.")
    a, b = claim.subject[0], claim.versus[0]
    x, y, units = _paired(data, a, b)
    gap = float(np.mean(np.abs(x - y)))
    test = stats.wilcoxon_paired(x, y)
    evidence = f"mean |{a} - {b}| = {_fmt(gap)} (tolerance {claim.tolerance:g}), {test.text()} over {units}"
    if gap <= claim.tolerance:
        verdict = REPRODUCED
    else:
        verdict = NOT_REPRODUCED if test.p < alpha else PARTLY
    return Judgement(verdict, evidence, gap, test.name, test.statistic, test.p, test.n)


@rule("gain_fraction")
def gain_fraction(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """The subject improves on ``versus[0]`` by at least ``tolerance`` times the paper's gain
    (``paper_value``, in the metric's unit). Our gain is tested over splits: significant and
    large enough -> reproduced; significant but smaller -> partly; not significant -> no
    difference; significant the other way -> not reproduced. A paper gain <= 0 is a claim of no
    gain: reproduced when ours is not significantly positive."""
    if claim.paper_value is None or claim.tolerance is None:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'gain_fraction' needs paper_value (the paper's gain) and a tolerance (the fraction)."
        )
    sign = 1.0 if claim.higher_is_better else -1.0
    a, b = claim.subject[0], claim.versus[0]
    outcome, gap, test, units = _compare(data, a, b, sign)
    paper = claim.paper_value
    evidence = f"our gain {a} - {b} = {gap:+.3g} (paper {paper:+.3g}), {test.text()} over {units}"
    if test.n < MIN_UNITS and outcome == "tie":
        evidence += f" (with {test.n} unit(s) the test cannot reach p < {alpha:g}: at best {stats.min_wilcoxon_p(test.n):.3g})"
    if paper <= 0:
        verdict = REPRODUCED if outcome != "yes" else NOT_REPRODUCED
    elif outcome == "yes":
        verdict = REPRODUCED if gap >= claim.tolerance * paper else PARTLY
    else:
        verdict = NO_DIFFERENCE if outcome == "tie" else NOT_REPRODUCED
    return Judgement(verdict, evidence, gap, test.name, test.statistic, test.p, test.n)


# ---- per-dataset counts -------------------------------------------------------------------------


def _per_dataset(claim: Claim, data: pd.DataFrame, judge_one, share=None) -> Judgement:
    """Count the datasets on which ``judge_one(dataset, part, means)`` says the claim holds;
    it returns (outcome or None when the subject has no result there, evidence text).

    Every dataset must hold for "reproduced" (:func:`combine`), unless ``share`` is given (a
    claim "in most experiments": 0.5): then more than that share of the datasets holding is
    "reproduced", and some but not enough is "partly reproduced"."""
    methods = _group(claim, data)
    outcomes, parts = [], []
    for d, part in data[data["method"].isin(methods)].groupby("dataset", sort=False):
        part = shared_splits(part)  # the methods present, on the splits all of them have
        means = part.groupby("method")["value"].mean().reindex(methods).dropna()
        outcome, text = judge_one(d, part, means, methods)
        parts.append(text)
        if outcome is not None:
            outcomes.append(outcome)
    if not outcomes:
        raise MissingResults(
            f"claim {claim.paper}:{claim.claim}: no dataset has results of {list(claim.subject)}."
        )
    hits = outcomes.count("yes")
    verdict, count = combine(outcomes), f"{hits}/{len(outcomes)} datasets"
    if share is not None:
        count += f" (the claim asks for more than {share:g} of them)"
        if hits > share * len(outcomes):
            verdict = REPRODUCED
    return Judgement(
        verdict,
        f"{count}; " + "; ".join(parts),
        ours=float(hits),
        n=len(outcomes),
    )


@rule("extreme")
def extreme(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """On each dataset the subject is the best of its group (fewest iterations, lowest
    objective, highest accuracy, ...: ``better`` says which), ties decided by the paired test
    over the dataset's splits. All datasets -> reproduced; some -> partly; a dataset where the
    subject only ties -> tie."""
    sign = 1.0 if claim.higher_is_better else -1.0
    subject = claim.subject[0]

    def one(d, part, means, methods):
        if subject not in means.index:
            return None, f"{d}: no result of {subject}"
        win = winners(part, methods, sign, alpha, claim.tolerance or 0.0)
        outcome = ("yes" if len(win) == 1 else "tie") if subject in win else "no"
        ranking = sorted(means.index, key=lambda m: -sign * means[m])
        tied = "" if len(win) == 1 else f" (tied: {', '.join(win)})"
        return outcome, f"{d}: " + " | ".join(f"{m} {_fmt(means[m])}" for m in ranking) + tied

    return _per_dataset(claim, data, one)


@rule("top_set")
def top_set(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """On each dataset the subject methods (several) hold the top places of their group.

    The order is decided at its boundary: the weakest subject (by mean) against the strongest
    other method, by the paired Wilcoxon test over the dataset's splits when there are at least
    MIN_UNITS of them (significant -> holds or fails by the gap's sign; not significant -> tie).
    With fewer splits no test can reach the level, and the means decide, as the evidence says
    (one split: a single deterministic measurement).

    ``tolerance`` (optional, in (0, 1)): the share of the datasets the claim asks for, for a
    claim "in most experiments" (0.5: a majority); empty: every dataset."""
    sign = 1.0 if claim.higher_is_better else -1.0
    subjects = set(claim.subject)
    share = claim.tolerance
    if share is not None and not 0 < share < 1:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'top_set' reads its tolerance as the share "
            f"of datasets the claim asks for, in (0, 1) (0.5: 'in most experiments'), got {share:g}."
        )

    def one(d, part, means, methods):
        if not subjects <= set(means.index):
            return None, f"{d}: no result of {sorted(subjects - set(means.index))}"
        ranking = sorted(means.index, key=lambda m: -sign * means[m])
        text = f"{d}: " + " > ".join(f"{m} {_fmt(means[m])}" for m in ranking)
        outcome = "yes" if set(ranking[: len(subjects)]) == subjects else "no"
        others = [m for m in ranking if m not in subjects]
        if not others:
            return outcome, text
        weakest = [m for m in ranking if m in subjects][-1]
        wide = part.pivot_table(index="split", columns="method", values="value")
        pair = wide[[weakest, others[0]]].dropna()
        if len(pair) < MIN_UNITS:
            by_means = f" (by means: {len(pair)} splits)" if len(pair) > 1 else ""
            return outcome, text + by_means
        test = stats.wilcoxon_paired(pair[weakest].to_numpy(), pair[others[0]].to_numpy())
        gap = float(np.mean(sign * (pair[weakest] - pair[others[0]])))
        outcome = ("yes" if gap > 0 else "no") if test.p < alpha else "tie"
        return outcome, f"{text} ({weakest} vs {others[0]}: {test.text()})"

    return _per_dataset(claim, data, one, share)


@rule("trend")
def trend(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """The subject's gain over ``versus`` grows with the claim's ``covariate`` (a column of the
    results frame, e.g. the training size): the gain, in the ``better`` direction, of each
    (dataset, covariate value) group, averaged over the splits where both methods ran, against
    the covariate by Spearman's rank correlation. rho > 0 significant -> reproduced; rho < 0
    significant -> not reproduced; not significant -> no difference; fewer than MIN_UNITS groups
    -> not checked (too few units)."""
    if not claim.covariate or len(claim.subject) != 1 or len(claim.versus) != 1:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'trend' needs one subject, one versus method "
            "and a covariate column."
        )
    sign = 1.0 if claim.higher_is_better else -1.0
    a, b, cov = claim.subject[0], claim.versus[0], claim.covariate
    data = data.assign(_x=pd.to_numeric(data[cov], errors="raise"))
    xs, gains, parts = [], [], []
    for (d, x), part in data.groupby(["dataset", "_x"], sort=True):
        wide = part.pivot_table(index="split", columns="method", values="value")
        if a not in wide or b not in wide:
            continue
        pair = wide[[a, b]].dropna()
        if pair.empty:
            continue
        gain = float(np.mean(sign * (pair[a] - pair[b])))
        xs.append(float(x))
        gains.append(gain)
        parts.append(f"{d} ({cov} {x:g}) {gain:+.3g}")
    if len(xs) < MIN_UNITS:
        raise TooFewUnits(
            f"{len(xs)} (dataset, {cov}) group(s) with both {a} and {b}; a rank correlation "
            f"needs at least {MIN_UNITS}"
        )
    test = stats.spearman(xs, gains)
    if test.p < alpha:
        verdict = REPRODUCED if test.statistic > 0 else NOT_REPRODUCED
    else:
        verdict = NO_DIFFERENCE
    return Judgement(
        verdict,
        f"gain of {a} over {b} against {cov}, {test.text()}; " + "; ".join(parts),
        ours=test.statistic,
        test=test.name,
        statistic=test.statistic,
        p_value=test.p,
        n=test.n,
    )


# ---- numbers and rates --------------------------------------------------------------------------


@rule("value_close")
def value_close(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """Our value (mean over splits, per dataset) matches the paper's: the paper's value lies in
    mean ± 2 std of our splits, or within ``tolerance`` of our mean. Judged per dataset."""
    if claim.paper_value is None:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'value_close' needs paper_value."
        )
    tol = claim.tolerance or 0.0
    subject = claim.subject[0]
    if not (data["method"] == subject).any():  # e.g. a sensitivity run of other methods only
        raise MissingResults(f"no results of {subject!r} in the selected data.")
    outcomes, parts, ours = [], [], []
    for d, part in data[data["method"] == subject].groupby("dataset", sort=False):
        v = part["value"].to_numpy(dtype=float)
        mean, std = float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0
        ok = abs(mean - claim.paper_value) <= max(tol, 2.0 * std)
        outcomes.append("yes" if ok else "no")
        ours.append(mean)
        spread = f" ± {_fmt(std)} over {v.size} splits" if v.size > 1 else ""
        parts.append(
            f"{d}: ours {_fmt(mean)}{spread}, paper {_fmt(claim.paper_value)}, gap {mean - claim.paper_value:+.3g}"
        )
    return Judgement(
        combine(outcomes),
        "; ".join(parts) + f" (tolerance max({tol:g}, 2 std))",
        ours=float(np.mean(ours)),
        n=len(outcomes),
    )


def _ratio(claim: Claim, data: pd.DataFrame) -> tuple[np.ndarray, float, str]:
    """The subject's values, their median and the text of their spread."""
    v = data[data["method"] == claim.subject[0]]["value"].to_numpy(dtype=float)
    if v.size == 0:
        raise MissingResults(
            f"claim {claim.paper}:{claim.claim}: no value of {claim.subject[0]!r}."
        )
    med = float(np.median(v))
    spread = f" (median of {v.size}: range {_fmt(v.min())}-{_fmt(v.max())})" if v.size > 1 else ""
    return v, med, spread


def _rate_judgement(
    claim, values, alpha, verdict, evidence, med, claimed_side, bounds=()
) -> Judgement:
    """``verdict`` of the median, with the side of 1 decided by a test for a rate claim
    (``kind`` "rate": a speed-up, an iteration ratio) with at least :data:`MIN_UNITS` values:
    the Wilcoxon signed-rank test of their logarithms against 0 (:func:`stats.log_rate_test`;
    a ratio is symmetric on the log scale, 2x and 0.5x being equally far from 1). Not separable
    from 1 -> no difference (run-to-run noise of a measured time moves a median near 1 across
    it; the test does not follow); significantly on the other side than the claim
    (``claimed_side``, +1 or -1) -> not reproduced; significantly on the claim's side -> at least
    partly reproduced (the size by the median).

    ``bounds``: the size the claim states, as ``(bound, side)`` pairs (``at_least``: above its
    threshold; ``ratio_close``: above the band's low end and below its high end). A median that
    meets them is reproduced only when the same test puts the rates significantly on the
    stated side of every bound (log-rates against ``log(bound)``; all must hold, so no
    multiplicity correction); else partly reproduced (the side of 1 shown, the size not),
    whichever side of a bound this run's median falls. Measured medians near a bound crossed it
    with the machine: AKDA's C28b (at least 2) in eight full runs, C23 (20-80) between its
    rounds 4 and 5 (paper_figures/akda/NOTES.md). The columns hold the weakest of these tests.
    Other claims, or fewer values: the median's ``verdict`` as it is."""
    if claim.kind != "rate" or values.size < MIN_UNITS:
        return Judgement(verdict, evidence, ours=med)
    if not np.all(values > 0):
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: a rate must be positive, got "
            f"{np.sort(values[values <= 0])[:3]} among the values of {claim.subject[0]!r}."
        )
    if not all(bound > 0 for bound, _ in bounds):
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: the bounds of a rate must be positive, got "
            f"{[bound for bound, _ in bounds]}."
        )
    test, side = stats.log_rate_test(values)
    direction = side if test.p < alpha else 0
    if direction == 0:
        verdict = NO_DIFFERENCE
    elif direction != claimed_side:
        verdict = NOT_REPRODUCED
    elif verdict == NOT_REPRODUCED:
        verdict = PARTLY
    text = {1: "above 1", -1: "below 1", 0: "not separable from 1"}[direction]
    evidence += f"; log-rate against 0: {test.text()} ({text})"
    if bounds and direction == claimed_side:
        sizes, held = [], True
        for bound, want in bounds:
            size, side = stats.log_rate_test(values / bound)
            where = (
                {1: "above", -1: "below"}[side] if size.p < alpha and side else "not separable from"
            )
            evidence += f"; against {bound:g}: {size.text()} ({where} {bound:g})"
            held &= bool(size.p < alpha and side == want)
            sizes.append(size)
        if verdict == REPRODUCED:  # the median meets the stated size: these tests decide
            verdict = REPRODUCED if held else PARTLY
            test = max(sizes, key=lambda t: t.p)
    return Judgement(verdict, evidence, med, test.name, test.statistic, test.p, test.n)


@rule("ratio_close")
def ratio_close(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """A rate (speed-up, iteration ratio) close to the paper's: the median of ours within a
    factor ``tolerance`` of ``paper_value``; on the same side of 1 but farther: partly. With at
    least :data:`MIN_UNITS` values of a rate claim the side of 1 is the Wilcoxon test's (not
    separable from 1 -> no difference), and a median inside the band is reproduced only when
    the test puts the rates significantly inside it (:func:`_rate_judgement`)."""
    if claim.paper_value is None or not claim.tolerance or claim.tolerance < 1:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'ratio_close' needs paper_value and a factor tolerance >= 1."
        )
    v, med, spread = _ratio(claim, data)
    lo, hi = claim.paper_value / claim.tolerance, claim.paper_value * claim.tolerance
    if lo <= med <= hi:
        verdict = REPRODUCED
    elif (med > 1) == (claim.paper_value > 1):
        verdict = PARTLY
    else:
        verdict = NOT_REPRODUCED
    evidence = (
        f"ours {_fmt(med)}{spread}, paper {_fmt(claim.paper_value)}, accepted {_fmt(lo)}-{_fmt(hi)}"
    )
    side = 1 if claim.paper_value > 1 else -1
    return _rate_judgement(claim, v, alpha, verdict, evidence, med, side, ((lo, 1), (hi, -1)))


@rule("at_least")
def at_least(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """A value (median over splits) at least ``tolerance`` (e.g. "an order of magnitude
    faster": 10); at least 1 but below it: partly; below 1: not reproduced. With at least
    :data:`MIN_UNITS` values of a rate claim the side of 1 is decided by the Wilcoxon test of
    the log-rates, and reproduced needs the median at or above the threshold and the same test
    putting the rates significantly above it (:func:`_rate_judgement`): a threshold inside the
    noise of the measured rates is partly reproduced, not a verdict that follows each run's
    median across it."""
    if claim.tolerance is None:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'at_least' needs a tolerance (the threshold)."
        )
    v, med, spread = _ratio(claim, data)
    verdict = REPRODUCED if med >= claim.tolerance else (PARTLY if med >= 1 else NOT_REPRODUCED)
    evidence = f"ours {_fmt(med)}{spread}, threshold {claim.tolerance:g}"
    return _rate_judgement(claim, v, alpha, verdict, evidence, med, 1, ((claim.tolerance, 1),))


@rule("at_most")
def at_most(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """An upper bound (e.g. "the standard deviation stays below 1.7 %"): the median over splits
    (and datasets) at most ``tolerance``; above it: not reproduced. The spread is reported."""
    if claim.tolerance is None:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'at_most' needs a tolerance (the bound)."
        )
    _, med, spread = _ratio(claim, data)
    verdict = REPRODUCED if med <= claim.tolerance else NOT_REPRODUCED
    return Judgement(verdict, f"ours {_fmt(med)}{spread}, bound {claim.tolerance:g}", ours=med)


@rule("each_at_most")
def each_at_most(claim: Claim, data: pd.DataFrame, alpha: float) -> Judgement:
    """An upper bound that every part must meet ("below 1.7 % for all the variants"): the value
    of each (dataset, subject method), averaged over its splits, at most ``tolerance``. All
    parts -> reproduced; some -> partly; none -> not reproduced. The largest value is ``ours``.
    Without subjects every method of the selection is a part."""
    if claim.tolerance is None:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: rule 'each_at_most' needs a tolerance (the bound)."
        )
    part = data[data["method"].isin(claim.subject)] if claim.subject else data
    missing = sorted(set(claim.subject) - set(part["method"]))
    if part.empty or missing:
        raise MissingResults(f"no values of {missing or list(claim.subject)}.")
    values = part.groupby(["dataset", "method"], sort=False)["value"].mean()
    outcomes = ["yes" if v <= claim.tolerance else "no" for v in values]
    above = values[values > claim.tolerance]
    worst = values.idxmax()
    evidence = (
        f"{outcomes.count('yes')}/{len(outcomes)} at most {claim.tolerance:g}; largest "
        f"{_fmt(values.max())} ({worst[1]}, {worst[0]})"
    )
    if len(above):
        evidence += "; above: " + ", ".join(f"{m} ({d}) {_fmt(v)}" for (d, m), v in above.items())
    return Judgement(combine(outcomes), evidence, ours=float(values.max()), n=len(outcomes))


# ---- equivalences -------------------------------------------------------------------------------


def equivalence_holds(claim: Claim, diagnostic: pd.DataFrame) -> Judgement | None:
    """``equivalent by construction`` when the claim's diagnostic (``equivalence`` column,
    ``metric<=bound``, e.g. ``max_angle_deg<=1e-3``) holds on every dataset of the claim; None
    when it fails anywhere (the claim is then judged by its rule)."""
    metric, bound = _parse_equivalence(claim)
    if diagnostic.empty:
        return None
    per = diagnostic.groupby("dataset", sort=False)["value"].max()
    if (per <= bound).all():
        text = ", ".join(f"{d} {_fmt(v)}" for d, v in per.items())
        return Judgement(
            EQUIVALENT,
            f"{metric} <= {bound:g} on every dataset ({text})",
            ours=float(per.max()),
            n=len(per),
        )
    return None


def _parse_equivalence(claim: Claim) -> tuple[str, float]:
    metric, sep, bound = claim.equivalence.partition("<=")
    if not sep:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: equivalence {claim.equivalence!r} must read 'metric<=bound'."
        )
    return metric.strip(), float(bound)
