"""DEE (paper 003): the Laplacian direction against the fixed point, and one evaluation against
its floor.

(a) ORL, all 400 faces, 2-D, max_iter 1000 (paper 003, sec. 4.2), LD vs FP from the same start:
    time for each optimiser to reach the same objective value ``E*`` (the larger of the two final
    values, so both reach it), counting its own set-up (its matrix and Cholesky) and iterations;
    target LD >= 10x faster (the paper reports ~38x). The same ratio with the shared set-up (PCA,
    weights) added is reported next to it. Also the wall time of one LD fit (target < 1 s; the paper: ~1 s) and the
    iteration counts (paper: LD ~13, FP ~390). Two cases: the raw 1024 pixels (the paper's input;
    1024 > N - C = 360, so E has no minimiser and LD drives it towards 0, see docs/dee.md) and
    ``pca=100`` (a well-posed objective).
(c) Equal accuracy over 5 random starts where the objective has a minimiser (ORL ``pca=100``;
    USPS-60 raw, 600 x 256, stands in for COIL20 raw, whose fits take minutes each): seconds for
    LD and FP to reach (E - E*)/E* <= 1e-3, E* the lowest objective LD, FP or CG reaches from
    that start (optimiser set-up + iterations, shared set-up excluded; an FP run whose relE rule
    stops it above that level is run on with tol = 0, up to 5000 iterations); median FP/LD ratio,
    target >= 20 (issue 13); CG's final gap to E*, target <= 1e-3 on every start.
(b) One objective + gradient evaluation at N = 2000, D = 256, d = 2 (weights fixed), against the
    floor "N x N embedded squared distances with numpy/BLAS, once"; target <= 2. Its traced peak
    memory against one N x N float64 array shows that no N x N temporary is built.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from benchmarks._util import compare_best, peak_memory, row
from graphdr.methods._elastic_kernels import elastic_objective
from graphdr.methods.elastic import (
    DEE,
    UnboundedObjectiveWarning,
    _fit_threads,
    between_class_weights,
    squared_distances,
    within_class_gaussian_weights,
)

MIRROR = "/work/shared/datasets"


def run(quick: bool) -> list[dict]:
    X, y = load_orl()
    rows = []
    for case, pca in (("ORL raw 1024-d (paper input)", None), ("ORL pca=100", 100)):
        rows += ld_vs_fp(X, y, case, pca, max_iter=1000)
    rows += equal_accuracy(X, y, "ORL pca=100", 100, starts=2 if quick else 5)
    Xu, yu = load_usps60()
    rows += equal_accuracy(Xu, yu, "USPS-60 raw 256-d", None, starts=2 if quick else 5)
    rows += evaluation_vs_floor(n=1000 if quick else 2000, n_features=256)
    return rows


def load_usps60():
    """USPS-60 as the workflow builds it: dataset ``usps60`` of config/config.yaml (its registry
    source and seeded stratified subsample) through the rule's own function,
    :func:`graphdr.pipeline.data.prepare_dataset`, so a fresh clone measures the workflow's set
    (the first 60 digits of each class, this benchmark's fallback until 2026-11-28, are another
    set)."""
    import tempfile
    from pathlib import Path

    import yaml

    from graphdr.datasets.prepared import load_npz
    from graphdr.pipeline.data import prepare_dataset

    config = Path(__file__).resolve().parents[1] / "config" / "config.yaml"
    spec = yaml.safe_load(config.read_text())["datasets"]["usps60"]
    options = {"mirror": os.environ.get("GRAPHDR_DATA_MIRROR", MIRROR)} | (
        spec.get("options") or {}
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "usps60.npz"
        prepare_dataset(spec["source"], path, options=options, subsample_spec=spec.get("subsample"))
        ds = load_npz(path)
    return ds.X, ds.y


def equal_accuracy(X, y, case, pca, *, starts, level=1e-3, max_iter=1000):
    """(c) of the module docstring: per start E* over LD/FP/CG, time to reach it, CG's gap."""
    _fit(X, y, "ld", pca, 5)  # warm-up
    ratios, gaps, it_ld, it_fp, unreached, stuck = [], [], [], [], 0, []
    for seed in range(starts):
        fits = {o: _fit(X, y, o, pca, max_iter, seed=seed)[0] for o in ("ld", "fp", "cg")}
        best = min(float(f.history_["objective"].min()) for f in fits.values())
        target = best + level * abs(best)
        (t_ld, k_ld), (t_fp, k_fp) = (_time_to_reach(fits[o], target) for o in ("ld", "fp"))
        if k_fp < 0:  # FP's relE rule stopped it above the level: run it on (tol = 0)
            run_on = _fit(X, y, "fp", pca, 5 * max_iter, seed=seed, tol=0.0)[0]
            t_fp, k_fp = _time_to_reach(run_on, target)
            k_fp = f"{k_fp} (run on)" if k_fp >= 0 else "never (run on)"
        unreached += int(isinstance(k_fp, str) and k_fp.startswith("never"))
        ratios.append(t_fp / t_ld)
        it_ld.append(k_ld)
        it_fp.append(k_fp)
        gaps.append((fits["cg"].objective_ - best) / abs(best))
        if gaps[-1] > level:  # stop rule or another local minimum? LD from CG's end tells
            stuck.append(_ld_from(fits["cg"], X, y, max_iter))
    med = float(np.median(ratios))
    details = (
        f"{starts} starts; FP/LD ratios {', '.join(f'{r:.1f}' for r in ratios)}; iterations to "
        f"{level:g}: LD {it_ld}, FP {it_fp}"
        + (f" ({unreached} FP runs never reach it, even run on: lower bounds)" if unreached else "")
    )
    return [
        row(case, f"FP/LD seconds to (E - E*)/E* <= {level:g}, median", med, at_least=20.0,
            details=details),
        row(case, "CG final (E - E*)/E*, worst start", max(gaps), at_most=1e-3,
            details=", ".join(f"{g:.2e}" for g in gaps)
            + "".join(f"; {s}" for s in stuck)),
    ]  # fmt: skip


