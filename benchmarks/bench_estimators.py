"""Graph-embedding fit times against the scikit-learn estimators that solve the same problem,
and against the floors of their two solver paths.

* ``LDA_GE`` vs ``sklearn.discriminant_analysis.LinearDiscriminantAnalysis`` (svd solver, its
  default) on the same data: both solve Fisher's problem; ours goes through the general GE path
  (basis of the data span + the class-graph Ritz step). Our target: at most 2x, N = 1000-4000.
* ``KDA_GE`` (``path="auto"``: the low-rank path on these well-conditioned kernels) vs AKDA's
  floor: the kernel matrix plus one Cholesky of ``K + reg I``. Target: at most 1.5x; the same
  for ``solver="positive"`` (NGEU's rule: a Cholesky and a thin SVD,
  ``graph_embedding.solve_class_graph_kernel_positive``), with its full path (two N x N
  eigendecompositions) timed once at N <= 2000 for scale.
* ``KDA_GE(path="full")`` and ``KPCA_GE`` vs their floor: the kernel matrix plus one FULL dense
  ``eigh`` of the centred N x N kernel. Target: at most 1.2x (KDA_GE full path), 1.5x (KPCA_GE);
  against sklearn's ``KernelPCA(eigen_solver="dense")`` with C - 1 components the ratio is
  printed with our 1.5x target for KPCA_GE (same problem) and none for KDA_GE.

* ``solvers.SharedCholesky.kernel_product`` (the low-rank path's ``K B`` from the lower
  triangle, the upper one holding the Cholesky factor: BLAS ``dsymm`` on the Fortran-ordered
  view) vs numpy's GEMM with a full symmetric copy, and ``dsymm`` on the C-ordered array (which
  f2py copies) printed beside it. Target: at most 1.3x GEMM.

* ``KMFA_GE`` with MFA's penalty solved from its incidence factor (one Cholesky and a thin SVD,
  ``graphdr.solvers.eigh_generalized_lowrank``) against the same fit with the dense generalised
  ``eigh`` of the r x r pencil (``graph_embedding.penalty_factor`` switched off). Target: at most
  0.8x; the ratio to the floor of the kernel's feature map (kernel + one full ``eigh``) is
  printed in the details.

* Two BLAS pools: a numpy GEMM (numpy's OpenBLAS) alternating with a scipy Cholesky solve
  (scipy's OpenBLAS), as the low-rank solver does, against the two alone. Target: at most 1.2x.
  Fails when idle threads of one pool spin while the other works (OpenBLAS's default thread
  timeout; ``graphdr.pipeline.plan.BLAS_ENVIRONMENT``, set by this package, fixes it).

* Thread limits: entering and leaving ``graphdr._threads.limit_threads(1, user_api="blas")``
  against ``threadpoolctl.threadpool_limits`` (which finds the loaded libraries on every call),
  with a small one-vs-rest SVM fit (which takes such a limit) printed for scale. Target: at
  most 0.25x.

Data: N samples, D = 1024 features, C = 20 Gaussian classes; RBF kernel with gamma = 1/D.
BLAS threads are whatever the machine gives (the same for ours and the peer, interleaved rounds).
"""

from __future__ import annotations

import os

import numpy as np
import scipy.linalg
from sklearn.decomposition import KernelPCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from threadpoolctl import threadpool_limits

from benchmarks._util import compare_best, row, timeit_best
from graphdr._threads import limit_threads
from graphdr.evaluation.classifiers import fit_ovr_linear_svm
from graphdr.kernels import center_kernel_train, pairwise_kernel
from graphdr.methods import KDA_GE, KMFA_GE, KPCA_GE, LDA_GE, graph_embedding
from graphdr.solvers import SharedCholesky

FULL_SIZES = (1000, 2000, 4000)
QUICK_SIZES = (500,)
LOWRANK_SIZES = (2000, 4000, 10000)  # KDA_GE low-rank path vs AKDA's floor (full run)
QUICK_LOWRANK_SIZES = (1000,)
REG = 1e-3  # AKDA's default ridge, for its floor
#: the low-rank, product and MFA-factor targets are stated for N >= 2000 (the issue's range):
#: below it the fixed O(N^2) steps (centring, checks, the Ritz step) weigh as much as the
#: O(N^3) ones, so the quick run (N = 1000, D = 256) prints those ratios without a target
TARGET_MIN_N = 2000


def _sized_target(n: int, target: float):
    """``(target, note)`` for a row at size ``n``: no target and a note saying why below
    :data:`TARGET_MIN_N`."""
    if n >= TARGET_MIN_N:
        return target, ""
    return None, f"; no target below N = {TARGET_MIN_N}"


D, C = 1024, 20


def _data(n: int, d: int):
    rng = np.random.default_rng(0)
    y = np.arange(n) % C
    means = rng.standard_normal((C, d)) * 0.5
    return means[y] + rng.standard_normal((n, d)), y


