"""Classifier scores on the leading ``d`` columns of one embedding, for each ``d`` of a list.

The project's rule (:func:`graphdr.evaluation.score_dimensions`): a DR model is fit once at the
largest dimension, and every smaller dimension is scored on the leading columns of that one
embedding. These scorers are the papers' fast forms of it, in numpy, sharing work across the
dimensions; each returns one value per entry of ``dims``, in that order:

* :func:`ncc_error_by_dimension` -- nearest class centroid error (paper 001's sweep);
* :func:`knn_error_by_dimension` -- k-NN error, uniform vote (:func:`knn_vote`; paper 001);
* :func:`svm_error_by_dimension` -- libsvm error and the fits stopped at :data:`SVM_MAX_ITER`
  (paper 001);
* :func:`graphdr.evaluation.fusion.fusion_error_by_dimension` -- CKFD's own fusion-distance
  rule (paper 001; a module of its own, as it needs the kernel Fisher family);
* :func:`one_nn_accuracy_by_dimension` -- 1-NN accuracy (paper 003), from
  :func:`one_nn_accuracy`, the score of one embedding at its full dimension;
* :func:`loo_one_nn_error` -- leave-one-out 1-NN error of points among themselves (paper 001's
  figures), one number per projection.

Each keeps the arithmetic and tie rule its paper's committed numbers come from, so they are not
merged even where they look alike: :func:`knn_error_by_dimension` with ``k=1`` accumulates
squared coordinate differences column by column (ties: whichever nearest neighbour
``numpy.argpartition`` returns), :func:`one_nn_accuracy` expands ``||a||^2 - 2 a.b`` (ties: the
lowest training index), so exact and near ties can go differently.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from graphdr.evaluation._checks import check_dims, check_k

__all__ = [
    "SVM_MAX_ITER",
    "knn_error_by_dimension",
    "knn_vote",
    "loo_one_nn_error",
    "ncc_error_by_dimension",
    "one_nn_accuracy",
    "one_nn_accuracy_by_dimension",
    "svm_error_by_dimension",
]


def ncc_error_by_dimension(Z_train, y_train, Z_test, y_test, dims) -> np.ndarray:
    """Nearest class centroid error for the leading ``d`` columns, each d in ``dims`` (ties:
    the first class, as scikit-learn's ``NearestCentroid``)."""
    check_dims(dims, Z_train.shape[1])
    classes, codes = np.unique(y_train, return_inverse=True)
    means = np.stack([Z_train[codes == c].mean(axis=0) for c in range(classes.size)])
    d2 = np.cumsum((Z_test[:, None, :] - means[None, :, :]) ** 2, axis=2)
    return np.array([np.mean(classes[np.argmin(d2[:, :, d - 1], axis=1)] != y_test) for d in dims])


def knn_error_by_dimension(Z_train, y_train, Z_test, y_test, dims, k: int = 3) -> np.ndarray:
    """k-NN error (uniform vote, ties to the smallest class label as scikit-learn's) for the
    leading ``d`` columns; squared distances are accumulated column by column."""
    check_dims(dims, Z_train.shape[1])
    check_k(k, Z_train.shape[0])
    classes, codes = np.unique(y_train, return_inverse=True)
    wanted = set(dims)
    d2 = np.zeros((Z_test.shape[0], Z_train.shape[0]))
    out = {}
    for j in range(max(dims)):
        d2 += (Z_test[:, j, None] - Z_train[None, :, j]) ** 2
        if j + 1 in wanted:
            out[j + 1] = np.mean(classes[knn_vote(d2, codes, k, classes.size)] != y_test)
    return np.array([out[d] for d in dims])


def knn_vote(d2, codes, k, n_classes) -> np.ndarray:
    """The k-NN decision of every row of ``d2`` (test x train distances, any monotone kind):
    the class code (0..n_classes-1) with the most votes among the ``k`` nearest training
    samples (``codes``: their class codes), ties to the smallest code."""
    near = np.argpartition(d2, k - 1, axis=1)[:, :k] if d2.shape[1] > k else np.argsort(d2)[:, :k]
    votes = np.zeros((d2.shape[0], n_classes), dtype=np.intp)
    np.add.at(votes, (np.arange(d2.shape[0])[:, None], codes[near]), 1)
    return np.argmax(votes, axis=1)


#: libsvm iterations per binary problem. libsvm stops at its tolerance otherwise, but with
#: C = 100 a few (dimension, fold) problems never get there (vowel, KLPP features, linear
#: kernel: minutes without converging); capped fits are counted in the sweep's record.
SVM_MAX_ITER = 200_000


def svm_error_by_dimension(
    Z_train, y_train, Z_test, y_test, dims, kernel: str, C: float, gamma: float
):
    """libsvm (scikit-learn ``SVC``) error for each leading dimension in ``dims``, and the
    number of those fits that stopped at :data:`SVM_MAX_ITER`."""
    check_dims(dims, Z_train.shape[1])
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    errors, capped = [], 0
    for d in dims:
        svm = SVC(
            kernel=kernel,
            C=C,
            gamma=gamma if kernel == "rbf" else "scale",
            cache_size=500,
            max_iter=SVM_MAX_ITER,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            svm.fit(Z_train[:, :d], y_train)
        capped += any(issubclass(w.category, ConvergenceWarning) for w in caught)
        errors.append(np.mean(svm.predict(Z_test[:, :d]) != y_test))
    return np.array(errors), capped


def one_nn_accuracy(Z_train, y_train, Z_test, y_test) -> float:
    """Accuracy of the 1-nearest-neighbour rule (Euclidean; ties go to the lowest train index).

    Distances by ``||a||^2 - 2 a.b + ||b||^2`` in blocks of test rows (no test x train x dim
    temporaries); equal to scikit-learn's ``KNeighborsClassifier(1)`` up to exact ties.
    """
    Z_train = np.asarray(Z_train, dtype=np.float64)
    Z_test = np.asarray(Z_test, dtype=np.float64)
    sq_train = np.einsum("ij,ij->i", Z_train, Z_train)
    correct = 0
    for start in range(0, Z_test.shape[0], 2048):
        block = Z_test[start : start + 2048]
        d2 = sq_train[None, :] - 2.0 * block @ Z_train.T
        nearest = np.argmin(d2, axis=1)  # ||b||^2 is constant per row: not needed for argmin
        correct += int(np.sum(y_train[nearest] == y_test[start : start + 2048]))
    return correct / Z_test.shape[0]


def one_nn_accuracy_by_dimension(
    Z_train, y_train, Z_test, y_test, dims: Sequence[int]
) -> np.ndarray:
    """1-NN accuracy on the leading ``d`` columns of ONE embedding, for each ``d`` in ``dims``."""
    check_dims(dims, np.shape(Z_train)[1])
    return np.array([one_nn_accuracy(Z_train[:, :d], y_train, Z_test[:, :d], y_test) for d in dims])


def loo_one_nn_error(Z: np.ndarray, y: np.ndarray) -> float:
    """Leave-one-out 1-NN error of the points ``Z`` among themselves (ties: the lower index): the
    class separability of a 2-D projection, one number per projection."""
    d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1)
    np.fill_diagonal(d2, np.inf)
    return float(np.mean(y[np.argmin(d2, axis=1)] != y))
