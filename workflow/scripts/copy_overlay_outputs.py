"""Rule copy_overlay_outputs: an overlay's published outputs, copied beside the primary ones.

By hand: `python workflow/scripts/copy_overlay_outputs.py` runs the example job below
(docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import io

with job("copy_overlay_outputs", configfiles=("config/ngeu_usps2000_rbf.yaml",)) as snakemake:
    for source, destination in zip(snakemake.input, snakemake.output, strict=True):
        io.copy_file(source, destination)
