"""Rule plot_qmi_curves: error against dimension per dataset of a study (paper 001, Figures 5-6).

By hand: `python workflow/scripts/plot_qmi_curves.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.qmi import report as qmi

with job("plot_qmi_curves", qmi_study="faces") as snakemake:
    qmi.plot_curves(
        {label: files for label, *files in snakemake.params.runs},
        snakemake.params.protocol,
        snakemake.params.classifier,
        snakemake.output.pdf[: -len(".pdf")],
    )
