"""The one vocabulary of verdicts, the columns of a results frame, and the claim and judgement
records of the ledger (no rule, no test: the papers' reports import it to write their frames)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "PRIMARY",
    "RESULT_COLUMNS",
    "EQUIVALENT",
    "NOT_CHECKED",
    "NO_DIFFERENCE",
    "NOT_REPRODUCED",
    "PARTLY",
    "REPRODUCED",
    "VERDICTS",
    "Claim",
    "Judgement",
    "combine",
]

#: the variant of a results row that is the paper's setting (the others are sensitivity runs)
PRIMARY = "primary"
#: the columns every paper's tidy results frame has (``<paper>_results.csv``)
RESULT_COLUMNS = (
    "paper", "study", "variant", "dataset", "method", "classifier", "dimension", "split",
    "metric", "value",
)  # fmt: skip

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
NOT_REPRODUCED = "not reproduced"
NO_DIFFERENCE = "no difference"
EQUIVALENT = "equivalent by construction"
NOT_CHECKED = "not checked"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NO_DIFFERENCE, EQUIVALENT, NOT_CHECKED)


@dataclass(frozen=True)
class Claim:
    """One row of ``config/references/<paper>_claims.csv`` (see ``docs/claims.md``)."""

    paper: str
    claim: str
    study: str
    kind: str
    source: str
    statement: str
    rule: str
    subject: tuple[str, ...] = ()
    versus: tuple[str, ...] = ()
    metric: str = ""
    better: str = ""
    classifier: str = ""
    datasets: tuple[str, ...] = ()
    where: tuple[tuple[str, str], ...] = ()
    paper_value: float | None = None
    tolerance: float | None = None
    equivalence: str = ""
    covariate: str = ""
    status: str = "check"
    reason: str = ""

    @property
    def higher_is_better(self) -> bool:
        if self.better not in ("higher", "lower"):
            raise ValueError(
                f"claim {self.paper}:{self.claim}: rule {self.rule!r} compares values, so its "
                f"'better' column must be 'higher' or 'lower', got {self.better!r}."
            )
        return self.better == "higher"


@dataclass(frozen=True)
class Judgement:
    """A verdict from :data:`VERDICTS` with its evidence (numbers, test, p-value)."""

    verdict: str
    evidence: str
    ours: float | None = None
    test: str = ""
    statistic: float | None = None
    p_value: float | None = None
    n: int | None = None
    details: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}.")


def combine(outcomes: list[str]) -> str:
    """One verdict from per-part outcomes ``"yes"`` / ``"tie"`` / ``"no"`` (every part must hold
    for "reproduced"): all yes -> reproduced; all tie -> no difference; some yes -> partly
    reproduced; otherwise (no yes, some no) -> not reproduced."""
    if not outcomes:
        raise ValueError("no outcome to combine: the claim selected no data.")
    yes, no = outcomes.count("yes"), outcomes.count("no")
    if yes == len(outcomes):
        return REPRODUCED
    if yes:
        return PARTLY
    if no:
        return NOT_REPRODUCED
    return NO_DIFFERENCE
