"""Paper 003 (DEE): every table and figure, and the tidy results frame of the claims ledger.

**Optimiser comparison** (Figures 2-6). Reads the runs written by
:mod:`graphdr.pipeline.papers.dee.optimisers`. Outputs whose names contain ``timing`` plot or
tabulate wall-clock measurements (see that module).

**Method comparisons** (Figures 7-11). Figure 11 (1-NN accuracy against dimension, DEE / DSNE / DCV
/ MMPA) with its best-accuracy table, and Figures 7-10 (2-D embeddings, DEE / DSNE / EE / t-SNE)
with a class separation table. Reads the runs of :mod:`graphdr.pipeline.papers.dee.protocol`; every
output here is deterministic (no measured times). The paper's claims are judged by the claims ledger
(``config/references/dee_claims.csv`` on the frame of :func:`results_frame`).

**Results frame** of the claims ledger (``docs/claims.md``). One long frame (``paper, study,
variant, dataset, method, classifier, dimension, split, metric, value``) built from the runs the
paper's workflow already writes; the ledger (:mod:`graphdr.ledger`) judges
``config/references/dee_claims.csv`` on it. Three studies:

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
``timing`` (:data:`graphdr.pipeline.papers.dee.optimisers.TIMING_MARK`), so ``dee_results.csv``
stays byte-identical.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from graphdr import reporting
from graphdr.ledger.vocabulary import PRIMARY
from graphdr.pipeline import io
from graphdr.pipeline.papers.dee.optimisers import start_records
from graphdr.pipeline.results import complete_variant, result_frame, result_row, sort_results

__all__ = [
    "equal_accuracy_table",
    "fluctuation",
    "LEVELS",
    "NOT_REPORTED",
    "optimizer_rows",
    "optimizer_tables",
    "PAPER",
    "plot_optimizer_study",
    "plot_recognition",
    "plot_visualisation",
    "read_run",
    "recognition_curves",
    "recognition_rows",
    "recognition_tables",
    "results_frame",
    "separation_scores",
    "TIMING_METRICS",
    "visualisation_rows",
    "visualisation_table",
    "write_equal_accuracy_tables",
]

#: what the paper's cells that it does not report read as
NOT_REPORTED = "not reported in the paper"


def read_run(result_path: str | os.PathLike, timing_path: str | os.PathLike | None = None):
    """The npz record as a dict, plus ``"timing"`` (the JSON record) when a path is given."""
    run = io.read_npz(result_path)
    if timing_path is not None:
        run["timing"] = io.read_json(timing_path)
    return run


# ---- figures ---------------------------------------------------------------------------------


def plot_embeddings(loaded: Mapping[str, Mapping], titles: Mapping[str, str], suptitle: str, stem):
    """The 2-D embeddings of ``loaded`` (label -> run with ``Z`` and ``y``) side by side
    (:func:`graphdr.plotting.plot_embedding_panels`)."""
    from graphdr.plotting import plot_embedding_panels

    panels = [(titles[label], run["Z"], run["y"]) for label, run in loaded.items()]
    plot_embedding_panels(panels, stem, suptitle=suptitle)


def _elapsed(timing: Mapping) -> np.ndarray:
    """Seconds since the start of the fit at each history entry (set-up before iteration 0)."""
    setup = sum(v for k, v in timing["phases"].items() if k != "iterations")
    return setup + np.cumsum(timing["iteration_seconds"])


def plot_optimizer_study(
    runs: Mapping[str, tuple[str, str]],
    *,
    dataset: str,
    embeddings_stem: str | os.PathLike,
    objective_stem: str | os.PathLike,
    timing_stem: str | os.PathLike,
) -> None:
    """The three figures of one dataset: embeddings, objective vs iterations, vs seconds.

    ``runs`` maps an optimiser label to ``(result npz, timing json)`` in panel order. The
    first two figures are deterministic; the third plots measured seconds (a ``timing`` file).
    """
    loaded = {label: read_run(*paths) for label, paths in runs.items()}
    titles = {label: f"{label} ({int(run['n_iter'])} it.)" for label, run in loaded.items()}
    plot_embeddings(loaded, titles, f"{dataset}: DEE embeddings by optimiser", embeddings_stem)
    for stem, by_time in ((objective_stem, False), (timing_stem, True)):
        with reporting.figure_style(**{"figure.figsize": (3.6, 2.7)}):
            fig = reporting.new_figure()
            ax = fig.subplots()
            for label, run in loaded.items():
                E = run["objective"]
                x = _elapsed(run["timing"]) if by_time else np.arange(E.size)
                ax.plot(x, E, label=label)
            ax.set_xscale(
                "symlog" if not by_time else "log", **({} if by_time else {"linthresh": 1})
            )
            ax.set_yscale("log")
            ax.set_xlabel("seconds (measured, this machine)" if by_time else "iteration")
            ax.set_ylabel("DEE objective")
            ax.set_title(dataset)
            ax.legend()
            reporting.save_figure(fig, stem)


# ---- tables ----------------------------------------------------------------------------------


def optimizer_tables(
    runs: Mapping[tuple[str, str], tuple[str, str]],
    *,
    reference: str | os.PathLike,
    baseline: str,
    iterations_stem: str | os.PathLike,
    objective_stem: str | os.PathLike,
    timing_stem: str | os.PathLike,
    long_output: str | os.PathLike,
    captions: Mapping[str, str] | None = None,
) -> dict[str, pd.DataFrame]:
    """Iterations, final objective (deterministic) and fit seconds (measured), vs the paper.

    ``runs`` maps ``(dataset label, optimiser label)`` to ``(result npz, timing json)``.
    ``reference`` is a CSV with columns ``table`` (``iterations``, ``seconds`` or
    ``times_baseline``), ``row`` (optimiser label), ``column`` (dataset label) and ``value``:
    the paper's numbers where it gives any; every other cell reads "not reported in the paper".
    ``times_baseline`` is a fit's wall time divided by that of the ``baseline`` optimiser on the
    same dataset. Writes three display tables (.csv/.md/.tex) and the long CSV of the
    deterministic numbers (iterations, final objective, converged); returns the displays.
    The claims about these numbers are judged by the ledger (``config/references/dee_claims.csv``
    on the frame of :mod:`graphdr.pipeline.papers.dee.report`), not here.
    """
    captions = dict(captions or {})
    frame = pd.DataFrame([_record(d, o, *paths) for (d, o), paths in runs.items()])
    io.write_csv(frame.drop(columns="seconds"), long_output)
    base = frame[frame["optimizer"] == baseline].set_index("dataset")["seconds"]
    frame["times_baseline"] = frame["seconds"] / frame["dataset"].map(base)
    paper = pd.read_csv(reference)
    shown = {
        "iterations": _versus(frame, paper, ["iterations"], 0, baseline),
        "objective": frame.pivot(index="optimizer", columns="dataset", values="objective")
        .reindex(index=list(dict.fromkeys(frame["optimizer"])))
        .reindex(columns=list(dict.fromkeys(frame["dataset"])))
        .rename_axis(index="optimiser", columns=None)
        .reset_index(),
    }
    shown["timing"] = _versus(frame, paper, ["seconds", "times_baseline"], 2, baseline)
    stems = {"iterations": iterations_stem, "objective": objective_stem, "timing": timing_stem}
    for key, stem in stems.items():
        fmt = ".6g" if key == "objective" else ".2f"
        reporting.write_table(shown[key], stem, caption=captions.get(key), float_format=fmt)
    return shown


def _record(dataset: str, optimizer: str, result, timing) -> dict:
    run = read_run(result, timing)
    return {
        "dataset": dataset,
        "optimizer": optimizer,
        "iterations": int(run["n_iter"]),
        "objective": float(run["objective"][-1]),
        "converged": bool(run["converged"]),
        "seconds": float(run["timing"]["fit_seconds"]),
    }


#: column suffix of each compared quantity in the display tables
_SUFFIX = {"iterations": "", "seconds": " (s)", "times_baseline": " (x {baseline})"}


def _versus(frame: pd.DataFrame, paper: pd.DataFrame, values, decimals: int, baseline: str):
    """Paper-vs-reproduced display (rows layout) of some columns of ``frame``, dataset-major."""
    ours, ref = [], []
    for dataset in dict.fromkeys(frame["dataset"]):
        rows = frame[frame["dataset"] == dataset]
        for value in values:
            column = dataset + _SUFFIX[value].format(baseline=baseline)
            ours.append(
                pd.DataFrame({"row": rows["optimizer"], "column": column, "value": rows[value]})
            )
            cells = paper[(paper["table"] == value) & (paper["column"] == dataset)]
            ref.append(cells[["row", "value"]].assign(column=column))
    ours = pd.concat(ours, ignore_index=True)
    ref = pd.concat(ref, ignore_index=True)[["row", "column", "value"]]
    return reporting.paper_vs_reproduced(
        ours, ref, decimals=decimals, layout="rows", row_label="optimiser",
        missing=NOT_REPORTED, row_order=list(dict.fromkeys(frame["optimizer"])),
        columns=list(ours["column"].drop_duplicates()),
    )  # fmt: skip


# ---- Figure 11 ------------------------------------------------------------------------------


def recognition_curves(runs: Mapping[tuple[str, str], str | os.PathLike]) -> pd.DataFrame:
    """Mean and std (over replications) of the accuracy per (dataset, method, dim), in %.

    ``runs`` maps ``(dataset label, method label)`` to a recognition-run CSV, in display order.
    Columns: ``dataset, method, dim, mean, std, n_seeds, n_classes, mean_n_iter``.
    """
    parts = []
    for (dataset, method), path in runs.items():
        run = pd.read_csv(path)
        g = run.groupby("dim", sort=True)
        parts.append(
            pd.DataFrame(
                {
                    "dataset": dataset,
                    "method": method,
                    "dim": g["accuracy"].mean().index.astype(int),
                    "mean": 100 * g["accuracy"].mean().to_numpy(),
                    "std": 100 * g["accuracy"].std(ddof=0).to_numpy(),
                    "n_seeds": g["seed"].nunique().to_numpy(),
                    "n_classes": g["n_classes"].max().to_numpy(),
                    "mean_n_iter": g["n_iter"].mean().to_numpy(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _best(curve: pd.DataFrame) -> pd.Series:
    """The row of the highest mean accuracy (the lowest such dimension on a tie)."""
    return curve.loc[curve["mean"].idxmax()]


def fluctuation(mean: np.ndarray) -> float:
    """Movement of a curve beyond one rise to its maximum: total variation - (max - first).

    0 for a non-decreasing curve (a rise, then a plateau); it counts every dip and every fall
    after the peak, so it measures how much the choice of dimension matters past the rise.
    """
    mean = np.asarray(mean, dtype=float)
    if mean.size < 2:
        return 0.0
    tv = np.abs(np.diff(mean)).sum()
    return float(max(tv - (mean.max() - mean[0]), 0.0))  # no -0.0 or -1e-15


def plot_recognition(curves: pd.DataFrame, stem: str | os.PathLike) -> None:
    """Figure 11: one panel per dataset, mean accuracy against dimension with +-1 std bands."""
    datasets = list(dict.fromkeys(curves["dataset"]))
    methods = list(dict.fromkeys(curves["method"]))
    # more methods than colours or markers (sensitivity runs, baselines): cycle them
    colours = dict(zip(methods, itertools.cycle(reporting.OKABE_ITO), strict=False))
    markers = dict(zip(methods, itertools.cycle("osD^v<>p*"), strict=False))
    ncols = min(2, len(datasets))
    nrows = -(-len(datasets) // ncols)
    with reporting.figure_style(**{"figure.figsize": (3.4 * ncols, 2.6 * nrows)}):
        fig = reporting.new_figure()
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        for ax, dataset in zip(axes, datasets, strict=False):
            for method in methods:
                c = curves[(curves["dataset"] == dataset) & (curves["method"] == method)]
                if c.empty:
                    continue
                x, m, s = c["dim"].to_numpy(), c["mean"].to_numpy(), c["std"].to_numpy()
                style = "--" if "baseline" in method else "-"
                ax.plot(x, m, style, marker=markers[method], ms=3, color=colours[method],
                        label=method)  # fmt: skip
                ax.fill_between(x, m - s, m + s, color=colours[method], alpha=0.15, lw=0)
            ax.set_xscale("log")
            ax.set_title(dataset)
            ax.set_xlabel("subspace dimension")
            ax.set_ylabel("1-NN accuracy (%)")
        for ax in axes[len(datasets) :]:
            ax.set_axis_off()
        axes[0].legend(loc="lower right")
        reporting.save_figure(fig, stem)


def recognition_tables(
    runs: Mapping[tuple[str, str], str | os.PathLike],
    *,
    reference: str | os.PathLike,
    figure_stem: str | os.PathLike,
    best_stem: str | os.PathLike,
    curves_output: str | os.PathLike,
    caption: str | None = None,
) -> pd.DataFrame:
    """Figure 11, the per-dimension curves (CSV) and the best-accuracy table.

    ``reference``: CSV with ``table`` (``best_accuracy``), ``row`` (method label), ``column``
    (dataset label), ``value`` (%) and ``source``. The best accuracy is the highest mean over
    replications of the accuracy at one dimension; its std and dimension are shown with it.
    Returns the display table.
    """
    curves = recognition_curves(runs)
    io.write_csv(curves, curves_output)
    plot_recognition(curves, figure_stem)
    best = curves.groupby(["method", "dataset"], sort=False).apply(_best, include_groups=False)
    ours = pd.DataFrame(
        {
            "row": best.index.get_level_values("method"),
            "column": best.index.get_level_values("dataset"),
            "value": best["mean"].to_numpy(),
            "std": best["std"].to_numpy(),
            "detail": [f"d={int(d)}" for d in best["dim"]],
        }
    )
    paper = pd.read_csv(reference)
    paper = paper[paper["table"] == "best_accuracy"][["row", "column", "value"]]
    shown = reporting.paper_vs_reproduced(
        ours, paper, decimals=1, layout="rows", row_label="method", missing=NOT_REPORTED,
        row_order=list(dict.fromkeys(curves["method"])),
        columns=list(dict.fromkeys(curves["dataset"])),
    )  # fmt: skip
    reporting.write_table(shown, best_stem, caption=caption)
    return shown


# ---- Figures 7-10 ---------------------------------------------------------------------------


def separation_scores(Z: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """How well an embedding separates the classes: leave-one-out 1-NN accuracy (%) and the
    ratio of the mean within-class to the mean between-class distance (lower is tighter)."""
    Z = np.asarray(Z, dtype=np.float64)
    sq = np.einsum("ij,ij->i", Z, Z)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2 * Z @ Z.T, 0.0)
    np.fill_diagonal(D2, np.inf)
    loo = float(np.mean(y[np.argmin(D2, axis=1)] == y))
    np.fill_diagonal(D2, 0.0)
    D = np.sqrt(D2)
    same = y[:, None] == y[None, :]
    off = ~np.eye(y.size, dtype=bool)
    ratio = float(D[same & off].mean() / D[~same].mean())
    return {"loo_1nn": 100 * loo, "within_between": ratio}


def plot_visualisation(
    runs: Mapping[str, str | os.PathLike], *, dataset: str, stem: str | os.PathLike
) -> None:
    """One of Figures 7-10: the 2-D embedding of one dataset by each method, side by side."""

    loaded = {label: io.read_npz(path) for label, path in runs.items()}
    titles = {label: label for label in loaded}
    plot_embeddings(loaded, titles, f"{dataset}: 2-D embeddings", stem)


def visualisation_table(
    runs: Mapping[tuple[str, str], str | os.PathLike],
    *,
    stem: str | os.PathLike,
    caption: str | None = None,
) -> pd.DataFrame:
    """Class separation of every 2-D embedding (rows: method; columns: dataset). The paper
    gives no numbers here."""
    records = []
    for (dataset, method), path in runs.items():
        run = io.read_npz(path)
        records.append(
            {"dataset": dataset, "method": method} | separation_scores(run["Z"], run["y"])
        )
    frame = pd.DataFrame(records)
    datasets = list(dict.fromkeys(frame["dataset"]))
    methods = list(dict.fromkeys(frame["method"]))
    shown = pd.DataFrame({"method": methods})
    for d in datasets:
        sub = frame[frame["dataset"] == d].set_index("method")
        shown[f"{d} LOO 1-NN (%)"] = [sub.loc[m, "loo_1nn"] for m in methods]
        shown[f"{d} within/between"] = [sub.loc[m, "within_between"] for m in methods]
    reporting.write_table(shown, stem, caption=caption, float_format=".3g")
    return shown


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
    return result_row(PAPER, study, variant, dataset, method, metric, value, classifier=clf,
                      dimension=str(dimension), split=str(split))  # fmt: skip


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
    ``(result npz, timing json)`` (:mod:`graphdr.pipeline.papers.dee.optimisers`);
    ``baseline`` is the optimiser the ratios divide by (LD). One ``split`` per random start (its
    seed); E* is the lowest objective any optimiser reaches from that start."""
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
    return result_frame(rows)


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
    (:func:`graphdr.pipeline.papers.dee.protocol.recognition_run`); a variant other than
    ``primary`` holds only the methods it changes: the other methods' rows of the same dataset
    are copied into it (a sensitivity run changes one setting of one method). ``within``: the
    tolerance in points of :func:`near_best_dim`-style plateaus."""
    runs = list(runs)
    curves = []
    for variant, dataset, method, path in runs:
        run = pd.read_csv(path)
        curves.append(run.assign(variant=variant, dataset=dataset, method=method))
    if not curves:
        return result_frame()
    frame = pd.concat(curves, ignore_index=True)
    frame["accuracy"] = 100.0 * frame["accuracy"]
    frame = _complete_variants(frame)
    rows = []
    for (variant, dataset), part in frame.groupby(["variant", "dataset"], sort=False):
        rows += _recognition_dataset(variant, dataset, part, within)
    return result_frame(rows)


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
    return _complete_variants(result_frame(rows))


def _complete_variants(frame: pd.DataFrame) -> pd.DataFrame:
    """Every variant other than ``primary`` made a whole study the ledger can judge like the
    primary one: the primary rows of the (dataset, method) pairs it does not change copied into
    it (:func:`graphdr.pipeline.results.complete_variant`)."""
    for variant in sorted(set(frame["variant"]) - {PRIMARY}):
        frame = complete_variant(frame, variant, ["dataset", "method"])
    return frame


# ---- the frame ---------------------------------------------------------------------------------


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
        return result_frame()
    key = ["study", "variant", "dataset", "method", "metric", "classifier", "dimension", "split"]
    return sort_results(pd.concat(parts, ignore_index=True), key, numeric=("dimension", "split"))
