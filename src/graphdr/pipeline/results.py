"""A paper's tidy results frame: its row order and its files (fixed float format, same bytes
run to run).

Every paper's report writes its frame here (``<paper>_results.csv``, the measured seconds in
``<paper>_results_timing.csv``); the claims ledger judges them (:mod:`graphdr.pipeline.claims`).
Apart from the ledger on purpose: code inputs follow imports (:mod:`graphdr.pipeline.codedeps`),
so a report that imported the ledger's rules would re-run with every rule edit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphdr.ledger.vocabulary import PRIMARY, RESULT_COLUMNS
from graphdr.pipeline import io

__all__ = [
    "MEASURED_STUDIES",
    "complete_variant",
    "result_frame",
    "result_row",
    "sort_results",
    "write_results",
]

#: Studies of a results frame that hold wall-clock measurements: they go to
#: ``<paper>_results_timing.csv`` (the project's "timing" naming convention: bytes change run to
#: run), everything else to ``<paper>_results.csv`` (byte-identical run to run).
MEASURED_STUDIES = ("timing", "toy_timing", "equivalence_timing")


def result_row(
    paper,
    study,
    variant,
    dataset,
    method,
    metric,
    value,
    *,
    classifier="",
    dimension="",
    split="",
    **extra,
) -> dict:
    """One row of a results frame: the :data:`~graphdr.ledger.vocabulary.RESULT_COLUMNS` in
    their order (``value`` as a float), then a paper's ``extra`` columns. ``dimension`` and
    ``split`` are kept as given (text in every frame: the callers format them)."""
    return {
        "paper": paper, "study": study, "variant": variant, "dataset": dataset,
        "method": method, "classifier": classifier, "dimension": dimension, "split": split,
        "metric": metric, "value": float(value),
    } | extra  # fmt: skip


def result_frame(rows=(), extra=(), **columns) -> pd.DataFrame:
    """A results frame: of ``rows`` (dicts such as :func:`result_row`'s), or, given ``columns``,
    of the :data:`~graphdr.ledger.vocabulary.RESULT_COLUMNS` as equal-length columns and scalars
    (``classifier``, ``dimension`` and ``split`` default to ""); the columns in their order,
    ``extra`` after them. No row gives the empty frame with those columns."""
    names = [*RESULT_COLUMNS, *extra]
    if not columns:
        return pd.DataFrame(list(rows), columns=names)
    columns = {"classifier": "", "dimension": "", "split": ""} | columns
    return pd.DataFrame({name: columns[name] for name in names})


def complete_variant(
    frame: pd.DataFrame, variant: str, keys, within=None, source: str = PRIMARY
) -> pd.DataFrame:
    """``frame`` with its ``source`` rows (the primary ones by default) copied under ``variant``
    wherever the variant's own rows lack their ``keys`` (e.g. the (dataset, method) pairs or the
    datasets a sensitivity run did not re-run), appended after the rows of ``frame``. ``within``
    (a boolean mask of ``frame``, e.g. one study) restricts both the variant's rows and the
    copied ones.

    A sensitivity run re-runs only what its setting changes, and the ledger judges a variant on
    its own rows: the units it leaves unchanged come from the primary run, so that every claim
    is judged on the whole study under the variant too.
    """
    inside = True if within is None else within
    own = frame[(frame["variant"] == variant) & inside]
    changed = set(own[list(keys)].itertuples(index=False, name=None))
    primary = frame[(frame["variant"] == source) & inside]
    # a boolean array, never a list: an empty list would select no column, and the concat
    # would then turn the integer columns to float
    keep = np.array(
        [k not in changed for k in primary[list(keys)].itertuples(index=False, name=None)],
        dtype=bool,
    )
    return pd.concat([frame, primary[keep].assign(variant=variant)], ignore_index=True)


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
