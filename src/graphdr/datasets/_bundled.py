"""Loader ``sklearn``: the small datasets bundled with scikit-learn (no raw file)."""

from __future__ import annotations

import sklearn.datasets

from ._build import build


def load_sklearn(entry, get_paths):
    """Loader ``sklearn``: a scikit-learn bundled set named by the registry's ``function``."""
    bunch = getattr(sklearn.datasets, entry["function"])()
    entry = {**entry, "class_names": [str(c) for c in bunch.target_names]}
    return build(entry, bunch.data, bunch.target)
