"""NGEU's expected-kernel matrix against our plain kernel matrix and the GEMM floor.

USPS size (N = 6000, D = 256, float64, the symmetric training matrix), per-sample isotropic
variances from the nearest-neighbour scheme (beta = 0.1), gamma = 1/D. In one run, with BLAS
and numba pinned to the same thread count (``THREADS``, threadpoolctl + numba.set_num_threads):

* time of ``expected_kernel(X, x_variance=v, kernel="rbf")`` / time of our
  ``pairwise_kernel(X, kernel="rbf")`` (target <= 1.3: the uncertainty factors of each entry,
  a logarithm and a division more than the RBF entry, ride on the same single fused pass);
* the same time / time of ``X @ X.T`` against 1.3 x (our RBF / GEMM ratio measured in the same
  run), i.e. the same budget stated against the floor;
* peak traced memory / (N^2 * 8 bytes) (target <= 1.5: in place on the GEMM output);
* for information: the degree-2 polynomial expected kernel against our poly kernel, and the
  O(N^2 D) diagonal-covariance RBF loop (N = 1000) in ns per pair and feature;
* the diagonal-covariance RBF against our RBF at N = 1000 (issue 16 asks for 1.3 there too; a
  per-pair, per-feature division that no GEMM produces keeps it far above: reported, and FAILs),
  and against its floor, the work no exact evaluation can skip (target <= 1.3): one pass over
  the same triangle computing only ``sum_k (x_ik - x_jk)^2 / a_k``, ``a_k = 1 + 2 gamma (s_ik +
  s_jk)``, with the same loop order, threads and numba options (:func:`_division_floor`).

Times are the best of 3 interleaved rounds after a warm-up round. ``quick``: N = 1500 (diagonal
case N = 500).

The selection grid of paper 004's Table I (graphdr.pipeline.papers.ngeu.protocol): on a 10-class synthetic
problem (N = 600, D = 64; quick N = 300), KDA-NGEU over 5 kernel settings x 3 uncertainty widths x
the 9 dimensions 1..C-1, the eigendecompositions actually performed (scipy eigh/eigvalsh calls)
against the grid cells, and the time of the nested grid's fits (one per model-changing point)
against refitting every cell, fits only on both sides since scoring the cells costs the same
either way (target: at most 1 eigendecomposition per 2 grid cells, and faster than the refits). The real tables report their own counts in paper_figures/ngeu/ngeu_table*_grid.csv. The same
nested grid with ``path="auto"`` (the low-rank Cholesky path of class graphs) against
``path="full"`` (every fit an N x N eigendecomposition), interleaved: the time the low-rank path
saves the selection grids (target: below 1). And the six kernel methods of Table I on one fold
at D = 784 with the fold's kernel matrices shared between them (``ngeu.run_methods``, the
workflow's setting) against each computing its own (target: below 1).

RSLDA, a baseline of Tables I-II (MNIST size, D = 784, N = 2000; quick N = 500): one pass of the
ADMM's fused error and multiplier step in the memory order of its Fortran-ordered data against
the same kernel looping row by row over them, as it did until 2026-11-29 (target <= 0.6; 0.41
measured: the strided loop was most of an RSLDA iteration).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._util import compare_best, peak_memory, row
from graphdr._numba import njit, numba
from graphdr.evaluation.splits import stratified_split
from graphdr.kernels import pairwise_kernel
from graphdr.kernels.expected import expected_kernel
from graphdr.pipeline.runtime import count_eigendecompositions
from graphdr.uncertainty import NearestNeighborUncertainty

N_FEATURES = 256
SIZES = {False: 6000, True: 1500}
DIAGONAL_SIZES = {False: 1000, True: 500}
#: BLAS and numba threads for every timing (one: the least noisy on a shared machine)
THREADS = 1
TARGET = 1.3


@contextmanager
def pinned_threads(n: int):
    """BLAS (threadpoolctl) and numba limited to ``n`` threads, restored afterwards."""
    previous = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        with threadpool_limits(limits=n, user_api="blas"):
            yield
    finally:
        numba.set_num_threads(previous)


def run(quick: bool) -> list[dict]:
    with pinned_threads(THREADS):
        return (
            _isotropic_rows(SIZES[quick])
            + _diagonal_rows(DIAGONAL_SIZES[quick])
            + _grid_rows(300 if quick else 600)
            + _path_rows(600 if quick else 2400)
            + _reuse_rows(300 if quick else 1200)
            + _rslda_rows(500 if quick else 2000)
        )


def _grid_problem(n: int):
    """A 10-class synthetic problem, its split, nearest-neighbour variances and the grid."""
    from graphdr.pipeline.papers.ngeu import protocol as ngeu

    rng = np.random.default_rng(2)
    y = np.arange(n) % 10
    X = rng.standard_normal((n, 64)) + 1.5 * rng.standard_normal((10, 64))[y]
    fold = stratified_split(y, {"train": n // 2, "val": n // 4, "test": None}, random_state=0)
    nn = {"nn0": ngeu.estimate_nn_sq_distances(X[fold["train"]], y[fold["train"]])["nn"]}
    method = {"estimator": "KDA_NGEU", "label": "KDA-NGEU", "uncertainty": "nn"}
    grid = {
        "kernels": ["linear", "poly", "rbf"],
        "gamma_scale": [0.25, 1.0, 4.0],
        "coef0": 1.0,
        "beta": [0.01, 0.03, 0.1],
    }
    return X, y, fold, nn, method, grid


def _grid_rows(n: int) -> list[dict]:
    from graphdr.pipeline.papers.ngeu import protocol as ngeu

    X, y, fold, nn, method, grid = _grid_problem(n)
    _, _, cost = ngeu._method_rows("KDA_NGEU", method, grid, X, y, [fold], nn, k=1, seed=0)
    tr = fold["train"]
    points = ngeu.method_grid(method, grid, X[tr])
    dims = range(1, 10)

    def fits(per_cell: bool):
        # the nested grid fits each point once at the largest dimension and reads the smaller
        # ones off it; the reference refits every (point, dimension) cell. Scoring every cell
        # costs the same either way, so both sides time the fits alone (with the low-rank path
        # a fit at this size takes ~7 ms and the k-NN scoring of the cells dominates the grid)
        for point in points:
            for d in dims if per_cell else (dims[-1],):
                ngeu.fit_grid_point(method, point, X[tr], y[tr], point["beta"] ** 2 * nn["nn0"], d)

    with count_eigendecompositions() as counter:
        fits(True)
    t = compare_best({"nested": lambda: fits(False), "refit": lambda: fits(True)}, repeat=3)
    case = f"Table I grid, KDA-NGEU, N_train={tr.size} D=64 C=10"
    details = (
        f"{cost['fits']} fits, {cost['eigendecompositions']} eigendecompositions for "
        f"{cost['grid_cells']} grid cells; refitting every cell: {len(points) * len(dims)} fits, "
        f"{counter['n']} eigendecompositions"
    )
    return [
        row(
            case,
            "eigendecompositions / grid cells",
            cost["eigendecompositions"] / cost["grid_cells"],
            at_most=0.5,
            details=details,
        ),
        row(
            case,
            "time of the nested grid's fits / refit every cell",
            t["nested"] / t["refit"],
            at_most=1.0,
            details=f"nested {t['nested']:.2f} s ({len(points)} fits), refits {t['refit']:.2f} s "
            f"({len(points) * len(dims)} fits); fits only on both sides",
        ),
    ]


def _path_rows(n: int) -> list[dict]:
    """The Table I nested grid of :func:`_grid_rows` at a larger N, ``path="auto"`` against
    ``path="full"``."""
    from graphdr.pipeline.papers.ngeu import protocol as ngeu

    X, y, fold, nn, method, grid = _grid_problem(n)
    case = f"Table I grid, KDA-NGEU, N_train={fold['train'].size} D=64 C=10"
    # the same nested grid with the full eigendecomposition forced (issue 19: the low-rank
    # path of class graphs), interleaved rounds so the machine's drift hits both
    t = compare_best(
        {
            path: (
                lambda path=path: ngeu._method_rows(
                    "KDA_NGEU",
                    method | {"params": {"path": path}},
                    grid,
                    X,
                    y,
                    [fold],
                    nn,
                    k=1,
                    seed=0,
                )
            )
            for path in ("auto", "full")
        },
        repeat=1,
    )
    return [
        row(
            case,
            "time nested grid path=auto / path=full",
            t["auto"] / t["full"],
            at_most=1.0,
            details=(
                f"auto {t['auto']:.2f} s, full {t['full']:.2f} s (low-rank Cholesky path "
                "where the expected kernel is well conditioned, the full eigh elsewhere)"
            ),
        ),
    ]


def _reuse_rows(n: int) -> list[dict]:
    """The six kernel methods of Table I (KDA, KMFA, KPCA; GE and NGEU) on one fold of the
    grid problem at MNIST's dimension (D = 784: the kernel matrices are not negligible there),
    the fold's kernel matrices shared between the methods (``run_methods(reuse=True)``, the
    workflow's setting) against every method computing its own, interleaved (target: below 1)."""
    from graphdr.pipeline.papers.ngeu import protocol as ngeu

    rng = np.random.default_rng(3)
    y = np.arange(n) % 10
    X = rng.standard_normal((n, 784)) + 0.5 * rng.standard_normal((10, 784))[y]
    fold = stratified_split(y, {"train": n // 2, "val": n // 4, "test": None}, random_state=0)
    nn = {"nn0": ngeu.estimate_nn_sq_distances(X[fold["train"]], y[fold["train"]])["nn"]}
    grid = {"kernels": ["linear", "rbf"], "gamma_scale": [1.0], "coef0": 1.0,
            "beta": [0.03, 0.1], "dims": [5, 10, 20]}  # fmt: skip
    methods = {
        f"{graph}_{kind}": {"estimator": f"{graph}_{kind}"}
        | ({"uncertainty": "nn"} if kind == "NGEU" else {})
        for kind in ("GE", "NGEU")
        for graph in ("KDA", "KMFA", "KPCA")
    }
    t = compare_best(
        {
            str(reuse): (
                lambda reuse=reuse: ngeu.run_methods(methods, grid, X, y, [fold], nn, reuse=reuse)
            )
            for reuse in (True, False)
        },
        repeat=1,
    )
    case = f"Table I methods, one fold, N_train={fold['train'].size} D=784 C=10"
    return [
        row(
            case,
            "time kernel matrices shared / computed per method",
            t["True"] / t["False"],
            at_most=1.0,
            details=f"shared {t['True']:.2f} s, per method {t['False']:.2f} s",
        )
    ]


def _rslda_rows(n: int, d: int = 784) -> list[dict]:
    from graphdr.methods.sparse_discriminant import (
        _error_multiplier_pass,
        _error_multiplier_step,
    )

    rng = np.random.default_rng(0)
    X, Y = (np.asfortranarray(rng.standard_normal((d, n))) for _ in range(2))
    PQtX = rng.standard_normal((d, n))  # C-ordered, as the product returns it
    args = (0.1, 0.01, 0.101)

    def row_order():
        out = [np.empty_like(X) for _ in range(3)]
        return _error_multiplier_step(X, PQtX, Y, *args, *out)

    t = compare_best(
        {
            "memory": lambda: _error_multiplier_pass(X, PQtX, Y, *args),
            "rows": row_order,
        },
        repeat=5,
    )
    return [
        row(
            f"RSLDA error pass, D={d} N={n}",
            "time in memory order / row order over Fortran arrays",
            t["memory"] / t["rows"],
            at_most=0.6,
            details=f"memory order {t['memory'] * 1e3:.1f} ms, row order {t['rows'] * 1e3:.1f} ms",
        )
    ]


def _isotropic_rows(n: int) -> list[dict]:
    d = N_FEATURES
    X = np.random.default_rng(0).standard_normal((n, d))
    v = NearestNeighborUncertainty(beta=0.1).fit(X).sample_variance_
    gamma = 1.0 / d
    t = compare_best(
        {
            "gemm": lambda: X @ X.T,
            "rbf": lambda: pairwise_kernel(X, kernel="rbf", gamma=gamma),
            "ngeu_rbf": lambda: expected_kernel(X, x_variance=v, kernel="rbf", gamma=gamma),
            "poly": lambda: pairwise_kernel(X, kernel="poly", gamma=gamma),
            "ngeu_poly": lambda: expected_kernel(X, x_variance=v, kernel="poly", gamma=gamma),
        }
    )
    mem = peak_memory(lambda: expected_kernel(X, x_variance=v, kernel="rbf", gamma=gamma))
    dirac_err = np.abs(
        expected_kernel(X, x_variance=np.zeros(n), gamma=gamma) - pairwise_kernel(X, gamma=gamma)
    ).max()
    case = f"expected rbf N={n} D={d} isotropic, {THREADS} thread(s)"
    rbf_over_gemm = t["rbf"] / t["gemm"]
    times = (
        f"NGEU {t['ngeu_rbf']:.4f} s, our RBF {t['rbf']:.4f} s, GEMM {t['gemm']:.4f} s "
        f"(RBF/GEMM {rbf_over_gemm:.2f})"
    )
    rows = [
        row(
            case, "time NGEU rbf / our rbf", t["ngeu_rbf"] / t["rbf"], at_most=TARGET, details=times
        ),
        row(
            case,
            "time NGEU rbf / GEMM X@X.T",
            t["ngeu_rbf"] / t["gemm"],
            at_most=round(TARGET * rbf_over_gemm, 3),
            details=f"target {TARGET} x our RBF/GEMM ratio of this run",
        ),
        row(
            case,
            "peak memory NGEU rbf / N^2*8 (tracemalloc)",
            mem / (n * n * 8),
            at_most=1.5,
            details=f"zero variances: max |NGEU - RBF| = {dirac_err:.1e}",
        ),
        row(
            f"expected poly-2 N={n} D={d} isotropic",
            "time NGEU poly / our poly",
            t["ngeu_poly"] / t["poly"],
            details=f"NGEU {t['ngeu_poly']:.4f} s, our poly {t['poly']:.4f} s (no target)",
        ),
    ]
    for r in rows:
        r.update(n=n, d=d, threads=THREADS, **{f"seconds_{k}": s for k, s in t.items()})
    return rows


@njit(inline="always")
def _division_floor_row(X, S, two_gamma, out, i):
    for j in range(i + 1, out.shape[0]):
        quad = 0.0
        for k in range(X.shape[1]):
            diff = X[i, k] - X[j, k]
            quad += diff * diff / (1.0 + two_gamma * (S[i, k] + S[j, k]))
        out[i, j] = quad
        out[j, i] = quad


@njit(parallel=True, fastmath={"reassoc", "contract"})
def _division_floor(X, S, gamma, out):
    """The floor of the diagonal-covariance RBF: ``out_ij = sum_k (x_ik - x_jk)^2 / a_k`` over
    the triangle, the one division per pair and feature that no exact evaluation avoids (no
    GEMM form), with the loop order and task split of
    ``graphdr.kernels.expected._expected_rbf_diag_sym`` and without its determinant and
    exponential."""
    n = out.shape[0]
    for t in numba.prange((n + 1) // 2):
        _division_floor_row(X, S, 2.0 * gamma, out, t)
        if n - 1 - t != t:
            _division_floor_row(X, S, 2.0 * gamma, out, n - 1 - t)


def _diagonal_rows(n: int) -> list[dict]:
    d = N_FEATURES
    rng = np.random.default_rng(1)
    X, S = rng.standard_normal((n, d)), rng.uniform(0.0, 0.01, (n, d))
    floor_out = np.empty((n, n))
    t = compare_best(
        {
            "diagonal": lambda: expected_kernel(X, x_variance=S, kernel="rbf", gamma=1.0 / d),
            "rbf": lambda: pairwise_kernel(X, kernel="rbf", gamma=1.0 / d),
            "floor": lambda: _division_floor(X, S, 1.0 / d, floor_out),
        }
    )
    seconds = t["diagonal"]
    ns = seconds / (n * (n - 1) / 2 * d) * 1e9
    at_6000 = ns * 6000 * 5999 / 2 * d / 1e9
    case = f"expected rbf N={n} D={d} diagonal covariances"
    extra = dict(n=n, d=d, threads=THREADS, seconds=seconds, seconds_rbf=t["rbf"])
    return [
        row(
            case,
            "ns per pair and feature (O(N^2 D) loop)",
            ns,
            details=f"{seconds:.3f} s; extrapolated to N=6000: {at_6000:.1f} s",
            **extra,
        ),
        row(
            case,
            "time NGEU rbf diagonal / our rbf",
            seconds / t["rbf"],
            at_most=TARGET,
            details=(
                f"{seconds:.3f} s against {t['rbf']:.4f} s: no GEMM form (a division per pair "
                "and feature), so the isotropic target is out of reach (docs/benchmarks.md)"
            ),
            **extra,
        ),
        row(
            case,
            "time NGEU rbf diagonal / its division floor",
            seconds / t["floor"],
            at_most=TARGET,
            details=(
                f"{seconds:.3f} s against {t['floor']:.3f} s for the sum of d_k^2 / a_k alone "
                "(_division_floor: the same triangle, loop order, threads and numba options)"
            ),
            seconds_floor=t["floor"],
            **extra,
        ),
    ]
