"""Rule evaluate_embedding: score one embedding with the experiment's classifiers.

By hand: `python workflow/scripts/evaluate_embedding.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import evaluate

with job(
    "evaluate_embedding", experiment="demo", dataset="wine", method="LDA_GE", seed=0, fold=0
) as snakemake:
    evaluate.evaluate_embedding(
        snakemake.input.embedding,
        snakemake.output.scores,
        classifiers=snakemake.params.classifiers,
        dims=snakemake.params.dims,
        labels=snakemake.params.labels,
    )
