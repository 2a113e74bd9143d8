"""Rule plot_projection: scatter the 2-D projections of one figure, panel by panel.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/plot_projection.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys
from pathlib import Path

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import report, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("plot_projection", paper="demo", figure="demo_projection")

with runtime.job(snakemake):
    report.plot_projection(
        dict(zip(snakemake.params.panels, snakemake.input.embeddings, strict=True)),
        Path(snakemake.output.pdf).with_suffix(""),
        part=snakemake.params.part,
        title=snakemake.params.title,
    )
