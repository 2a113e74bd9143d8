"""graphdr: supervised dimensionality reduction as graph embedding, as scikit-learn estimators.

The public estimators are importable from here or from :mod:`graphdr.methods`; they are loaded
lazily (PEP 562) so that ``import graphdr`` stays cheap for workflow jobs that only need the
dataset or reporting layers.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_ESTIMATOR_NAMES = (
    # graph embedding (Yan et al. 2007)
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
    # data uncertainty (paper 004)
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
    # quadratic mutual information (paper 001)
    "KQMI",
    "LQMI",
    "CKFD",
    # kernel discriminant analysis (paper 002)
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
    # elastic embedding (paper 003)
    "DEE",
    "EE",
    "DSNE",
    "DCV",
    "MMPA",
    "LFDA",
)

__all__ = [*_ESTIMATOR_NAMES, "__version__"]


def __getattr__(name: str):
    if name in _ESTIMATOR_NAMES:
        return getattr(importlib.import_module("graphdr.methods"), name)
    raise AttributeError(f"module 'graphdr' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
