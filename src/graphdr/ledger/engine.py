"""The verdict engine: a claims file + the tidy results frame -> one verdict per claim and variant.

* :func:`read_claims` — ``config/references/<paper>_claims.csv`` as :class:`Claim` records,
  checked (columns, unique ids, known rules and kinds, a reason for every unchecked claim);
* :func:`check_results` — the tidy results frame (:data:`RESULT_COLUMNS`), checked;
* :func:`judge` — every claim on every variant of its study; the ``primary`` variant is the
  paper's setting, the others are sensitivity runs (``docs/claims.md``);
* :func:`sensitivity_table` — per claim, each variant's verdict and whether it flips the
  primary one.

No verdict is decided anywhere else: the four papers' claims all go through :func:`judge`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import replace

import pandas as pd

from graphdr.ledger.rules import (
    ALPHA,
    RULES,
    MissingResults,
    TooFewUnits,
    equivalence_holds,
    judge_rule,
)
from graphdr.ledger.vocabulary import NOT_CHECKED, PRIMARY, RESULT_COLUMNS, Claim, Judgement

__all__ = [
    "CLAIM_COLUMNS",
    "KINDS",
    "PRIMARY",
    "RESULT_COLUMNS",
    "VERDICT_COLUMNS",
    "check_results",
    "judge",
    "read_claims",
    "sensitivity_table",
]

KINDS = ("number", "ordering", "count", "rate", "shape", "equivalence")
CLAIM_COLUMNS = (
    "claim", "study", "kind", "source", "statement", "subject", "versus", "metric", "better",
    "classifier", "dataset", "where", "paper_value", "rule", "tolerance", "equivalence", "status",
    "reason", "covariate",
)  # fmt: skip
REQUIRED_CLAIM_COLUMNS = ("claim", "study", "kind", "source", "statement", "rule", "status")
VERDICT_COLUMNS = (
    "paper", "claim", "variant", "study", "kind", "source", "statement", "rule", "verdict",
    "ours", "paper_value", "test", "statistic", "p_value", "n", "evidence",
)  # fmt: skip


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def _names(value) -> tuple[str, ...]:
    return tuple(v.strip() for v in _cell(value).split(";") if v.strip())


def _number(value, what: str, where: str) -> float | None:
    text = _cell(value)
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{where}: {what} must be a number or empty, got {text!r}.") from None


def read_claims(path: str | os.PathLike, paper: str | None = None) -> list[Claim]:
    """The claims of one paper (``paper`` defaults to the file name's prefix before ``_claims``)."""
    paper = paper or os.path.basename(os.fspath(path)).split("_claims")[0]
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in REQUIRED_CLAIM_COLUMNS if c not in frame.columns]
    unknown = [c for c in frame.columns if c not in CLAIM_COLUMNS]
    if missing or unknown:
        raise ValueError(
            f"{path}: claims file columns: missing {missing}, unknown {unknown}; the columns are "
            f"{list(CLAIM_COLUMNS)} (docs/claims.md)."
        )
    claims, seen = [], set()
    for i, row in enumerate(frame.to_dict("records"), start=2):
        where = f"{path}, line {i} (claim {row['claim']!r})"
        if not row["claim"] or row["claim"] in seen:
            raise ValueError(f"{where}: every claim needs a unique id, got {row['claim']!r}.")
        seen.add(row["claim"])
        status = row["status"].strip()
        if status not in ("check", NOT_CHECKED):
            raise ValueError(f"{where}: status must be 'check' or {NOT_CHECKED!r}, got {status!r}.")
        if status == NOT_CHECKED and not _cell(row.get("reason")):
            raise ValueError(
                f"{where}: a claim that is not checked needs its reason (column 'reason')."
            )
        if status == "check" and row["rule"] not in RULES:
            raise ValueError(
                f"{where}: unknown rule {row['rule']!r}; the rules are {sorted(RULES)}."
            )
        if row["kind"] not in KINDS:
            raise ValueError(f"{where}: kind must be one of {KINDS}, got {row['kind']!r}.")
        if status == "check" and not _names(row.get("subject")):
            raise ValueError(f"{where}: a checked claim needs a subject (the method it is about).")
        pairs = []
        for item in _names(row.get("where")):
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"{where}: 'where' filters read 'column=value', got {item!r}.")
            pairs.append((key.strip(), value.strip()))
        claims.append(
            Claim(
                paper=paper,
                claim=row["claim"],
                study=row["study"],
                kind=row["kind"],
                source=row["source"],
                statement=row["statement"],
                rule=row["rule"],
                subject=_names(row.get("subject")),
                versus=_names(row.get("versus")),
                metric=_cell(row.get("metric")),
                better=_cell(row.get("better")),
                classifier=_cell(row.get("classifier")),
                datasets=_names(row.get("dataset")),
                where=tuple(pairs),
                paper_value=_number(row.get("paper_value"), "paper_value", where),
                tolerance=_number(row.get("tolerance"), "tolerance", where),
                equivalence=_cell(row.get("equivalence")),
                covariate=_cell(row.get("covariate")),
                status=status,
                reason=_cell(row.get("reason")),
            )
        )
    return claims


