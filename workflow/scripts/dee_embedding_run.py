"""Rule dee_embedding_run: 2-D embedding of every sample of one dataset by one method.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/dee_embedding_run.py`): the
example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import dee_compare  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("dee_embedding_run", dataset="yale", dee_method="DEE")

with runtime.job(snakemake):
    dee_compare.embedding_run(
        snakemake.input.prepared,
        estimator=snakemake.params.estimator,
        params=snakemake.params.params,
        output=snakemake.output.embedding,
    )
