"""Rule write_ngeu_tables: one NGEU paper table (paper vs ours, selected parameters, grid cost).

By hand: `python workflow/scripts/write_ngeu_tables.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.ngeu import report as ngeu_report

with job("write_ngeu_tables", ngeu_table="table1") as snakemake:
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
        variants=snakemake.params.variants,
    )