def run(quick: bool) -> list[dict]:
    d = 256 if quick else D
    rows = []
    for n in QUICK_SIZES if quick else FULL_SIZES:
        rows += _rows_for(n, d)
    for n in QUICK_LOWRANK_SIZES if quick else LOWRANK_SIZES:
        rows += _lowrank_rows(n, d)
    for n in QUICK_LOWRANK_SIZES if quick else LOWRANK_SIZES[:2]:
        rows += _product_rows(n)
    # N = 2000 and 4000: 400 marginal pairs against r = N - 1 directions (a share of 0.2 and
    # 0.1); at N = 1000 (0.4, still under PENALTY_FACTOR_SHARE) both solves cost the same
    for n in QUICK_LOWRANK_SIZES if quick else (2000, 4000):
        rows += _mfa_penalty_rows(n, d)
    rows += _pool_rows(QUICK_LOWRANK_SIZES[0] if quick else LOWRANK_SIZES[0])
    rows += _limit_rows()
    return rows


def _mfa_penalty_rows(n: int, d: int) -> list[dict]:
    X, y = _data(n, d)
    gamma, k = 1.0 / d, 2 * C  # k2 = 20 marginal pairs per class: at most 400 edges

    def fit(factored: bool):
        original = graph_embedding.penalty_factor
        if not factored:
            graph_embedding.penalty_factor = lambda penalty, Z: None
        try:
            return KMFA_GE(kernel="rbf", gamma=gamma, n_components=k).fit(X, y)
        finally:
            graph_embedding.penalty_factor = original

    t = compare_best(
        {
            "factored": lambda: fit(True),
            "dense": lambda: fit(False),
            "floor": lambda: _eigh_floor(X, gamma),
        },
        # N = 2000: 2 s a fit, whose best of 2 moved between 0.73x and 0.89x from run to run
        # (2026-11-27, idle): the best of 4 there
        repeat=4 if n <= 2000 else 2,
    )
    target, note = _sized_target(n, 0.8)
    return [
        row(
            f"KMFA N={n} D={d} C={C}",
            "KMFA_GE, penalty factored / dense generalised eigh",
            t["factored"] / t["dense"],
            at_most=target,
            details=f"factored {t['factored']:.2f}s, dense {t['dense']:.2f}s, floor (kernel + "
            f"full eigh) {t['floor']:.2f}s: {t['factored'] / t['floor']:.2f}x{note}",
        )
    ]


def _limit_rows() -> list[dict]:
    def ours():
        with limit_threads(1, user_api="blas"):
            pass

    def threadpoolctl():
        with threadpool_limits(1, user_api="blas"):
            pass

    rng = np.random.default_rng(0)
    Z, y = rng.standard_normal((500, 20)), np.arange(500) % 10
    t = {
        "ours": timeit_best(ours, repeat=50),
        "threadpoolctl": timeit_best(threadpoolctl, repeat=50),
        "svm": timeit_best(lambda: fit_ovr_linear_svm(Z, y, np.arange(10), 1.0), repeat=5),
    }
    return [
        row(
            "thread limit (BLAS to 1 thread)",
            "limit_threads / threadpool_limits, enter + exit",
            t["ours"] / t["threadpoolctl"],
            at_most=0.25,
            details=f"ours {t['ours'] * 1e3:.3f} ms, threadpool_limits "
            f"{t['threadpoolctl'] * 1e3:.3f} ms; one OvR SVM fit (N=500, d=20, 10 classes) "
            f"{t['svm'] * 1e3:.2f} ms",
        )
    ]


def _pool_rows(n: int) -> list[dict]:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, 300))
    factor = scipy.linalg.cho_factor(A @ A.T + n * np.eye(n))
    K, B, M = A @ A.T, rng.standard_normal((n, C - 1)), rng.standard_normal((n, 3 * (C - 1)))

    def both():
        K @ M
        scipy.linalg.cho_solve(factor, B, check_finite=False)

    # back-to-back repeats, not interleaved rounds: "alone" means after a call of the same pool
    t = {
        "gemm": timeit_best(lambda: K @ M, repeat=15),
        "solve": timeit_best(lambda: scipy.linalg.cho_solve(factor, B, check_finite=False), 15),
        "both": timeit_best(both, repeat=15),
    }
    timeout = os.environ.get("OPENBLAS_THREAD_TIMEOUT", "OpenBLAS default")
    return [
        row(
            f"two BLAS pools N={n}",
            "numpy GEMM + scipy solve alternating / the two alone",
            t["both"] / (t["gemm"] + t["solve"]),
            at_most=1.2,
            details=f"alternating {t['both'] * 1e3:.1f} ms, GEMM {t['gemm'] * 1e3:.1f} ms, "
            f"solve {t['solve'] * 1e3:.1f} ms, OPENBLAS_THREAD_TIMEOUT={timeout}",
        )
    ]


