# Paper 003 (DEE): helper functions of workflow/rules/paper_dee.smk beyond the optimiser study
# (config section papers.dee). Functions live here and rules there (snakemake --lint).


def dee_outputs():
    """Paper 003's recognition and visualisation outputs (part of the default target)."""
    return []


PAPER_OUTPUTS["dee"] = dee_outputs
