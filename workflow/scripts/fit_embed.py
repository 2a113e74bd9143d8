"""Rule fit_embed: fit one method on one fold, write model, embedding and info.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/fit_embed.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import fit, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake(
        "fit_embed", experiment="demo", dataset="wine", method="LDA_GE", seed=0, fold=0
    )

with runtime.job(snakemake) as log:
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
    log.info("fitted: %s", info)
