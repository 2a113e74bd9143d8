"""Tables (one DataFrame -> CSV + Markdown + LaTeX, paper vs reproduced) and the figure style.

Every file is written atomically (a temporary file in the target directory, then ``os.replace``,
so a reader on a shared file system never sees half a table) and byte-for-byte deterministic
(no timestamps, no library versions), so re-running a workflow rule does not change its outputs.

The Markdown and LaTeX writers are small and local on purpose: their bytes must not change with
the version of tabulate or of pandas' LaTeX template.
"""

from __future__ import annotations

import contextlib
import io
import math
import numbers
import os
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from graphdr._files import atomic_path as _atomic_path

__all__ = [
    "OKABE_ITO",
    "FIGURE_RC",
    "SINGLE_COLUMN",
    "DOUBLE_COLUMN",
    "panel_grid",
    "write_table",
    "to_markdown",
    "to_latex",
    "NOT_REPRODUCED",
    "NO_REASON",
    "compare_to_paper",
    "footnotes",
    "paper_vs_reproduced",
    "figure_style",
    "new_figure",
    "save_figure",
]

# --------------------------------------------------------------------------------------------
# Atomic, deterministic files
# --------------------------------------------------------------------------------------------


def _write_text(path: Path, text: str) -> Path:
    with _atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return path


# --------------------------------------------------------------------------------------------
# Table writers
# --------------------------------------------------------------------------------------------

FloatFormat = str | Callable[[float], str]


def _float_formatter(float_format: FloatFormat) -> Callable[[float], str]:
    """A callable, a printf format ("%.2f"), a str.format template ("{:.2f}") or a spec (".2f")."""
    if callable(float_format):
        return float_format
    if "%" in float_format:
        return lambda x: float_format % x
    if "{" in float_format:
        return float_format.format
    return lambda x: format(x, float_format)


