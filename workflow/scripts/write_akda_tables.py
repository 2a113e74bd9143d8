"""Rule write_akda_tables: MAP and speed-up tables against the paper's averages, the results frame.

By hand: `python workflow/scripts/write_akda_tables.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.akda import report as akda_report

with job("write_akda_tables") as snakemake:
    cells = [tuple(c) for c in snakemake.params.cells]
    akda_report.akda_tables(
        dict(
            zip(
                cells,
                zip(snakemake.input.results, snakemake.input.timings, strict=True),
                strict=True,
            )
        ),
        {(d, c, m): reason for d, c, m, reason in snakemake.params.skipped},
        reference=snakemake.input.reference,
        labels=snakemake.params.labels,
        map_stem=snakemake.params.map_stem,
        timing_stem=snakemake.params.timing_stem,
        runs_output=snakemake.output.runs,
        results_output=snakemake.output.results,
        timing_output=snakemake.output.results_timing,
        toy_timing=snakemake.input.toy_timing[0] if snakemake.input.toy_timing else None,
        toy_separation=(
            snakemake.input.toy_separation[0] if snakemake.input.toy_separation else None
        ),
        equivalence=snakemake.input.equivalence[0] if snakemake.input.equivalence else None,
        equivalence_timing=(
            snakemake.input.equivalence_timing[0] if snakemake.input.equivalence_timing else None
        ),
        toy_dataset=snakemake.params.toy_dataset,
        method_labels=snakemake.params.method_labels,
    )
