"""Rule run_dee_embedding: 2-D embedding of every sample of one dataset by one method.

By hand: `python workflow/scripts/run_dee_embedding.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import protocol as dee_protocol

with job("run_dee_embedding", dataset="yale", dee_method="DEE") as snakemake:
    dee_protocol.embedding_run(
        snakemake.input.prepared,
        estimator=snakemake.params.estimator,
        params=snakemake.params.params,
        output=snakemake.output.embedding,
    )
