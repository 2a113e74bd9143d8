"""Rule run_akda_toy: Figures 2-3 of paper 002 (one class against the rest, linear kernel).

By hand: `python workflow/scripts/run_akda_toy.py` runs the example job below (docs/workflow.md).
"""

from pathlib import Path

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.akda import protocol as akda

with job("run_akda_toy") as snakemake:
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
