"""Rule prepare_dataset: load one dataset (options, optional subsample) into results/prepared.

By hand: `python workflow/scripts/prepare_dataset.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import data

with job("prepare_dataset", dataset="wine") as snakemake:
    data.prepare_dataset(
        snakemake.params.source,
        snakemake.output.prepared,
        options=snakemake.params.options,
        subsample_spec=snakemake.params.subsample,
    )
