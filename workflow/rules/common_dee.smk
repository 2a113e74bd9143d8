# Paper 003 (DEE): helper functions of workflow/rules/paper_dee.smk beyond the optimiser study
# (config section papers.dee). Functions live here and rules there (snakemake --lint).

from types import SimpleNamespace as Namespace

DEE = config.get("papers", {}).get("dee", {})
DEE_RECOGNITION = DEE.get("recognition", {})
DEE_VISUALISATION = DEE.get("visualisation", {})
# the claims ledger's entry of this paper (claims.smk is included after this file)
DEE_LEDGER = config.get("ledger", {}).get("papers", {}).get("dee", {})


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
        "cv": spec.get("cv"),
    }


def dee_recognition_runs():
    """(dataset label, method label) -> run CSV, datasets then methods in config order."""
    runs = {}
    for dataset in DEE_RECOGNITION.get("datasets", []):
        for method in DEE_RECOGNITION["methods"]:
            path = rules.run_dee_recognition.output.scores.format(
                dataset=dataset, dee_method=method
            )
            runs[(dee_label(dataset), dee_method_label(DEE_RECOGNITION, method))] = path
    return runs


def dee_embedding_runs(datasets=None, variants=True):
    """(dataset label, method label) -> embedding npz of the visualisation; `variants=False`
    leaves out the sensitivity runs (the figures show the paper's methods only)."""
    runs = {}
    for dataset in datasets or DEE_VISUALISATION.get("datasets", []):
        for method, spec in DEE_VISUALISATION["methods"].items():
            if not variants and "variant" in spec:
                continue
            path = rules.run_dee_embedding.output.embedding.format(
                dataset=dataset, dee_method=method
            )
            runs[(dee_label(dataset), dee_method_label(DEE_VISUALISATION, method))] = (
                path
            )
    return runs


def dee_study_starts(wildcards):
    """Random starts of one (optimiser study, dataset): `starts_per_dataset` or `starts`."""
    spec = study_of(wildcards)
    per = spec.get("starts_per_dataset") or {}
    return int(per.get(wildcards.dataset, spec.get("starts", 1)))


def dee_study_threads(wildcards):
    """Threads of one optimiser run: `threads_per_dataset` of the study, else the rule's
    resource. The DEE fit is row-parallel (numba) only from 1000 samples on (COIL20); below that
    a second reserved core would stay idle while another job could use it."""
    per = study_of(wildcards).get("threads_per_dataset") or {}
    if wildcards.dataset in per:
        return int(per[wildcards.dataset])
    return resource("run_dee_optimizer", "threads")(wildcards)


def dee_optimizer_studies():
    """The optimiser studies of paper 003 (config `optimizer_studies`, `paper: dee`)."""
    return {s: spec for s, spec in STUDIES.items() if spec.get("paper") == "dee"}


def dee_result_optimizer_runs():
    """[variant, dataset label, optimiser label, npz, timing json] of every DEE study run."""
    runs = []
    for study, spec in dee_optimizer_studies().items():
        variant = spec.get("variant", "primary")
        for (dataset, optimizer), files in study_runs(Namespace(study=study)).items():
            runs.append([variant, dataset, optimizer, *files])
    return runs


def dee_result_baseline():
    """The label of the optimiser the timing ratios divide by (LD), one for every study."""
    labels = {s["optimizers"][s["baseline"]] for s in dee_optimizer_studies().values()}
    if len(labels) > 1:
        raise ValueError(
            f"the DEE optimiser studies name different baselines {sorted(labels)}: the results "
            "frame's *_ratio_* metrics need one; give every study the same `baseline`."
        )
    return next(iter(labels), "LD")