def check_results(frame: pd.DataFrame) -> pd.DataFrame:
    """The tidy results frame with its columns checked; ``value`` as float, ids as strings."""
    missing = [c for c in RESULT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"results frame lacks the columns {missing}; it needs {list(RESULT_COLUMNS)}."
        )
    out = frame.copy()
    for c in out.columns:
        if c != "value":
            out[c] = out[c].fillna("").astype(str)
    out["value"] = pd.to_numeric(out["value"], errors="raise").astype(float)
    bad = out["value"].isna()
    if bad.any():
        raise ValueError(
            f"results frame has {int(bad.sum())} NaN values, e.g. {out[bad].iloc[0].to_dict()}."
        )
    return out


def _select(frame: pd.DataFrame, claim: Claim, metric: str) -> pd.DataFrame:
    mask = (frame["study"] == claim.study) & (frame["metric"] == metric)
    if claim.classifier:
        mask &= frame["classifier"] == claim.classifier
    if claim.datasets:
        mask &= frame["dataset"].isin(claim.datasets)
    if claim.covariate and claim.covariate not in frame.columns:
        raise ValueError(
            f"claim {claim.paper}:{claim.claim}: covariate {claim.covariate!r} is not a column of the results frame."
        )
    for key, value in claim.where:
        if key not in frame.columns:
            raise ValueError(
                f"claim {claim.paper}:{claim.claim}: 'where' names column {key!r}, absent from the results frame."
            )
        mask &= frame[key] == value
    return frame[mask]


def _row(claim: Claim, variant: str, j: Judgement) -> dict:
    return {
        "paper": claim.paper,
        "claim": claim.claim,
        "variant": variant,
        "study": claim.study,
        "kind": claim.kind,
        "source": claim.source,
        "statement": claim.statement,
        "rule": claim.rule,
        "verdict": j.verdict,
        "ours": j.ours,
        "paper_value": claim.paper_value,
        "test": j.test,
        "statistic": j.statistic,
        "p_value": j.p_value,
        "n": j.n,
        "evidence": j.evidence,
    }


def judge_claim(claim: Claim, frame: pd.DataFrame, alpha: float = ALPHA) -> list[dict]:
    """Verdict rows of one claim: its primary variant first, then each sensitivity variant."""
    if claim.status == NOT_CHECKED:
        return [_row(claim, PRIMARY, Judgement(NOT_CHECKED, claim.reason))]
    data = _select(frame, claim, claim.metric)
    variants = [PRIMARY] + sorted(set(data["variant"]) - {PRIMARY})
    rows = []
    for variant in variants:
        part = data[data["variant"] == variant]
        if part.empty:
            rows.append(
                _row(
                    claim,
                    variant,
                    Judgement(NOT_CHECKED, "no results for this claim in this configuration"),
                )
            )
            continue
        judgement = None
        absent = [d for d in claim.datasets if d not in set(part["dataset"])]
        if absent:
            if variant != PRIMARY:
                continue
            rows.append(
                _row(
                    claim,
                    variant,
                    Judgement(
                        NOT_CHECKED,
                        f"incomplete results: no {claim.metric} rows for dataset(s) {absent}",
                    ),
                )
            )
            continue
        if claim.equivalence:
            metric = claim.equivalence.partition("<=")[0].strip()
            diag = _select(frame, replace(claim, classifier=""), metric)  # any classifier
            judgement = equivalence_holds(claim, diag[diag["variant"] == variant])
        if judgement is None:
            try:
                columns = ["dataset", "method", "split", "value"]
                columns += [claim.covariate] if claim.covariate else []
                judgement = judge_rule(claim, part[columns], alpha)
            except MissingResults as err:
                if variant != PRIMARY:
                    continue  # a sensitivity run that does not cover this claim
                what = "too few units" if isinstance(err, TooFewUnits) else "incomplete results"
                judgement = Judgement(NOT_CHECKED, f"{what}: {err}")
        rows.append(_row(claim, variant, judgement))
    return rows


def judge(claims: Iterable[Claim], frame: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per claim and variant (:data:`VERDICT_COLUMNS`), in the claims file's order."""
    frame = check_results(frame)
    rows = [r for c in claims for r in judge_claim(c, frame, alpha)]
    return pd.DataFrame(rows, columns=list(VERDICT_COLUMNS))


def sensitivity_table(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Per claim with sensitivity variants: the primary verdict, each variant's, and ``flips``."""
    primary = verdicts[verdicts["variant"] == PRIMARY].set_index(["paper", "claim"])["verdict"]
    others = verdicts[verdicts["variant"] != PRIMARY]
    rows = []
    for r in others.itertuples(index=False):
        base = primary.get((r.paper, r.claim), NOT_CHECKED)
        rows.append(
            {
                "paper": r.paper,
                "claim": r.claim,
                "variant": r.variant,
                "primary": base,
                "verdict": r.verdict,
                "flips": "yes" if r.verdict != base else "no",
            }
        )
    return pd.DataFrame(rows, columns=["paper", "claim", "variant", "primary", "verdict", "flips"])