def _product_rows(n: int) -> list[dict]:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n))
    S = A @ A.T / n + np.eye(n)
    chol = SharedCholesky(S.copy(), 0.0, 0.0)  # the factor above the diagonal, S below
    B = rng.standard_normal((n, 3 * (C - 1)))  # the residual check's block: 3 (C - 1) columns
    t = compare_best(
        {
            "ours": lambda: chol.kernel_product(B),
            "gemm": lambda: S @ B,
            "dsymm_c": lambda: scipy.linalg.blas.dsymm(1.0, S, B, side=0, lower=1),
        },
        repeat=5,
    )
    target, note = _sized_target(n, 1.3)
    return [
        row(
            f"K B N={n}, {B.shape[1]} columns",
            "SharedCholesky.kernel_product (dsymm, lower triangle) / GEMM with the full matrix",
            t["ours"] / t["gemm"],
            at_most=target,
            details=f"ours {t['ours'] * 1e3:.1f} ms, GEMM {t['gemm'] * 1e3:.1f} ms, "
            f"dsymm on the C-ordered array (f2py copies it) {t['dsymm_c'] * 1e3:.1f} ms{note}",
        )
    ]


def _eigh_floor(X, gamma):
    """The full path's two unavoidable steps: the RBF kernel matrix and one full ``eigh`` of
    the centred kernel."""
    return scipy.linalg.eigh(center_kernel_train(pairwise_kernel(X, gamma=gamma), copy=False)[0])


def _akda_floor(X, gamma):
    """AKDA's two unavoidable steps: the RBF kernel matrix and the Cholesky of K + reg I."""
    K = pairwise_kernel(X, gamma=gamma)
    K.flat[:: K.shape[0] + 1] += REG
    return scipy.linalg.cho_factor(K, lower=True, overwrite_a=True, check_finite=False)


def _lowrank_rows(n: int, d: int) -> list[dict]:
    X, y = _data(n, d)
    gamma = 1.0 / d
    solvers = {"regularized": "", "positive": "solver=positive, "}

    def kda(solver, path="auto", m=n):
        return KDA_GE(kernel="rbf", gamma=gamma, solver=solver, path=path).fit(X[:m], y[:m])

    t = compare_best(
        {s: (lambda s=s: kda(s)) for s in solvers} | {"floor": lambda: _akda_floor(X, gamma)},
        # N = 2000: 0.2 s a fit, whose best of 5 moved between 1.39x and 1.66x from run to run
        # (2026-11-27, idle): the best of 15 (3 s per contender)
        repeat=1 if n >= 10000 else 3 if n >= 4000 else 15,
    )
    notes = dict.fromkeys(solvers, "")
    if n <= 2000:  # the rule's full path (two N x N eigendecompositions), for scale
        full = timeit_best(lambda: kda("positive", path="full"), repeat=1, warmup=0)
        notes["positive"] = f"; the rule's full path {full:.2f}s"
    target, note = _sized_target(n, 1.5)
    return [
        row(
            f"KDA N={n} D={d} C={C}",
            f"KDA_GE ({label}path=auto) / AKDA floor (kernel + Cholesky)",
            t[s] / t["floor"],
            at_most=target,
            details=f"ours {t[s]:.2f}s ({kda(s, m=500).solver_path_} path), floor "
            f"{t['floor']:.2f}s{notes[s]}{note}",
        )
        for s, label in solvers.items()
    ]


def _rows_for(n: int, d: int) -> list[dict]:
    X, y = _data(n, d)
    gamma = 1.0 / d
    k = C - 1
    t = compare_best(
        {
            "lda_ge": lambda: LDA_GE().fit(X, y),
            "lda_sklearn": lambda: LinearDiscriminantAnalysis().fit(X, y),
        },
        repeat=3,
    )
    rows = [
        row(
            f"LDA N={n} D={d} C={C}",
            "LDA_GE / sklearn LDA fit time",
            t["lda_ge"] / t["lda_sklearn"],
            at_most=2.0,
            details=f"ours {t['lda_ge']:.3f}s, sklearn {t['lda_sklearn']:.3f}s",
        )
    ]
    kpca = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, eigen_solver="dense")
    t = compare_best(
        {
            "kda_ge": lambda: KDA_GE(kernel="rbf", gamma=gamma, path="full").fit(X, y),
            "kpca_ge": lambda: KPCA_GE(n_components=k, kernel="rbf", gamma=gamma).fit(X),
            "kpca_sklearn": lambda: kpca.fit(X),
            "floor": lambda: _eigh_floor(X, gamma),
        },
        repeat=1 if n >= 4000 else 2,
    )
    for name, peer, target, floor_target in (
        ("kda_ge", "KDA_GE", None, 1.2),
        ("kpca_ge", "KPCA_GE", 1.5, 1.5),
    ):
        case = f"{peer[:-3]} N={n} D={d} C={C}"
        rows.append(
            row(
                case,
                f"{peer}{' (path=full)' if name == 'kda_ge' else ''} / sklearn KernelPCA(dense, "
                f"{k} comp.) fit time",
                t[name] / t["kpca_sklearn"],
                at_most=target,
                details=f"ours {t[name]:.2f}s, KernelPCA {t['kpca_sklearn']:.2f}s",
            )
        )
        rows.append(
            row(
                case,
                f"{peer}{' (path=full)' if name == 'kda_ge' else ''} / floor (kernel + full eigh)",
                t[name] / t["floor"],
                at_most=floor_target,
                details=f"ours {t[name]:.2f}s, floor {t['floor']:.2f}s",
            )
        )
    return rows
