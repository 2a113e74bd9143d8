"""Rule fit_embed: fit one method on one fold, write model, embedding and info.

By hand: `python workflow/scripts/fit_embed.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import fit
from graphdr.pipeline.runtime import logger

with job(
    "fit_embed", experiment="demo", dataset="wine", method="LDA_GE", seed=0, fold=0
) as snakemake:
    info = fit.fit_embed(
        snakemake.input.prepared,
        snakemake.input.splits,
        fold=snakemake.params.fold,
        method=snakemake.params.method,
        preprocessing=snakemake.params.preprocessing,
        selection=snakemake.params.selection,
        model_path=snakemake.output.model,
        embedding_path=snakemake.output.embedding,
        info_path=snakemake.output.info,
    )
    logger.info("fitted: %s", info)
