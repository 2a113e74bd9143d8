"""Rule plot_dee_optimizer_study: embeddings and objective curves of one dataset, per optimiser.

By hand: `python workflow/scripts/plot_dee_optimizer_study.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import report as dee_report

with job(
    "plot_dee_optimizer_study", paper="dee", study="dee_optimizers", dataset="yale"
) as snakemake:
    out = snakemake.output
    dee_report.plot_optimizer_study(
        {label: (result, timing) for label, result, timing in snakemake.params.runs},
        dataset=snakemake.params.dataset,
        embeddings_stem=Path(out.embeddings_pdf).with_suffix(""),
        objective_stem=Path(out.objective_pdf).with_suffix(""),
        timing_stem=Path(out.timing_pdf).with_suffix(""),
    )
