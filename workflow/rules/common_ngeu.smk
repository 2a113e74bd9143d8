# Paper 004 (NGEU): helper functions of workflow/rules/uncertainty.smk and paper_ngeu.smk
# (config section papers.ngeu). Functions live here and rules there (snakemake --lint asks for
# the split); this file is included before both.

NGEU = config.get("papers", {}).get("ngeu", {})
NGEU_TASKS = NGEU.get("tasks", {})
# what runs and what is written: graphdr.pipeline.papers.ngeu.plan (standard library only,
# tested in tests/test_paper_plans.py), loaded by path
ngeu_plan = _load_module("papers/ngeu/plan")
NGEU_TABLES = ngeu_plan.tables(NGEU)


def ngeu_task(wildcards):
    """The task (dataset and split spec) of a job."""
    return NGEU_TASKS[wildcards.task]


def ngeu_prepared(wildcards):
    """The prepared dataset of the job's task (shared prepare_dataset output)."""
    return results(f"prepared/{ngeu_task(wildcards)['dataset']}.npz")


def ngeu_splits_file(wildcards):
    return results(f"ngeu/splits/{wildcards.task}.npz")


def ngeu_uncertainty_file(wildcards):
    return results(f"ngeu/uncertainty/{wildcards.task}.npz")


def ngeu_task_methods(wildcards):
    """{name: spec} of every method a table asks for on the job's task, sensitivity copies
    included (config order)."""
    return ngeu_plan.task_methods(NGEU, wildcards.task)


def ngeu_select_code(wildcards):
    """Code of a selection job: the protocol and the module defining each estimator of the
    task's rows, sensitivity copies included (the registry imports them by name, so the import
    scan cannot see them; raw-feature rows such as knn have none)."""
    modules = {
        _defining_module(spec["estimator"])
        for spec in ngeu_task_methods(wildcards).values()
    }
    return code(
        "graphdr.pipeline.papers.ngeu.protocol", *sorted(m for m in modules if m)
    )


def _ngeu_tasks_of(table):
    """{task: {label, scores, cost, samples}} of one table, in the table's order."""
    tasks = {}
    for task in NGEU_TABLES[table]["tasks"]:
        dataset = NGEU_TASKS[task]["dataset"]
        tasks[task] = {
            "label": dataset_label(dataset),
            "grid": ngeu_plan.task_grid(NGEU, task),
            "scores": results(f"ngeu/select/{task}_scores.csv"),
            "cost": results(f"ngeu/select/{task}_cost.json"),
            "samples": results(f"ngeu/select/{task}_samples.csv"),
        }
    return tasks


def ngeu_table_tasks(wildcards):
    """{task: {label, scores, cost, samples}} of the job's table, in the table's order."""
    return _ngeu_tasks_of(wildcards.ngeu_table)


def ngeu_results_tables(wildcards):
    """{study: {table: config, tasks: files}} of every table (the results frame's input)."""
    return {
        t: {"table": NGEU_TABLES[t], "tasks": _ngeu_tasks_of(t)} for t in NGEU_TABLES
    }


def ngeu_results_inputs(wildcards):
    """Score and per-sample files of every table's tasks, and Figure 3's record."""
    files = {
        f"{t}_{task}_{kind}": spec[kind]
        for t, table in ngeu_results_tables(wildcards).items()
        for task, spec in table["tasks"].items()
        for kind in ("scores", "samples")
    }
    if NGEU.get("figure3"):
        files["figure3"] = figures("ngeu/ngeu_figure3_toy.json")
    return files


def ngeu_table_inputs(wildcards):
    files = [
        f
        for t in ngeu_table_tasks(wildcards).values()
        for f in (t["scores"], t["cost"], t["samples"])
    ]
    return files + [NGEU_TABLES[wildcards.ngeu_table]["reference"]]


PAPER_OUTPUTS["ngeu"] = lambda: [figures(f) for f in ngeu_plan.outputs(NGEU)]
