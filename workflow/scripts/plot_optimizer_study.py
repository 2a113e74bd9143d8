"""Rule plot_optimizer_study: embeddings and objective curves of one dataset, per optimiser.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/plot_optimizer_study.py`):
the example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys
from pathlib import Path

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import dee  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake(
        "plot_optimizer_study", paper="dee", study="dee_optimizers", dataset="yale"
    )

with runtime.job(snakemake):
    out = snakemake.output
    dee.plot_optimizer_study(
        {label: (result, timing) for label, result, timing in snakemake.params.runs},
        dataset=snakemake.params.dataset,
        embeddings_stem=Path(out.embeddings_pdf).with_suffix(""),
        objective_stem=Path(out.objective_pdf).with_suffix(""),
        timing_stem=Path(out.timing_pdf).with_suffix(""),
    )
