"""Workflow side of the claims ledger: judge one paper, build the scorecard of all papers.

The verdicts come from :func:`graphdr.ledger.judge` only; this module reads the files the
workflow hands it and writes the ledger's outputs (``docs/claims.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import pandas as pd

from graphdr import ledger
from graphdr.ledger import scorecard

__all__ = ["build_scorecard", "judge_paper"]


def judge_paper(
    *,
    paper: str,
    claims: str | os.PathLike,
    results: str | os.PathLike,
    timing: str | os.PathLike | None = None,
    csv_output: str | os.PathLike,
    md_output: str | os.PathLike,
    title: str,
    alpha: float = ledger.ALPHA,
) -> pd.DataFrame:
    """Every claim of ``paper`` judged on its tidy results frame (and its measured rows,
    ``timing``, when the paper has any); writes the verdict files."""
    frames = [results, timing] if timing else [results]
    frame = pd.concat(
        [
            pd.read_csv(f, dtype={"split": str, "dimension": str}, keep_default_na=False)
            for f in frames
        ],
        ignore_index=True,
    )
    verdicts = ledger.judge(ledger.read_claims(claims, paper=paper), frame, alpha=alpha)
    scorecard.write_paper_verdicts(verdicts, csv_path=csv_output, md_path=md_output, title=title)
    return verdicts


def build_scorecard(
    verdict_files: Sequence[str | os.PathLike],
    *,
    titles: Mapping[str, str],
    csv_output: str | os.PathLike,
    md_output: str | os.PathLike,
) -> pd.DataFrame:
    """``CLAIMS.csv`` / ``CLAIMS.md`` from every paper's verdict CSV."""
    frames = [pd.read_csv(f, dtype=str, keep_default_na=False) for f in verdict_files]
    return scorecard.write_scorecard(frames, titles=titles, csv_path=csv_output, md_path=md_output)
