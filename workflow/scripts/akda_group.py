"""Rule akda_group: the kernel methods of one dataset and condition in one job.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/akda_group.py`): the
example job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import akda  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("akda_group", dataset="akda_decaf50", condition="10Ex")

with runtime.job(snakemake):
    methods = list(snakemake.params.methods)
    akda.akda_group_run(
        snakemake.input.prepared,
        dataset=snakemake.wildcards.dataset,
        condition=snakemake.wildcards.condition,
        n_per_class=snakemake.params.n_per_class,
        methods=methods,
        cv=snakemake.params.cv,
        reg=snakemake.params.reg,
        seed=snakemake.params.seed,
        result_paths=dict(zip(methods, snakemake.output.results, strict=True)),
        timing_paths=dict(zip(methods, snakemake.output.timings, strict=True)),
        estimators=snakemake.params.estimators,
        sensitivity=snakemake.params.sensitivity,
        draws=snakemake.params.draws,
        skipped=dict(snakemake.params.skipped),
    )
