"""Rule retrieve_dataset: fetch the raw files of one dataset, write their manifest.

By hand: `python workflow/scripts/retrieve_dataset.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import data

with job("retrieve_dataset", dataset="wine") as snakemake:
    data.retrieve_dataset(snakemake.params.source, snakemake.output.manifest)
