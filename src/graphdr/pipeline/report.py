"""Workflow stage: paper tables from score files, figures from embeddings.

A *table spec* (config ``experiments.<name>.tables.<table>``) says which scores form the cells::

    {"classifier": "1nn", "metric": "accuracy", "part": "test", "dimension": "max",
     "rows": "method", "columns": "dataset", "scale": 100, "decimals": 2}

``dimension`` is ``"max"`` (the fitted dimension), an int (that dimension, or the largest one
below it), ``"best"`` (the dimension with the best mean test score, shown in parentheses: the
papers' "minimum error over dimensions") or ``"best_val"`` (chosen on the validation part,
reported on test). Cells are averaged over seeds and folds (mean +- std, ddof=0). With a
``reference`` (paper values as CSV with columns row, column, value and optionally std/detail)
the display table is paper vs reproduced (:func:`graphdr.reporting.paper_vs_reproduced`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphdr import reporting
from graphdr.pipeline import io

TABLE_METRICS = {
    "accuracy": ("accuracy", False),
    "error": ("accuracy", True),
    "map": ("map", False),
}
REPLICATE = ["seed", "fold"]


def read_scores(paths: Sequence[str | os.PathLike]) -> pd.DataFrame:
    """Concatenate score CSVs (see :mod:`graphdr.pipeline.evaluate`)."""
    if not paths:
        raise ValueError("no score files given: the table's experiment produced no scores.")
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


def _cell_scores(scores: pd.DataFrame, spec: Mapping, part: str) -> pd.DataFrame:
    """Rows of one classifier/metric/part, with ``value`` in the table's metric and scale."""
    source, flip = TABLE_METRICS[spec.get("metric", "accuracy")]
    rows = scores[
        (scores["classifier"] == spec["classifier"])
        & (scores["metric"] == source)
        & (scores["part"] == part)
    ].copy()
    if rows.empty:
        found = sorted(
            set(zip(scores["classifier"], scores["metric"], scores["part"], strict=True))
        )
        raise ValueError(
            f"no scores for classifier={spec['classifier']!r}, metric={source!r}, part={part!r}; "
            f"the score files hold (classifier, metric, part) = {found}."
        )
    if flip:
        rows["value"] = 1.0 - rows["value"]
    rows["value"] *= float(spec.get("scale", 1.0))
    return rows


def _at_dimension(rows: pd.DataFrame, dimension) -> pd.DataFrame:
    """Per replicate, the row at the fitted (``"max"``) or the requested dimension."""
    keys = ["dataset", "method", *REPLICATE]
    if dimension == "max":
        target = rows.groupby(keys)["dim"].transform("max")
    else:
        capped = rows["dim"].where(rows["dim"] <= int(dimension))
        target = capped.groupby([rows[k] for k in keys]).transform("max")
    return rows[rows["dim"] == target]


def _best_dimension(rows: pd.DataFrame, lower_is_better: bool) -> pd.Series:
    """Per (dataset, method), the dimension with the best mean over replicates (ties: smallest)."""
    means = rows.groupby(["dataset", "method", "dim"])["value"].mean().reset_index()
    means["key"] = means["value"] if lower_is_better else -means["value"]
    best = means.sort_values(["dataset", "method", "key", "dim"], kind="stable")
    return best.groupby(["dataset", "method"])["dim"].first()


def table_cells(scores: pd.DataFrame, spec: Mapping) -> pd.DataFrame:
    """Long form of a table: ``dataset, method, value, std, n, detail`` (one row per cell)."""
    lower = TABLE_METRICS[spec.get("metric", "accuracy")][1]
    dimension = spec.get("dimension", "max")
    test = _cell_scores(scores, spec, spec.get("part", "test"))
    detail = None
    if dimension in ("best", "best_val"):
        chooser = test if dimension == "best" else _cell_scores(scores, spec, "val")
        best = _best_dimension(chooser, lower)
        chosen = best.reindex(pd.MultiIndex.from_frame(test[["dataset", "method"]])).to_numpy()
        test = test[test["dim"].to_numpy() == chosen]
        detail = best
    else:
        test = _at_dimension(test, dimension)
    grouped = test.groupby(["dataset", "method"], sort=False)["value"]
    cells = pd.DataFrame(
        {"value": grouped.mean(), "std": grouped.std(ddof=0), "n": grouped.size()}
    ).reset_index()
    cells["detail"] = (
        None
        if detail is None
        else [int(detail[(d, m)]) for d, m in zip(cells["dataset"], cells["method"], strict=True)]
    )
    return cells


def _format_cell(value, std, n, detail, decimals) -> str:
    text = f"{value:.{decimals}f}"
    if n > 1 and not math.isnan(std):
        text += f" \u00b1 {std:.{decimals}f}"
    if detail is not None and not (isinstance(detail, float) and math.isnan(detail)):
        text += f" ({int(detail)})"
    return text


