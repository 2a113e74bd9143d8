"""Rule write_qmi_summary: dataset table and sweep timing of a study (paper 001).

By hand: `python workflow/scripts/write_qmi_summary.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.qmi import report as qmi

with job("write_qmi_summary", qmi_study="benchmarks") as snakemake:
    qmi.study_summary(
        {label: files for label, *files in snakemake.params.runs},
        study=snakemake.wildcards.qmi_study,
        sizes_reference=snakemake.input.sizes or None,
        datasets_stem=snakemake.output.datasets_csv[: -len(".csv")],
        timing_stem=snakemake.output.timing_csv[: -len(".csv")],
        long_output=snakemake.output.long,
    )
