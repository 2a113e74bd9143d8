# Paper 002 (AKDA): helper functions of workflow/rules/paper_akda.smk (config section papers.akda).
# Functions live here and rules there (snakemake --lint asks for the split).


def akda_outputs():
    """Every table and figure of paper 002 the config asks for (part of the default target)."""
    return []


PAPER_OUTPUTS["akda"] = akda_outputs
