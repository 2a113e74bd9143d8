"""Paper 001 (QMI): the protocol of Section IV-A as data (standard library only).

The methods, classifiers and defaults of the sweep (:mod:`graphdr.pipeline.papers.qmi.protocol`),
with the per-method scaling rules. Kept apart from the sweep so that the table and report jobs
(:mod:`graphdr.pipeline.papers.qmi.report`) read the protocol without importing the estimators,
scikit-learn and numba: about 2 s of start-up per workflow job.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "CLASSIFIERS",
    "DEFAULTS",
    "KERNEL_METHODS",
    "LINEAR_METHODS",
    "OWN_SCALE",
    "SCALE_RULES",
    "protocol",
    "resolve_scale",
]

KERNEL_METHODS = ("KQMI", "GDA", "CKFD", "KLPP", "KPCA", "KQMI_noUC")
LINEAR_METHODS = ("LQMI", "LDA", "PCA", "LPP")
CLASSIFIERS = ("ncc", "knn", "linear_svm", "rbf_svm")
#: Each method's own normalisation, the one its paper and its estimator define (the primary
#: run): KQMI unit covariance of the embedding (paper eq. 22, ``A^T K K A = N I``: unit variance
#: of each column); GDA (Baudat & Anouar), KPCA, PCA and LQMI (Algorithm 2) unit-norm directions
#: in feature / input space; LDA, LPP and KLPP their graph-embedding constraint
#: ``w^T X B X^T w = 1`` (B = H for LDA, the degree matrix D for LPP / KLPP), which is how the GE
#: solver returns them ("native"); CKFD its own fused output; KQMI without the unit-covariance
#: constraint (paper eq. 21, the ablation) unit feature-space norm, its constraint there.
OWN_SCALE = {
    "KQMI": "unit_variance",
    "GDA": "unit_norm",
    "CKFD": "native",
    "KLPP": "native",
    "KPCA": "unit_norm",
    "KQMI_noUC": "unit_norm",
    "LQMI": "unit_norm",
    "LDA": "native",
    "PCA": "unit_norm",
    "LPP": "native",
}
SCALE_RULES = ("native", "unit_norm", "unit_variance")
#: the protocol of Section IV-A (paper 001); config values override these
DEFAULTS = {
    "methods": [m for m in (*KERNEL_METHODS, *LINEAR_METHODS) if m != "KQMI_noUC"],
    "scale": "own",
    "gamma": 0.5,
    "kernel_tol": 1e-6,
    "ckfd_theta": 1.0,
    "ckfd_fusion": True,
    "lpp_neighbors": 5,
    "lpp_mutual": True,
    "lpp_connect": True,
    "max_dim": 50,
    "preprocessing": "minmax",
    "linear_pca_variance": None,
    "dims_up_to_classes": False,
    "classifiers": list(CLASSIFIERS),
    "dims": {"dense": 20, "step": 1.5},
    "svm_dims": {"dense": 5, "step": 1.5},
    "k": 3,
    "svm_C": 100.0,
    "svm_gamma": 0.5,
    "folds": 10,
    "seed": 0,
    "repeats": 1,
}


def protocol(overrides: Mapping | None = None) -> dict:
    """The full protocol of a study or a figure: :data:`DEFAULTS` updated by ``overrides`` (the
    config's ``protocol`` then the study's own keys).

    ``scale`` ends as a rule per method: ``"own"`` (default) is :data:`OWN_SCALE`; one rule name
    applies to every method (a uniform-scaling sensitivity run); a mapping overrides methods one
    by one (``own`` for the others).
    """
    overrides = dict(overrides or {})
    cfg = {**DEFAULTS, **overrides}
    unknown = sorted(set(cfg) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown protocol keys {unknown}: expected some of {sorted(DEFAULTS)}.")
    cfg["scale"] = resolve_scale(cfg["scale"])
    return cfg


def resolve_scale(scale) -> dict[str, str]:
    """The scaling rule of every method (see :func:`protocol`)."""
    if isinstance(scale, str):
        if scale == "own":
            return dict(OWN_SCALE)
        if scale not in SCALE_RULES:
            raise ValueError(
                f"scale must be 'own', one of {SCALE_RULES} or a method -> rule mapping, "
                f"got {scale!r}."
            )
        return dict.fromkeys(OWN_SCALE, scale)
    out = dict(OWN_SCALE)
    for m, rule in dict(scale).items():
        if m not in OWN_SCALE:
            raise ValueError(
                f"scale names an unknown method {m!r}: expected some of {list(OWN_SCALE)}."
            )
        out[m] = OWN_SCALE[m] if rule == "own" else rule
    return out
