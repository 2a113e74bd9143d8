"""Which sweeps, tables and figures paper 001 (QMI) builds, read from its config section.

Standard library only (it imports nothing outside it): ``workflow/rules/common_qmi.smk`` loads it
by path at parse time, without the package and its numerical dependencies, and adds the file
names of the workflow's rules. Every function takes the section ``papers.qmi`` (a mapping) and
returns plain data. No job imports it: a job re-runs when what it is given (its parameters,
inputs) changes, not when this file does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: every classifier a sweep can score (``protocol.classifiers`` defaults to all)
ALL_CLASSIFIERS = ("ncc", "knn", "linear_svm", "rbf_svm")
#: keys of a study that name its outputs, not what a sweep computes (editing them re-runs no fit)
LAYOUT_KEYS = (
    "datasets",
    "tables",
    "curves",
    "sizes_reference",
    "enabled",
    "sensitivity_of",
    "one_job",
)


def studies(section: Mapping) -> dict[str, Mapping]:
    """{name: study} of the enabled studies (``enabled: false`` skips one: the quick
    configuration skips the sensitivity studies)."""
    return {n: s for n, s in section.get("studies", {}).items() if s.get("enabled", True)}


def one_job_studies(section: Mapping) -> list[str]:
    """Studies whose datasets are swept in one job (``one_job: true``), in config order."""
    return [n for n, s in studies(section).items() if s.get("one_job")]


def per_dataset_studies(section: Mapping) -> list[str]:
    """Studies swept one job per dataset, in config order."""
    return [n for n, s in studies(section).items() if not s.get("one_job")]


def one_job_rule(study: str) -> str:
    """Name of the rule that sweeps a ``one_job`` study (a rule name is an identifier)."""
    return "run_qmi_sweep_" + re.sub(r"\W", "_", study)


def protocol(section: Mapping, study: str) -> dict:
    """What one sweep computes from: the shared ``protocol``, then the study's own keys
    (all but :data:`LAYOUT_KEYS`)."""
    own = {k: v for k, v in studies(section)[study].items() if k not in LAYOUT_KEYS}
    return {**section.get("protocol", {}), **own}


def visual_protocol(section: Mapping, dataset: str) -> dict:
    """What one visualisation computes from: the shared ``protocol``, then the dataset's own."""
    own = section.get("visualisations", {}).get("protocol", {}).get(dataset, {})
    return {**section.get("protocol", {}), **own}


def tables(section: Mapping, study: str) -> list[str]:
    """Classifiers of a study that have a table: those it runs, in its ``tables`` order."""
    run = protocol(section, study).get("classifiers", list(ALL_CLASSIFIERS))
    return [c for c in studies(section)[study]["tables"] if c in run]


def classifiers(section: Mapping) -> set[str]:
    """Every classifier with a table in some study."""
    return {c for study in studies(section) for c in tables(section, study)}
