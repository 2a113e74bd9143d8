"""The functions the Snakemake workflow calls, one per rule, plus their plumbing.

Data flows one way, one module per stage::

    data.retrieve_dataset        raw files (mirror/cache/URL) -> results/raw/{dataset}.json
    data.prepare_dataset         raw file / bundled set  -> results/prepared/{dataset}.npz
    splits.make_splits           prepared arrays         -> results/splits/...npz (index arrays)
    fit.fit_embed                prepared + splits       -> results/fit/... (model, embedding, info)
    evaluate.evaluate_embedding  embedding               -> results/scores/...csv
    report.collect_table         scores                  -> paper_figures/<paper>/<table>.{csv,md,tex}
    report.plot_projection       embeddings              -> paper_figures/<paper>/<figure>.{pdf,png}

``io`` writes every output atomically and byte-deterministically; ``runtime`` sets up a job
(log file, thread limits) and rebuilds a rule's ``snakemake`` object for debugging by hand.
``plan`` (config -> jobs, cross-checks) and ``codedeps`` (which source files a rule depends on)
use the standard library only: the Snakefile loads them by path at parse time. Nothing is
imported here, so a stage pulls in only what it needs.
"""
