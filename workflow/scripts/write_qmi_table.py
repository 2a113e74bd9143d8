"""Rule write_qmi_table: one classifier's table of a study, minimum error over dimensions (paper 001).

By hand: `python workflow/scripts/write_qmi_table.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.qmi import report as qmi

with job("write_qmi_table", qmi_study="benchmarks", qmi_classifier="ncc") as snakemake:
    qmi.classifier_table(
        {label: files for label, *files in snakemake.params.runs},
        cfg=snakemake.params.protocol,
        classifier=snakemake.wildcards.qmi_classifier,
        name=snakemake.params.name,
        stem=snakemake.output.csv[: -len(".csv")],
    )
