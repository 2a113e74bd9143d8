"""The estimators of graphdr, one module per family.

``ALL_ESTIMATORS`` lists every transformer of the package; ``tests/test_common.py`` runs
scikit-learn's estimator checks over it (and checks that no estimator class defined under
``graphdr.methods`` is missing from it), so a new method joins the checks by being added here.
"""

from graphdr.methods.common_vectors import DCV
from graphdr.methods.discriminant import AKDA, GDA, KDA, KNDA, KODA, KUDA, SRKDA
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
from graphdr.methods.kernel_fisher import CKFD, FusionDistanceClassifier
from graphdr.methods.local_fisher import LFDA
from graphdr.methods.patch_alignment import MMPA
from graphdr.methods.qmi import KQMI, LQMI
from graphdr.methods.robust_pca import TRPCA
from graphdr.methods.sparse_discriminant import RSLDA
from graphdr.methods.subclass import AKSDA, GSDA, KSDA, FastSDA
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
    # graph embedding (graph_embedding)
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
    # data uncertainty (uncertain)
    GEU,
    PCA_GEU,
    LDA_GEU,
    MFA_GEU,
    NGEU,
    KPCA_NGEU,
    KDA_NGEU,
    KMFA_NGEU,
    # baselines of the NGEU paper: subclass discriminant analysis by spectral regression
    # (subclass), robust sparse LDA (sparse_discriminant), trimmed robust PCA (robust_pca)
    FastSDA,
    RSLDA,
    TRPCA,
    # quadratic mutual information (qmi); complete kernel Fisher discriminant (kernel_fisher)
    KQMI,
    LQMI,
    CKFD,
    # kernel discriminant analysis (discriminant), kernel subclass discriminant analysis (subclass)
    AKDA,
    AKSDA,
    KDA,
    GDA,
    SRKDA,
    KNDA,
    KUDA,
    KODA,
    KSDA,
    GSDA,
    # elastic embedding (elastic); discriminative common vectors (common_vectors), min-max
    # patch alignment (patch_alignment), local Fisher discriminant analysis (local_fisher)
    DEE,
    EE,
    DSNE,
    DCV,
    MMPA,
    LFDA,
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
    "KNDA",
    "KUDA",
    "KODA",
    "KSDA",
    "GSDA",
    "DEE",
    "EE",
    "DSNE",
    "DCV",
    "MMPA",
    "LFDA",
]
