# Uncertainty stage (paper 004): prepared arrays + a task's folds -> the squared nearest-neighbour
# distances of every fold's training samples (unsupervised and supervised), one file per task.
# The nearest-neighbour scheme of width beta uses the variances beta^2 d_i^2, so one file serves
# the whole beta grid. Read by select_ngeu_models. Helper functions in common_ngeu.smk.


rule estimate_uncertainty:
    """Nearest-neighbour distances of the training samples of every fold of one NGEU task."""
    input:
        prepared=ngeu_prepared,
        splits=ngeu_splits_file,
        code=code("graphdr.pipeline.papers.ngeu.protocol", "graphdr.uncertainty"),
    output:
        uncertainty=results("ngeu/uncertainty/{task}.npz"),
    log:
        logs("estimate_uncertainty/{task}.log"),
    benchmark:
        results("benchmarks/estimate_uncertainty/{task}.tsv")
    wildcard_constraints:
        task=_alternatives(NGEU_TASKS),
    priority: task_priority  # an input of select_ngeu_models only
    conda:
        "../../envs/compute.yaml"
    threads: resource("estimate_uncertainty", "threads")
    resources:
        mem_mb=memory("estimate_uncertainty"),
        runtime=resource("estimate_uncertainty", "runtime"),
    script:
        "../scripts/estimate_uncertainty.py"
