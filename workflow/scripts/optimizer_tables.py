"""Rule optimizer_tables: iterations, final objective and measured seconds vs the paper.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/optimizer_tables.py`): the
example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
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
    snakemake = runtime.mock_snakemake("optimizer_tables", paper="dee", study="dee_optimizers")

with runtime.job(snakemake):
    out = snakemake.output
    dee.optimizer_tables(
        {(d, o): (result, timing) for d, o, result, timing in snakemake.params.runs},
        reference=snakemake.input.reference,
        baseline=snakemake.params.baseline,
        iterations_stem=Path(out.iterations_csv).with_suffix(""),
        objective_stem=Path(out.objective_csv).with_suffix(""),
        timing_stem=Path(out.timing_csv).with_suffix(""),
        long_output=out.long,
        captions=snakemake.params.captions,
    )
