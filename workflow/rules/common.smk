# Shared set-up: config validation, job environment, helpers that turn config into targets.
# Every rule file uses these helpers; none of them hard-codes an experiment, dataset or method.

import functools
import importlib.util
import os
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")

# Package source of this checkout: jobs import it from here (see workflow/scripts) and rules
# list the modules they use as inputs (code stamps: `code`), so a change of a module's code
# re-runs exactly the jobs below it.
SRC = Path(workflow.basedir) / "src"


def _load_module(name):
    """Load a standard-library-only module of graphdr.pipeline by path (no package import);
    ``name``: its path below graphdr/pipeline without ".py" (``"papers/akda/columns"``).
    """
    path = SRC / "graphdr" / "pipeline" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(
        f"_graphdr_workflow_{path.stem}", path
    )
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


plan = _load_module("plan")
codedeps = _load_module("codedeps")


def _coalesce_scheduler_timers():
    """At most one pending re-evaluation timer in Snakemake's scheduler: without it every
    finished job adds a never-ending 1-Hz chain of scheduling rounds (graphdr.pipeline.scheduling,
    docs/workflow.md "Scheduling"). Left alone, with a warning, on another Snakemake."""
    from snakemake.logging import logger

    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError as exc:
        why = f"no snakemake.scheduling.job_scheduler ({exc})"
    else:
        why = _load_module("scheduling").coalesce_reevaluations(JobScheduler)
    if why:
        logger.warning(
            f"graphdr: Snakemake's scheduler timers left as they are: {why}."
        )


_coalesce_scheduler_timers()

# ---- configuration: schema first (fills defaults), then the cross-checks --------------------
validate(config, schema="../schemas/config.schema.yaml")
# Each paper's section has its own schema (workflow/schemas/papers/<paper>.schema.yaml).
for _paper, _section in config.get("papers", {}).items():
    validate(_section, schema=f"../schemas/papers/{_paper}.schema.yaml")
plan.check_config(config)

# ---- output roots ---------------------------------------------------------------------------
# Every path a rule writes or reads (outputs, logs, benchmarks) is built from the config's
# `output:` roots, so a configuration with its own roots (config/quick.yaml) never touches the
# files of another (paper_figures/ holds the committed outputs of the full protocols).
# (Kept here, not in graphdr.pipeline.plan: plan.py is a code input of the split jobs, and the
# roots decide where jobs write, not what they compute.)
ROOTS = {key: os.path.normpath(path) for key, path in config["output"].items()}
if len(set(ROOTS.values())) < len(ROOTS):
    raise ValueError(
        f"invalid workflow config: output roots {ROOTS} must be different directories."
    )


def results(path):
    """``path`` under the results root (intermediate files, long tables, benchmarks)."""
    return os.path.join(ROOTS["results"], path)


def figures(path):
    """``path`` under the figures root (paper tables and figures)."""
    return os.path.join(ROOTS["figures"], path)


def logs(path):
    """``path`` under the logs root (one log per job)."""
    return os.path.join(ROOTS["logs"], path)


# ---- environment of every job ---------------------------------------------------------------
# Set in this process, so local jobs inherit it; cluster jobs re-read this file. Env wins over
# config: NUMBA_CACHE_DIR (per user), GRAPHDR_DATA_MIRROR / _HOME, GRAPHDR_EXTRA_REGISTRY.
JOB_ENV = plan.job_environment(config, os.environ)
os.environ.update(JOB_ENV)

DATASETS = list(config["datasets"])


def dataset_label(dataset, default=None):
    """The name tables and figures give ``dataset`` (config ``datasets.<name>.label``; without
    one, ``default`` or the config name)."""
    return config["datasets"][dataset].get(
        "label", dataset if default is None else default
    )


EXPERIMENTS = list(config["experiments"])
METHODS = sorted({m for e in config["experiments"].values() for m in e["methods"]})


def _alternatives(names):
    return "|".join(sorted(names)) or "(?!)"


wildcard_constraints:
    dataset=_alternatives(DATASETS),
    experiment=_alternatives(EXPERIMENTS),
    method=_alternatives(METHODS),
    seed=r"\d+",
    fold=r"\d+",
    paper=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    table=_alternatives(job["name"] for job in plan.paper_jobs(config, "tables")),


# ---- package code as inputs -----------------------------------------------------------------
def code(*modules):
    """Code stamps of the given graphdr modules and of everything they import (inside graphdr):
    one small file per source file under the results root, holding the digest of its syntax
    tree without docstrings (graphdr.pipeline.codedeps.code_stamp), rewritten only when that
    digest changes. A job re-runs when what its code does changes; a comment, a docstring or a
    re-formatting re-runs nothing (docs/workflow.md, "Rerun policy").
    """
    return list(_code_files(modules))


@functools.cache
def _code_files(modules):
    return tuple(_stamp(f) for f in codedeps.code_closure(modules, SRC))


@functools.cache
def _stamp(source):
    return os.path.relpath(codedeps.code_stamp(source, SRC, results("code")))


