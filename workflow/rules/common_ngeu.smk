# Paper 004 (NGEU): helper functions of workflow/rules/uncertainty.smk and paper_ngeu.smk
# (config section papers.ngeu). Functions live here and rules there (snakemake --lint asks for
# the split); this file is included before both.

NGEU = config.get("papers", {}).get("ngeu", {})
NGEU_TASKS = NGEU.get("tasks", {})
# an overlay drops a table of the base config by setting it to null (config/ngeu_usps2000_rbf.yaml)
NGEU_TABLES = {n: t for n, t in NGEU.get("tables", {}).items() if t is not None}


def ngeu_task(wildcards):
    """The task (dataset and split spec) of a job."""
    return NGEU_TASKS[wildcards.task]


def ngeu_task_grid(task):
    """The validation grid of ``task``: the section's, with the task's own ``grid`` keys
    replacing its (USPS at 6000 training images on a reduced grid: tasks.usps)."""
    return NGEU.get("grid", {}) | NGEU_TASKS[task].get("grid", {})


def ngeu_prepared(wildcards):
    """The prepared dataset of the job's task (shared prepare_dataset output)."""
    return results(f"prepared/{ngeu_task(wildcards)['dataset']}.npz")


def ngeu_splits_file(wildcards):
    return results(f"ngeu/splits/{wildcards.task}.npz")


def ngeu_uncertainty_file(wildcards):
    return results(f"ngeu/uncertainty/{wildcards.task}.npz")


def ngeu_task_methods(wildcards):
    """{name: spec} of every method a table asks for on the job's task (config order)."""
    wanted = {
        m
        for t in NGEU_TABLES.values()
        if wildcards.task in t["tasks"]
        for m in t["methods"]
    }
    chosen = {m: s for m, s in NGEU.get("methods", {}).items() if m in wanted}
    return ngeu_expand_variants(chosen, NGEU.get("variants", {}), wildcards.task)


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


def ngeu_expand_variants(methods, variants, task):
    """``methods`` plus, for each sensitivity variant (config ``papers.ngeu.variants``) that
    covers ``task``, a copy ``<method>@<variant>`` of each of its methods present here, with the
    variant's estimator ``params`` (``solver: positive``) on top of the method's own, and its
    ``method`` keys (its own ``beta`` / ``s0`` grid) replacing the method's: the same grid and
    selection with one setting changed (docs/claims.md, "Sensitivity runs"; read back
    by graphdr.pipeline.papers.ngeu.protocol.split_variant)."""
    out = dict(methods)
    for variant, spec in variants.items():
        if "@" in variant:
            raise ValueError(
                f"papers.ngeu.variants: a name may not contain '@', got {variant!r}."
            )
        if spec.get("tasks") is not None and task not in spec["tasks"]:
            continue
        for name in spec["methods"]:
            if name in methods:
                params = dict(methods[name].get("params", {})) | dict(
                    spec.get("params", {})
                )
                own = dict(spec.get("method", {}))  # own grids (beta, s0), kernel_width
                out[f"{name}@{variant}"] = (
                    dict(methods[name]) | own | {"params": params}
                )
    return out


def _ngeu_tasks_of(table):
    """{task: {label, scores, cost, samples}} of one table, in the table's order."""
    tasks = {}
    for task in NGEU_TABLES[table]["tasks"]:
        dataset = NGEU_TASKS[task]["dataset"]
        tasks[task] = {
            "label": config["datasets"][dataset].get("label", dataset),
            "grid": ngeu_task_grid(task),
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


def ngeu_outputs():
    """Every table and figure of paper 004 the config asks for (part of the default target)."""
    if not NGEU:
        return []
    stems = []
    for name in NGEU_TABLES:
        stems += [
            name,
            f"{name}_selected",
            f"{name}_grid",
            f"{name}_by_kernel",
            f"{name}_pairs",
        ]
    outputs = [
        figures(f"ngeu/ngeu_{s}.{ext}") for s in stems for ext in ("csv", "md", "tex")
    ]
    outputs.append(figures("ngeu/ngeu_results.csv"))
    if NGEU.get("figure3"):
        outputs += [
            figures(f"ngeu/ngeu_figure3_toy.{ext}") for ext in ("pdf", "png", "json")
        ]
    return outputs


PAPER_OUTPUTS["ngeu"] = ngeu_outputs
