# Paper 002 (AKDA): paper-specific stages (config section papers.akda, code in
# graphdr.pipeline.papers.akda, helper functions in common_akda.smk). Outputs go under
# <output.figures>/akda/.
