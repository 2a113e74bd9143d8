# Paper 001 (QMI): helper functions of workflow/rules/paper_qmi.smk (config section papers.qmi).
# Functions live here and the stages there (snakemake --lint asks for the split).

import re

QMI = config.get("papers", {}).get("qmi", {})
# a study with `enabled: false` is skipped (the quick configuration skips the sensitivity ones)
QMI_STUDIES = {
    name: spec
    for name, spec in QMI.get("studies", {}).items()
    if spec.get("enabled", True)
}
# studies whose datasets are swept in one job (`one_job: true`), and the others
QMI_ONE_JOB_STUDIES = [
    name for name, spec in QMI_STUDIES.items() if spec.get("one_job")
]
QMI_PER_DATASET_STUDIES = [
    name for name in QMI_STUDIES if name not in QMI_ONE_JOB_STUDIES
]
QMI_VISUALS = QMI.get("visualisations", {}).get("datasets", [])
QMI_ALL_CLASSIFIERS = ["ncc", "knn", "linear_svm", "rbf_svm"]
# keys of a study that name its outputs, not what a sweep computes (editing them re-runs no fit)
QMI_LAYOUT_KEYS = (
    "datasets",
    "tables",
    "curves",
    "sizes_reference",
    "enabled",
    "sensitivity_of",
    "one_job",
)


def qmi_protocol(study):
    """What one sweep computes from: the shared protocol, then the study's own keys."""
    own = {k: v for k, v in QMI_STUDIES[study].items() if k not in QMI_LAYOUT_KEYS}
    return {**QMI.get("protocol", {}), **own}


def qmi_visual_protocol(dataset):
    own = QMI.get("visualisations", {}).get("protocol", {}).get(dataset, {})
    return {**QMI.get("protocol", {}), **own}


def qmi_tables(study):
    """Classifiers of a study that have a table (those it runs, in its `tables` order)."""
    protocol = qmi_protocol(study)
    run = protocol.get("classifiers", QMI_ALL_CLASSIFIERS)
    return [c for c in QMI_STUDIES[study]["tables"] if c in run]


def qmi_label(dataset):
    return config["datasets"][dataset].get("label", dataset)


def qmi_sweep_priority(wildcards):
    """Priority of one dataset's sweep: ``job_priority("run_qmi_sweep", dataset)`` (priority_by)."""
    return job_priority("run_qmi_sweep", wildcards.dataset)


def qmi_sweep_files(study, kind):
    """Files of one kind (errors, record, timing) of a study's sweeps, one per dataset: rule
    run_qmi_sweep's patterns, which a `one_job` study's rule writes for all its datasets.
    """
    pattern = getattr(rules.run_qmi_sweep.output, kind)
    return expand(pattern, qmi_study=study, dataset=QMI_STUDIES[study]["datasets"])


def qmi_one_job_rule(study):
    """Name of the rule that sweeps a `one_job` study (a rule name is an identifier)."""
    identifier = re.sub(r"\W", "_", study)
    return f"run_qmi_sweep_{identifier}"


def qmi_runs(study):
    """[dataset label, errors, record, timing] per dataset of a study, in table order."""
    runs = []
    for dataset in QMI_STUDIES[study]["datasets"]:
        files = [
            path.format(qmi_study=study, dataset=dataset)
            for path in rules.run_qmi_sweep.output
        ]
        runs.append([qmi_label(dataset), *files])
    return runs


def qmi_run_files(wildcards):
    return [f for run in qmi_runs(wildcards.qmi_study) for f in run[1:]]


def qmi_classifiers():
    return {c for study in QMI_STUDIES for c in qmi_tables(study)}


def qmi_outputs():
    """Every table and figure of paper 001 the config asks for (part of the default target)."""
    outputs = []
    for study, spec in QMI_STUDIES.items():
        for classifier in qmi_tables(study):
            outputs += expand(
                rules.write_qmi_table.output, qmi_study=study, qmi_classifier=classifier
            )
        outputs += expand(rules.write_qmi_summary.output, qmi_study=study)
        if spec.get("curves"):
            outputs += expand(rules.plot_qmi_curves.output, qmi_study=study)
    for dataset in QMI_VISUALS:
        outputs += expand(rules.plot_qmi_visualisation.output, dataset=dataset)
    if QMI_STUDIES:
        outputs += list(rules.collect_qmi_results.output)
    return outputs


PAPER_OUTPUTS["qmi"] = qmi_outputs