def registry_files():
    """Dataset registries a loader reads: the package's, plus a user registry when set."""
    files = [SRC / "graphdr" / "datasets" / "registry.toml"]
    if JOB_ENV.get("GRAPHDR_EXTRA_REGISTRY"):
        files.append(JOB_ENV["GRAPHDR_EXTRA_REGISTRY"])
    return files


# Read once per run. A typo in a dataset's `source` fails here, before any rule.
REGISTRY = plan.read_registries(registry_files())
plan.check_sources(config, REGISTRY)
# Every name and size the config references (datasets, tasks, methods, estimators and their
# parameters, kernels, table rows, split counts): one error listing all, before any job.
_load_module("checks").check_config(config, REGISTRY, SRC)


def registry_record(wildcards):
    """The registry entry of the job's dataset and its raw files' sha256 (a param, not a file).

    Registry files are not inputs: they describe every dataset, so editing one entry would
    re-run every dataset. As a param, only the jobs of the changed dataset re-run.
    """
    return plan.registry_record(
        config["datasets"][wildcards.dataset]["source"], REGISTRY
    )


def dataset_code(wildcards):
    """Code of a prepare job: the data stage plus the module of the dataset's loader only."""
    loader = registry_record(wildcards)["dataset"]["loader"]
    return code("graphdr.pipeline.data", codedeps.loader_module(loader, SRC))


def raw_manifest(wildcards):
    """The retrieve step's manifest, for datasets that read raw files (none for bundled sets)."""
    if not registry_record(wildcards)["files"]:
        return []
    return rules.retrieve_dataset.output.manifest.format(dataset=wildcards.dataset)


def estimator_code(wildcards):
    """Code of a fit: the fit stage plus the module defining the configured estimator."""
    defining = _defining_module(method_spec(wildcards)["estimator"])
    return code("graphdr.pipeline.fit", defining or "graphdr.methods")


@functools.cache
def _defining_module(estimator):
    """The module of a registered estimator (graphdr.methods.registry), or None."""
    return codedeps.estimator_module(estimator, SRC)


# ---- config lookups (input/params functions of wildcards) -----------------------------------
def experiment_of(wildcards):
    return config["experiments"][wildcards.experiment]


def method_spec(wildcards):
    return experiment_of(wildcards)["methods"][wildcards.method]


def method_params(wildcards):
    """The method spec without its display label (a new label must not re-run the fits)."""
    return {k: v for k, v in method_spec(wildcards).items() if k != "label"}


def selection_params(wildcards):
    """The experiment's selection settings, for methods with a grid only."""
    if not method_spec(wildcards).get("grid"):
        return None
    return experiment_of(wildcards).get("selection")


def resource(rule_name, key):
    """Resource ``key`` of a rule, per experiment when the job has one (see plan.resources_for)."""

    def get(wildcards):
        return plan.resources_for(config, rule_name, wildcards.get("experiment"))[key]

    return get


def job_priority(rule_name, key=None):
    """The Snakemake priority of one job, from ``resources[rule_name]`` in the config:
    ``priority_by[key]`` for a job whose main wildcard is ``key`` (select_ngeu_models: the task;
    run_qmi_sweep: the dataset, or the study for a one_job study), else ``priority``, else 0.
    """
    spec = plan.resources_for(config, rule_name)
    return spec.get("priority_by", {}).get(key, spec.get("priority", 0))


def task_priority(wildcards):
    """Priority of an NGEU task's jobs (select_ngeu_models and its inputs): ``job_priority``."""
    return job_priority("select_ngeu_models", wildcards.task)


def _dataset_priorities():
    """{dataset: priority} for the datasets read by prioritised rules: the highest priority of
    the rules that read it. Snakemake does not pass a job's priority on to the jobs it waits
    for, so without this the long jobs' data were retrieved and prepared in the crowd of short
    jobs, and the longest job (NGEU's MNIST grid) started 71 minutes into the full run.
    (Kept here, not in graphdr.pipeline.plan, for the reason the output roots are.)"""
    papers = config.get("papers", {})
    ngeu_tasks = papers.get("ngeu", {}).get("tasks", {})
    dee_recognition = papers.get("dee", {}).get("recognition", {})
    qmi_studies = papers.get("qmi", {}).get("studies", {})
    readers = [  # (rule, a dataset it reads, the key of its job in priority_by)
        *(
            ("select_ngeu_models", spec["dataset"], task)
            for task, spec in ngeu_tasks.items()
        ),
        *(("run_akda_group", d, d) for d in papers.get("akda", {}).get("datasets", [])),
        *(("run_dee_recognition", d, d) for d in dee_recognition.get("datasets", [])),
        *(  # per dataset, or per study for a one_job study
            ("run_qmi_sweep", d, name if spec.get("one_job") else d)
            for name, spec in qmi_studies.items()
            for d in spec["datasets"]
        ),
    ]
    priorities = {}
    for rule_name, dataset, key in readers:
        priority = max(priorities.get(dataset, 0), job_priority(rule_name, key))
        if priority:
            priorities[dataset] = priority
    return priorities


