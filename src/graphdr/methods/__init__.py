"""The estimators of graphdr, one module per family.

``ALL_ESTIMATORS`` lists every estimator class of the package; ``tests/test_common.py`` runs
scikit-learn's estimator checks over it, so a new method joins the checks by being added here.
"""

from graphdr.methods.graph_embedding import (
    KDA_GE,
    KLPP_GE,
    KMFA_GE,
    KPCA_GE,
    LDA_GE,
    LPP_GE,
    MFA_GE,
    PCA_GE,
    GraphEmbedding,
    KernelGraphEmbedding,
)

ALL_ESTIMATORS = [
    GraphEmbedding,
    KernelGraphEmbedding,
    PCA_GE,
    LDA_GE,
    MFA_GE,
    LPP_GE,
    KPCA_GE,
    KDA_GE,
    KMFA_GE,
    KLPP_GE,
]

__all__ = [
    "ALL_ESTIMATORS",
    "GraphEmbedding",
    "KernelGraphEmbedding",
    "PCA_GE",
    "LDA_GE",
    "MFA_GE",
    "LPP_GE",
    "KPCA_GE",
    "KDA_GE",
    "KMFA_GE",
    "KLPP_GE",
]
