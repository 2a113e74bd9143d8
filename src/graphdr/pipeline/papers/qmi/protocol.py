"""Paper 001 (QMI): the cross-validated sweep behind Tables II-V and VII-VIII.

One training fold is handled by :func:`fold_errors`: the features are scaled on the training part,
the RBF kernel of the training part is built, centred and eigendecomposed **once**
(:class:`KernelFold`, inside :func:`graphdr.kernels.reuse_kernels`), and every kernel method
(KQMI, GDA, CKFD, KPCA, supervised KLPP; the unconstrained KQMI of the ablation) is the library's
estimator fitted in that block (:func:`kernel_estimator`), which reads the decomposition from the
block's store instead of computing it again; KLPP adds its own r x r generalised eigenproblem (its
graph is not a function of the kernel's eigenvectors), the only second decomposition. Linear
methods (LQMI, LDA, PCA, supervised LPP) are fitted as they are (D x D problems). Every
classifier then scores every requested dimension of each embedding, which is fitted once at its
largest dimension (smaller dimensions are leading columns): the scorers of
:mod:`graphdr.evaluation.dimensions`, and CKFD's own fusion-distance rule
(:func:`graphdr.evaluation.fusion.fusion_error_by_dimension`).
The folds are :func:`graphdr.evaluation.splits.stratified_kfold`'s (``repeats`` x ``folds``).

That the shared fold gives each estimator's own result, with one decomposition, is tested
(``tests/test_papers_qmi.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg

from graphdr.datasets.prepared import load_npz
from graphdr.evaluation.dimensions import (
    knn_error_by_dimension,
    ncc_error_by_dimension,
    svm_error_by_dimension,
)
from graphdr.evaluation.fusion import fusion_error_by_dimension
from graphdr.evaluation.splits import stratified_kfold
from graphdr.kernels import (
    center_kernel_test,
    center_kernel_train,
    eigh_centred_kernel,
    pairwise_kernel,
    reuse_kernels,
)
from graphdr.methods.discriminant import GDA
from graphdr.methods.graph_embedding import (
    DEFAULT_KERNEL_REG,
    KLPP_GE,
    KPCA_GE,
    LDA_GE,
    LPP_GE,
    PCA_GE,
    KernelGraphEmbedding,
)
from graphdr.methods.kernel_fisher import CKFD
from graphdr.methods.qmi import KQMI, LQMI, QMIGraph
from graphdr.pipeline import io
from graphdr.pipeline.papers.qmi.settings import (
    CLASSIFIERS,
    KERNEL_METHODS,
    LINEAR_METHODS,
    protocol,
)
from graphdr.pipeline.runtime import count_eigendecompositions
from graphdr.solvers import max_principal_angle_deg

__all__ = [  # the protocol (methods, defaults, scaling rules) is the settings module's
    "Embedding",
    "KernelFold",
    "kernel_estimator",
    "dimension_grid",
    "fold_errors",
    "run_sweep",
    "run_sweeps",
    "scale_columns",
    "scale_features",
    "sweep_dataset",
]


@dataclass
class Embedding:
    """Training and test coordinates of one method (columns = directions, best first).

    ``norms`` are the norms of the directions in input space (linear) or feature space (kernel),
    used by the ``unit_norm`` scaling; ``kinds`` names CKFD's regular/irregular columns.
    """

    train: np.ndarray
    test: np.ndarray
    norms: np.ndarray
    kinds: np.ndarray | None = None


# --------------------------------------------------------------------------------------------
# Pre-processing and scaling
# --------------------------------------------------------------------------------------------


def scale_features(X_train, X_test, kind: str):
    """``minmax``: each feature to [-1, 1] with the training fold's range (constant features
    become 0); ``unit_length``: each sample to unit Euclidean norm (the face protocol)."""
    if kind == "minmax":
        lo, hi = X_train.min(axis=0), X_train.max(axis=0)
        varies = hi > lo
        span = np.where(varies, hi - lo, 1.0)
        return [np.where(varies, 2.0 * (X - lo) / span - 1.0, 0.0) for X in (X_train, X_test)]
    if kind == "unit_length":
        out = []
        for X in (X_train, X_test):
            norms = np.linalg.norm(X, axis=1, keepdims=True)
            out.append(X / np.where(norms > 0, norms, 1.0))
        return out
    raise ValueError(f"preprocessing must be 'minmax' or 'unit_length', got {kind!r}.")


def pca_variance_basis(X_train, variance: float):
    """(mean, basis) of the leading principal axes that hold ``variance`` of the training
    variance (the face protocol's PCA step before the linear methods)."""
    mean = X_train.mean(axis=0)
    _, s, Vt = scipy.linalg.svd(X_train - mean, full_matrices=False, check_finite=False)
    share = np.cumsum(s**2) / np.sum(s**2)
    keep = int(np.searchsorted(share, variance) + 1)
    return mean, Vt[: min(keep, Vt.shape[0])].T


def scale_columns(emb: Embedding, rule: str) -> Embedding:
    """``native`` (as the method returns it), ``unit_norm`` (directions of unit norm in input or
    feature space) or ``unit_variance`` (unit variance of each column on the training fold:
    KQMI's unit-covariance constraint, paper eq. 22)."""
    if rule == "native":
        return emb
    if rule == "unit_norm":
        factor = np.where(emb.norms > 0, emb.norms, 1.0)
    elif rule == "unit_variance":
        sd = emb.train.std(axis=0)
        factor = np.where(sd > 0, sd, 1.0)
    else:
        raise ValueError(f"scale must be 'native', 'unit_norm' or 'unit_variance', got {rule!r}.")
    return Embedding(emb.train / factor, emb.test / factor, emb.norms / factor, emb.kinds)


# --------------------------------------------------------------------------------------------
# Kernel methods from one shared decomposition
# --------------------------------------------------------------------------------------------


#: GDA's ridge in the sweep: Baudat & Anouar regularise only by the eigenvalue threshold, as
#: KQMI does (the library's ``GDA`` defaults to a 1e-3 ridge)
GDA_REG = 1e-8


def kernel_estimator(method: str, n_components: int | None, cfg: Mapping):
    """The library estimator of a kernel method of the sweep, with the protocol's RBF kernel
    (``gamma``), eigenvalue threshold (``kernel_tol``) and method parameters."""
    rbf = {"kernel": "rbf", "gamma": cfg["gamma"]}
    tol = cfg["kernel_tol"]
    if method == "KQMI":
        return KQMI(n_components, tol=tol, **rbf)
    if method == "GDA":
        return GDA(n_components, reg=GDA_REG, rtol=tol, **rbf)
    if method == "KQMI_noUC":  # the ablation of Sec. III-C: no unit-covariance constraint
        return KernelGraphEmbedding(QMIGraph(penalty="none"), n_components, tol=tol, **rbf)
    if method == "CKFD":
        return CKFD(theta=cfg["ckfd_theta"], tol=tol, **rbf)
    if method == "KPCA":
        return KPCA_GE(n_components, tol=tol, **rbf)
    if method == "KLPP":
        return KLPP_GE(
            n_components,
            n_neighbors=cfg["lpp_neighbors"],
            mutual=cfg["lpp_mutual"],
            connect=cfg["lpp_connect"],
            reg=DEFAULT_KERNEL_REG,
            tol=tol,
            **rbf,
        )
    raise ValueError(f"unknown kernel method {method!r}: expected one of {KERNEL_METHODS}.")


class KernelFold:
    """The RBF kernel of one training fold, centred and eigendecomposed once, and the kernel
    methods fitted as the library's estimators on it.

    Construct and use it inside :func:`graphdr.kernels.reuse_kernels`: the decomposition
    (:func:`graphdr.kernels.eigh_centred_kernel`) and the kernel matrices are then kept in the
    block's store, and every estimator fitted in the block reads them instead of computing them
    again (one O(N^3) decomposition per fold; KLPP and the unconstrained KQMI add their own
    r x r eigenproblem). ``rank``: the eigenpairs above ``tol * max``; ``size``: all of them.
    :meth:`embedding` projects a fitted estimator's directions with the fold's centred kernels.
    """

    def __init__(self, X_train, X_test, *, gamma: float, tol: float):
        K = pairwise_kernel(X_train, kernel="rbf", gamma=gamma)
        self.Kc, stats = center_kernel_train(K, copy=False)
        Kt = pairwise_kernel(X_test, X_train, kernel="rbf", gamma=gamma)
        self.Kt = center_kernel_test(Kt, stats, copy=False)
        lam = eigh_centred_kernel(self.Kc.copy())[0]  # kept in the store for the estimators
        self.size = lam.size
        self.rank = int(np.count_nonzero(lam > tol * lam[-1])) if lam[-1] > 0 else 0

    def embedding(self, est) -> Embedding:
        """Training features ``Kc alpha``, test ``Kt alpha`` and the feature-space norms
        ``sqrt(alpha^T Kc alpha)`` of a fitted estimator's ``dual_coef_`` (CKFD: its columns'
        kinds too)."""
        alpha = est.dual_coef_
        train = self.Kc @ alpha
        norms = np.sqrt(np.maximum(np.einsum("ij,ij->j", alpha, train), 0.0))
        return Embedding(train, self.Kt @ alpha, norms, getattr(est, "feature_kinds_", None))


def linear_embedding(
    name: str, X_train, y_train, X_test, *, max_dim: int, n_neighbors=5, mutual=False, connect=False
):
    """LQMI, LDA, PCA or supervised LPP fitted on the training fold (``graphdr.methods``)."""
    if name == "LQMI":
        est = LQMI()
    elif name == "LDA":
        est = LDA_GE()
    elif name == "PCA":
        est = PCA_GE()
    elif name == "LPP":
        est = LPP_GE(n_neighbors=n_neighbors, supervised=True, mutual=mutual, connect=connect)
    else:
        raise ValueError(f"unknown linear method {name!r}: expected one of {LINEAR_METHODS}.")
    est.fit(X_train, y_train)  # every direction (the rank of the data decides), then the cap
    W = est.components_ if name in ("LQMI", "LDA") else est.components_[:max_dim]
    return Embedding(
        (X_train - est.mean_) @ W.T, (X_test - est.mean_) @ W.T, np.linalg.norm(W, axis=1)
    )


# --------------------------------------------------------------------------------------------
# Classifiers over the leading columns
# --------------------------------------------------------------------------------------------


def dimension_grid(max_dim: int, dense: int, step: float = 1.5) -> list[int]:
    """Every dimension up to ``dense``, then a geometric grid (ratio ``step``) to ``max_dim``."""
    dims = list(range(1, min(dense, max_dim) + 1))
    d = float(dims[-1]) if dims else 1.0
    while dims and dims[-1] < max_dim:
        d = max(d * step, dims[-1] + 1)
        dims.append(min(int(round(d)), max_dim))
    return dims


# --------------------------------------------------------------------------------------------
# One fold, one dataset
# --------------------------------------------------------------------------------------------


def _max_dim(method: str, n_classes: int, rank: int, cfg: Mapping) -> int:
    if method in ("KQMI", "GDA", "LQMI", "LDA", "KQMI_noUC"):
        return n_classes - 1
    if method == "CKFD":
        return 2 * (n_classes - 1)
    return min(rank, int(cfg["max_dim"]))


def method_embeddings(X_train, y_train, X_test, cfg: Mapping) -> tuple[dict, int, dict]:
    """Every configured method's embedding of one fold; returns (embeddings, decompositions,
    extras: ``ckfd`` the CKFD estimator or None, ``klpp_graph`` KLPP's graph summary or None)."""
    n_classes = np.unique(y_train).size
    methods = list(cfg["methods"])
    scales = cfg["scale"]
    out, n_dec, ckfd, klpp_graph, kernel_rank = {}, 0, None, None, None
    kernel = [m for m in methods if m in KERNEL_METHODS]
    if kernel:
        with reuse_kernels(), count_eigendecompositions() as count:
            fold = KernelFold(X_train, X_test, gamma=cfg["gamma"], tol=cfg["kernel_tol"])
            rank = fold.rank
            # the kept eigenpairs against the N - 1 a centred kernel can have: at N - 1,
            # P P^T = H and KQMI / GDA coincide (every class collapses to a point in both)
            kernel_rank = rank / max(fold.size - 1, 1)
            for m in kernel:
                k = _max_dim(m, n_classes, rank, cfg)
                est = kernel_estimator(m, min(k, rank), cfg).fit(X_train, y_train)
                if m == "CKFD":
                    ckfd = est
                elif m == "KLPP":
                    klpp_graph = dict(est.graph_meta_)
                out[m] = scale_columns(fold.embedding(est), scales[m])
        # the O(N^3) decompositions: of order at least the kernel's rank (the fold's N x N one,
        # KLPP's r x r generalised problem), not the small ones of a method's own subspace
        n_dec += sum(size >= rank for size in count["sizes"])
    linear = [m for m in methods if m in LINEAR_METHODS]
    if linear:
        Xl_train, Xl_test = X_train, X_test
        if cfg.get("linear_pca_variance"):
            mean, basis = pca_variance_basis(X_train, cfg["linear_pca_variance"])
            Xl_train, Xl_test = (X_train - mean) @ basis, (X_test - mean) @ basis
        for m in linear:
            emb = linear_embedding(
                m,
                Xl_train,
                y_train,
                Xl_test,
                max_dim=cfg["max_dim"],
                n_neighbors=cfg["lpp_neighbors"],
                mutual=cfg["lpp_mutual"],
                connect=cfg["lpp_connect"],
            )
            out[m] = scale_columns(emb, scales[m])
    return out, n_dec, {"ckfd": ckfd, "klpp_graph": klpp_graph, "kernel_rank": kernel_rank}


#: Method pairs that coincide by construction under the paper's settings when the centred kernel
#: keeps (numerically) full rank (KQMI / GDA) or the class weights are equal (LQMI / LDA): the
#: largest principal angle between their training embeddings is the ledger's diagnostic.
EQUIVALENT_PAIRS = (("KQMI", "GDA"), ("LQMI", "LDA"))


def subspace_angle_deg(A: np.ndarray, B: np.ndarray) -> float:
    """Largest principal angle (degrees) between the column spans of two embeddings of the same
    samples (:func:`graphdr.solvers.max_principal_angle_deg`), on their common leading dimensions."""
    k = min(A.shape[1], B.shape[1])
    if k == 0:
        return float("nan")
    return max_principal_angle_deg(A[:, :k], B[:, :k])


def equivalence_angles(embeddings: Mapping) -> dict[str, float]:
    """The diagnostic of :data:`EQUIVALENT_PAIRS` present in ``embeddings`` (``"A~B"`` keys)."""
    return {
        f"{a}~{b}": subspace_angle_deg(embeddings[a].train, embeddings[b].train)
        for a, b in EQUIVALENT_PAIRS
        if a in embeddings and b in embeddings
    }


def fold_errors(X_train, y_train, X_test, y_test, cfg: Mapping) -> tuple[pd.DataFrame, dict]:
    """Errors of every (method, classifier, dimension) on one fold, and its counts: the O(N^3)
    decompositions, the SVM fits stopped at the iteration cap, and the subspace angles of the
    method pairs that coincide by construction (:func:`equivalence_angles`)."""
    X_train, X_test = scale_features(X_train, X_test, cfg["preprocessing"])
    embeddings, n_dec, extras = method_embeddings(X_train, y_train, X_test, cfg)
    angles = equivalence_angles(embeddings)
    n_classes = np.unique(y_train).size
    rows, capped = [], 0
    for m, emb in embeddings.items():
        top = emb.train.shape[1]
        if cfg.get("dims_up_to_classes"):
            top = min(top, n_classes - 1)
        for clf in cfg["classifiers"]:
            svm = clf.endswith("svm")
            grid = cfg["svm_dims"] if svm else cfg["dims"]
            dims = dimension_grid(top, int(grid["dense"]), float(grid["step"]))
            errs = _errors(m, emb, clf, y_train, y_test, dims, cfg)
            if isinstance(errs, tuple):  # SVMs also count their capped fits
                errs, n_capped = errs
                capped += n_capped
            rows += [(m, clf, d, e) for d, e in zip(dims, errs, strict=True)]
    frame = pd.DataFrame(rows, columns=["method", "classifier", "dim", "error"])
    graph = extras["klpp_graph"] or {}
    return frame, {
        "decompositions": n_dec,
        "svm_capped": capped,
        "angles": angles,
        "klpp_components": graph.get("n_class_components"),
        "klpp_joining_edges": graph.get("n_connecting_edges"),
        "kernel_rank": extras["kernel_rank"],
    }


def _errors(method, emb, clf, y_train, y_test, dims, cfg):
    Z_tr, Z_te = emb.train, emb.test
    if method == "CKFD" and clf in ("ncc", "knn") and cfg.get("ckfd_fusion", True):
        return fusion_error_by_dimension(
            Z_tr, y_train, Z_te, y_test, dims, emb.kinds, clf, cfg["ckfd_theta"], cfg["k"]
        )
    if clf == "ncc":
        return ncc_error_by_dimension(Z_tr, y_train, Z_te, y_test, dims)
    if clf == "knn":
        return knn_error_by_dimension(Z_tr, y_train, Z_te, y_test, dims, cfg["k"])
    if clf in ("linear_svm", "rbf_svm"):
        kernel = "linear" if clf == "linear_svm" else "rbf"
        return svm_error_by_dimension(
            Z_tr, y_train, Z_te, y_test, dims, kernel, cfg["svm_C"], cfg["svm_gamma"]
        )
    raise ValueError(f"unknown classifier {clf!r}: expected one of {CLASSIFIERS}.")


def sweep_dataset(X, y, cfg: Mapping, folds: Sequence | None = None):
    """Every split of one dataset (``repeats`` x ``folds``): (long error frame with a ``fold``
    column numbering the splits, record).

    The record holds the decomposition and capped-SVM counts and the measured seconds (wall and
    CPU of this process) per split.
    """
    folds = folds or stratified_kfold(
        y, int(cfg["folds"]), n_repeats=int(cfg.get("repeats", 1)), random_state=int(cfg["seed"])
    )
    frames, n_dec, capped, seconds, cpu, angles, pieces, ranks = [], 0, 0, [], [], {}, [], []
    for i, (tr, te) in enumerate(folds):
        start, start_cpu = time.perf_counter(), time.process_time()
        frame, counts = fold_errors(X[tr], y[tr], X[te], y[te], cfg)
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        frames.append(frame.assign(fold=i))
        n_dec += counts["decompositions"]
        capped += counts["svm_capped"]
        for pair, angle in counts["angles"].items():
            angles.setdefault(pair, []).append(angle)
        if counts["kernel_rank"] is not None:
            ranks.append(counts["kernel_rank"])
        if counts["klpp_components"] is not None:
            pieces.append([counts["klpp_components"], counts["klpp_joining_edges"]])
    errors = pd.concat(frames, ignore_index=True)
    record = {
        "n_folds": len(folds),
        "n_decompositions": n_dec,
        "svm_capped": capped,
        "fold_seconds": seconds,
        "fold_cpu_seconds": cpu,
        "subspace_angles_deg": angles,
        "klpp_graph_components": pieces,
        "kernel_rank_fraction": ranks,
    }
    return errors, record


def run_sweeps(prepared, cfg: Mapping, *, errors, record, timing) -> None:
    """:func:`run_sweep` on each of several datasets with one protocol, in one process (a
    study's sweeps as one job): ``prepared``, ``errors``, ``record`` and ``timing`` are
    parallel sequences of paths, or single paths for one dataset. Each sweep depends only on its
    own dataset and the protocol, so the files are those of one job per dataset."""
    paths = [
        [p] if isinstance(p, (str, os.PathLike)) else list(p)
        for p in (prepared, errors, record, timing)
    ]
    if len({len(p) for p in paths}) != 1:
        raise ValueError(
            "prepared, errors, record and timing must name as many files each, got "
            f"{[len(p) for p in paths]}."
        )
    for source, errors_path, record_path, timing_path in zip(*paths, strict=True):
        run_sweep(source, cfg, errors=errors_path, record=record_path, timing=timing_path)


def run_sweep(prepared, cfg: Mapping, *, errors, record, timing) -> pd.DataFrame:
    """Cross-validate every method and classifier on one prepared dataset; write the long
    errors (CSV), the deterministic record (JSON) and the measured seconds (``timing`` JSON)."""
    ds = load_npz(prepared)
    cfg = protocol(cfg)
    start = time.perf_counter()
    frame, rec = sweep_dataset(ds.X, ds.y, cfg)
    seconds = time.perf_counter() - start
    io.write_csv(frame, errors)
    io.write_json(
        {
            "dataset": ds.name,
            "n_samples": int(ds.n_samples),
            "n_features": int(ds.n_features),
            "n_classes": int(ds.n_classes),
            "n_folds": rec["n_folds"],
            "n_decompositions": rec["n_decompositions"],
            "svm_capped": rec["svm_capped"],
            "subspace_angles_deg": {
                k: [round(a, 10) for a in v] for k, v in rec["subspace_angles_deg"].items()
            },
            # per split: [components of the within-class graphs before joining, joining edges]
            "klpp_graph_components": rec["klpp_graph_components"],
            # per split: kept eigenpairs / (N_train - 1) of the centred training kernel
            "kernel_rank_fraction": [round(r, 10) for r in rec["kernel_rank_fraction"]],
        },
        record,
    )
    io.write_json(
        {
            "seconds": seconds,
            "cpu_seconds": float(sum(rec["fold_cpu_seconds"])),
            "fold_seconds": rec["fold_seconds"],
            "n_folds": rec["n_folds"],
        },
        timing,
    )
    return frame
