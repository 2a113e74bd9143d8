"""CKFD's own classifier scored on the leading ``d`` columns of one embedding (paper 001).

The per-dimension scorer of the complete kernel Fisher discriminant's fusion rule (Yang et al.):
nearest class centroid or k-NN with the fusion distance of its regular and irregular features,
:func:`graphdr.methods.kernel_fisher.fusion_distances`. It follows the rule of
:mod:`graphdr.evaluation.dimensions` (one fit, every dimension from its leading columns) and
lives in a module of its own so that the other scorers' jobs do not depend on the kernel Fisher
family's source (code inputs are tracked per module, ``graphdr.pipeline.codedeps``).
"""

from __future__ import annotations

import numpy as np

from graphdr.evaluation._checks import check_dims, check_k
from graphdr.evaluation.dimensions import knn_vote
from graphdr.methods.kernel_fisher import fusion_distances

__all__ = ["fusion_error_by_dimension"]


def fusion_error_by_dimension(
    Z_train, y_train, Z_test, y_test, dims, kinds, rule: str, theta: float = 1.0, k: int = 3
) -> np.ndarray:
    """Error of CKFD's fusion rule for the leading ``d`` columns, each d in ``dims``: nearest
    class centroid (``rule="ncc"``) or k-NN (``"knn"``: :func:`knn_vote`, ties to the smallest
    class) with the fusion distance (``kinds``: each column's kind, regular or irregular, as
    CKFD's ``feature_kinds_``; ``theta``: the weight of the irregular part)."""
    check_dims(dims, Z_train.shape[1])
    if rule not in ("ncc", "knn"):
        raise ValueError(f"rule must be 'ncc' or 'knn' (CKFD's two fusion rules), got {rule!r}.")
    if rule == "knn":
        check_k(k, Z_train.shape[0])
    classes, codes = np.unique(y_train, return_inverse=True)
    errors = []
    for d in dims:
        if rule == "ncc":
            refs = np.stack([Z_train[codes == c, :d].mean(axis=0) for c in range(classes.size)])
            g = fusion_distances(Z_test[:, :d], refs, kinds[:d], theta)
            pred = np.argmin(g, axis=1)
        else:
            g = fusion_distances(Z_test[:, :d], Z_train[:, :d], kinds[:d], theta)
            pred = knn_vote(g, codes, k, classes.size)
        errors.append(np.mean(classes[pred] != y_test))
    return np.array(errors)