def dee_result_recognition_runs():
    """[variant, dataset label, method label, run CSV]: a method with `variant` is a sensitivity
    run of its `variant_of` method (DEE (λ=10) -> method DEE, variant lam=10)."""
    runs = []
    for dataset in DEE_RECOGNITION.get("datasets", []):
        for method, spec in DEE_RECOGNITION["methods"].items():
            path = rules.run_dee_recognition.output.scores.format(
                dataset=dataset, dee_method=method
            )
            if "variant" in spec:
                of = spec["variant_of"]
                label = dee_method_label(DEE_RECOGNITION, of)
                runs.append([spec["variant"], dee_label(dataset), label, path])
            else:
                label = dee_method_label(DEE_RECOGNITION, method)
                runs.append(["primary", dee_label(dataset), label, path])
    return runs


def dee_result_embedding_runs():
    """[variant, dataset label, method label, embedding npz] of Figures 7-10; a method with
    `variant` is a sensitivity run of its `variant_of` method (as for Figure 11)."""
    runs = []
    for dataset in DEE_VISUALISATION.get("datasets", []):
        for method, spec in DEE_VISUALISATION.get("methods", {}).items():
            path = rules.run_dee_embedding.output.embedding.format(
                dataset=dataset, dee_method=method
            )
            variant = spec.get("variant", "primary")
            of = spec.get("variant_of", method)
            label = dee_method_label(DEE_VISUALISATION, of)
            runs.append([variant, dee_label(dataset), label, path])
    return runs


def dee_result_files():
    """Every run file the results frame reads."""
    opt = [f for run in dee_result_optimizer_runs() for f in run[3:]]
    others = dee_result_recognition_runs() + dee_result_embedding_runs()
    return opt + [run[3] for run in others]


def dee_outputs():
    """Paper 003's recognition and visualisation outputs, its results frame (claims ledger)
    and the verdicts of the claims on measured times (part of the default target)."""
    outputs = []
    if DEE_RECOGNITION:
        outputs += list(rules.write_dee_recognition.output)
    if DEE_VISUALISATION:
        outputs += list(rules.write_dee_visualisation.output)
        for dataset in DEE_VISUALISATION["datasets"]:
            outputs += expand(rules.plot_dee_visualisation.output, dataset=dataset)
    if DEE_RECOGNITION or DEE_VISUALISATION or dee_optimizer_studies():
        outputs += list(rules.collect_dee_results.output)
    return outputs


PAPER_OUTPUTS["dee"] = dee_outputs


def dee_recognition_caption():
    """Report caption of Figure 11 and its table: the protocol, from the config."""
    if not DEE_RECOGNITION:
        return ""
    splits = ", ".join(
        f"{dee_label(d)} "
        + (
            f"{p['train_per_class']} per class"
            if "train_per_class" in p
            else f"{p['train_fraction']:.0%} per class"
        )
        + f" (PCA {p['pca']})"
        for d, p in (
            (d, DEE_RECOGNITION["protocol"][d]) for d in DEE_RECOGNITION["datasets"]
        )
    )
    methods = ", ".join(
        dee_method_label(DEE_RECOGNITION, m) for m in DEE_RECOGNITION["methods"]
    )
    return (
        "Paper 003 (DEE), Figure 11: 1-NN test accuracy (%) against subspace dimension, "
        f"mean and std over {len(DEE_RECOGNITION['seeds'])} seeded splits. Methods: "
        f"{methods}. Training part: {splits}; the rest is the test part. "
        f"{DEE_RECOGNITION.get('caption', '')} See paper_figures/dee/NOTES.md."
    )


def dee_visualisation_caption():
    """Report caption of Figures 7-10 and their separation table."""
    if not DEE_VISUALISATION:
        return ""
    methods = ", ".join(
        dee_method_label(DEE_VISUALISATION, m) for m in DEE_VISUALISATION["methods"]
    )
    return (
        "Paper 003 (DEE), Figures 7-10: 2-D embeddings of every sample by "
        f"{methods}. {DEE_VISUALISATION.get('caption', '')} "
        "See paper_figures/dee/NOTES.md."
    )
