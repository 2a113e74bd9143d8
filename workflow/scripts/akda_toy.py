"""Rule akda_toy: Figures 2-3 of paper 002 (one class against the rest, linear kernel).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/akda_toy.py`): the example
job below is then rebuilt from the workflow.
"""

import sys
from pathlib import Path

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import akda  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("akda_toy")

with runtime.job(snakemake):
    out = snakemake.output
    akda.akda_toy(
        snakemake.input.prepared,
        n_per_class=snakemake.params.n_per_class,
        target=snakemake.params.target,
        seed=snakemake.params.seed,
        reg=snakemake.params.reg,
        dataset_label=snakemake.params.label,
        scatter_stem=Path(out.scatter_pdf).with_suffix(""),
        projection_stem=Path(out.projection_pdf).with_suffix(""),
        timing_path=out.timing,
        separation_path=out.separation,
        kda_params=snakemake.params.kda_params,
    )