def _ld_from(cg, X, y, max_iter):
    """LD warm-started at CG's end point: if it cannot lower E (relative gain < 1e-4), CG
    stopped at a local minimum of its own (the objective is non-convex), not early."""
    import copy

    ld = copy.deepcopy(cg).set_params(optimizer="ld", warm_start=True, max_iter=max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnboundedObjectiveWarning)
        ld.fit(X, y)
    gain = (cg.objective_ - ld.objective_) / abs(cg.objective_)
    verdict = "a local minimum of its own" if gain < 1e-4 else "stopped early"
    return (
        f"LD from CG's end (E {cg.objective_:.5g}) gains {gain:.1e} in {ld.n_iter_} it: {verdict}"
    )


def load_orl():
    """ORL through graphdr.datasets (offline mirror), else straight from the .mat file."""
    mirror = os.environ.get("GRAPHDR_DATA_MIRROR", MIRROR)
    try:
        from graphdr.datasets import load

        ds = load("orl", mirror=mirror)
        return ds.X, ds.y
    except Exception:  # the dataset layer is optional for this benchmark
        import scipy.io

        m = scipy.io.loadmat(os.path.join(mirror, "ORL_32x32.mat"))
        return m["fea"].astype(float) / 255.0, m["gnd"].ravel().astype(int) - 1


def _fit(X, y, optimizer, pca, max_iter, seed=0, tol=1e-5):
    est = DEE(2, optimizer=optimizer, pca=pca, max_iter=max_iter, random_state=seed, tol=tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnboundedObjectiveWarning)
        start, cpu = time.perf_counter(), time.process_time()
        est.fit(X, y)
        total = time.perf_counter() - start
    # the fit is single-threaded below 1000 samples: its CPU time is its wall time on an idle
    # core, which a shared machine's wall clock hides
    est.bench_cpu_seconds_ = time.process_time() - cpu
    return est, total


def _time_to_reach(est, target):
    """Optimiser time until E <= target: its own set-up (LD/FP matrix + Cholesky) plus the
    iterations. The shared set-up (PCA, weights, start) is the same for both and reported apart."""
    h = est.history_
    hit = np.flatnonzero(h["objective"] <= target)
    if not hit.size:  # never reached: the whole run, a lower bound (iterations -1)
        return est.timings_["direction"] + float(np.sum(h["time"])), -1
    return est.timings_["direction"] + np.cumsum(h["time"])[hit[0]], int(hit[0])


