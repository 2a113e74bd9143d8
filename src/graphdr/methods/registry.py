"""The estimator registry: the one place that maps an estimator's name to its class.

Configs, paper protocols and the workflow name estimators as strings ("KDA_GE", "AKDA"); they
build them with :func:`make_estimator` and never import a method family themselves. The mapping
:data:`ESTIMATOR_MODULES` is a literal on purpose: the workflow reads it without importing
anything (:func:`graphdr.pipeline.codedeps.estimator_module`), so a job depends on the module
that defines its estimator and not on every method family (editing ``subclass.py`` re-runs the
subclass methods' jobs only). ``tests/test_common.py`` checks it against ``ALL_ESTIMATORS``.
"""

from __future__ import annotations

import importlib

__all__ = ["ESTIMATOR_MODULES", "estimator_class", "make_estimator"]

#: estimator name -> the module that defines its class (a literal: see the module docstring)
ESTIMATOR_MODULES = {
    "GraphEmbedding": "graphdr.methods.graph_embedding",
    "KernelGraphEmbedding": "graphdr.methods.graph_embedding",
    "PCA_GE": "graphdr.methods.graph_embedding",
    "LDA_GE": "graphdr.methods.graph_embedding",
    "MFA_GE": "graphdr.methods.graph_embedding",
    "LPP_GE": "graphdr.methods.graph_embedding",
    "KPCA_GE": "graphdr.methods.graph_embedding",
    "KDA_GE": "graphdr.methods.graph_embedding",
    "KMFA_GE": "graphdr.methods.graph_embedding",
    "KLPP_GE": "graphdr.methods.graph_embedding",
    "GEU": "graphdr.methods.uncertain",
    "PCA_GEU": "graphdr.methods.uncertain",
    "LDA_GEU": "graphdr.methods.uncertain",
    "MFA_GEU": "graphdr.methods.uncertain",
    "NGEU": "graphdr.methods.uncertain",
    "KPCA_NGEU": "graphdr.methods.uncertain",
    "KDA_NGEU": "graphdr.methods.uncertain",
    "KMFA_NGEU": "graphdr.methods.uncertain",
    "FastSDA": "graphdr.methods.subclass",
    "RSLDA": "graphdr.methods.sparse_discriminant",
    "TRPCA": "graphdr.methods.robust_pca",
    "KQMI": "graphdr.methods.qmi",
    "LQMI": "graphdr.methods.qmi",
    "CKFD": "graphdr.methods.kernel_fisher",
    "AKDA": "graphdr.methods.discriminant",
    "AKSDA": "graphdr.methods.subclass",
    "KDA": "graphdr.methods.discriminant",
    "GDA": "graphdr.methods.discriminant",
    "SRKDA": "graphdr.methods.discriminant",
    "KNDA": "graphdr.methods.discriminant",
    "KUDA": "graphdr.methods.discriminant",
    "KODA": "graphdr.methods.discriminant",
    "KSDA": "graphdr.methods.subclass",
    "GSDA": "graphdr.methods.subclass",
    "DEE": "graphdr.methods.elastic",
    "EE": "graphdr.methods.elastic",
    "DSNE": "graphdr.methods.elastic",
    "DCV": "graphdr.methods.common_vectors",
    "MMPA": "graphdr.methods.patch_alignment",
    "LFDA": "graphdr.methods.local_fisher",
    "FusionDistanceClassifier": "graphdr.methods.kernel_fisher",
}


def estimator_class(name: str) -> type:
    """The class registered as ``name`` (its module is imported on use), or, for a dotted path
    ``"package.module.Class"``, that class: the peers of a paper protocol (scikit-learn's
    ``PCA``, ``TSNE``) and protocol-local models are named so in the configs."""
    if isinstance(name, str) and "." in name:
        module, _, attr = name.rpartition(".")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise ValueError(
                f"estimator {name!r}: no class {attr!r} in an importable module {module!r} "
                f"({err}); name a graphdr estimator or the full dotted path of a class."
            ) from None
    try:
        module = ESTIMATOR_MODULES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown estimator {name!r} (graphdr.methods.registry); known: "
            f"{sorted(ESTIMATOR_MODULES)}, or a dotted path 'package.module.Class'."
        ) from None
    return getattr(importlib.import_module(module), name)


def make_estimator(name: str, **params):
    """A new, unfitted estimator ``name`` with ``params`` (scikit-learn's ``set_params`` names)."""
    return estimator_class(name)(**params)
