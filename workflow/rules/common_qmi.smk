# Paper 001 (QMI): helper functions of workflow/rules/paper_qmi.smk (config section papers.qmi).
# Functions live here and the stages there (snakemake --lint asks for the split).

QMI = config.get("papers", {}).get("qmi", {})
# which studies, sweeps and tables: graphdr.pipeline.papers.qmi.plan (standard library only,
# tested in tests/test_paper_plans.py), loaded by path; here the rules' file names are added
qmi_plan = _load_module("papers/qmi/plan")
QMI_STUDIES = qmi_plan.studies(QMI)
QMI_VISUALS = QMI.get("visualisations", {}).get("datasets", [])


def qmi_sweep_priority(wildcards):
    """Priority of one dataset's sweep: ``job_priority("run_qmi_sweep", dataset)`` (priority_by)."""
    return job_priority("run_qmi_sweep", wildcards.dataset)


def qmi_sweep_files(study, kind):
    """Files of one kind (errors, record, timing) of a study's sweeps, one per dataset: rule
    run_qmi_sweep's patterns, which a `one_job` study's rule writes for all its datasets.
    """
    pattern = getattr(rules.run_qmi_sweep.output, kind)
    return expand(pattern, qmi_study=study, dataset=QMI_STUDIES[study]["datasets"])


def qmi_runs(study):
    """[dataset label, errors, record, timing] per dataset of a study, in table order."""
    runs = []
    for dataset in QMI_STUDIES[study]["datasets"]:
        files = [
            path.format(qmi_study=study, dataset=dataset)
            for path in rules.run_qmi_sweep.output
        ]
        runs.append([dataset_label(dataset), *files])
    return runs


def qmi_run_files(wildcards):
    return [f for run in qmi_runs(wildcards.qmi_study) for f in run[1:]]


def qmi_outputs():
    """Every table and figure of paper 001 the config asks for (part of the default target)."""
    outputs = []
    for study, spec in QMI_STUDIES.items():
        for classifier in qmi_plan.tables(QMI, study):
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
