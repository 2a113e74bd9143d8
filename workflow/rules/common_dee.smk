# Paper 003 (DEE): helper functions of workflow/rules/paper_dee.smk beyond the optimiser study
# (config section papers.dee). Functions live here and rules there (snakemake --lint).

from types import SimpleNamespace as Namespace

DEE = config.get("papers", {}).get("dee", {})
DEE_RECOGNITION = DEE.get("recognition", {})
DEE_VISUALISATION = DEE.get("visualisation", {})
# what runs and how it is labelled: graphdr.pipeline.papers.dee.plan (standard library only,
# tested in tests/test_paper_plans.py), loaded by path; here the rules' file names are added
dee_plan = _load_module("papers/dee/plan")


def dee_estimator_code(section, module):
    """Code of a comparison fit: the run module plus the module defining the estimator."""

    def get(wildcards):
        estimator = section["methods"][wildcards.dee_method]["estimator"]
        if "." in estimator:  # an outside class (sklearn.manifold.TSNE): not our source
            return code(module)
        return code(module, _defining_module(estimator) or "graphdr.methods")

    return get


def dee_run_file(path, run):
    """The file of one recognition / visualisation run (a rule's output pattern)."""
    return path.format(dataset=run.dataset, dee_method=run.method)


def dee_run_files(section, path, datasets=None, variants=True):
    """(dataset label, method label) -> run file, datasets then methods in config order;
    `variants=False` leaves out the sensitivity runs (the figures show the paper's methods).
    """
    runs = dee_plan.runs(section, config["datasets"], only=datasets, variants=variants)
    return {(r.dataset_label, r.label): dee_run_file(path, r) for r in runs}


def dee_recognition_runs():
    """(dataset label, method label) -> run CSV of Figure 11."""
    return dee_run_files(DEE_RECOGNITION, rules.run_dee_recognition.output.scores)


def dee_embedding_runs(datasets=None, variants=True):
    """(dataset label, method label) -> embedding npz of Figures 7-10."""
    return dee_run_files(
        DEE_VISUALISATION, rules.run_dee_embedding.output.embedding, datasets, variants
    )


def dee_study_threads(wildcards):
    """Threads of one optimiser run: the study's `threads_per_dataset`, else the rule's
    resource (graphdr.pipeline.papers.dee.plan.study_threads)."""
    threads = dee_plan.study_threads(study_of(wildcards), wildcards.dataset)
    if threads is None:
        return resource("run_dee_optimizer", "threads")(wildcards)
    return threads


def dee_result_optimizer_runs():
    """[variant, dataset label, optimiser label, npz, timing json] of every DEE study run."""
    runs = []
    for study, spec in dee_plan.optimizer_studies(STUDIES).items():
        variant = spec.get("variant", dee_plan.PRIMARY)
        for (dataset, optimizer), files in study_runs(Namespace(study=study)).items():
            runs.append([variant, dataset, optimizer, *files])
    return runs


def dee_result_runs(section, path):
    """[variant, dataset label, label of the method it is a variant of, run file] of every
    recognition or visualisation run: a method with `variant` is a sensitivity run of its
    `variant_of` method (DEE (λ=10) -> method DEE, variant lam=10)."""
    return [
        [r.variant, r.dataset_label, r.base_label, dee_run_file(path, r)]
        for r in dee_plan.runs(section, config["datasets"])
    ]


def dee_result_recognition_runs():
    return dee_result_runs(DEE_RECOGNITION, rules.run_dee_recognition.output.scores)


def dee_result_embedding_runs():
    return dee_result_runs(DEE_VISUALISATION, rules.run_dee_embedding.output.embedding)


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
    if DEE_RECOGNITION or DEE_VISUALISATION or dee_plan.optimizer_studies(STUDIES):
        outputs += list(rules.collect_dee_results.output)
    return outputs


PAPER_OUTPUTS["dee"] = dee_outputs
