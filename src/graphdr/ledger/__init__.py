"""The claims ledger: every claim of the four papers as data, judged by one rule engine.

``config/references/<paper>_claims.csv`` holds one row per claim of a paper's text; each paper's
protocol writes one tidy results frame (``<paper>_results.csv``: paper, study, variant, dataset,
method, classifier, dimension, split, metric, value); :func:`judge` applies the rule registry
(:mod:`graphdr.ledger.rules`, paired tests from :mod:`graphdr.ledger.stats`) and returns one
verdict per claim and variant from one vocabulary (:data:`VERDICTS`). See ``docs/claims.md``.
"""

from graphdr.ledger.engine import (
    PRIMARY,
    RESULT_COLUMNS,
    check_results,
    judge,
    read_claims,
    sensitivity_table,
)
from graphdr.ledger.rules import ALPHA, RULES
from graphdr.ledger.vocabulary import VERDICTS, Claim, Judgement

__all__ = [
    "ALPHA",
    "PRIMARY",
    "RESULT_COLUMNS",
    "RULES",
    "VERDICTS",
    "Claim",
    "Judgement",
    "check_results",
    "judge",
    "read_claims",
    "sensitivity_table",
]
