# Paper 003 (DEE): helper functions of workflow/rules/paper_dee.smk beyond the optimiser study
# (config section papers.dee). Functions live here and rules there (snakemake --lint).

DEE = config.get("papers", {}).get("dee", {})
DEE_RECOGNITION = DEE.get("recognition", {})
DEE_VISUALISATION = DEE.get("visualisation", {})


def dee_label(dataset):
    return config["datasets"][dataset].get("label", dataset)


def dee_method_label(section, method):
    return section["methods"][method].get("label", method)


def dee_estimator_code(section, module):
    """Code of a comparison fit: the run module plus the module defining the estimator."""

    def get(wildcards):
        estimator = section["methods"][wildcards.dee_method]["estimator"]
        if "." in estimator:  # an outside class (sklearn.manifold.TSNE): not our source
            return code(module)
        return code(module, _defining_module(estimator) or "graphdr.methods")

    return get


def dee_recognition_params(wildcards):
    """Everything a recognition run computes from (the method's label excluded)."""
    spec = DEE_RECOGNITION["methods"][wildcards.dee_method]
    protocol = dict(DEE_RECOGNITION["protocol"][wildcards.dataset])
    pca = protocol.pop("pca")
    return {
        "estimator": spec["estimator"],
        "params": spec.get("params", {}),
        "nested": spec.get("nested", False),
        "pca": pca if spec.get("pca", True) else None,
        "split": protocol,
        "seeds": DEE_RECOGNITION["seeds"],
        "dimensions": DEE_RECOGNITION["dimensions"],
    }


def dee_recognition_runs():
    """(dataset label, method label) -> run CSV, datasets then methods in config order."""
    runs = {}
    for dataset in DEE_RECOGNITION.get("datasets", []):
        for method in DEE_RECOGNITION["methods"]:
            path = rules.dee_recognition_run.output.scores.format(
                dataset=dataset, dee_method=method
            )
            runs[(dee_label(dataset), dee_method_label(DEE_RECOGNITION, method))] = path
    return runs


def dee_embedding_runs(datasets=None):
    """(dataset label, method label) -> embedding npz of the visualisation."""
    runs = {}
    for dataset in datasets or DEE_VISUALISATION.get("datasets", []):
        for method in DEE_VISUALISATION["methods"]:
            path = rules.dee_embedding_run.output.embedding.format(
                dataset=dataset, dee_method=method
            )
            runs[(dee_label(dataset), dee_method_label(DEE_VISUALISATION, method))] = (
                path
            )
    return runs


def dee_outputs():
    """Paper 003's recognition and visualisation outputs (part of the default target)."""
    outputs = []
    if DEE_RECOGNITION:
        outputs += list(rules.dee_recognition_report.output)
    if DEE_VISUALISATION:
        outputs += list(rules.dee_visualisation_table.output)
        for dataset in DEE_VISUALISATION["datasets"]:
            outputs += expand(rules.dee_visualisation_figure.output, dataset=dataset)
    return outputs


PAPER_OUTPUTS["dee"] = dee_outputs
