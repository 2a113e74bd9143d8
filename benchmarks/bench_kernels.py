"""RBF kernel matrix: graphdr against scikit-learn and against the GEMM floor.

For each N (D = 1024, float64, the symmetric case K(X, X)):

* time of ``pairwise_kernel(X, kernel="rbf")`` / time of ``X @ X.T`` (target <= 1.2: the kernel
  should cost little more than the one GEMM every kernel matrix needs);
* time of ours / time of ``sklearn.metrics.pairwise.rbf_kernel`` (target <= 1.0);
* peak memory of ours / (N^2 * 8 bytes), traced with tracemalloc (target <= 1.5: no second
  N x N array), with scikit-learn's for comparison, and the resident-set growth of a fresh
  process after a warm-up call, as a cross-check that sees every allocator (numba, BLAS), not
  only numpy's.

Times are the best of 3 interleaved rounds after a warm-up round (numba compilation or cache
load, BLAS thread start-up).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

from benchmarks._util import compare_best, peak_memory, peak_rss_delta, row
from graphdr.kernels import pairwise_kernel

FULL_SIZES = (1000, 4000, 8000)
QUICK_SIZES = (500, 1000)
# D stays 1024 in quick mode: the targets assume a GEMM-dominated problem (the fused pass is
# O(N^2), the GEMM O(N^2 D)), so only N shrinks.
N_FEATURES = 1024


def run(quick: bool) -> list[dict]:
    d = N_FEATURES
    rows = []
    for n in QUICK_SIZES if quick else FULL_SIZES:
        rows += _rows_for(n, d)
    return rows


def _rows_for(n: int, d: int) -> list[dict]:
    X = np.random.default_rng(0).standard_normal((n, d))
    gamma = 1.0 / d
    case = f"rbf N={n} D={d} float64"
    out_bytes = n * n * 8

    t = compare_best(
        {
            "gemm": lambda: X @ X.T,
            "ours": lambda: pairwise_kernel(X, kernel="rbf", gamma=gamma),
            "sklearn": lambda: rbf_kernel(X, gamma=gamma),
        }
    )
    err = np.abs(pairwise_kernel(X, gamma=gamma) - rbf_kernel(X, gamma=gamma)).max()
    mem_ours = peak_memory(lambda: pairwise_kernel(X, kernel="rbf", gamma=gamma))
    mem_sklearn = peak_memory(lambda: rbf_kernel(X, gamma=gamma))
    rss = peak_rss_delta(
        setup=f"""
            import numpy as np
            from graphdr.kernels import pairwise_kernel
            X = np.random.default_rng(0).standard_normal(({n}, {d}))
            pairwise_kernel(X)  # warm-up: compiled code, BLAS threads, BLAS buffers
        """,
        stmt=f"K = pairwise_kernel(X, kernel='rbf', gamma={gamma!r})",
    )

    times = f"ours {t['ours']:.4f} s, GEMM {t['gemm']:.4f} s, sklearn {t['sklearn']:.4f} s"
    rows = [
        row(case, "time ours / GEMM X@X.T", t["ours"] / t["gemm"], at_most=1.2, details=times),
        row(
            case,
            "time ours / sklearn rbf_kernel",
            t["ours"] / t["sklearn"],
            at_most=1.0,
            details=f"max |ours - sklearn| = {err:.1e}",
        ),
        row(
            case,
            "peak memory ours / N^2*8 (tracemalloc)",
            mem_ours / out_bytes,
            at_most=1.5,
            details=f"{mem_ours / 2**20:.1f} MiB for a {out_bytes / 2**20:.1f} MiB matrix",
        ),
        row(
            case,
            "peak memory sklearn / N^2*8 (tracemalloc)",
            mem_sklearn / out_bytes,
            details=f"{mem_sklearn / 2**20:.1f} MiB (reference, no target)",
        ),
    ]
    if rss is not None:
        rows.append(
            row(
                case,
                "peak RSS growth ours / N^2*8 (fresh process)",
                rss / out_bytes,
                at_most=1.5,
                details=f"{rss / 2**20:.1f} MiB resident added (all allocators)",
            )
        )
    for r in rows:
        r.update(n=n, d=d, **{f"seconds_{k}": v for k, v in t.items()})
    return rows
