# Helper functions of workflow/rules/targets.smk (the per-paper target rules): functions here,
# rules there (snakemake --lint asks for the split).


def every_output():
    """The default target: every table and figure the config asks for, and the verdicts of
    the claims ledger."""
    return (
        paper_outputs()
        + optimizer_study_outputs()
        + registered_paper_outputs()
        + ledger_outputs()
    )


def outputs_of(paper):
    """The default target's files under <output.figures>/<paper>/."""
    folder = figures(paper) + os.sep
    return [f for f in every_output() if f.startswith(folder)]
