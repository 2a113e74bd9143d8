"""Rule plot_qmi_visualisation: 2-D projections by the kernel and the linear methods (paper 001,
Figures 1-4).

By hand: `python workflow/scripts/plot_qmi_visualisation.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.qmi import visualise as qmi_visualise

with job("plot_qmi_visualisation", dataset="qmi_swiss_roll") as snakemake:
    qmi_visualise.visualise(
        snakemake.input.prepared,
        snakemake.params.protocol,
        title=snakemake.params.title,
        kernel_stem=snakemake.output.kernel_pdf[: -len(".pdf")],
        linear_stem=snakemake.output.linear_pdf[: -len(".pdf")],
        scores=snakemake.output.scores,
    )
