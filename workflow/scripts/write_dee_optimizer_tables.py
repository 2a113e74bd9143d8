"""Rule write_dee_optimizer_tables: iterations, final objective and measured seconds vs the paper.

By hand: `python workflow/scripts/write_dee_optimizer_tables.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report

with job("write_dee_optimizer_tables", paper="dee", study="dee_optimizers") as snakemake:
    out = snakemake.output
    dee_report.optimizer_tables(
        {(d, o): (result, timing) for d, o, result, timing in snakemake.params.runs},
        reference=snakemake.input.reference,
        baseline=snakemake.params.baseline,
        iterations_stem=Path(out.iterations_csv).with_suffix(""),
        objective_stem=Path(out.objective_csv).with_suffix(""),
        timing_stem=Path(out.timing_csv).with_suffix(""),
        long_output=out.long,
        captions=snakemake.params.captions,
    )
