# Paper 002 (AKDA): helper functions of workflow/rules/paper_akda.smk (config section papers.akda).
# Functions live here and rules there (snakemake --lint asks for the split).

AKDA = config.get("papers", {}).get("akda", {})

# Estimators whose columns run in one group job per dataset and condition: the kernel DR methods
# and KSVM (graphdr.pipeline.papers.akda.columns, standard library only, loaded by path: the
# workflow does not import the package).
AKDA_GROUPED_ESTIMATORS = _load_module("papers/akda/columns").GROUPED_ESTIMATORS


def akda_estimator(method):
    """The registered estimator of a protocol column (papers.akda.estimators, else itself)."""
    return AKDA.get("estimators", {}).get(method, {}).get("estimator", method)


# Kernel methods run together, one job per dataset and condition (the run_akda_group rule; shared CV
# folds, distances and subclass partitions); the others one job per method (rule run_akda_method).
AKDA_GROUPED = [
    m for m in AKDA.get("methods", []) if akda_estimator(m) in AKDA_GROUPED_ESTIMATORS
]
AKDA_SINGLE = [m for m in AKDA.get("methods", []) if m not in AKDA_GROUPED]


def akda_run_code(wildcards):
    """Code inputs of one run: the protocol module and the module of its method, if it is a
    registered estimator (graphdr.methods.registry)."""
    name = AKDA.get("estimators", {}).get(wildcards.akda_method, {})
    extra = _defining_module(name.get("estimator", wildcards.akda_method))
    return code("graphdr.pipeline.papers.akda.protocol", *([extra] if extra else []))


def akda_group_code(wildcards):
    """Code inputs of a group run: the protocol module and the modules of its methods."""
    extra = {_defining_module(akda_estimator(m)) for m in AKDA_GROUPED}
    return code("graphdr.pipeline.papers.akda.protocol", *sorted(m for m in extra if m))


def akda_cv(wildcards):
    """The CV settings of a dataset's runs: papers.akda.cv, updated by papers.akda.dataset_cv of
    the dataset (a documented reduction of every method's CV at the largest scale)."""
    return AKDA.get("cv", {}) | AKDA.get("dataset_cv", {}).get(wildcards.dataset, {})


def akda_group_skipped(wildcards):
    """{method: reason} of the grouped methods skipped on this dataset and condition."""
    skip = AKDA.get("skip", {}).get(wildcards.dataset, {}).get(wildcards.condition, {})
    return {m: why for m, why in skip.items() if m in AKDA_GROUPED}


def akda_kernel_entries(wildcards):
    """Kernel entries of one run, N_train x N (the training kernel and the test rows against the
    training samples), from the dataset's size in the config and registry: its memory term.
    """
    n, classes = cluster.dataset_size(
        config["datasets"][wildcards.dataset], registry_record(wildcards)["dataset"]
    )
    n_per_class = AKDA["conditions"][wildcards.condition]
    return cluster.condition_train_size(n, classes, n_per_class) * n


def akda_conditions(dataset):
    """Conditions run on ``dataset`` (papers.akda.dataset_conditions, default all)."""
    every = list(AKDA.get("conditions", {}))
    return AKDA.get("dataset_conditions", {}).get(dataset, every)


def akda_draws(dataset, condition):
    """Seeded draws of ``condition``'s split run on ``dataset`` (papers.akda.draws: a count per
    dataset, or per dataset and condition; ``default`` otherwise)."""
    draws = AKDA.get("draws", {})
    default = int(draws.get("default", 1))
    count = draws.get(dataset, default)
    if isinstance(count, dict):
        count = count.get(condition, default)
    return int(count)


def akda_cells():
    """(dataset, condition, method) of every run the config asks for, skipped cells excluded."""
    skip = AKDA.get("skip", {})
    return [
        (d, c, m)
        for d in AKDA.get("datasets", [])
        for c in akda_conditions(d)
        for m in AKDA.get("methods", [])
        if m not in skip.get(d, {}).get(c, {})
    ]


def akda_skipped():
    """[dataset, condition, method, reason] of every skipped cell of the configured datasets."""
    skip = AKDA.get("skip", {})
    return [
        [d, c, m, skip[d][c][m]]
        for d in AKDA.get("datasets", [])
        for c in akda_conditions(d)
        for m in AKDA.get("methods", [])
        if m in skip.get(d, {}).get(c, {})
    ]


def akda_run_files(kind):
    """Result (kind="result") or timing (kind="timing") files of every run."""
    suffix = ".json" if kind == "result" else ".timing.json"
    return [results(f"akda/runs/{d}/{c}/{m}{suffix}") for d, c, m in akda_cells()]


def akda_table_files():
    """Every MAP and speed-up table of the configured conditions and the table of the
    cross-validated parameters (csv, md, tex)."""
    return [
        figures(f"akda/{stem}_{cond}.{ext}")
        for stem in ("akda_map", "akda_speedup_timing")
        for cond in AKDA.get("conditions", {})
        for ext in ("csv", "md", "tex")
    ] + [figures(f"akda/akda_map_selected.{ext}") for ext in ("csv", "md", "tex")]


def akda_equivalence_record(suffix):
    """Claim C1's record (AKDA against KNDA; ``suffix`` "_timing": their fit times) when the
    config asks for it (an input of the results frame)."""
    return (
        [figures(f"akda/akda_equivalence{suffix}.json")]
        if AKDA.get("equivalence")
        else []
    )


def akda_toy_record(name):
    """The toy problem's ``name`` record (timing, separation) when the config has a toy (an
    input of the results frame)."""
    return [figures(f"akda/akda_toy_{name}.json")] if AKDA.get("toy") else []


def akda_outputs():
    """Every table and figure of paper 002 the config asks for (part of the default target)."""
    if not AKDA.get("datasets"):
        return []
    outputs = akda_table_files() + [figures("akda/akda_results.csv")]
    if AKDA.get("toy"):
        outputs += [
            figures(f"akda/akda_toy_{name}.{ext}")
            for name in ("scatter", "projection")
            for ext in ("pdf", "png")
        ]
    return outputs


PAPER_OUTPUTS["akda"] = akda_outputs
