"""Rule run_dee_recognition: 1-NN accuracy against dimension of one method on one dataset.

By hand: `python workflow/scripts/run_dee_recognition.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.dee import protocol as dee_protocol

with job("run_dee_recognition", dataset="yale", dee_method="DEE") as snakemake:
    dee_protocol.recognition_run(
        snakemake.input.prepared, output=snakemake.output.scores, **snakemake.params.run
    )
