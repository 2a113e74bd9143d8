"""The columns of paper 002's tables, and which of them are kernel methods: one definition for
the protocol (:mod:`graphdr.pipeline.papers.akda.protocol`), the config checks
(:mod:`graphdr.pipeline.checks`) and the workflow (``workflow/rules/common_akda.smk``, which runs
the kernel columns of a dataset and condition in one group job).

Standard library only (it imports nothing): the workflow and the config checks load it by path,
without importing the package and its numerical dependencies.
"""

#: every column in the paper's order (linear, kernel, kernel subclass); KDA_K2 is our round-1
#: fast KDA (K K + reg I, C-1 eigenvectors), kept beside the paper's KDA, and LDA_SVD our
#: rounds 1-22 LDA (scikit-learn's SVD solver), kept beside the paper's regularised LDA
METHODS = (
    "PCA", "LDA", "LDA_SVD", "LSVM", "KDA", "KDA_K2", "GDA", "SRKDA", "AKDA", "KSVM", "KSDA",
    "GSDA", "AKSDA",
)  # fmt: skip
#: DR estimators on an RBF kernel (graphdr.methods), and those with subclasses
KERNEL_DR = ("KDA", "GDA", "SRKDA", "AKDA", "KSDA", "GSDA", "AKSDA")
SUBCLASS_DR = ("KSDA", "GSDA", "AKSDA")
LINEAR_DR = ("PCA", "LDA", "LDA_SVD")
#: estimators whose columns run in the group job of their dataset and condition (shared CV
#: folds, kernels and subclass partitions): the kernel DR methods and the kernel SVM
GROUPED_ESTIMATORS = (*KERNEL_DR, "KSVM")