def ld_vs_fp(X, y, case, pca, max_iter):
    _fit(X, y, "ld", pca, 5)  # warm-up: numba cache load, BLAS threads
    runs = {}
    for opt in ("ld", "fp"):  # best of 2 fits (the machine may be shared)
        fits = [_fit(X, y, opt, pca, max_iter) for _ in range(2)]
        runs[opt] = min(fits, key=lambda f: f[1])
    (ld, t_ld), (fp, _) = runs["ld"], runs["fp"]
    target = max(ld.objective_, fp.objective_)
    reach_ld, it_ld = _time_to_reach(ld, target)
    reach_fp, it_fp = _time_to_reach(fp, target)
    setup = ld.timings_["setup"]
    details = (
        f"E*={target:.4g}: LD {reach_ld:.3f} s ({it_ld} it), FP {reach_fp:.3f} s ({it_fp} it); "
        f"final E: LD {ld.objective_:.4g} ({ld.n_iter_} it, {ld.stop_message_}), "
        f"FP {fp.objective_:.4g} ({fp.n_iter_} it, {fp.stop_message_})"
    )
    whole = (reach_fp + fp.timings_["setup"]) / (reach_ld + setup)
    return [
        row(
            case,
            "speed-up LD over FP to reach the same E (optimiser)",
            reach_fp / reach_ld,
            at_least=10.0,
            details=details,
        ),
        row(
            case,
            "same, whole fit incl. shared set-up",
            whole,
            details=f"shared set-up (PCA, weights, start) {setup:.3f} s",
        ),
        row(
            case,
            "LD fit wall time (s)",
            t_ld,
            at_most=1.0,
            details=f"CPU {ld.bench_cpu_seconds_:.3f} s; "
            f"{ld.n_iter_} iterations, {int(ld.history_['n_evals'].sum())} evaluations; "
            + ", ".join(f"{k} {v:.3f} s" for k, v in ld.timings_.items()),
        ),
        row(case, "LD iterations (paper ~13)", ld.n_iter_),
        row(case, "FP iterations (paper ~390)", fp.n_iter_),
    ]


def evaluation_vs_floor(n, n_features, d=2, n_classes=10):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(n_classes), n // n_classes)
    X = rng.standard_normal((n, n_features)) + 2.0 * rng.standard_normal((n_classes, n_features))[y]
    Xc = X - X.mean(0)
    D2 = squared_distances(Xc)
    Wp = within_class_gaussian_weights(D2, y, np.sqrt(np.median(D2)))
    repulsion = between_class_weights(D2, y, "constant")
    del D2
    A = 0.01 * rng.standard_normal((n_features, d))
    Y = Xc @ A

    def evaluation():  # what one iteration of DEE.fit computes
        with _fit_threads(n):
            E, G = elastic_objective(Xc @ A, Wp, 1.0, **repulsion)
            return E, Xc.T @ G

    def floor():
        sq = np.einsum("ij,ij->i", Y, Y)
        D = sq[:, None] + sq[None, :] - 2.0 * (Y @ Y.T)
        np.maximum(D, 0.0, out=D)
        return D

    t = compare_best({"ours": evaluation, "floor": floor}, repeat=7)
    mem = peak_memory(evaluation)
    case = f"DEE objective+gradient N={n} D={n_features} d={d}"
    return [
        row(
            case,
            "time one evaluation / N x N distances (numpy)",
            t["ours"] / t["floor"],
            at_most=2.0,
            details=f"ours {t['ours'] * 1e3:.2f} ms, floor {t['floor'] * 1e3:.2f} ms",
        ),
        row(
            case,
            "peak traced memory / (N^2 * 8 bytes)",
            mem / (n * n * 8.0),
            at_most=0.1,
            details=f"{mem / 2**10:.0f} KiB; fixed W+ ({n * n * 8 / 2**20:.0f} MiB) excluded",
        ),
    ]
