"""Rule evaluate_embedding: score one embedding with the experiment's classifiers.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/evaluate_embedding.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import evaluate, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake(
        "evaluate_embedding", experiment="demo", dataset="wine", method="LDA_GE", seed=0, fold=0
    )

with runtime.job(snakemake):
    evaluate.evaluate_embedding(
        snakemake.input.embedding,
        snakemake.output.scores,
        classifiers=snakemake.params.classifiers,
        dims=snakemake.params.dims,
        labels=snakemake.params.labels,
    )
