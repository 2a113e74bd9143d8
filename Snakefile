# graphdr: reproduction workflow. Stages live in workflow/rules; experiments live in config/.
#   snakemake --cores all                                  # every paper output (default target)
#   snakemake qmi                                          # one paper (akda, dee, ngeu, demo)
#   snakemake --cores all --configfile config/quick.yaml   # reduced protocol
#   snakemake -n paper_figures/demo/demo_projection.pdf    # what would run, and why
# Outputs go under the roots of `output:` in the config (quick: results/quick/...).
# See docs/workflow.md.


configfile: "config/config.yaml"


# `snakemake --report report.zip`: outputs grouped by paper, captions in workflow/report/.
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/resources.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/common_ngeu.smk"
include: "workflow/rules/uncertainty.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/common_dee.smk"
include: "workflow/rules/paper_dee.smk"
include: "workflow/rules/paper_ngeu.smk"
include: "workflow/rules/common_akda.smk"
include: "workflow/rules/paper_akda.smk"
include: "workflow/rules/common_qmi.smk"
include: "workflow/rules/paper_qmi.smk"
include: "workflow/rules/common_claims.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/overlays.smk"


# Every paper table and figure the config lists (under the figures root, output.figures).
rule all:
    default_target: True
    input:
        paper_outputs(),
        optimizer_study_outputs(),
        registered_paper_outputs(),
        ledger_outputs(),


# One target per paper (snakemake --cores 2 qmi): rules qmi, akda, dee, ngeu, demo.
include: "workflow/rules/common_targets.smk"
include: "workflow/rules/targets.smk"


check_resource_names([r.name for r in workflow.rules])
