"""Evaluation protocol shared by the reproduced papers: classifiers, metrics, splits, selection.

Everything here works on index arrays and embeddings, never on a DR model's internals, so one
protocol serves every method. The central rule of the project lives in :func:`score_dimensions`:
a DR model is fit once at the largest dimension and every smaller dimension is scored on the
leading columns of that one embedding.

One module per concern (this package only re-exports them, so ``from graphdr.evaluation import
make_classifier`` keeps working); code that needs one concern imports its module, which lets the
workflow re-run only what an edit can change (editing a classifier does not redraw the splits):

* :mod:`~graphdr.evaluation.classifiers`: :func:`make_classifier` (1-NN, k-NN, nearest class
  centroid, linear and RBF SVM, decision tree), :func:`ovr_linear_svm_scores` (one-vs-rest
  confidence scores) and :func:`ovr_svm_map` (their MAP, a scorer); paper 002's fast
  one-vs-rest SVMs (``fit_ovr_linear_svm``, ``standardised_ovr_svm_scores``,
  ``fit_ovr_kernel_svm``) are imported from the module.
* :mod:`~graphdr.evaluation.metrics`: :func:`accuracy`, :func:`error_rate`,
  :func:`average_precision_per_class`, :func:`mean_average_precision`.
* :mod:`~graphdr.evaluation.splits` (one vocabulary: ``y`` first, keyword ``random_state``,
  sorted index arrays; see the module): :func:`per_class_index_split`,
  :func:`per_class_ordered_split`, :func:`per_class_count_split`, :func:`per_class_split`,
  :func:`stratified_split`, :func:`sequential_stratified_split`, :func:`stratified_kfold`,
  :func:`stratified_kfold_validation`, :func:`stratified_shuffle_splits`,
  :func:`capped_shuffle_splits`, :func:`stratified_halves`.
* :mod:`~graphdr.evaluation.dimensions` (the papers' fast scorers of the leading columns, one
  value per dimension): :func:`ncc_error_by_dimension`, :func:`knn_error_by_dimension` (with
  its vote, :func:`knn_vote`), :func:`svm_error_by_dimension` (:data:`SVM_MAX_ITER`),
  :func:`one_nn_accuracy_by_dimension` and :func:`one_nn_accuracy`, :func:`loo_one_nn_error`.
* :mod:`~graphdr.evaluation.selection`: :func:`score_dimensions`, :func:`validation_table`,
  :func:`select_hyperparameters`, :func:`select_hyperparameters_cv`,
  :func:`cross_validate_dimensions`, :func:`min_error_over_dimensions`, :func:`grid_edge`.
"""

from graphdr.evaluation.classifiers import (
    CLASSIFIERS,
    make_classifier,
    ovr_linear_svm_scores,
    ovr_svm_map,
)
from graphdr.evaluation.dimensions import (
    SVM_MAX_ITER,
    knn_error_by_dimension,
    knn_vote,
    loo_one_nn_error,
    ncc_error_by_dimension,
    one_nn_accuracy,
    one_nn_accuracy_by_dimension,
    svm_error_by_dimension,
)
from graphdr.evaluation.metrics import (
    accuracy,
    average_precision_per_class,
    error_rate,
    mean_average_precision,
)
from graphdr.evaluation.selection import (
    DimensionOptimum,
    Selection,
    cross_validate_dimensions,
    grid_edge,
    min_error_over_dimensions,
    score_dimensions,
    select_hyperparameters,
    select_hyperparameters_cv,
    validation_table,
)
from graphdr.evaluation.splits import (
    capped_shuffle_splits,
    per_class_count_split,
    per_class_index_split,
    per_class_ordered_split,
    per_class_split,
    sequential_stratified_split,
    stratified_halves,
    stratified_kfold,
    stratified_kfold_validation,
    stratified_shuffle_splits,
    stratified_split,
)

__all__ = [
    "CLASSIFIERS",
    "Selection",
    "DimensionOptimum",
    "make_classifier",
    "ovr_linear_svm_scores",
    "ovr_svm_map",
    "accuracy",
    "error_rate",
    "average_precision_per_class",
    "mean_average_precision",
    "per_class_index_split",
    "per_class_ordered_split",
    "per_class_count_split",
    "per_class_split",
    "stratified_split",
    "sequential_stratified_split",
    "stratified_kfold",
    "stratified_kfold_validation",
    "stratified_shuffle_splits",
    "capped_shuffle_splits",
    "stratified_halves",
    "ncc_error_by_dimension",
    "knn_error_by_dimension",
    "knn_vote",
    "svm_error_by_dimension",
    "SVM_MAX_ITER",
    "one_nn_accuracy",
    "one_nn_accuracy_by_dimension",
    "loo_one_nn_error",
    "score_dimensions",
    "validation_table",
    "select_hyperparameters",
    "select_hyperparameters_cv",
    "cross_validate_dimensions",
    "min_error_over_dimensions",
    "grid_edge",
]
