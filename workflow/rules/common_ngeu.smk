# Paper 004 (NGEU): helper functions of workflow/rules/paper_ngeu.smk (config section papers.ngeu).
# Functions live here and rules there (snakemake --lint asks for the split).


def ngeu_outputs():
    """Every table and figure of paper 004 the config asks for (part of the default target)."""
    return []


PAPER_OUTPUTS["ngeu"] = ngeu_outputs
