"""Rule plot_projection: scatter the 2-D projections of one figure, panel by panel.

By hand: `python workflow/scripts/plot_projection.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import report

with job("plot_projection", paper="demo", figure="demo_projection") as snakemake:
    report.plot_projection(
        dict(zip(snakemake.params.panels, snakemake.input.embeddings, strict=True)),
        Path(snakemake.output.pdf).with_suffix(""),
        part=snakemake.params.part,
        title=snakemake.params.title,
    )
