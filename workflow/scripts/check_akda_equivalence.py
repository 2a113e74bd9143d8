"""Rule check_akda_equivalence: claim C1 of paper 002, AKDA against KNDA (principal angles).

By hand: `python workflow/scripts/check_akda_equivalence.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.akda import protocol as akda

with job("check_akda_equivalence") as snakemake:
    akda.akda_equivalence(
        dict(zip(snakemake.params.datasets, snakemake.input.prepared, strict=True)),
        snakemake.params.conditions,
        seed=snakemake.params.seed,
        reg=snakemake.params.reg,
        output=snakemake.output.record,
        timing_output=snakemake.output.timing,
    )
