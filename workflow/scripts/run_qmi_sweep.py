"""Rules run_qmi_sweep and run_qmi_sweep_<study>: every fold, DR method, classifier and dimension
of one dataset, or of each dataset of a `one_job` study (paper 001).

By hand: `python workflow/scripts/run_qmi_sweep.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.qmi import protocol as qmi_sweep

with job("run_qmi_sweep", qmi_study="benchmarks", dataset="iris") as snakemake:
    qmi_sweep.run_sweeps(
        snakemake.input.prepared,
        snakemake.params.protocol,
        errors=snakemake.output.errors,
        record=snakemake.output.record,
        timing=snakemake.output.timing,
    )
