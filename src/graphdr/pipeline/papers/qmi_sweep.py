"""Paper 001 (QMI): the cross-validated sweep behind Tables II-V and VII-VIII.

One training fold is handled by :func:`fold_errors`: the features are scaled on the training part,
the RBF kernel of the training part is built, centred and eigendecomposed **once**
(:class:`SharedKernelFold`), and every kernel method (KQMI, GDA, CKFD, KPCA, supervised KLPP)
reads its directions from that one decomposition; KLPP adds its own r x r generalised
eigenproblem (its graph is not a function of the kernel's eigenvectors), the only second
decomposition. Linear methods (LQMI, LDA, PCA, supervised LPP) are fitted as they are (D x D
problems). Every classifier then scores every requested dimension of each embedding, which is
fitted once at its largest dimension (smaller dimensions are leading columns): the scorers of
:mod:`graphdr.evaluation.dimensions`, and CKFD's own fusion-distance rule (:func:`fusion_errors`).
The folds are :func:`graphdr.evaluation.splits.stratified_kfold`'s (``repeats`` x ``folds``).

The equality of the shared path with each estimator fitted alone is tested
(``tests/test_papers_qmi.py``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg

from graphdr.datasets.prepared import load_npz
from graphdr.evaluation.dimensions import (
    knn_error_by_dimension,
    knn_vote,
    ncc_error_by_dimension,
    svm_error_by_dimension,
)
from graphdr.evaluation.splits import stratified_kfold
from graphdr.graphs import LPPGraph, kernel_sq_distances
from graphdr.kernels import center_kernel_test, center_kernel_train, pairwise_kernel
from graphdr.methods.discriminant import class_mean_kernels
from graphdr.methods.graph_embedding import (
    DEFAULT_KERNEL_REG,
    LDA_GE,
    LPP_GE,
    PCA_GE,
    solve_graph_embedding,
)
from graphdr.methods.kernel_fisher import CKFD, fusion_distances
from graphdr.methods.qmi import (
    LQMI,
    kqmi_directions,
    leading_singular_vectors,
    qmi_factor,
)
from graphdr.pipeline import io
from graphdr.pipeline.papers.qmi_protocol import (
    CLASSIFIERS,
    KERNEL_METHODS,
    LINEAR_METHODS,
    protocol,
)
from graphdr.solvers import column_signs, flip_signs, principal_angles

__all__ = [  # the protocol (methods, defaults, scaling rules) is qmi_protocol's
    "Embedding",
    "SharedKernelFold",
    "dimension_grid",
    "fold_errors",
    "run_sweep",
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


class SharedKernelFold:
    """The RBF kernel of one training fold, centred and eigendecomposed once.

    ``lam`` (ascending) and ``P`` hold every eigenpair of the centred training kernel ``Kc``
    (LAPACK ``syevd``); ``Kt`` is the centred test kernel. Each method keeps the eigenpairs
    above ``tol * max`` (the threshold of every kernel estimator of the library).
    ``n_decompositions`` counts the O(N^3) decompositions done for this fold.
    """

    def __init__(self, X_train, y_train, X_test, *, gamma: float, tol: float, distances=True):
        self.tol = float(tol)
        self.classes_, y_enc = np.unique(y_train, return_inverse=True)
        self.y_enc = y_enc.ravel().astype(np.intp)
        self.counts = np.bincount(self.y_enc)
        K = pairwise_kernel(X_train, kernel="rbf", gamma=gamma)
        Kc, stats = center_kernel_train(K, copy=False)
        self.sq_dist = kernel_sq_distances(Kc) if distances else None
        Kt = pairwise_kernel(X_test, X_train, kernel="rbf", gamma=gamma)
        self.Kt = center_kernel_test(Kt, stats, copy=False)
        self.lam, self.P = scipy.linalg.eigh(
            Kc.T, overwrite_a=True, check_finite=False, driver="evd"
        )
        self.n_decompositions = 1
        top = self.lam[-1]
        self.first = int(np.searchsorted(self.lam, self.tol * top, side="right"))

    @property
    def kept(self) -> tuple[np.ndarray, np.ndarray]:
        """Kept eigenpairs, ascending (the layout of ``centered_kernel_eigh``)."""
        return self.lam[self.first :], self.P[:, self.first :]

    def _embedding(self, alpha: np.ndarray, kinds=None) -> Embedding:
        """Training features ``Kc alpha`` (from the full EVD), test ``Kt alpha``, and the
        feature-space norms ``sqrt(alpha^T Kc alpha)``."""
        T = self.P.T @ alpha
        train = self.P @ (self.lam[:, None] * T)
        norms = np.sqrt(np.maximum(np.einsum("ij,ij->j", T * self.lam[:, None], T), 0.0))
        return Embedding(train, self.Kt @ alpha, norms, kinds)

    def kqmi(self, n_components=None) -> Embedding:
        """KQMI (Algorithm 1) with ``A^T K K A = I``: :func:`kqmi_directions`, sign rule."""
        lam, P = self.kept
        _, A, _ = kqmi_directions(lam, P, self.y_enc, self.counts.size, n_components)
        return self._embedding(A * column_signs(A))

    def gda(self, n_components=None, reg: float = 1e-8) -> Embedding:
        """GDA (Baudat & Anouar, as ``discriminant.gda_coefficients``) on the kept eigenpairs:
        leading eigenvectors of ``P^T W P = G G^T`` from the thin SVD of G (r x C, no r x r
        eigenproblem), ``alpha = P (L + reg)^{-1} beta`` normalised to unit feature-space norm.
        ``reg`` defaults to ~0: Baudat & Anouar regularise only by the eigenvalue threshold, like
        KQMI (the library's ``GDA`` adds a 1e-3 ridge by default)."""
        gam, P = self.kept
        k = self.counts.size - 1 if n_components is None else n_components
        G = class_mean_kernels(P.T, self.y_enc, self.counts) * np.sqrt(self.counts)
        # leading_singular_vectors fixes the basis of degenerate groups (a near-full-rank kernel
        # collapses every class, making all C-1 eigenvalues 1), as KQMI does
        beta = leading_singular_vectors(G, k)[1]
        alpha = P @ (beta / (gam + reg)[:, None])
        norms = np.sqrt(np.einsum("ij,ij->j", beta * (gam / (gam + reg) ** 2)[:, None], beta))
        return self._embedding(flip_signs(alpha / norms))

    def kqmi_unconstrained(self, n_components=None) -> Embedding:
        """KQMI without the unit-covariance constraint (paper eq. 21, the ablation of Sec. III-C):
        the leading directions of ``w^T Z^T M Z w`` with ``w^T w = 1`` on the exact feature map
        ``Z = P L^{1/2}`` (``KernelGraphEmbedding(graph=QMIGraph(penalty="none"))``), from the
        thin SVD of ``L^{1/2} P^T F`` (r x C); ``alpha = P L^{-1/2} w``, unit feature-space norm."""
        lam, P = self.kept
        k = self.counts.size - 1 if n_components is None else n_components
        root = np.sqrt(lam)
        G = root[:, None] * (P.T @ qmi_factor(self.y_enc, self.counts.size))
        W = leading_singular_vectors(G, k)[1]
        return self._embedding(flip_signs(P @ (W / root[:, None])))

    def ckfd(self, theta: float = 1.0) -> tuple[Embedding, CKFD]:
        """CKFD (fused, interleaved, fusion-scaled: ``CKFD._fit_eigh``) on the kept eigenpairs."""
        lam, U = self.kept
        est = CKFD(theta=theta, tol=self.tol)
        est._fit_eigh(lam, U, self.y_enc, self.counts, 2 * (self.counts.size - 1))
        return self._embedding(est.dual_coef_, est.feature_kinds_), est

    def kpca(self, n_components: int) -> Embedding:
        """KPCA: ``alpha = U / sqrt(S)`` of the leading kept eigenpairs (``KPCA_GE``)."""
        lam, P = self.kept
        k = min(n_components, lam.size)
        lam, U = lam[::-1][:k], P[:, ::-1][:, :k]
        return self._embedding(flip_signs(U / np.sqrt(lam)))

    def klpp(
        self, n_components: int, n_neighbors: int = 5, heat_t=None, mutual=False, connect=False
    ) -> Embedding:
        """Supervised KLPP (``KLPP_GE``): GE on the exact feature map ``U S^{1/2}`` of the kept
        part with the within-class k-NN heat-kernel graph on feature-space distances
        (``mutual`` / ``connect``: :func:`graphdr.graphs.lpp_graph`). Its r x r generalised
        eigenproblem is this fold's second decomposition. Columns satisfy the GE constraint
        ``a^T K D K a = 1``. ``self.graph_meta`` keeps the graph's summary."""
        lam, P = self.kept
        U, root = P[:, ::-1], np.sqrt(lam[::-1])
        Z = U * root
        graph = LPPGraph(n_neighbors, heat_t, True, mutual=mutual, connect=connect)(
            self.y_enc, sq_distances=self.sq_dist, n_samples=Z.shape[0]
        )
        self.graph_meta = dict(graph.meta)
        S_int, S_pen = graph.intrinsic.quadratic(Z), graph.penalty.quadratic(Z)
        k = min(n_components, Z.shape[1])
        _, W = solve_graph_embedding(
            S_int, S_pen, k, largest=False, reg=DEFAULT_KERNEL_REG, tol=self.tol
        )
        self.n_decompositions += 1
        return self._embedding(flip_signs(U @ (W / root[:, None])))


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


def fusion_errors(emb: Embedding, y_train, y_test, dims, rule: str, theta: float, k: int = 3):
    """CKFD's own rule: nearest centroid / k-NN with the fusion distance (Yang et al.)."""
    classes, codes = np.unique(y_train, return_inverse=True)
    errors = []
    for d in dims:
        kinds = emb.kinds[:d]
        if rule == "ncc":
            refs = np.stack([emb.train[codes == c, :d].mean(axis=0) for c in range(classes.size)])
            g = fusion_distances(emb.test[:, :d], refs, kinds, theta)
            pred = np.argmin(g, axis=1)
        else:
            g = fusion_distances(emb.test[:, :d], emb.train[:, :d], kinds, theta)
            pred = knn_vote(g, codes, k, classes.size)
        errors.append(np.mean(classes[pred] != y_test))
    return np.array(errors)


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
        fold = SharedKernelFold(
            X_train,
            y_train,
            X_test,
            gamma=cfg["gamma"],
            tol=cfg["kernel_tol"],
            distances="KLPP" in kernel,
        )
        rank = fold.lam.size - fold.first
        # the kept eigenpairs against the N - 1 a centred kernel can have: at N - 1, P P^T = H
        # and KQMI / GDA coincide (every class collapses to a point in both)
        kernel_rank = rank / max(fold.lam.size - 1, 1)
        for m in kernel:
            k = _max_dim(m, n_classes, rank, cfg)
            if m == "KQMI":
                emb = fold.kqmi(min(k, rank))
            elif m == "GDA":
                emb = fold.gda(min(k, rank))
            elif m == "KQMI_noUC":
                emb = fold.kqmi_unconstrained(min(k, rank))
            elif m == "CKFD":
                emb, ckfd = fold.ckfd(cfg["ckfd_theta"])
            elif m == "KPCA":
                emb = fold.kpca(k)
            else:
                emb = fold.klpp(
                    k, cfg["lpp_neighbors"], mutual=cfg["lpp_mutual"], connect=cfg["lpp_connect"]
                )
                klpp_graph = fold.graph_meta
            out[m] = scale_columns(emb, scales[m])
        n_dec += fold.n_decompositions
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
    samples (:func:`graphdr.solvers.principal_angles`), on their common leading dimensions."""
    k = min(A.shape[1], B.shape[1])
    if k == 0:
        return float("nan")
    return float(np.degrees(principal_angles(A[:, :k], B[:, :k]).max()))


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
        return fusion_errors(emb, y_train, y_test, dims, clf, cfg["ckfd_theta"], cfg["k"])
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
