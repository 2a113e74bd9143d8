"""Readers for tables with the class in one column: KEEL ``.dat``, Weka ARFF and plain CSV.

KEEL and ARFF share one grammar: ``@relation``, ``@attribute <name> <type>`` lines, then
``@data`` and comma-separated rows. KEEL adds ``@inputs``/``@outputs`` (the class attribute);
ARFF adds ``%`` comments. Types: ``real``/``integer``/``numeric`` (optionally followed by a
``[min, max]`` range) or a nominal set ``{a, b, c}``.

Feature coding: numeric columns are read as float; a nominal column whose declared values are all
numbers keeps those numbers; any other nominal column is coded by the position of the value in the
header's declared list (0, 1, ...). The class is the ``@outputs`` attribute (else the last one).
Missing values (``?``) raise an error unless ``missing="drop"``; no mirrored file has any.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._build import build, split_from_parts

_ATTRIBUTE = re.compile(r"@attribute\s+('[^']*'|\"[^\"]*\"|[^\s{]+)\s*(.*)$", re.IGNORECASE)
_NUMERIC_TYPES = ("real", "integer", "numeric", "int", "float", "double")


@dataclass
class Attribute:
    name: str
    values: list[str] | None  # declared nominal values; None for a numeric attribute


@dataclass
class Table:
    attributes: list[Attribute]
    rows: np.ndarray  # (n, n_attributes) strings, whitespace and quotes stripped
    output: str | None  # class attribute named by @outputs, if any


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1]
    return token


def parse_attribute(line: str, path, lineno: int) -> Attribute:
    """One ``@attribute`` header line."""
    match = _ATTRIBUTE.match(line)
    if not match:
        raise ValueError(f"{path}:{lineno}: cannot read the attribute line {line!r}.")
    name, kind = _unquote(match.group(1)), match.group(2).strip()
    if kind.startswith("{"):
        body = kind[1 : kind.rindex("}")] if "}" in kind else kind[1:]
        return Attribute(name, [_unquote(v) for v in body.split(",") if v.strip()])
    if kind.lower().startswith(_NUMERIC_TYPES):
        return Attribute(name, None)
    raise ValueError(
        f"{path}:{lineno}: attribute {name!r} has type {kind!r}; only numeric types and nominal "
        "sets {...} are supported."
    )


def read_attribute_file(path: str | Path, *, missing: str = "error") -> Table:
    """Parse a KEEL ``.dat`` or Weka ``.arff`` file into a :class:`Table` of strings."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    attributes: list[Attribute] = []
    output = None
    start = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        low = line.lower()
        if not line or line.startswith("%"):
            continue
        if low.startswith("@data"):
            start = lineno
            break
        if low.startswith("@attribute"):
            attributes.append(parse_attribute(line, path, lineno))
        elif low.startswith("@output"):
            output = _unquote(line.split(None, 1)[1].split(",")[0])
        elif not low.startswith(("@relation", "@input")):
            raise ValueError(f"{path}:{lineno}: unexpected header line {line!r}.")
    if start is None or not attributes:
        raise ValueError(f"{path}: no @attribute lines or no @data section; not a KEEL/ARFF file.")
    records, linenos = [], []
    for lineno, raw in enumerate(lines[start:], start + 1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("{"):
            raise ValueError(f"{path}:{lineno}: sparse ARFF rows are not supported.")
        records.append([_unquote(v) for v in line.split(",")])
        linenos.append(lineno)
    rows = _rectangular(records, linenos, len(attributes), path)
    return Table(attributes, _handle_missing(rows, np.asarray(linenos), missing, path), output)


def _rectangular(records, linenos, width, path) -> np.ndarray:
    for rec, lineno in zip(records, linenos, strict=True):
        if len(rec) != width:
            raise ValueError(
                f"{path}:{lineno}: row has {len(rec)} values, the header declares {width} "
                "attributes."
            )
    return np.array(records, dtype=str).reshape(len(records), width)


def _handle_missing(rows: np.ndarray, linenos: np.ndarray, missing: str, path) -> np.ndarray:
    """Rows with ``?`` values: an error (default) or dropped (``missing="drop"``)."""
    if missing not in ("error", "drop"):
        raise ValueError(f"missing must be 'error' or 'drop', got {missing!r}.")
    bad = np.any((rows == "?") | (rows == ""), axis=1)
    if not bad.any():
        return rows
    if missing == "drop":
        return rows[~bad]
    raise ValueError(
        f"{path}: {int(bad.sum())} rows have missing values ('?' or empty), the first on line "
        f"{int(linenos[bad][0])}. Pass missing='drop' to load() to leave those rows out."
    )


def _numeric_column(values: np.ndarray, name: str, path) -> np.ndarray:
    try:
        return values.astype(np.float64)
    except ValueError as exc:
        raise ValueError(f"{path}: attribute {name!r} is declared numeric but {exc}.") from None


def nominal_codes(values: np.ndarray, declared: list[str], name: str, path) -> np.ndarray:
    """A nominal feature as numbers: its own values if all declared ones are numeric, else the
    position in the declared list."""
    undeclared = sorted(set(np.unique(values)) - set(declared))
    if undeclared:
        raise ValueError(f"{path}: attribute {name!r} has undeclared values {undeclared}.")
    try:
        return np.array([float(v) for v in declared])[_positions(values, declared)]
    except ValueError:
        return _positions(values, declared).astype(np.float64)


def _positions(values: np.ndarray, declared: list[str]) -> np.ndarray:
    lookup = {v: i for i, v in enumerate(declared)}
    return np.fromiter((lookup[v] for v in values), dtype=np.int64, count=values.size)


def table_features(table: Table, path) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """Feature matrix, raw class labels and the class attribute's declared values."""
    names = [a.name for a in table.attributes]
    target = names.index(table.output) if table.output in names else len(names) - 1
    columns = []
    for j, attr in enumerate(table.attributes):
        if j == target:
            continue
        col = table.rows[:, j]
        if attr.values is None:
            columns.append(_numeric_column(col, attr.name, path))
        else:
            columns.append(nominal_codes(col, attr.values, attr.name, path))
    X = np.column_stack(columns) if columns else np.empty((table.rows.shape[0], 0))
    return X, table.rows[:, target], table.attributes[target].values


def load_attribute_files(entry: dict, get_paths, *, missing: str = "error"):
    """Loader ``keel`` / ``arff``: one file, or several files forming a predefined split."""
    parts = [read_attribute_file(p, missing=missing) for p in get_paths()]
    first = [a.name for a in parts[0].attributes]
    for part, path in zip(parts[1:], entry["files"][1:], strict=True):
        if [a.name for a in part.attributes] != first:
            raise ValueError(f"{path}: attributes differ from those of {entry['files'][0]}.")
    pieces = [table_features(t, f) for t, f in zip(parts, entry["files"], strict=True)]
    X = np.vstack([p[0] for p in pieces])
    raw = np.concatenate([p[1] for p in pieces])
    split = split_from_parts([p[0].shape[0] for p in pieces], entry.get("split_names"))
    return build(entry, X, raw, declared=pieces[0][2], split=split)


def read_csv_table(path, *, delimiter=",", header=False, missing="error") -> np.ndarray:
    """All cells of a CSV file as a rectangular string array (blank lines skipped; rows with
    missing values raise, or are dropped with ``missing="drop"``)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        numbered = [
            (lineno, [c.strip() for c in record])
            for lineno, record in enumerate(csv.reader(fh, delimiter=delimiter), 1)
            if any(c.strip() for c in record)
        ]
    if header:
        numbered = numbered[1:]
    if not numbered:
        raise ValueError(f"{path}: no data rows.")
    linenos, records = zip(*numbered, strict=True)
    rows = _rectangular(list(records), list(linenos), len(records[0]), path)
    return _handle_missing(rows, np.asarray(linenos), missing, path)


def load_csv(entry: dict, get_paths, *, missing: str = "error"):
    """Loader ``csv``: numeric features, the class in ``class_column`` (default: last)."""
    parts = []
    for path in get_paths():
        rows = read_csv_table(
            path,
            delimiter=entry.get("delimiter", ","),
            header=entry.get("header", False),
            missing=missing,
        )
        target = entry.get("class_column", -1) % rows.shape[1]
        features = np.delete(rows, target, axis=1)
        X = np.column_stack(
            [_numeric_column(c, f"column {j}", path) for j, c in enumerate(features.T)]
        )
        parts.append((X, rows[:, target]))
    split = split_from_parts([p[0].shape[0] for p in parts], entry.get("split_names"))
    X = np.vstack([p[0] for p in parts])
    return build(entry, X, np.concatenate([p[1] for p in parts]), split=split)
