"""Rule collect_table: aggregate an experiment's scores into one paper table.

By hand: `python workflow/scripts/collect_table.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline import report

with job("collect_table", paper="demo", table="demo_accuracy") as snakemake:
    report.collect_table(
        snakemake.input.scores,
        Path(snakemake.output.csv).with_suffix(""),
        snakemake.output.long,
        spec=snakemake.params.spec,
        labels=snakemake.params.labels,
        reference=snakemake.input.get("reference"),
    )