def _cell_text(value, fmt: Callable[[float], str], na_rep: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return na_rep
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return fmt(float(value))
    return str(value)


_NUMBER_START = re.compile(r"^[+\-\u2212]?\.?\d")
# placeholders that may sit in a numeric column without making it a text column
_PLACEHOLDER = re.compile(r"^(\u2014|\u2013|-|n/a|nan|not reproduced.*)$")


def _is_numeric_column(texts: list[str]) -> bool:
    """Right-align a column of numbers (possibly with placeholders such as an em dash)."""
    texts = [t for t in texts if t and not _PLACEHOLDER.match(t)]
    return bool(texts) and all(_NUMBER_START.match(t) for t in texts)


def _display_frame(df: pd.DataFrame, float_format: FloatFormat, index: bool, na_rep: str):
    """Header strings, cell strings and per-column right-alignment flags."""
    if index:
        df = df.reset_index()
    fmt = _float_formatter(float_format)
    header = [
        " ".join(str(part) for part in c if str(part)) if isinstance(c, tuple) else str(c)
        for c in df.columns
    ]
    cells = [[_cell_text(v, fmt, na_rep) for v in row] for row in df.itertuples(index=False)]
    right = []
    for j, column in enumerate(df.columns):
        if pd.api.types.is_numeric_dtype(df[column]) and not pd.api.types.is_bool_dtype(df[column]):
            right.append(True)
            continue
        right.append(_is_numeric_column([row[j] for row in cells]))
    return header, cells, right


def to_markdown(
    df: pd.DataFrame,
    *,
    caption: str | None = None,
    float_format: FloatFormat = ".2f",
    index: bool = False,
    na_rep: str = "",
) -> str:
    """GitHub-flavoured pipe table (numbers right-aligned), with an optional bold caption."""
    header, cells, right = _display_frame(df, float_format, index, na_rep)

    def clean(text):  # a pipe would end the cell, a newline the row
        return text.replace("|", "\\|").replace("\n", " ")

    header = [clean(h) for h in header]
    cells = [[clean(c) for c in row] for row in cells]
    widths = [max([3, len(h), *(len(r[j]) for r in cells)]) for j, h in enumerate(header)]

    def line(items):
        padded = (
            t.rjust(w) if r else t.ljust(w) for t, w, r in zip(items, widths, right, strict=True)
        )
        return "| " + " | ".join(padded) + " |"

    rule = (
        "|"
        + "|".join(
            ("-" * (w + 1) + ":") if r else ("-" * (w + 2))
            for w, r in zip(widths, right, strict=True)
        )
        + "|"
    )
    lines = [line(header), rule, *(line(row) for row in cells)]
    head = [f"**{caption}**", ""] if caption else []
    return "\n".join(head + lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\u00b1": r"$\pm$",
    "\u0394": r"$\Delta$",
    "\u2212": r"$-$",
    "\u2014": r"---",
    "\u2013": r"--",
}
_LATEX_PATTERN = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


def _latex_escape(text: str) -> str:
    return _LATEX_PATTERN.sub(lambda m: _LATEX_SPECIAL[m.group()], text)


def to_latex(
    df: pd.DataFrame,
    *,
    caption: str | None = None,
    label: str | None = None,
    float_format: FloatFormat = ".2f",
    index: bool = False,
    na_rep: str = "",
) -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs}``), text escaped."""
    header, cells, right = _display_frame(df, float_format, index, na_rep)
    spec = "".join("r" if r else "l" for r in right)

    def row(items):
        return " & ".join(_latex_escape(t) for t in items) + r" \\"

    lines = [r"\begin{table}[htbp]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{_latex_escape(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", row(header), r"\midrule"]
    lines += [row(r) for r in cells]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_table(
    df: pd.DataFrame,
    path_stem: str | os.PathLike,
    *,
    caption: str | None = None,
    label: str | None = None,
    float_format: FloatFormat = ".2f",
    index: bool = False,
    na_rep: str = "",
) -> dict[str, Path]:
    """Write ``df`` as ``<stem>.csv``, ``<stem>.md`` and ``<stem>.tex`` in one call.

    The CSV keeps full precision (``pd.read_csv`` gives the same floats back); ``float_format``
    (a format spec such as ".2f", a printf or str.format template, or a callable) applies to
    Markdown and LaTeX only. Returns the three paths by suffix.
    """
    stem = Path(path_stem)
    buffer = io.StringIO()
    df.to_csv(buffer, index=index, lineterminator="\n")
    options = dict(caption=caption, float_format=float_format, index=index, na_rep=na_rep)
    texts = {
        "csv": buffer.getvalue(),
        "md": to_markdown(df, **options),
        "tex": to_latex(df, label=label, **options),
    }
    return {ext: _write_text(stem.with_name(f"{stem.name}.{ext}"), t) for ext, t in texts.items()}


# --------------------------------------------------------------------------------------------
# Paper versus reproduced
# --------------------------------------------------------------------------------------------

NOT_REPRODUCED = "not reproduced"
NO_REASON = "no reproduced value was recorded"
_KEY = ["row", "column"]


def _check_long(df: pd.DataFrame, what: str) -> pd.DataFrame:
    """Long-form results: row, column, value, optional std and detail; one value per cell."""
    missing = {"row", "column", "value"} - set(df.columns)
    if missing:
        raise ValueError(f"{what} needs columns row, column, value; missing {sorted(missing)}.")
    df = df.copy()
    for col in ("std", "detail"):
        if col not in df.columns:
            df[col] = np.nan if col == "std" else None
    df["value"] = pd.to_numeric(df["value"], errors="raise").astype(float)
    df["std"] = pd.to_numeric(df["std"], errors="raise").astype(float)
    if df["value"].isna().any():
        bad = df.loc[df["value"].isna(), _KEY].to_records(index=False).tolist()
        raise ValueError(
            f"{what} has missing values at {bad}: leave such cells out and, for our results, "
            "give the reason in not_reproduced."
        )
    if df.duplicated(_KEY).any():
        bad = df.loc[df.duplicated(_KEY), _KEY].to_records(index=False).tolist()
        raise ValueError(f"{what} has several values for the cells {bad}.")
    return df[[*_KEY, "value", "std", "detail"]]


def _reason_lookup(not_reproduced, paper_rows, paper_columns):
    """Map a cell to its reason: a (row, column) key, else a row key, else a (None, column) key."""
    cells, rows, columns = {}, {}, {}
    for key, reason in (not_reproduced or {}).items():
        if isinstance(key, tuple):
            row, col = key
            if row is None:
                columns[col] = reason
            elif col is None:
                rows[row] = reason
            else:
                cells[(row, col)] = reason
        else:
            rows[key] = reason
    unknown = [r for r in rows if r not in paper_rows] + [
        c for c in columns if c not in paper_columns
    ]
    unknown += [k for k in cells if k[0] not in paper_rows or k[1] not in paper_columns]
    if unknown:
        raise ValueError(
            f"not_reproduced refers to {unknown}, which the paper table does not contain: "
            "check the spelling of the row and column names."
        )

    def reason(row, col):
        return cells.get((row, col)) or rows.get(row) or columns.get(col) or NO_REASON

    return reason, cells


def compare_to_paper(ours: pd.DataFrame, paper: pd.DataFrame, not_reproduced=None) -> pd.DataFrame:
    """Cell-by-cell comparison in long form (the machine-readable companion of the display).

    ``ours`` and ``paper`` have columns ``row``, ``column``, ``value`` and optionally ``std``
    (shown as mean +- std) and ``detail`` (shown in parentheses, e.g. the best dimension).
    ``not_reproduced`` maps ``(row, column)``, a row, or ``(None, column)`` to the reason a
    paper cell has no reproduced value. Returns one row per cell of either table, in paper
    order then ours order, with ``paper``, ``paper_std``, ``paper_detail``, ``ours``,
    ``ours_std``, ``ours_detail``, ``diff`` (ours - paper), ``status`` ("reproduced",
    "not reproduced" or "not in paper") and ``reason``. Paper cells are never dropped.
    """
    ours, paper = _check_long(ours, "ours"), _check_long(paper, "paper")
    reason_of, cell_reasons = _reason_lookup(
        not_reproduced, set(paper["row"]), set(paper["column"])
    )
    merged = paper.merge(ours, on=_KEY, how="outer", suffixes=("_paper", "_ours"), sort=False)
    # outer merge order is not guaranteed across pandas versions: restore paper, then ours order
    order = pd.concat([paper[_KEY], ours[_KEY]]).drop_duplicates().reset_index(drop=True)
    merged = order.merge(merged, on=_KEY, how="left")
    ours_cells = set(zip(ours["row"], ours["column"], strict=True))
    conflicts = [k for k in cell_reasons if k in ours_cells]
    if conflicts:
        raise ValueError(f"cells {conflicts} are in not_reproduced but have reproduced values.")
    in_paper, in_ours = merged["value_paper"].notna(), merged["value_ours"].notna()
    status = np.where(
        in_paper & in_ours, "reproduced", np.where(in_paper, NOT_REPRODUCED, "not in paper")
    )
    reasons = [
        reason_of(r, c) if s == NOT_REPRODUCED else ""
        for r, c, s in zip(merged["row"], merged["column"], status, strict=True)
    ]
    return pd.DataFrame(
        {
            "row": merged["row"],
            "column": merged["column"],
            "paper": merged["value_paper"],
            "paper_std": merged["std_paper"],
            "paper_detail": merged["detail_paper"],
            "ours": merged["value_ours"],
            "ours_std": merged["std_ours"],
            "ours_detail": merged["detail_ours"],
            "diff": merged["value_ours"] - merged["value_paper"],
            "status": status,
            "reason": reasons,
        }
    )


def _format_value(value, std, detail, decimals: int) -> str:
    """``12.34``, ``12.34 ± 0.56``, ``12.34 (7)``: the value, its spread, its detail."""
    text = f"{value:.{decimals}f}"
    if std is not None and not (isinstance(std, float) and math.isnan(std)):
        text += f" \u00b1 {std:.{decimals}f}"
    if detail is not None and not (isinstance(detail, float) and math.isnan(detail)):
        if isinstance(detail, numbers.Real) and float(detail).is_integer():
            detail = int(detail)
        text += f" ({detail})"
    return text


def _cell_texts(cmp: pd.DataFrame, markers: dict, decimals: int, missing: str) -> dict:
    """(row, column) -> (paper text, ours text, difference text) for every compared cell."""
    texts = {}
    for rec in cmp.itertuples(index=False):
        has_paper, has_ours = rec.status != "not in paper", rec.status != NOT_REPRODUCED
        paper = _format_value(rec.paper, rec.paper_std, rec.paper_detail, decimals)
        ours = _format_value(rec.ours, rec.ours_std, rec.ours_detail, decimals)
        texts[(rec.row, rec.column)] = (
            paper if has_paper else missing,
            ours if has_ours else f"{NOT_REPRODUCED} [{markers[rec.reason]}]",
            f"{rec.diff:+.{decimals}f}" if has_paper and has_ours else missing,
        )
    return texts


def footnotes(uses: Iterable[tuple[Hashable, str]]) -> tuple[dict[str, int], dict[Hashable, str]]:
    """The ``[k]`` markers of a table's reasons and each row's notes.

    ``uses`` lists ``(row, reason)`` for every cell that shows a reason, in display order: the
    k-th distinct reason is ``[k]``, and a row's note lists its reasons as ``"[k] reason; ..."``
    by k. Returns ``({reason: k}, {row: note})`` (rows without a reason have no note).
    """
    uses = list(uses)
    markers = {reason: k + 1 for k, reason in enumerate(dict.fromkeys(r for _, r in uses))}
    used: dict = {}
    for row, reason in uses:
        used.setdefault(row, {})[markers[reason]] = reason
    notes = {r: "; ".join(f"[{k}] {v}" for k, v in sorted(n.items())) for r, n in used.items()}
    return markers, notes


def paper_vs_reproduced(
    ours: pd.DataFrame,
    paper: pd.DataFrame,
    not_reproduced=None,
    *,
    decimals: int = 2,
    layout: str = "columns",
    row_label: str = "row",
    missing: str = "\u2014",
    row_order: Sequence | None = None,
    columns: Sequence | None = None,
) -> pd.DataFrame:
    """Display table: paper value, ours and the difference for every cell, ready for write_table.

    ``layout="columns"`` gives each paper column three columns ``<col> paper``, ``<col> ours``,
    ``<col> Δ`` (Δ = ours - paper); ``layout="rows"`` keeps the paper's columns and gives each
    paper row three rows (paper, ours, Δ), better for wide tables. A paper cell without our
    value reads ``not reproduced [k]``; the last column, ``notes``, gives reason ``[k]`` for the
    rows that use it. Cells only we have show ``missing`` (an em dash) as the paper value.
    Inputs as in :func:`compare_to_paper`. Rows and columns come in the order of first
    appearance, the paper's first; ``row_order`` puts the rows it lists first, in its order (the
    others after them, as they were), and ``columns`` gives the columns shown, in order.
    """
    if layout not in ("columns", "rows"):
        raise ValueError(f"layout={layout!r} is not supported: use 'columns' or 'rows'.")
    cmp = compare_to_paper(ours, paper, not_reproduced)
    unmet = cmp[cmp["status"] == NOT_REPRODUCED]
    markers, notes = footnotes(zip(unmet["row"], unmet["reason"], strict=True))
    texts = _cell_texts(cmp, markers, decimals, missing)
    rows = list(dict.fromkeys(cmp["row"]))
    if row_order is not None:
        rank = {r: i for i, r in enumerate(row_order)}
        rows.sort(key=lambda r: rank.get(r, len(rank)))  # stable: unlisted rows keep their order
    columns = list(dict.fromkeys(cmp["column"])) if columns is None else list(columns)
    parts, blank = ("paper", "ours", "\u0394"), ("",) * 3
    records = []
    if layout == "columns":
        for r in rows:
            record = {row_label: r}
            for c in columns:
                record |= {
                    f"{c} {p}": t for p, t in zip(parts, texts.get((r, c), blank), strict=True)
                }
            records.append(record | {"notes": notes.get(r, "")})
    else:
        for r in rows:
            for i, p in enumerate(parts):
                record = {row_label: r if i == 0 else "", "": p}
                record |= {c: texts.get((r, c), blank)[i] for c in columns}
                records.append(record | {"notes": notes.get(r, "") if i == 0 else ""})
    return pd.DataFrame(records)


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------

#: Okabe & Ito's colour-blind-safe palette, yellow last (it is faint on white paper).
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000", "#F0E442")

#: Width in inches of a one-column figure of a two-column paper (the most a figure may take there).
SINGLE_COLUMN = 3.5
#: Width in inches of a figure across both columns: no paper figure is wider.
DOUBLE_COLUMN = 7.2

#: rcParams for print: 8-10 pt text at the printed size, no top/right spines, embedded TrueType.
FIGURE_RC = {
    "figure.figsize": (3.4, 2.6),  # one column of a two-column paper, in inches
    "figure.dpi": 100,
    "figure.constrained_layout.use": True,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # shipped with matplotlib: same glyphs on every machine
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.8,
    "axes.grid": False,
    "lines.linewidth": 1.5,
    "lines.markersize": 4,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
    "pdf.fonttype": 42,  # TrueType, so text stays editable and searchable in the PDF
    "ps.fonttype": 42,
    "svg.hashsalt": "graphdr",  # fixed ids, so SVG output is deterministic too
}


def panel_grid(
    n_panels: int,
    *,
    panel_width: float = 2.2,
    margin: float = 0.4,
    max_width: float = DOUBLE_COLUMN,
) -> tuple[int, int]:
    """Rows and columns for ``n_panels`` panels of ``panel_width`` inches within ``max_width``.

    As few rows as the width allows, the panels then spread evenly over them (5 panels of
    2.2 in give 2 rows of 3, 4 give 2 rows of 2), so that ``ncols * panel_width + margin``
    (the figure's width) stays within ``max_width``, :data:`DOUBLE_COLUMN` by default.
    """
    if n_panels < 1:
        raise ValueError(f"n_panels must be at least 1, got {n_panels}.")
    if panel_width + margin > max_width:
        raise ValueError(
            f"one panel of {panel_width} in plus {margin} in of margin is wider than "
            f"max_width={max_width} in: use narrower panels."
        )
    max_cols = int((max_width - margin) // panel_width)
    nrows = -(-n_panels // max_cols)
    return nrows, -(-n_panels // nrows)


def _rc() -> dict:
    from cycler import cycler

    return FIGURE_RC | {"axes.prop_cycle": cycler(color=list(OKABE_ITO))}


@contextlib.contextmanager
def figure_style(**overrides) -> Iterator[None]:
    """Context manager applying :data:`FIGURE_RC` and the Okabe-Ito colour cycle.

    ``overrides`` are extra rcParams (e.g. ``**{"figure.figsize": (7, 3)}``); the previous
    settings come back on exit.
    """
    import matplotlib as mpl

    with mpl.rc_context(_rc() | overrides):
        yield


def new_figure(**kwargs):
    """A ``Figure`` drawn by the Agg canvas, independent of pyplot and of the GUI backend.

    Create it inside :func:`figure_style` so that it picks up the style. Unlike
    ``pyplot.figure`` it is not kept alive by pyplot, so loops over many figures do not leak.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


# Metadata that would differ between runs or library versions is removed (None drops a key).
_METADATA = {
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
}


def save_figure(
    fig, path_stem: str | os.PathLike, *, formats: Sequence[str] = ("pdf", "png"), dpi: int = 200
) -> dict[str, Path]:
    """Save ``fig`` as ``<stem>.pdf`` and ``<stem>.png`` (dpi 200), byte-identical across runs.

    Dates, creator and software fields are stripped, and each file is written atomically.
    Returns the paths by format.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or type(fig.canvas).__name__ == "FigureCanvasBase":
        FigureCanvasAgg(fig)
    stem = Path(path_stem)
    paths = {}
    for fmt in formats:
        if fmt not in _METADATA:
            raise ValueError(f"format {fmt!r} is not supported: use one of {sorted(_METADATA)}.")
        path = stem.with_name(f"{stem.name}.{fmt}")
        with _atomic_path(path) as tmp:
            fig.savefig(tmp, format=fmt, dpi=dpi, metadata=_METADATA[fmt])
        paths[fmt] = path
    return paths
