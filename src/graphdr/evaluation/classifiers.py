"""Classifiers fitted on an embedding: a factory by name, and one-vs-rest SVM scores for MAP.

* :func:`make_classifier` (1-NN, k-NN, nearest class centroid, linear and RBF SVM, decision
  tree), with the names in :data:`CLASSIFIERS`;
* :func:`ovr_linear_svm_scores` (one-vs-rest confidence scores) and :func:`ovr_svm_map`, the
  scorer that ranks them by mean average precision (AKDA/AKSDA protocol);
* :func:`fit_ovr_linear_svm`: LIBLINEAR's default linear SVM (L2-regularised squared hinge) for
  every class at once by truncated Newton steps, our own because it is measured faster than
  per-class ``LinearSVC`` fits on the AKDA grids (it solves all classes in one set of GEMMs);
  :func:`standardised_ovr_svm_scores` runs it on standardised coordinates (:class:`Standardiser`);
* :func:`fit_ovr_kernel_svm` / :func:`ovr_decision_function`: one LIBSVM ``SVC`` per class on a
  precomputed kernel, and its scores (the kernel SVM of paper 002, test kernels in row blocks).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from graphdr._threads import limit_threads
from graphdr.evaluation._checks import check_embeddings, check_labels, label_text
from graphdr.evaluation.metrics import mean_average_precision

__all__ = [
    "CLASSIFIERS",
    "Standardiser",
    "fit_ovr_kernel_svm",
    "fit_ovr_linear_svm",
    "make_classifier",
    "ovr_decision_function",
    "ovr_linear_svm_scores",
    "ovr_svm_map",
    "standardised_ovr_svm_scores",
]

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
    Z_train, Z_test = check_embeddings(Z_train, Z_test)
    y_train = check_labels(y_train, Z_train.shape[0], "y_train")
    classes = np.unique(y_train) if classes is None else np.asarray(classes)
    scores = np.empty((Z_test.shape[0], classes.size))
    for k, c in enumerate(classes):
        target = (y_train == c).astype(int)
        if target.all() or not target.any():
            raise ValueError(
                f"class {label_text(c)} has {int(target.sum())} of {target.size} training samples: "
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


def fit_ovr_linear_svm(Z, y, classes, C: float, *, tol=1e-2, max_iter=50, cg_tol=0.1, max_cg=50):
    """One L2-regularised squared-hinge linear SVM per class (one class against the rest).

    Minimises ``f(w) = 0.5 ||w||^2 + C sum_i max(0, 1 - t_i w^T [z_i, 1])^2`` for every class
    (the bias is a constant feature and is regularised, as LIBLINEAR does with
    ``intercept_scaling=1``; the loss is LinearSVC's default) by truncated Newton steps, all
    classes at once: the generalised Hessian ``I + 2C Z_A^T Z_A`` (A: samples inside the margin)
    is applied by matrix products inside conjugate gradients (stopped at ``cg_tol`` times the
    gradient norm, as LIBLINEAR's primal solver), then a backtracking line search. Stops when
    every gradient norm is below ``tol`` times its value at ``w = 0``. Returns ``(W, b)``: the
    scores are ``Z W + b``.
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    # small products run faster on one BLAS thread (no spin-waiting, nothing to share)
    threads = 1 if n * (d + 1) * len(classes) < 3e8 else None
    with limit_threads(threads, user_api="blas"):
        return _newton_svm(Z, y, classes, C, tol, max_iter, cg_tol, max_cg)


class Standardiser:
    """Zero mean, unit variance per coordinate, from the training part's statistics.

    A coordinate whose standard deviation is at most ``1e-12`` times the largest one keeps scale
    1 (a constant column stays constant rather than blowing up). Our own rather than
    scikit-learn's ``StandardScaler``: that one's incremental mean and variance and its absolute
    near-zero threshold give other bits, and paper 002's scores are compared bit for bit.
    """

    def __init__(self, Z):
        self.mean = Z.mean(axis=0)
        std = Z.std(axis=0)
        self.scale = np.where(std > 1e-12 * max(std.max(initial=0.0), 1e-300), std, 1.0)

    def __call__(self, Z):
        return (Z - self.mean) / self.scale


def standardised_ovr_svm_scores(Z_train, y_train, Z_test, classes, C: float) -> np.ndarray:
    """One-vs-rest linear SVM scores (:func:`fit_ovr_linear_svm`) on coordinates standardised
    with the training part's mean and scale (:class:`Standardiser`): paper 002's LSVM on top of
    every DR method, shape (n_test, n_classes)."""
    scale = Standardiser(Z_train)
    W, b = fit_ovr_linear_svm(scale(Z_train), y_train, classes, C)
    return scale(Z_test) @ W + b


def fit_ovr_kernel_svm(K, y, classes, C: float) -> list:
    """One LIBSVM ``SVC(kernel="precomputed")`` per class (the class against the rest) on the
    training kernel ``K``; LIBSVM's iteration-limit warnings are silenced (the papers' tool runs
    to its own limit). Score with :func:`ovr_decision_function`."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return [SVC(C=C, kernel="precomputed").fit(K, np.asarray(y) == c) for c in classes]


def ovr_decision_function(models, K_test) -> np.ndarray:
    """Decision values of :func:`fit_ovr_kernel_svm`'s models on a test kernel (rows: test
    samples, columns: training samples), shape (n_test, n_classes)."""
    return np.column_stack([m.decision_function(K_test) for m in models])


def _newton_svm(Z, y, classes, C, tol, max_iter, cg_tol, max_cg):
    n, d = Z.shape
    Za = np.hstack([Z, np.ones((n, 1))])
    T = np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    k = T.shape[1]
    W = np.zeros((d + 1, k))
    M = np.zeros((n, k))

    def objective(W, M):
        slack = np.maximum(1.0 - T * M, 0.0)
        return 0.5 * np.sum(W * W, axis=0) + C * np.sum(slack * slack, axis=0)

    f = objective(W, M)
    g0 = None
    for _ in range(max_iter):
        active = (T * M < 1.0).astype(np.float64)
        grad = W + 2.0 * C * (Za.T @ ((M - T) * active))
        gnorm = np.linalg.norm(grad, axis=0)
        if g0 is None:
            g0 = np.maximum(gnorm, 1e-300)
        todo = gnorm > tol * g0
        if not todo.any():
            break
        # conjugate gradients on H s = -grad, column by column (vectorised)
        step = np.zeros_like(W)
        r = -grad * todo
        p = r.copy()
        rr = np.sum(r * r, axis=0)
        stop = (cg_tol * gnorm) ** 2
        for _ in range(min(d + 1, max_cg)):
            live = rr > stop
            if not live.any():
                break
            Hp = p + 2.0 * C * (Za.T @ ((Za @ p) * active))
            pHp = np.sum(p * Hp, axis=0)
            alpha = np.where(live, rr / np.where(pHp > 0, pHp, 1.0), 0.0)
            step += alpha * p
            r -= alpha * Hp
            rr_new = np.sum(r * r, axis=0)
            p = r + np.where(live, rr_new / np.where(rr > 0, rr, 1.0), 0.0) * p
            rr = rr_new
        MS = Za @ step
        t = np.ones(k)
        slope = np.sum(grad * step, axis=0)
        accepted = ~todo
        for _ in range(30):
            trial = objective(W + step * t, M + MS * t)
            ok = ~accepted & (trial <= f + 1e-4 * t * slope)
            W[:, ok] += step[:, ok] * t[ok]
            M[:, ok] += MS[:, ok] * t[ok]
            f[ok] = trial[ok]
            accepted |= ok
            if accepted.all():
                break
            t[~accepted] *= 0.5
    return W[:d], W[d]