def display_table(
    cells: pd.DataFrame, spec: Mapping, labels: Mapping[str, Mapping[str, str]]
) -> pd.DataFrame:
    """Rows x columns of formatted cells, in config order, with display labels."""
    rows_by, cols_by = spec.get("rows", "method"), spec.get("columns", "dataset")
    decimals = int(spec.get("decimals", 2))
    text = {
        (r[rows_by], r[cols_by]): _format_cell(r["value"], r["std"], r["n"], r["detail"], decimals)
        for r in cells.to_dict("records")
    }
    row_keys, col_keys = list(labels[rows_by]), list(labels[cols_by])
    header = spec.get("row_header", rows_by)
    records = [
        {header: labels[rows_by][r]} | {labels[cols_by][c]: text.get((r, c), "") for c in col_keys}
        for r in row_keys
    ]
    return pd.DataFrame(records)


def collect_table(
    score_files: Sequence[str | os.PathLike],
    stem: str | os.PathLike,
    long_output: str | os.PathLike,
    *,
    spec: Mapping,
    labels: Mapping[str, Mapping[str, str]],
    reference: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Build one paper table from score files: ``<stem>.csv/.md/.tex`` plus the long CSV.

    ``labels`` maps ``"method"`` and ``"dataset"`` keys to display names, in table order.
    """
    cells = table_cells(read_scores(score_files), spec)
    order = {k: {key: i for i, key in enumerate(labels[k])} for k in ("dataset", "method")}
    cells = cells.sort_values(
        ["dataset", "method"], key=lambda s: s.map(order[s.name]), kind="stable"
    ).reset_index(drop=True)
    io.write_csv(cells, long_output)
    if reference is None:
        shown = display_table(cells, spec, labels)
    else:
        shown = _versus_paper(cells, spec, labels, reference)
    reporting.write_table(shown, stem, caption=spec.get("caption"), label=spec.get("label"))
    return shown


def _versus_paper(cells, spec, labels, reference) -> pd.DataFrame:
    rows_by, cols_by = spec.get("rows", "method"), spec.get("columns", "dataset")
    ours = pd.DataFrame(
        {
            "row": cells[rows_by].map(labels[rows_by]),
            "column": cells[cols_by].map(labels[cols_by]),
            "value": cells["value"],
            "std": cells["std"].where(cells["n"] > 1),
            "detail": cells["detail"],
        }
    )
    paper = pd.read_csv(reference)
    not_reproduced = dict(spec.get("not_reproduced") or {})
    return reporting.paper_vs_reproduced(
        ours,
        paper,
        not_reproduced,
        decimals=int(spec.get("decimals", 2)),
        row_label=spec.get("row_header", rows_by),
    )


def plot_projection(
    embeddings: Mapping[tuple[str, str], str | os.PathLike],
    stem: str | os.PathLike,
    *,
    part: str = "test",
    title: str | None = None,
) -> dict:
    """Scatter the first two embedding columns of ``part``, one panel per (dataset, method).

    ``embeddings`` maps ``(dataset label, method label)`` to an embedding file, in panel order
    (datasets are rows, methods columns). A 1-D embedding is drawn against a zero axis. Writes
    ``<stem>.pdf`` and ``<stem>.png`` with :func:`graphdr.reporting.save_figure`.
    """
    datasets_ = list(dict.fromkeys(d for d, _ in embeddings))
    methods = list(dict.fromkeys(m for _, m in embeddings))
    # each row's class legend sits right of its last panel: the panels share what is left
    legend_width, margin = 1.0, 0.6
    panel = min(2.2, (reporting.DOUBLE_COLUMN - legend_width - margin) / len(methods))
    size = (panel * len(methods) + legend_width + margin, 2.0 * len(datasets_) + 0.4)
    with reporting.figure_style(**{"figure.figsize": size}):
        fig = reporting.new_figure()
        axes = fig.subplots(len(datasets_), len(methods), squeeze=False)
        for (dataset, method), path in embeddings.items():
            ax = axes[datasets_.index(dataset), methods.index(method)]
            _scatter(ax, io.read_npz(path), part, legend=methods.index(method) == len(methods) - 1)
            if datasets_.index(dataset) == 0:
                ax.set_title(method)
            if methods.index(method) == 0:
                ax.set_ylabel(dataset)
        if title:
            fig.suptitle(title)
        return reporting.save_figure(fig, stem)


def _scatter(ax, arrays, part, legend: bool) -> None:
    from graphdr.plotting import MAX_LEGEND_CLASSES, plot_embedding

    y = arrays[f"y_{part}"]
    names = arrays.get("class_names")
    labels = None if names is None else {c: names[int(c)] for c in np.unique(y)}
    plot_embedding(
        arrays[f"Z_{part}"],
        y,
        ax,
        labels=labels,
        legend=legend and np.unique(y).size <= MAX_LEGEND_CLASSES,
    )
