"""Which runs, tables and figures paper 002 (AKDA) builds, read from its config section.

Standard library only (it imports nothing): ``workflow/rules/common_akda.smk`` loads it by path
at parse time, without the package and its numerical dependencies, and wraps its answers in the
workflow's output roots. Every function takes the section ``papers.akda`` (a mapping) and returns
plain data; file names are relative to the figures root. No job imports it, so editing it re-runs
nothing by itself: a job re-runs when what it is given (its parameters, inputs) changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

#: the tables every condition has (csv, md, tex each), and the table of the selected parameters
TABLE_STEMS = ("akda_map", "akda_speedup_timing")
TABLE_EXTENSIONS = ("csv", "md", "tex")


def estimator(section: Mapping, method: str) -> str:
    """The registered estimator of a column (``estimators.<method>.estimator``, else itself)."""
    return section.get("estimators", {}).get(method, {}).get("estimator", method)


def columns(section: Mapping, grouped_estimators) -> tuple[list[str], list[str]]:
    """(grouped, single): the columns whose estimator is one of ``grouped_estimators`` (the
    kernel methods and KSVM: one group job per dataset and condition, sharing CV folds,
    distances and subclass partitions), then the others (one job per method), in config order."""
    methods = section.get("methods", [])
    grouped = [m for m in methods if estimator(section, m) in grouped_estimators]
    return grouped, [m for m in methods if m not in grouped]


def dataset_cv(section: Mapping, dataset: str) -> dict:
    """The CV settings of a dataset's runs: ``cv`` updated by ``dataset_cv.<dataset>`` (a
    documented reduction of every method's CV at the largest scale)."""
    return dict(section.get("cv", {})) | dict(section.get("dataset_cv", {}).get(dataset, {}))


def conditions(section: Mapping, dataset: str) -> list[str]:
    """Conditions run on ``dataset`` (``dataset_conditions.<dataset>``, default all)."""
    every = list(section.get("conditions", {}))
    return list(section.get("dataset_conditions", {}).get(dataset, every))


def draws(section: Mapping, dataset: str, condition: str) -> int:
    """Seeded draws of ``condition``'s split on ``dataset`` (``draws``: a count per dataset, or
    per dataset and condition; ``draws.default`` otherwise, 1 without it)."""
    spec = section.get("draws", {})
    default = int(spec.get("default", 1))
    count = spec.get(dataset, default)
    if isinstance(count, Mapping):
        count = count.get(condition, default)
    return int(count)


def _cells(section: Mapping) -> Iterator[tuple[str, str, str, Mapping]]:
    """(dataset, condition, method, {skipped method: reason} of that dataset and condition) of
    every configured cell, in table order."""
    skip = section.get("skip", {})
    for d in section.get("datasets", []):
        for c in conditions(section, d):
            for m in section.get("methods", []):
                yield d, c, m, skip.get(d, {}).get(c, {})


def cells(section: Mapping) -> list[tuple[str, str, str]]:
    """(dataset, condition, method) of every run the config asks for, skipped cells excluded."""
    return [(d, c, m) for d, c, m, skip in _cells(section) if m not in skip]


def skipped(section: Mapping) -> list[list[str]]:
    """[dataset, condition, method, reason] of every skipped cell of the configured datasets."""
    return [[d, c, m, skip[m]] for d, c, m, skip in _cells(section) if m in skip]


def group_skipped(section: Mapping, dataset: str, condition: str, grouped) -> dict[str, str]:
    """{method: reason} of the grouped columns skipped on ``dataset`` and ``condition``."""
    skip = section.get("skip", {}).get(dataset, {}).get(condition, {})
    return {m: why for m, why in skip.items() if m in grouped}


def table_files(section: Mapping) -> list[str]:
    """Every MAP and speed-up table of the configured conditions, then the table of the
    cross-validated parameters."""
    return [
        f"akda/{stem}_{cond}.{ext}"
        for stem in TABLE_STEMS
        for cond in section.get("conditions", {})
        for ext in TABLE_EXTENSIONS
    ] + [f"akda/akda_map_selected.{ext}" for ext in TABLE_EXTENSIONS]


def outputs(section: Mapping) -> list[str]:
    """Every table and figure of paper 002 the section asks for (none without datasets)."""
    if not section.get("datasets"):
        return []
    files = [*table_files(section), "akda/akda_results.csv"]
    if section.get("toy"):
        files += [
            f"akda/akda_toy_{name}.{ext}"
            for name in ("scatter", "projection")
            for ext in ("pdf", "png")
        ]
    return files
