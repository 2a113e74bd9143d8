# Embedding -> tidy scores (classifier x dimension x part).


rule evaluate_embedding:
    """Score one embedding with every classifier of its experiment at the configured dims."""
    input:
        embedding=rules.fit_embed.output.embedding,
        code=code("graphdr.pipeline.evaluate"),
    output:
        scores=results(
            "scores/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.csv"
        ),
    log:
        logs(
            "evaluate_embedding/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.log"
        ),
    benchmark:
        results(
            "benchmarks/evaluate_embedding/{experiment}/{dataset}/{method}/seed{seed}_fold{fold}.tsv"
        )
    conda:
        "../../envs/compute.yaml"
    threads: resource("evaluate_embedding", "threads")
    resources:
        mem_mb=memory("evaluate_embedding"),
        runtime=resource("evaluate_embedding", "runtime"),
    params:
        classifiers=lambda w: experiment_of(w)["classifiers"],
        dims=lambda w: experiment_of(w)["dimensions"],
        labels=lambda w: {
            "experiment": w.experiment,
            "dataset": w.dataset,
            "method": w.method,
            "seed": int(w.seed),
            "fold": int(w.fold),
        },
    script:
        "../scripts/evaluate_embedding.py"
