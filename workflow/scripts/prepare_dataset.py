"""Rule prepare_dataset: load one dataset (options, optional subsample) into results/prepared.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/prepare_dataset.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import data, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("prepare_dataset", dataset="wine")

with runtime.job(snakemake):
    data.prepare_dataset(
        snakemake.params.source,
        snakemake.output.prepared,
        options=snakemake.params.options,
        subsample_spec=snakemake.params.subsample,
    )
