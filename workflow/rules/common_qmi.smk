# Paper 001 (QMI): helper functions of workflow/rules/paper_qmi.smk (config section papers.qmi).
# Functions live here and rules there (snakemake --lint asks for the split).


def qmi_outputs():
    """Every table and figure of paper 001 the config asks for (part of the default target)."""
    return []


PAPER_OUTPUTS["qmi"] = qmi_outputs
