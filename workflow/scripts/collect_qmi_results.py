"""Rule collect_qmi_results: the tidy results frame of paper 001 (docs/claims.md).

By hand: `python workflow/scripts/collect_qmi_results.py` runs the example job below (docs/workflow.md).
"""

from _bootstrap import job  # first: thread counts before numpy loads, this checkout's src/

from graphdr.pipeline.papers.qmi import report as qmi
from graphdr.pipeline.results import write_results

with job("collect_qmi_results") as snakemake:
    studies = {
        study: {**spec, "runs": {label: files for label, *files in spec["runs"]}}
        for study, spec in snakemake.params.studies.items()
    }
    visual = dict(zip(snakemake.params.visual_labels, snakemake.input.visual, strict=True))
    write_results(qmi.results_frame(studies, visual=visual), snakemake.output.csv)
