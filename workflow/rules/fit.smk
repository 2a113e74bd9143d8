# Splits -> fitted model + embedding of every part.


rule fit_embed:
    """Fit one configured method on the training part of one fold; embed every part."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        splits=rules.make_splits.output.splits,
        code=estimator_code,
    output:
        model=results("fit/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.pkl"),
        embedding=results(
            "fit/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.npz"
        ),
        info=results("fit/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.json"),
    log:
        logs("fit_embed/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.log"),
    benchmark:
        results(
            "benchmarks/fit_embed/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.tsv"
        )
    conda:
        "../../envs/compute.yaml"
    threads: resource("fit_embed", "threads")
    resources:
        mem_mb=memory("fit_embed"),
        runtime=resource("fit_embed", "runtime"),
    params:
        fold=lambda w: int(w.fold),
        method=method_params,
        preprocessing=lambda w: experiment_of(w)["preprocessing"],
        selection=selection_params,
    script:
        "../scripts/fit_embed.py"
