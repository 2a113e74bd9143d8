# Paper 001 (QMI): paper-specific stages (config section papers.qmi, code in
# graphdr.pipeline.papers.qmi, helper functions in common_qmi.smk). Outputs go under
# <output.figures>/qmi/.
