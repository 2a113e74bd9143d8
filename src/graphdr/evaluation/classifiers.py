"""Classifiers fitted on an embedding: a factory by name, and one-vs-rest SVM scores for MAP.

* :func:`make_classifier` (1-NN, k-NN, nearest class centroid, linear and RBF SVM, decision
  tree), with the names in :data:`CLASSIFIERS`;
* :func:`ovr_linear_svm_scores` (one-vs-rest confidence scores) and :func:`ovr_svm_map`, the
  scorer that ranks them by mean average precision (AKDA/AKSDA protocol).
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from graphdr.evaluation._checks import _check_embeddings, _check_labels, _label
from graphdr.evaluation.metrics import mean_average_precision

__all__ = ["CLASSIFIERS", "make_classifier", "ovr_linear_svm_scores", "ovr_svm_map"]

CLASSIFIERS = ("1nn", "knn", "ncc", "linear_svm", "rbf_svm", "tree")


def _linear_svm(C, solver, random_state, class_weight=None):
    """Hinge-loss linear SVM: libsvm (exact, the papers' tool) or liblinear (fast on large n)."""
    if solver == "libsvm":
        return SVC(kernel="linear", C=C, class_weight=class_weight)
    if solver == "liblinear":
        # loss="hinge" keeps the objective of libsvm; liblinear also penalises the intercept.
        return LinearSVC(
            C=C,
            loss="hinge",
            dual=True,
            max_iter=10_000,
            class_weight=class_weight,
            random_state=random_state,
        )
    raise ValueError(f"solver={solver!r} is not supported: use 'libsvm' or 'liblinear'.")


def _rbf_gamma(sigma, gamma):
    """RBF width: k(a, b) = exp(-gamma ||a - b||^2) with gamma = 1 / (2 sigma^2)."""
    if sigma is not None and gamma is not None:
        raise ValueError(
            f"Give sigma or gamma, not both (sigma={sigma}, gamma={gamma}): "
            "gamma = 1 / (2 sigma^2) is derived from sigma."
        )
    if sigma is None:
        return "scale" if gamma is None else gamma
    if not sigma > 0:
        raise ValueError(f"sigma={sigma} must be positive: it is the RBF kernel width.")
    return 1.0 / (2.0 * float(sigma) ** 2)


def make_classifier(name: str, *, random_state=0, **params):
    """Return an unfitted scikit-learn classifier for a subspace, chosen by name.

    ``name`` is one of :data:`CLASSIFIERS`:

    ========== ========================================= ===========================================
    name       estimator                                 parameters
    ========== ========================================= ===========================================
    1nn        ``KNeighborsClassifier(n_neighbors=1)``
    knn        ``KNeighborsClassifier``                  ``k`` (default 1)
    ncc        ``NearestCentroid``                       (nearest class mean, Euclidean)
    linear_svm ``SVC(kernel="linear")``                  ``C`` (default 1), ``solver`` ("libsvm" or
                                                         "liblinear" for ``LinearSVC(loss="hinge")``)
    rbf_svm    ``SVC(kernel="rbf")``                     ``C``, ``sigma`` (gamma = 1/(2 sigma^2)) or
                                                         ``gamma`` (default scikit-learn's "scale")
    tree       ``DecisionTreeClassifier``                ``random_state``
    ========== ========================================= ===========================================

    Any other keyword is passed to the estimator's ``set_params`` (so a wrong name raises).
    ``random_state`` is accepted for every name and used where the estimator is random (tree,
    liblinear); its default 0 keeps results identical run to run (a tree breaks ties between
    equally good splits at random).
    """
    if name == "1nn":
        if params.pop("k", 1) != 1:
            raise ValueError("'1nn' has k=1 by definition: use name='knn' to choose k.")
        est = KNeighborsClassifier(n_neighbors=1)
    elif name == "knn":
        est = KNeighborsClassifier(n_neighbors=params.pop("k", 1))
    elif name == "ncc":
        est = NearestCentroid()
    elif name == "linear_svm":
        est = _linear_svm(params.pop("C", 1.0), params.pop("solver", "libsvm"), random_state)
    elif name == "rbf_svm":
        gamma = _rbf_gamma(params.pop("sigma", None), params.pop("gamma", None))
        est = SVC(kernel="rbf", C=params.pop("C", 1.0), gamma=gamma)
    elif name == "tree":
        est = DecisionTreeClassifier(random_state=random_state)
    else:
        raise ValueError(f"Unknown classifier {name!r}: expected one of {', '.join(CLASSIFIERS)}.")
    return est.set_params(**params)


def ovr_linear_svm_scores(
    Z_train,
    y_train,
    Z_test,
    C: float = 1.0,
    *,
    classes=None,
    solver: str = "libsvm",
    class_weight=None,
    random_state=0,
) -> np.ndarray:
    """One-vs-rest linear-SVM decision values, shape (n_test, n_classes).

    Column k holds ``w_k . z + b_k`` of the binary SVM trained with class ``classes[k]`` as
    positive and every other class as negative (the AKDA/AKSDA protocol, which ranks test
    samples per class for average precision). ``classes`` defaults to the sorted labels of
    ``y_train``.
    """
    Z_train, Z_test = _check_embeddings(Z_train, Z_test)
    y_train = _check_labels(y_train, Z_train.shape[0], "y_train")
    classes = np.unique(y_train) if classes is None else np.asarray(classes)
    scores = np.empty((Z_test.shape[0], classes.size))
    for k, c in enumerate(classes):
        target = (y_train == c).astype(int)
        if target.all() or not target.any():
            raise ValueError(
                f"class {_label(c)} has {int(target.sum())} of {target.size} training samples: "
                "a one-vs-rest SVM needs both positive and negative samples."
            )
        svm = _linear_svm(C, solver, random_state, class_weight).fit(Z_train, target)
        scores[:, k] = svm.decision_function(Z_test)
    return scores


def ovr_svm_map(Z_train, y_train, Z_eval, y_eval, *, C: float = 1.0, **svm_params) -> float:
    """Scorer: MAP of one-vs-rest linear SVMs trained on Z_train, ranked on Z_eval.

    Usable as the ``classifier`` of :func:`score_dimensions` and the selection functions (with
    ``classifier_grid={"C": [...]}`` to search the SVM cost).
    """
    classes = np.unique(y_train)
    scores = ovr_linear_svm_scores(Z_train, y_train, Z_eval, C, classes=classes, **svm_params)
    return mean_average_precision(y_eval, scores, classes)
