"""The estimators of graphdr, one module per family.

``ALL_ESTIMATORS`` lists every transformer of the package; ``tests/test_common.py`` runs
scikit-learn's estimator checks over it (and checks that no estimator class defined under
``graphdr.methods`` is missing from it), so a new method joins the checks by being added here.
"""

from graphdr.methods.baselines_dee import DCV, MMPA
from graphdr.methods.baselines_ngeu import RSLDA, TRPCA, FastSDA
from graphdr.methods.baselines_qmi import CKFD, FusionDistanceClassifier
from graphdr.methods.discriminant import AKDA, GDA, KDA, SRKDA
from graphdr.methods.elastic import DEE, DSNE, EE
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
from graphdr.methods.qmi import KQMI, LQMI
from graphdr.methods.subclass import AKSDA, GSDA, KSDA
from graphdr.methods.uncertain import (
    GEU,
    KDA_NGEU,
    KMFA_NGEU,
    KPCA_NGEU,
    LDA_GEU,
    MFA_GEU,
    NGEU,
    PCA_GEU,
)

#: Every transformer of the package (the classifier ``FusionDistanceClassifier`` is not one).
#: Written out literally: this file must stay a pure re-export (graphdr.pipeline.codedeps), so a
#: workflow fit depends on the module that defines its estimator, not on every method family.
ALL_ESTIMATORS = [
    # graph embedding
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
    # data uncertainty
    GEU,
    PCA_GEU,
    LDA_GEU,
    MFA_GEU,
    NGEU,
    KPCA_NGEU,
    KDA_NGEU,
    KMFA_NGEU,
    # baselines of the NGEU paper
    FastSDA,
    RSLDA,
    TRPCA,
    # quadratic mutual information
    KQMI,
    LQMI,
    CKFD,
    # kernel discriminant analysis
    AKDA,
    AKSDA,
    KDA,
    GDA,
    SRKDA,
    KSDA,
    GSDA,
    # elastic embedding
    DEE,
    EE,
    DSNE,
    DCV,
    MMPA,
]

__all__ = [
    "ALL_ESTIMATORS",
    "FusionDistanceClassifier",
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
    "GEU",
    "PCA_GEU",
    "LDA_GEU",
    "MFA_GEU",
    "NGEU",
    "KPCA_NGEU",
    "KDA_NGEU",
    "KMFA_NGEU",
    "FastSDA",
    "RSLDA",
    "TRPCA",
    "KQMI",
    "LQMI",
    "CKFD",
    "AKDA",
    "AKSDA",
    "KDA",
    "GDA",
    "SRKDA",
    "KSDA",
    "GSDA",
    "DEE",
    "EE",
    "DSNE",
    "DCV",
    "MMPA",
]
