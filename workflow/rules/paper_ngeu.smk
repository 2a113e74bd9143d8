# Paper 004 (NGEU): paper-specific stages (config section papers.ngeu, code in
# graphdr.pipeline.papers.ngeu, helper functions in common_ngeu.smk). Outputs go under
# <output.figures>/ngeu/.
