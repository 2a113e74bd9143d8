"""Rule ngeu_tables: one NGEU paper table (paper vs ours, selected parameters, grid cost).

Run by Snakemake, or by hand for debugging (`python workflow/scripts/ngeu_tables.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import sys

if "snakemake" in globals():  # Snakemake runs a copy of this file from .snakemake/scripts
    sys.path.insert(0, snakemake.scriptdir)
import _bootstrap  # noqa: E402

_bootstrap.start(globals())  # thread counts before numpy loads; this checkout's src/ first

from graphdr.pipeline import runtime  # noqa: E402
from graphdr.pipeline.papers import ngeu_report  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("ngeu_tables", ngeu_table="table1")

with runtime.job(snakemake):
    out = snakemake.output
    ngeu_report.make_tables(
        snakemake.params.tasks,
        snakemake.params.table,
        snakemake.params.methods,
        {
            "table": out.table_csv[: -len(".csv")],
            "selected": out.selected_csv[: -len(".csv")],
            "grid": out.grid_csv[: -len(".csv")],
            "by_kernel": out.by_kernel_csv[: -len(".csv")],
            "pairs": out.pairs_csv[: -len(".csv")],
            "long": out.long,
        },
        grid=snakemake.params.grid,
        variants=snakemake.params.variants,
    )