DATASET_PRIORITIES = _dataset_priorities()


def dataset_priority(wildcards):
    """Priority of a dataset's retrieve and prepare jobs (``_dataset_priorities``; else 0)."""
    return DATASET_PRIORITIES.get(wildcards.dataset, 0)


def table_spec(wildcards):
    return plan.locate(config, "tables", wildcards.paper, wildcards.table)


def figure_spec(wildcards):
    return plan.locate(config, "figures", wildcards.paper, wildcards.figure)


# ---- target lists ---------------------------------------------------------------------------
def score_files(experiment):
    """Every score CSV of an experiment (all datasets x methods x seeds x folds)."""
    template = rules.evaluate_embedding.output.scores
    return [template.format(**job) for job in plan.score_jobs(config, experiment)]


def table_inputs(wildcards):
    experiment, spec = table_spec(wildcards)
    files = {"scores": score_files(experiment)}
    if spec.get("reference"):
        files["reference"] = spec["reference"]
    return files


def projection_inputs(wildcards):
    """Embedding files of a projection figure, panel by panel (datasets x methods)."""
    experiment, spec = figure_spec(wildcards)
    template = rules.fit_embed.output.embedding
    return [
        template.format(experiment=experiment, **panel)
        for panel in plan.figure_panels(config, experiment, spec)
    ]


def projection_panels(wildcards):
    """(dataset label, method label) of each panel, in the order of projection_inputs."""
    experiment, spec = figure_spec(wildcards)
    names = plan.labels(config, experiment)
    return [
        (names["dataset"][p["dataset"]], names["method"][p["method"]])
        for p in plan.figure_panels(config, experiment, spec)
    ]


def paper_outputs():
    """Every paper table and figure the config asks for (the default target)."""
    outputs = []
    for job in plan.paper_jobs(config, "tables"):
        outputs += expand(
            rules.collect_table.output, paper=job["paper"], table=job["name"]
        )
    for job in plan.paper_jobs(config, "figures", kind="projection"):
        outputs += expand(
            rules.plot_projection.output, paper=job["paper"], figure=job["name"]
        )
    return outputs


# ---- optimiser studies (paper 003; rules in paper_dee.smk) -------------------------------------
STUDIES = config.get("optimizer_studies", {})


def study_of(wildcards):
    return STUDIES[wildcards.study]


def study_runs(wildcards, datasets=None):
    """(dataset label, optimiser label) -> (result npz, timing json) of a study, in order."""
    spec = study_of(wildcards)
    runs = {}
    for dataset in datasets or spec["datasets"]:
        label = dataset_label(dataset)
        for optimizer, opt_label in spec["optimizers"].items():
            files = expand(
                rules.run_dee_optimizer.output,
                study=wildcards.study,
                dataset=dataset,
                optimizer=optimizer,
            )
            runs[(label, opt_label)] = tuple(files)
    return runs


def study_run_files(wildcards, datasets=None):
    return [f for pair in study_runs(wildcards, datasets).values() for f in pair]


def optimizer_study_outputs():
    outputs = []
    for job in plan.optimizer_study_outputs(config):
        if job["kind"] == "tables":
            outputs += expand(
                rules.write_dee_optimizer_tables.output,
                paper=job["paper"],
                study=job["study"],
            )
        else:
            outputs += expand(
                rules.plot_dee_optimizer_study.output,
                paper=job["paper"],
                study=job["study"],
                dataset=job["dataset"],
            )
    return outputs


# ---- paper-specific stages (workflow/rules/paper_<paper>.smk) --------------------------------
# Each paper's rule file registers the function listing its outputs; `rule all` asks for all.
PAPER_OUTPUTS = {}


def registered_paper_outputs():
    return [f for paper in sorted(PAPER_OUTPUTS) for f in PAPER_OUTPUTS[paper]()]


def check_resource_names(rule_names):
    """Fail before any job runs when a `resources` key names no rule (a typo)."""
    keys = set(config.get("resources", {}))
    for experiment in config["experiments"].values():
        keys |= set(experiment.get("resources", {}))
    unknown = sorted(keys - set(rule_names) - {"default"})
    if unknown:
        raise ValueError(
            f"invalid workflow config: resources for unknown rules {unknown}; "
            f"the rules are {sorted(rule_names)}."
        )


# ---- published overlays (workflow/rules/overlays.smk) -----------------------------------------

OVERLAY = config.get("overlay") or {}


def overlay_files():
    """[(source, destination)] of the files an overlay publishes: <figures>/<paper>/<paper>_<f>
    of this configuration to <folder>/<paper>_<name>_<f>."""
    paper, name = OVERLAY["paper"], OVERLAY["name"]
    return [
        (
            figures(f"{paper}/{paper}_{f}"),
            os.path.join(OVERLAY["folder"], f"{paper}_{name}_{f}"),
        )
        for f in OVERLAY["files"]
    ]
