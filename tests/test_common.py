"""scikit-learn's estimator checks over every estimator of graphdr (``graphdr.methods.ALL_ESTIMATORS``).

A new method joins these checks by being added to ``ALL_ESTIMATORS``; the last test fails when an
estimator class defined under ``graphdr.methods`` is missing from it. Variants of one estimator
(precomputed kernels, float32, other uncertainty schemes) are checked in the family's own test file.
"""

import importlib
import inspect
import pkgutil
import warnings
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.estimator_checks import parametrize_with_checks

import graphdr
import graphdr.methods
from graphdr.methods import ALL_ESTIMATORS, DEE, DSNE, EE, KDA_GE

# Iterative methods: the checks exercise the API, not convergence, so keep them short.
FAST_INSTANCES = {DEE: DEE(max_iter=50), DSNE: DSNE(max_iter=50), EE: EE(max_iter=50)}


def _instances():
    instances = [FAST_INSTANCES.get(cls) or cls() for cls in ALL_ESTIMATORS]
    # the precomputed-kernel path has its own tags (pairwise) and input checks
    instances.append(KDA_GE(kernel="precomputed"))
    return instances


@parametrize_with_checks(_instances())
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # e.g. DCV's small-D fallback on toy data
        check(estimator)


def _public_transformers_defined_in_methods():
    found = set()
    for info in pkgutil.iter_modules(graphdr.methods.__path__, "graphdr.methods."):
        module = importlib.import_module(info.name)
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if (
                obj.__module__ == module.__name__
                and not name.startswith("_")
                and not name.endswith("Base")  # shared base classes, not estimators
                and issubclass(obj, BaseEstimator)
                and issubclass(obj, TransformerMixin)
            ):
                found.add(obj)
    return found


def test_every_estimator_is_registered_and_exported():
    missing = _public_transformers_defined_in_methods() - set(ALL_ESTIMATORS)
    assert not missing, (
        f"add to graphdr.methods.ALL_ESTIMATORS: {sorted(c.__name__ for c in missing)}"
    )
    for cls in ALL_ESTIMATORS:
        assert getattr(graphdr, cls.__name__) is cls, f"graphdr.{cls.__name__} is not exported"
    assert set(graphdr.__all__) - {"__version__"} == {c.__name__ for c in ALL_ESTIMATORS}


def test_registry_maps_every_estimator_to_its_defining_module():
    """graphdr.methods.registry (the one name -> class map) against the classes themselves, and
    the workflow's import-free reading of it (graphdr.pipeline.codedeps.estimator_module)."""
    from graphdr.methods import FusionDistanceClassifier
    from graphdr.methods.registry import ESTIMATOR_MODULES, estimator_class, make_estimator
    from graphdr.pipeline.codedeps import estimator_module

    every = [*ALL_ESTIMATORS, FusionDistanceClassifier]
    assert ESTIMATOR_MODULES == {c.__name__: c.__module__ for c in every}
    src = Path(graphdr.__file__).parents[1]
    for cls in every:
        assert estimator_class(cls.__name__) is cls
        assert estimator_module(cls.__name__, src) == cls.__module__
    assert estimator_module("LinearDiscriminantAnalysis", src) is None
    assert make_estimator("KDA_GE", n_components=3).get_params()["n_components"] == 3
    with pytest.raises(ValueError, match="unknown estimator 'LDA'.*known: .*LDA_GE"):
        make_estimator("LDA")
    # peers of the paper protocols by dotted path (scikit-learn's PCA, say)
    from sklearn.decomposition import PCA

    assert estimator_class("sklearn.decomposition.PCA") is PCA
    with pytest.raises(ValueError, match="no class 'PCX' in an importable module"):
        estimator_class("sklearn.decomposition.PCX")


def test_methods_init_is_a_pure_reexport():
    """graphdr/methods/__init__.py runs no code, so the workflow's code dependencies of a fit are
    the module defining its estimator only (editing one family never re-runs another's fits)."""
    from graphdr.pipeline.codedeps import reexports_only

    init = Path(graphdr.methods.__file__)
    assert reexports_only(init)
    assert set(graphdr.methods.__all__) == {
        "ALL_ESTIMATORS",
        "FusionDistanceClassifier",
        *(c.__name__ for c in ALL_ESTIMATORS),
    }
