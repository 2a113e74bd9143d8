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
from graphdr.pipeline import io

__all__ = ["MEASURED_STUDIES", "build_scorecard", "judge_paper", "sort_results", "write_results"]

#: Studies of a results frame that hold wall-clock measurements: they go to
#: ``<paper>_results_timing.csv`` (the project's "timing" naming convention: bytes change run to
#: run), everything else to ``<paper>_results.csv`` (byte-identical run to run).
MEASURED_STUDIES = ("timing", "toy_timing", "equivalence_timing")


def sort_results(frame: pd.DataFrame, keys, numeric=("split",)) -> pd.DataFrame:
    """A results frame in a deterministic row order: a stable sort by ``keys``, where the
    columns in ``numeric`` sort by their number ("10" after "9"; text that is no number, such as
    an empty split, first), the others as text. The index is reset."""
    ordered = frame.assign(
        **{f"_{c}": pd.to_numeric(frame[c], errors="coerce").fillna(-1) for c in numeric}
    )
    ordered = ordered.sort_values([f"_{k}" if k in numeric else k for k in keys], kind="stable")
    return ordered.drop(columns=[f"_{c}" for c in numeric]).reset_index(drop=True)


def write_results(frame: pd.DataFrame, path, timing_path=None) -> None:
    """Write a paper's results frame (fixed float format, deterministic bytes); rows of the
    :data:`MEASURED_STUDIES` go to ``timing_path`` (required when there are any)."""
    measured = frame["study"].isin(MEASURED_STUDIES)
    if measured.any() and timing_path is None:
        raise ValueError(
            f"the results frame has {int(measured.sum())} measured rows (studies {MEASURED_STUDIES}) but no timing path to write them to."
        )
    io.write_text(
        frame[~measured].to_csv(index=False, lineterminator="\n", float_format="%.10g"), path
    )
    if timing_path is not None:
        io.write_text(
            frame[measured].to_csv(index=False, lineterminator="\n", float_format="%.10g"),
            timing_path,
        )


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
