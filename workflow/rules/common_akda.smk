# Paper 002 (AKDA): helper functions of workflow/rules/paper_akda.smk (config section papers.akda).
# Functions live here and rules there (snakemake --lint asks for the split).

AKDA = config.get("papers", {}).get("akda", {})
# what runs and what is written: graphdr.pipeline.papers.akda.plan (standard library only,
# tested in tests/test_paper_plans.py), loaded by path like the columns of the tables
akda_plan = _load_module("papers/akda/plan")
# Kernel methods (and KSVM) run together, one job per dataset and condition (rule
# run_akda_group: shared CV folds, distances and subclass partitions); the others one job per
# method (rule run_akda_method).
AKDA_GROUPED, AKDA_SINGLE = akda_plan.columns(
    AKDA, _load_module("papers/akda/columns").GROUPED_ESTIMATORS
)


def akda_run_code(wildcards):
    """Code inputs of one run: the protocol module and the module of its method, if it is a
    registered estimator (graphdr.methods.registry)."""
    extra = _defining_module(akda_plan.estimator(AKDA, wildcards.akda_method))
    return code("graphdr.pipeline.papers.akda.protocol", *([extra] if extra else []))


def akda_group_code(wildcards):
    """Code inputs of a group run: the protocol module and the modules of its methods."""
    extra = {_defining_module(akda_plan.estimator(AKDA, m)) for m in AKDA_GROUPED}
    return code("graphdr.pipeline.papers.akda.protocol", *sorted(m for m in extra if m))


def akda_kernel_entries(wildcards):
    """Kernel entries of one run, N_train x N (the training kernel and the test rows against the
    training samples), from the dataset's size in the config and registry: its memory term.
    """
    n, classes = cluster.dataset_size(
        config["datasets"][wildcards.dataset], registry_record(wildcards)["dataset"]
    )
    n_per_class = AKDA["conditions"][wildcards.condition]
    return cluster.condition_train_size(n, classes, n_per_class) * n


def akda_run_files(kind):
    """Result (kind="result") or timing (kind="timing") files of every run."""
    suffix = ".json" if kind == "result" else ".timing.json"
    return [
        results(f"akda/runs/{d}/{c}/{m}{suffix}") for d, c, m in akda_plan.cells(AKDA)
    ]


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


PAPER_OUTPUTS["akda"] = lambda: [figures(f) for f in akda_plan.outputs(AKDA)]
