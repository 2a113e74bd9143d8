"""Which runs, tables and figures paper 003 (DEE) builds, read from its config section.

Standard library only (it imports nothing outside it): ``workflow/rules/common_dee.smk`` loads it
by path at parse time, without the package and its numerical dependencies, and adds the file
names of the workflow's rules. Its functions take the sections ``papers.dee.recognition`` /
``papers.dee.visualisation``, the optimiser studies (``optimizer_studies``) and the datasets'
config (their labels), and return plain data. No job imports it: a job re-runs when what it is
given (its parameters, inputs) changes, not when this file does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

PRIMARY = "primary"


class Run(NamedTuple):
    """One (dataset, method) run of the recognition or visualisation experiment."""

    dataset: str
    method: str
    dataset_label: str
    #: the method's own label (figures, Figure 11's table)
    label: str
    #: ``primary``, or the sensitivity variant the run is (``variant`` of the method's spec)
    variant: str
    #: the label of the method the run is a variant of (``variant_of``; itself when primary):
    #: the results frame files a variant under the paper's method
    base_label: str


def dataset_label(datasets: Mapping, dataset: str) -> str:
    return datasets[dataset].get("label", dataset)


def method_label(section: Mapping, method: str) -> str:
    return section["methods"][method].get("label", method)


def runs(section: Mapping, datasets: Mapping, *, only=None, variants: bool = True) -> list[Run]:
    """Every run of an experiment (recognition or visualisation), datasets then methods in
    config order; ``only`` keeps those datasets, ``variants=False`` leaves out the sensitivity
    runs (the figures show the paper's methods only)."""
    out = []
    for dataset in only or section.get("datasets", []):
        for method, spec in section.get("methods", {}).items():
            if not variants and "variant" in spec:
                continue
            out.append(
                Run(
                    dataset,
                    method,
                    dataset_label(datasets, dataset),
                    method_label(section, method),
                    spec.get("variant", PRIMARY),
                    method_label(section, spec.get("variant_of", method)),
                )
            )
    return out


def recognition_params(recognition: Mapping, dataset: str, method: str) -> dict:
    """Everything a recognition run computes from (the method's label excluded): estimator,
    params, nested, PCA dimension (None when the method skips the PCA step), the split, seeds,
    dimensions and the method's CV."""
    spec = recognition["methods"][method]
    protocol = dict(recognition["protocol"][dataset])
    pca = protocol.pop("pca")
    return {
        "estimator": spec["estimator"],
        "params": spec.get("params", {}),
        "nested": spec.get("nested", False),
        "pca": pca if spec.get("pca", True) else None,
        "split": protocol,
        "seeds": recognition["seeds"],
        "dimensions": recognition["dimensions"],
        "cv": spec.get("cv"),
    }


def optimizer_studies(studies: Mapping) -> dict:
    """The optimiser studies of paper 003 (``paper: dee``)."""
    return {s: spec for s, spec in studies.items() if spec.get("paper") == "dee"}


def study_starts(study: Mapping, dataset: str) -> int:
    """Random starts of one (optimiser study, dataset): ``starts_per_dataset``, else
    ``starts``, else 1."""
    per = study.get("starts_per_dataset") or {}
    return int(per.get(dataset, study.get("starts", 1)))


def study_threads(study: Mapping, dataset: str) -> int | None:
    """Threads of one optimiser run: ``threads_per_dataset`` of the study, else None (the
    rule's resource). The DEE fit is row-parallel (numba) only from 1000 samples on (COIL20);
    below that a second reserved core would stay idle while another job could use it."""
    per = study.get("threads_per_dataset") or {}
    return int(per[dataset]) if dataset in per else None


def result_baseline(studies: Mapping) -> str:
    """The label of the optimiser the timing ratios divide by (LD), one for every DEE study."""
    labels = {s["optimizers"][s["baseline"]] for s in optimizer_studies(studies).values()}
    if len(labels) > 1:
        raise ValueError(
            f"the DEE optimiser studies name different baselines {sorted(labels)}: the results "
            "frame's *_ratio_* metrics need one; give every study the same `baseline`."
        )
    return next(iter(labels), "LD")


def recognition_caption(recognition: Mapping, datasets: Mapping) -> str:
    """Report caption of Figure 11 and its table: the protocol, from the config."""
    if not recognition:
        return ""
    splits = ", ".join(
        f"{dataset_label(datasets, d)} "
        + (
            f"{p['train_per_class']} per class"
            if "train_per_class" in p
            else f"{p['train_fraction']:.0%} per class"
        )
        + f" (PCA {p['pca']})"
        for d, p in ((d, recognition["protocol"][d]) for d in recognition["datasets"])
    )
    methods = ", ".join(method_label(recognition, m) for m in recognition["methods"])
    return (
        "Paper 003 (DEE), Figure 11: 1-NN test accuracy (%) against subspace dimension, "
        f"mean and std over {len(recognition['seeds'])} seeded splits. Methods: "
        f"{methods}. Training part: {splits}; the rest is the test part. "
        f"{recognition.get('caption', '')} See paper_figures/dee/NOTES.md."
    )


def visualisation_caption(visualisation: Mapping) -> str:
    """Report caption of Figures 7-10 and their separation table."""
    if not visualisation:
        return ""
    methods = ", ".join(method_label(visualisation, m) for m in visualisation["methods"])
    return (
        "Paper 003 (DEE), Figures 7-10: 2-D embeddings of every sample by "
        f"{methods}. {visualisation.get('caption', '')} "
        "See paper_figures/dee/NOTES.md."
    )
