"""Rule ngeu_select: the validation grid of every method of one NGEU task.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/ngeu_select.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import ngeu  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("ngeu_select", task="coil20")

with runtime.job(snakemake) as logger:
    ngeu.select_task(
        snakemake.input.prepared,
        snakemake.input.splits,
        snakemake.input.uncertainty,
        snakemake.params.methods,
        snakemake.params.grid,
        snakemake.output.scores,
        snakemake.output.cost,
        snakemake.output.samples,
        k=snakemake.params.k,
        seed=snakemake.params.seed,
        logger=logger,
    )
