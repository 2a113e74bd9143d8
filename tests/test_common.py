"""scikit-learn's estimator checks over every estimator of graphdr (``graphdr.methods.ALL_ESTIMATORS``).

A new method joins these checks by being added to ``ALL_ESTIMATORS``.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr.methods import ALL_ESTIMATORS, KDA_GE


def _instances():
    instances = [cls() for cls in ALL_ESTIMATORS]
    # the precomputed-kernel path has its own tags (pairwise) and input checks
    instances.append(KDA_GE(kernel="precomputed"))
    return instances


@parametrize_with_checks(_instances())
def test_sklearn_compatible(estimator, check):
    check(estimator)
