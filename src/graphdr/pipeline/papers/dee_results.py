"""Paper 003 (DEE): the tidy results frame of the claims ledger (``docs/claims.md``).

One long frame (``paper, study, variant, dataset, method, classifier, dimension, split, metric,
value``) built from the runs the paper's workflow already writes; the ledger
(:mod:`graphdr.ledger`) judges ``config/references/dee_claims.csv`` on it. Three studies:

* ``optimizers`` (Figures 2-6): one row per (dataset, optimiser) and metric, ``split`` = the
  seed of the random start. Deterministic metrics: ``iterations`` (at the stopping rule),
  ``log2_iterations``, ``objective`` (final E), ``converged`` (0/1), ``iterations_to_1e-3``
  (the first iteration whose E is within a relative 1e-3 of E*, the lowest objective any
  optimiser of that dataset and start reaches: an equal-accuracy count; a run that never gets
  there counts one past its last iteration, a lower bound) and the class separation of the 2-D
  embedding (``loo_1nn``, ``within_between``, as Figures 7-10). Measured (``timing`` frame):
  ``seconds`` (the whole fit), ``seconds_per_iteration``, ``seconds_to_1e-3`` (the optimiser's
  own set-up, e.g. LD's Cholesky, plus its iterations up to ``iterations_to_1e-3``; the set-up
  shared by every optimiser, PCA and weights, excluded) and both as ratios to the baseline
  optimiser on the same dataset (``*_ratio_<baseline>``).
* ``recognition`` (Figure 11): 1-NN test ``accuracy`` (%) per (dataset, method, seed,
  dimension); per (dataset, method, seed): ``best_accuracy`` (the accuracy at the dimension
  where the method's mean curve peaks), ``fluctuation`` (the seed's curve, on the dimensions
  the methods whose curves go beyond C-1 share), ``near_best_dim`` (the lowest dimension
  within ``within`` points of the seed's best), ``max_dim_minus_c1`` (largest dimension minus
  C-1; only where some method's curve goes beyond C-1, else the grid ends every curve) and
  ``mean_iterations`` (non-nested methods) and ``cv_value`` (the parameter value chosen by the
  replication's cross-validation, for methods with ``cv``). A sensitivity method (``DEE (λ=10)``) becomes
  method ``DEE`` of its own variant, beside copies of the other methods' rows.
* ``visualisation`` (Figures 7-10): ``loo_1nn`` and ``within_between`` of each 2-D embedding.

Measured seconds vary run to run: they go to a separate frame whose file name holds
``timing`` (:data:`graphdr.pipeline.papers.dee_runs.TIMING_MARK`), so ``dee_results.csv``
stays byte-identical.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from graphdr.ledger import PRIMARY, RESULT_COLUMNS
from graphdr.pipeline import io
from graphdr.pipeline.papers.dee import read_run
from graphdr.pipeline.papers.dee_compare_report import fluctuation, separation_scores
from graphdr.pipeline.papers.dee_runs import start_records

__all__ = [
    "LEVELS",
    "equal_accuracy_table",
    "write_equal_accuracy_tables",
    "PAPER",
    "TIMING_METRICS",
    "optimizer_rows",
    "recognition_rows",
    "results_frame",
    "visualisation_rows",
]

PAPER = "dee"
#: relative gaps (E - E*) / E* at which optimisers are compared "at equal accuracy"
LEVELS = ("1e-2", "1e-3", "1e-4")
#: metrics of the optimiser study that hold measured seconds (the timing frame)
TIMING_METRICS = (
    "seconds",
    "setup_seconds",
    "direction_seconds",
    "seconds_per_iteration",
    *(f"seconds_to_{lv}" for lv in LEVELS),
)


def _row(study, variant, dataset, method, metric, value, *, split="0", dimension="", clf=""):
    return {
        "paper": PAPER,
        "study": study,
        "variant": variant,
        "dataset": dataset,
        "method": method,
        "classifier": clf,
        "dimension": str(dimension),
        "split": str(split),
        "metric": metric,
        "value": float(value),
    }


# ---- optimisers (Figures 2-6) --------------------------------------------------------------


def _first_reached(E: np.ndarray, best: float, level: float, n_iter: int) -> int:
    """First iteration whose E is within a relative ``level`` of ``best`` (``n_iter + 1``, a
    lower bound, when never)."""
    reached = np.flatnonzero((E - best) <= level * abs(best))
    return int(reached[0]) if reached.size else n_iter + 1


def optimizer_rows(
    runs: Mapping[tuple[str, str, str], tuple[str | os.PathLike, str | os.PathLike]],
    *,
    baseline: str,
) -> pd.DataFrame:
    """Rows of the optimiser study. ``runs`` maps ``(variant, dataset, optimiser)`` labels to
    ``(result npz, timing json)`` (:mod:`graphdr.pipeline.papers.dee_runs`); ``baseline`` is the
    optimiser the ratios divide by (LD). One ``split`` per random start (its seed); E* is the
    lowest objective any optimiser reaches from that start."""
    loaded = {key: start_records(read_run(*paths)) for key, paths in runs.items()}
    rows = []
    groups: dict[tuple[str, str], list[str]] = {}
    for variant, dataset, optimizer in loaded:
        groups.setdefault((variant, dataset), []).append(optimizer)
    for (variant, dataset), optimizers in groups.items():
        by_seed: dict[int, dict[str, dict]] = {}
        for o in optimizers:
            for rec in loaded[(variant, dataset, o)]:
                by_seed.setdefault(rec["seed"], {})[o] = rec
        for seed, runs_here in sorted(by_seed.items()):
            rows += _optimizer_start_rows(variant, dataset, seed, runs_here, baseline)
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))


def _optimizer_start_rows(variant, dataset, seed, runs_here, baseline) -> list[dict]:
    best = min(float(np.min(r["objective"])) for r in runs_here.values())
    rows, measured = [], {}
    for o, run in runs_here.items():
        E, n_iter = run["objective"], run["n_iter"]
        first = {lv: _first_reached(E, best, float(lv), n_iter) for lv in LEVELS}
        values = {
            "iterations": n_iter,
            "log2_iterations": np.log2(max(n_iter, 1)),
            "objective": E[-1],
            "objective_gap": (E[-1] - best) / abs(best) if best != 0 else 0.0,
            "converged": float(run["converged"]),
            **{f"iterations_to_{lv}": k for lv, k in first.items()},
            **{f"reached_{lv}": float(k <= n_iter) for lv, k in first.items()},
            **separation_scores(run["Z"], run["y"]),
        }
        timing = run["timing"]
        per_iter = np.asarray(timing.get("iteration_seconds", [0.0]), dtype=float)
        phases = timing.get("phases", {})
        own_setup = float(phases.get("direction", 0.0))
        measured[o] = {
            "seconds": float(timing.get("fit_seconds", np.nan)),
            "setup_seconds": float(phases.get("setup", np.nan)),
            "direction_seconds": own_setup,
            "seconds_per_iteration": float(per_iter[1:].mean()) if n_iter else 0.0,
            **{
                f"seconds_to_{lv}": own_setup + float(per_iter[: min(k, n_iter) + 1].sum())
                for lv, k in first.items()
            },
        }
        rows += [
            _row("optimizers", variant, dataset, o, m, v, split=seed, dimension=2,
                 clf="1nn" if m == "loo_1nn" else "")
            for m, v in values.items()
        ]  # fmt: skip
    for o, values in measured.items():
        rows += [
            _row("optimizers", variant, dataset, o, m, v, split=seed, dimension=2)
            for m, v in values.items()
        ]
        if baseline in measured:
            for m in ("seconds", *(f"seconds_to_{lv}" for lv in LEVELS)):
                ratio = values[m] / measured[baseline][m]
                name = f"{m}_ratio_{baseline.lower()}"
                rows.append(_row("optimizers", variant, dataset, o, name, ratio, split=seed,
                                 dimension=2))  # fmt: skip
    return rows


def equal_accuracy_table(frame: pd.DataFrame, timing: pd.DataFrame) -> pd.DataFrame:
    """Median [min-max] over the random starts of the iterations and measured seconds (the
    optimiser's own set-up included, the shared set-up excluded) to each equal-accuracy level,
    with the relE-stop iterations and the shared set-up seconds for reference; one row per
    (variant, dataset, optimiser)."""
    both = pd.concat([frame, timing], ignore_index=True)
    both = both[both["study"] == "optimizers"]
    metrics = [
        *(f"iterations_to_{lv}" for lv in LEVELS),
        *(f"seconds_to_{lv}" for lv in LEVELS),
        "iterations",
        "setup_seconds",
    ]
    out = []
    for (variant, dataset, method), part in both.groupby(
        ["variant", "dataset", "method"], sort=False
    ):
        row = {"variant": variant, "dataset": dataset, "optimiser": method}
        row["starts"] = part["split"].nunique()
        for m in metrics:
            v = part.loc[part["metric"] == m, "value"].to_numpy(dtype=float)
            if not v.size:
                continue
            fmt = "{:.0f}" if not m.startswith(("seconds", "setup")) else "{:.3g}"
            row[m] = f"{fmt.format(np.median(v))} [{fmt.format(v.min())}-{fmt.format(v.max())}]"
            if m.startswith("iterations_to_"):
                lv = m.removeprefix("iterations_to_")
                hit = part.loc[part["metric"] == f"reached_{lv}", "value"].to_numpy()
                if hit.size and hit.min() < 1:
                    row[m] += f" ({int(hit.size - hit.sum())} not reached)"
        out.append(row)
    return pd.DataFrame(out)


def write_equal_accuracy_tables(frame, timing, stem, timing_stem) -> None:
    """The equal-accuracy table split in its deterministic part (iterations, ``stem``) and its
    measured part (seconds, ``timing_stem``: a timing file), each as .csv/.md/.tex."""
    from graphdr import reporting

    table = equal_accuracy_table(frame, timing)
    keys = ["variant", "dataset", "optimiser", "starts"]
    iters = [c for c in table.columns if c.startswith("iterations")]
    secs = [c for c in table.columns if c.startswith(("seconds", "setup"))]
    levels = ", ".join(LEVELS)
    reporting.write_table(
        table[keys + iters],
        stem,
        caption=(
            "DEE optimisers at equal accuracy: iterations until (E - E*)/E* <= "
            f"{levels}, E* the lowest objective any optimiser reaches from the same random "
            "start; median [min-max] over the starts ('not reached': counted one past the "
            "last iteration, a lower bound); `iterations`: at the relE stopping rule, for "
            "reference."
        ),
    )
    reporting.write_table(
        table[keys + secs],
        timing_stem,
        caption=(
            "DEE optimisers at equal accuracy, MEASURED seconds (this machine, shared): the "
            "optimiser's own set-up (LD/FP matrix and Cholesky) plus its iterations up to each "
            "level; `setup_seconds`: the set-up every optimiser shares (distances, weights, "
            "PCA), excluded from the others. Median [min-max] over the starts."
        ),
    )


# ---- recognition (Figure 11) -----------------------------------------------------------------


def recognition_rows(
    runs: Iterable[tuple[str, str, str, str | os.PathLike]], *, within: float = 1.0
) -> pd.DataFrame:
    """Rows of Figure 11. ``runs``: ``(variant, dataset, method, run CSV)``
    (:func:`graphdr.pipeline.papers.dee_compare.recognition_run`); a variant other than
    ``primary`` holds only the methods it changes: the other methods' rows of the same dataset
    are copied into it (a sensitivity run changes one setting of one method). ``within``: the
    tolerance in points of :func:`near_best_dim`-style plateaus."""
    runs = list(runs)
    curves = []
    for variant, dataset, method, path in runs:
        run = pd.read_csv(path)
        curves.append(run.assign(variant=variant, dataset=dataset, method=method))
    if not curves:
        return pd.DataFrame(columns=list(RESULT_COLUMNS))
    frame = pd.concat(curves, ignore_index=True)
    frame["accuracy"] = 100.0 * frame["accuracy"]
    frame = _complete_variants(frame)
    rows = []
    for (variant, dataset), part in frame.groupby(["variant", "dataset"], sort=False):
        rows += _recognition_dataset(variant, dataset, part, within)
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))


def _recognition_dataset(variant, dataset, part: pd.DataFrame, within: float) -> list[dict]:
    rows = []
    top = part.groupby("method")["dim"].max()
    # the methods free in their dimension (not stopped at C-1 like DCV): their curves are
    # compared on the dimensions they share
    uncapped = top[top > int(part["n_classes"].max()) - 1].index
    uncapped = uncapped if len(uncapped) else top.index
    # a one-point curve (the raw 1-NN baseline, at the pixel dimension) shares no dimension
    n_dims = part.groupby("method")["dim"].nunique()
    uncapped = uncapped[n_dims[uncapped].to_numpy() > 1]
    shared = None
    for m in uncapped:
        dims = set(part.loc[part["method"] == m, "dim"])
        shared = dims if shared is None else shared & dims
    for method, curve in part.groupby("method", sort=False):
        mean = curve.groupby("dim")["accuracy"].mean()
        best_dim = int(mean.idxmax())  # the lowest such dimension on a tie
        for seed, c in curve.groupby("seed", sort=True):
            c = c.sort_values("dim")
            acc = c.set_index("dim")["accuracy"]
            n_classes = int(c["n_classes"].max())
            on_shared = acc[acc.index.isin(shared)] if method in uncapped else acc
            derived = {
                "best_accuracy": acc.get(best_dim, np.nan),
                "fluctuation": fluctuation(on_shared.to_numpy()),
                "near_best_dim": int(acc.index[acc >= acc.max() - within].min()),
            }
            if top.max() > n_classes - 1:  # else the grid, not the method, ends the curves
                derived["max_dim_minus_c1"] = int(acc.index.max()) - (n_classes - 1)
            if c["n_iter"].notna().any():
                derived["mean_iterations"] = float(c["n_iter"].mean())
            if "cv_value" in c and c["cv_value"].notna().any():
                derived["cv_value"] = float(c["cv_value"].dropna().iloc[0])
            for d, a in acc.items():
                rows.append(
                    _row("recognition", variant, dataset, method, "accuracy", a, split=seed,
                         dimension=int(d), clf="1nn")
                )  # fmt: skip
            for metric, value in derived.items():
                if np.isnan(value):
                    continue  # a seed without the best dimension (cannot happen on one grid)
                clf = "1nn" if metric in ("best_accuracy", "fluctuation", "near_best_dim") else ""
                rows.append(_row("recognition", variant, dataset, method, metric, value,
                                 split=seed, clf=clf))  # fmt: skip
    return rows


# ---- visualisation (Figures 7-10) ------------------------------------------------------------


def visualisation_rows(
    runs: Iterable[tuple[str, str, str, str | os.PathLike]], *, seed: int = 0
) -> pd.DataFrame:
    """Rows of Figures 7-10: ``runs`` is ``(variant, dataset, method, embedding npz)``. A
    variant other than ``primary`` holds only the methods it changes: the other methods' rows
    of the same dataset are copied into it (as for Figure 11)."""
    rows = []
    for variant, dataset, method, path in runs:
        run = io.read_npz(path)
        for metric, value in separation_scores(run["Z"], run["y"]).items():
            rows.append(
                _row("visualisation", variant, dataset, method, metric, value, split=seed,
                     dimension=2, clf="1nn" if metric == "loo_1nn" else "")
            )  # fmt: skip
    return _complete_variants(pd.DataFrame(rows, columns=list(RESULT_COLUMNS)))


def _complete_variants(frame: pd.DataFrame) -> pd.DataFrame:
    """A variant other than ``primary`` holds only the (dataset, method) pairs it changes: the
    primary rows of every other pair of its datasets' study are copied into it, so that each
    variant is a whole study the ledger can judge like the primary one."""
    primary = frame[frame["variant"] == PRIMARY]
    parts = [frame]
    for variant in sorted(set(frame["variant"]) - {PRIMARY}):
        own = frame[frame["variant"] == variant]
        changed = set(zip(own["dataset"], own["method"], strict=True))
        keep = [
            (d, m) not in changed
            for d, m in zip(primary["dataset"], primary["method"], strict=True)
        ]
        parts.append(primary[keep].assign(variant=variant))
    return pd.concat(parts, ignore_index=True)


# ---- the frame ---------------------------------------------------------------------------------


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    key = ["study", "variant", "dataset", "method", "metric", "classifier", "dimension", "split"]
    out = frame.copy()
    # numeric order of dimensions and splits ("10" after "9"), then text
    for c in ("dimension", "split"):
        out[f"_{c}"] = pd.to_numeric(out[c], errors="coerce").fillna(-1)
    out = out.sort_values(
        [k if k not in ("dimension", "split") else f"_{k}" for k in key], kind="stable"
    )
    return out.drop(columns=["_dimension", "_split"]).reset_index(drop=True)


def results_frame(
    *,
    optimizer_runs: Mapping[tuple[str, str, str], tuple] | None = None,
    baseline: str = "LD",
    recognition_runs: Sequence[tuple[str, str, str, str | os.PathLike]] = (),
    embedding_runs: Sequence[tuple[str, str, str, str | os.PathLike]] = (),
    timing: bool = False,
) -> pd.DataFrame:
    """The tidy results frame of paper 003 (module docstring), sorted. ``timing=False``: the
    deterministic rows only; ``True``: the measured ones only (the timing frame)."""
    parts = []
    if optimizer_runs:
        opt = optimizer_rows(optimizer_runs, baseline=baseline)
        measured = opt["metric"].isin(TIMING_METRICS) | opt["metric"].str.contains("_ratio_")
        parts.append(opt[measured] if timing else opt[~measured])
    if not timing:
        parts.append(recognition_rows(recognition_runs))
        parts.append(visualisation_rows(embedding_runs))
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=list(RESULT_COLUMNS))
    return _sorted(pd.concat(parts, ignore_index=True))
