"""The linear projection ``(X - mean_) @ components_.T`` of the fitted linear estimators.

One ``transform`` for every estimator whose model is a centring and a projection: the graph
embeddings (:class:`~graphdr.methods.graph_embedding.GraphEmbedding`), the spectral baselines of
:class:`~graphdr.methods.common_vectors.LinearSpectralBase` (DCV, MMPA, LFDA) and the linear
elastic embeddings (DEE, DSNE).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["LinearProjectionMixin"]


class LinearProjectionMixin(ClassNamePrefixFeaturesOutMixin, TransformerMixin):
    """``transform(X) = (X - mean_) @ components_.T``, after scikit-learn's checks (fitted, the
    training's feature count); ``components_`` is ``(n_components, n_features)``.

    A transformer mixin itself: scikit-learn wraps a ``transform`` for ``set_output`` only in the
    class that defines it."""

    def transform(self, X):
        """Project ``X``: ``(X - mean_) @ components_.T``."""
        return self._project(X)

    def _project(self, X):
        """The checked projection (unwrapped: for a subclass's own ``transform``)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return (X - self.mean_) @ self.components_.T

    @property
    def _n_features_out(self):
        """Output columns, for ``get_feature_names_out`` / ``set_output``."""
        return self.components_.shape[0]
