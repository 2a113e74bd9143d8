# Raw files -> prepared arrays -> splits.


rule retrieve_dataset:
    """Fetch the raw files of a dataset (mirror, cache or download) and record their sha256.

    The only rule that may need the network, so it runs on the submit host (localrule). A
    download that fails with a network error is tried again inside the job
    (graphdr.datasets.fetch); a checksum mismatch is not, so the job is not retried either
    (retries: 0 also overrides a profile's default).
    """
    input:
        code=code("graphdr.pipeline.data"),
    output:
        manifest=results("raw/{dataset}.json"),
    log:
        logs("retrieve_dataset/{dataset}.log"),
    benchmark:
        results("benchmarks/retrieve_dataset/{dataset}.tsv")
    priority: dataset_priority
    retries: 0
    localrule: True
    conda:
        "../../envs/datasets.yaml"
    threads: resource("retrieve_dataset", "threads")
    resources:
        mem_mb=memory("retrieve_dataset"),
        runtime=resource("retrieve_dataset", "runtime"),
    params:
        source=lambda w: config["datasets"][w.dataset]["source"],
        files=lambda w: registry_record(w)["files"],
    script:
        "../scripts/retrieve_dataset.py"


rule prepare_dataset:
    """Load a dataset with its loader options (and optional subsample) into one .npz."""
    input:
        manifest=raw_manifest,
        code=dataset_code,
    output:
        prepared=results("prepared/{dataset}.npz"),
    log:
        logs("prepare_dataset/{dataset}.log"),
    benchmark:
        results("benchmarks/prepare_dataset/{dataset}.tsv")
    priority: dataset_priority
    conda:
        "../../envs/datasets.yaml"
    threads: resource("prepare_dataset", "threads")
    resources:
        mem_mb=memory("prepare_dataset"),
        runtime=resource("prepare_dataset", "runtime"),
    params:
        source=lambda w: config["datasets"][w.dataset]["source"],
        registry=registry_record,
        options=lambda w: config["datasets"][w.dataset]["options"],
        subsample=lambda w: config["datasets"][w.dataset]["subsample"],
    script:
        "../scripts/prepare_dataset.py"


rule make_splits:
    """Draw the train/val/test indices of every fold of an experiment for one seed."""
    input:
        prepared=rules.prepare_dataset.output.prepared,
        code=code("graphdr.pipeline.splits"),
    output:
        splits=results("splits/{experiment}/{dataset}/seed{seed}.npz"),
    log:
        logs("make_splits/{experiment}/{dataset}/seed{seed}.log"),
    benchmark:
        results("benchmarks/make_splits/{experiment}/{dataset}/seed{seed}.tsv")
    conda:
        "../../envs/datasets.yaml"
    threads: resource("make_splits", "threads")
    resources:
        mem_mb=memory("make_splits"),
        runtime=resource("make_splits", "runtime"),
    params:
        split=lambda w: experiment_of(w)["split"],
        seed=lambda w: int(w.seed),
    script:
        "../scripts/make_splits.py"
