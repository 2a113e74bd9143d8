"""KQMI fit against its floor, the dense eigendecomposition of the same N x N kernel matrix.

Data: a Gaussian mixture, D = 20, C = 10, features in [-1, 1] (paper 001's scaling), RBF kernel
with the paper's sigma = 1; N = 5000 (quick: 1500).

* time of ``KQMI().fit(X, y)`` / time of ``scipy.linalg.eigh`` of the centred kernel with the
  driver KQMI uses ("evd", divide and conquer) — target <= 1.2. Everything KQMI does besides the
  EVD (the kernel, its centring, ``P^T F``, the C x C SVD, ``A = P L^-1 B``) should be small;
* time of that EVD with scipy's default driver ("evr") / with "evd", for information (it is why
  KQMI asks for "evd"; full mode only);
* time of one ``KQMI.fit`` / time of the EVD call inside that same fit — target <= 1.2: the
  same criterion, immune to load drifting between separate measurements;
* peak traced memory of a fit / (N^2 * 8 bytes), for information (kernel + LAPACK workspace).

Paper 001's benchmark sweep (Tables II-V), one training fold of an 800 x 18, 4-class mixture
(vehicle-sized), RBF sigma = 1 (quick: 400 samples):

* CPU time of the five kernel methods (KQMI, GDA, CKFD, KLPP, KPCA) fitted as estimators on one
  shared kernel and EVD (``qmi_sweep.KernelFold`` inside ``graphdr.kernels.reuse_kernels``) /
  CPU time of the five estimators fitted alone (each builds its kernel and decomposes it) —
  target <= 0.6 (two O(N^3) decompositions instead of six; CPU seconds, because wall-clock
  ratios of ~1 s calls were noise on the shared machine);
* the decompositions per fold (shared: the EVD and KLPP's eigenproblem);
* the full sweep's measured time, read from ``paper_figures/qmi/qmi_benchmarks_sweep_timing.csv``
  when the full protocol has run (every dataset, fold and repeat): the CPU seconds summed over
  the per-dataset jobs (single-threaded, so the summed job time on an idle machine) — target
  <= 1200 s (20 minutes); the wall seconds summed over the jobs on the shared machine for
  information.

The KLPP of both paths uses the protocol's graph (mutual k-NN, pieces joined).

Times are the best of interleaved rounds after a warm-up round.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.linalg

import graphdr.methods.qmi as qmi
from benchmarks._util import compare_best, peak_memory, row
from graphdr.kernels import center_kernel_train, pairwise_kernel
from graphdr.methods.qmi import KQMI

N_FULL, N_QUICK, N_FEATURES, N_CLASSES = 5000, 1500, 20, 10
GAMMA = 0.25  # KQMI's kernel for sigma = 1: N(x_i - x_j; 0, 2 sigma^2 I) ~ exp(-d^2 / 4)


def _data(n: int):
    rng = np.random.default_rng(0)
    y = rng.integers(0, N_CLASSES, size=n)
    centres = rng.uniform(-0.5, 0.5, size=(N_CLASSES, N_FEATURES))
    X = np.clip(centres[y] + 0.25 * rng.standard_normal((n, N_FEATURES)), -1.0, 1.0)
    return X, y


def _instrumented_fit(X, y) -> tuple[float, float]:
    """(time of one ``KQMI.fit``, time of the EVD call inside that same fit).

    Their ratio does not depend on load drifting between two separate measurements, the main
    noise on a shared machine: whatever KQMI does besides the EVD shows up directly.
    """
    inner = {}

    def timed(Kc, tol):
        start = time.perf_counter()
        out = original(Kc, tol)
        inner["evd"] = time.perf_counter() - start
        return out

    original = qmi.centred_kernel_range
    qmi.centred_kernel_range = timed
    try:
        start = time.perf_counter()
        KQMI(sigma=1.0).fit(X, y)
        total = time.perf_counter() - start
    finally:
        qmi.centred_kernel_range = original
    return total, inner["evd"]


def _time_rows(n: int, quick: bool) -> list[dict]:
    X, y = _data(n)
    Kc, _ = center_kernel_train(pairwise_kernel(X, kernel="rbf", gamma=GAMMA), copy=False)
    case = f"KQMI fit N={n} D={N_FEATURES} C={N_CLASSES}"
    t = compare_best(
        {
            "kqmi": lambda: KQMI(sigma=1.0).fit(X, y),
            # the floor: the same LAPACK call on the same centred kernel (scipy copies it)
            "evd": lambda: scipy.linalg.eigh(Kc, check_finite=False, driver="evd"),
        },
        repeat=3 if quick else 2,
    )
    total, evd = _instrumented_fit(X, y)
    rows = [
        row(
            case,
            "time KQMI.fit / eigh(K, driver='evd')",
            t["kqmi"] / t["evd"],
            at_most=1.2,
            details=f"KQMI {t['kqmi']:.2f} s, EVD {t['evd']:.2f} s (best of separate runs)",
        ),
        row(
            case,
            "time KQMI.fit / the EVD inside that fit",
            total / evd,
            at_most=1.2,
            details=f"fit {total:.2f} s, of which EVD {evd:.2f} s: {total - evd:.3f} s besides",
        ),
    ]
    if not quick:
        evr = compare_best({"evr": lambda: scipy.linalg.eigh(Kc, check_finite=False)}, repeat=1)
        rows.append(
            row(
                f"eigh N={n}",
                "time eigh default driver 'evr' / 'evd'",
                evr["evr"] / t["evd"],
                details=f"evr {evr['evr']:.2f} s, evd {t['evd']:.2f} s",
            )
        )
    return rows


def _memory_row(n: int) -> dict:
    X, y = _data(n)
    KQMI().fit(X, y)  # warm-up: compiled kernels
    mem = peak_memory(lambda: KQMI().fit(X, y))
    return row(
        f"KQMI fit N={n}",
        "peak memory / N^2*8 (tracemalloc)",
        mem / (n**2 * 8),
        details=f"{mem / 2**20:.1f} MiB: the kernel (EVD in place) + syevd workspace (2 N^2)",
    )


def _sweep_rows(quick: bool) -> list[dict]:
    from graphdr.kernels import reuse_kernels
    from graphdr.methods import CKFD, GDA, KLPP_GE, KPCA_GE
    from graphdr.pipeline.papers.qmi import protocol as qs
    from graphdr.pipeline.runtime import count_eigendecompositions

    n = 400 if quick else 800
    rng = np.random.default_rng(1)
    y = rng.integers(0, 4, size=n)
    X = rng.uniform(-0.5, 0.5, size=(4, 18))[y] + 0.3 * rng.standard_normal((n, 18))
    X_tr, X_te = qs.scale_features(X[: n * 9 // 10], X[n * 9 // 10 :], "minmax")
    y_tr = y[: n * 9 // 10]

    cfg = {**qs.protocol({"lpp_mutual": True, "lpp_connect": True}), "gamma": 0.5}

    def shared():
        with reuse_kernels(), count_eigendecompositions() as count:
            fold = qs.KernelFold(X_tr, X_te, gamma=0.5, tol=1e-6)
            for m, k in (("KQMI", 3), ("GDA", 3), ("CKFD", None), ("KPCA", 50), ("KLPP", 50)):
                fold.embedding(qs.kernel_estimator(m, k, cfg).fit(X_tr, y_tr))
        return sum(size >= fold.rank for size in count["sizes"])  # as the sweep counts them

    def separate():
        for est in (
            KQMI(gamma=0.5),
            GDA(gamma=0.5, rtol=1e-6, reg=1e-8),
            CKFD(gamma=0.5),
            KPCA_GE(50, gamma=0.5),
            KLPP_GE(50, gamma=0.5, mutual=True, connect=True),
        ):
            est.fit(X_tr, y_tr).transform(X_te)

    # CPU seconds of this process (all its threads), best of interleaved rounds: on a shared
    # machine wall-clock ratios of these ~1 s calls moved by 10x between rounds
    t = {"shared": float("inf"), "separate": float("inf")}
    shared(), separate()
    for _ in range(3):
        for name, fn in (("shared", shared), ("separate", separate)):
            start = time.process_time()
            fn()
            t[name] = min(t[name], time.process_time() - start)
    case = f"qmi sweep fold N={X_tr.shape[0]} D=18 C=4 (5 kernel methods)"
    rows = [
        row(
            case,
            "CPU time shared EVD / each estimator alone",
            t["shared"] / t["separate"],
            at_most=0.6,
            details=f"shared {t['shared']:.2f} s, separate {t['separate']:.2f} s (CPU)",
        ),
        row(case, "O(N^3) decompositions per fold (shared)", shared(), details="EVD + KLPP"),
    ]
    timing = (
        Path(__file__).resolve().parents[1] / "paper_figures/qmi/qmi_benchmarks_sweep_timing.csv"
    )
    if timing.is_file():
        frame = pd.read_csv(timing)
        total = frame.iloc[-1]
        rows.append(
            row(
                "qmi full sweep, Tables II-V (measured by the workflow)",
                "CPU seconds, sum of the per-dataset jobs",
                float(total["cpu_seconds"]),
                at_most=1200,
                details=f"{float(total['seconds']):.0f} s wall summed over the jobs on the "
                f"shared machine; {int(total['decompositions'])} decompositions over "
                f"{len(frame) - 1} datasets x every fold and repeat ({timing.name})",
            )
        )
    return rows


def run(quick: bool) -> list[dict]:
    rows = _time_rows(N_QUICK if quick else N_FULL, quick) + [_memory_row(N_QUICK)]
    return rows + _sweep_rows(quick)
