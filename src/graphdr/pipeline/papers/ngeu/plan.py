"""Which selection jobs, tables and figures paper 004 (NGEU) builds, read from its config section.

Standard library only (it imports nothing outside it): ``workflow/rules/common_ngeu.smk`` loads
it by path at parse time, without the package and its numerical dependencies, and wraps its
answers in the workflow's output roots. Every function takes the section ``papers.ngeu`` (a
mapping) and returns plain data; file names are relative to the figures root. No job imports it:
a job re-runs when what it is given (its parameters, inputs) changes, not when this file does.
"""

from __future__ import annotations

from collections.abc import Mapping

#: a sensitivity copy of a method is ``<method>@<variant>`` (read back by
#: ``graphdr.pipeline.papers.ngeu.protocol.split_variant``, whose ``VARIANT_SEP`` it equals)
VARIANT_SEP = "@"
#: the tables written for every table of the section (csv, md, tex each)
TABLE_SUFFIXES = ("", "_selected", "_grid", "_by_kernel", "_pairs")
TABLE_EXTENSIONS = ("csv", "md", "tex")


def tables(section: Mapping) -> dict[str, Mapping]:
    """{name: table} of the section's tables; a configuration drops a table of the base config
    by setting it to null (``config/ngeu_usps2000_rbf.yaml``)."""
    return {n: t for n, t in section.get("tables", {}).items() if t is not None}


def task_grid(section: Mapping, task: str) -> dict:
    """The validation grid of ``task``: the section's, with the task's own ``grid`` keys
    replacing its (USPS at 6000 training images on a reduced grid: ``tasks.usps``)."""
    return dict(section.get("grid", {})) | dict(section["tasks"][task].get("grid", {}))


def expand_variants(methods: Mapping, variants: Mapping, task: str) -> dict:
    """``methods`` plus, for each sensitivity variant that covers ``task`` (``variants.<name>``
    with no ``tasks`` or ``task`` among them), a copy ``<method>@<variant>`` of each of its
    methods present here: the variant's estimator ``params`` (``solver: positive``) on top of
    the method's own, and its ``method`` keys (its own ``beta`` / ``s0`` grid, kernel width)
    replacing the method's. The same grid and selection with one setting changed
    (docs/claims.md, "Sensitivity runs")."""
    out = dict(methods)
    for variant, spec in variants.items():
        if VARIANT_SEP in variant:
            raise ValueError(
                f"papers.ngeu.variants: a name may not contain {VARIANT_SEP!r}, got {variant!r}."
            )
        if spec.get("tasks") is not None and task not in spec["tasks"]:
            continue
        for name in spec["methods"]:
            if name in methods:
                params = dict(methods[name].get("params", {})) | dict(spec.get("params", {}))
                own = dict(spec.get("method", {}))
                out[f"{name}{VARIANT_SEP}{variant}"] = (
                    dict(methods[name]) | own | {"params": params}
                )
    return out


def task_methods(section: Mapping, task: str) -> dict:
    """{name: spec} of every method a table asks for on ``task`` (config order), with the
    sensitivity copies of the variants that cover it (:func:`expand_variants`)."""
    wanted = {m for t in tables(section).values() if task in t["tasks"] for m in t["methods"]}
    chosen = {m: s for m, s in section.get("methods", {}).items() if m in wanted}
    return expand_variants(chosen, section.get("variants", {}), task)


def outputs(section: Mapping) -> list[str]:
    """Every table and figure of paper 004 the section asks for (none without a section)."""
    if not section:
        return []
    files = [
        f"ngeu/ngeu_{name}{suffix}.{ext}"
        for name in tables(section)
        for suffix in TABLE_SUFFIXES
        for ext in TABLE_EXTENSIONS
    ]
    files.append("ngeu/ngeu_results.csv")
    if section.get("figure3"):
        files += [f"ngeu/ngeu_figure3_toy.{ext}" for ext in ("pdf", "png", "json")]
    return files
