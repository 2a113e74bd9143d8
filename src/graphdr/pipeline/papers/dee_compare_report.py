"""Paper 003 (DEE): figures, tables and claim verdicts of the method comparisons.

Figure 11 (1-NN accuracy against dimension, DEE / DSNE / DCV / MMPA) with its best-accuracy
table and verdicts, and Figures 7-10 (2-D embeddings, DEE / DSNE / EE / t-SNE) with a class
separation table. Reads the runs of :mod:`graphdr.pipeline.papers.dee_compare`; every output
here is deterministic (no measured times).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from graphdr import reporting
from graphdr.pipeline import io

__all__ = [
    "fluctuation",
    "near_best_dim",
    "plot_recognition",
    "plot_visualisation",
    "recognition_claims",
    "recognition_curves",
    "recognition_tables",
    "separation_scores",
    "visualisation_table",
]

#: the four methods of Figure 11, whose labels the claims look up
CLAIM_METHODS = ("DEE", "DSNE", "DCV", "MMPA")

#: cells the paper does not give a number for
NOT_REPORTED = "not reported in the paper"


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


def near_best_dim(curve: pd.DataFrame, within: float = 1.0) -> int:
    """The lowest dimension whose mean accuracy is within ``within`` points of the curve's best."""
    return int(curve.loc[curve["mean"] >= curve["mean"].max() - within, "dim"].min())


def plot_recognition(curves: pd.DataFrame, stem: str | os.PathLike) -> None:
    """Figure 11: one panel per dataset, mean accuracy against dimension with +-1 std bands."""
    datasets = list(dict.fromkeys(curves["dataset"]))
    methods = list(dict.fromkeys(curves["method"]))
    colours = dict(zip(methods, reporting.OKABE_ITO, strict=False))
    markers = dict(zip(methods, "osD^v<>", strict=False))
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
                ax.plot(x, m, marker=markers[method], ms=3, color=colours[method], label=method)
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
    claims_output: str | os.PathLike,
    caption: str | None = None,
) -> pd.DataFrame:
    """Figure 11, the per-dimension curves (CSV), the best-accuracy table and the verdicts.

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
        ours, paper, decimals=1, layout="rows", row_label="method", missing=NOT_REPORTED
    )
    # paper rows and columns come first there: restore the configured orders
    order = {m: i for i, m in enumerate(dict.fromkeys(curves["method"]))}
    block = shown["method"].where(shown["method"] != "").ffill().map(order)
    shown = shown.iloc[np.argsort(block.to_numpy(), kind="stable")].reset_index(drop=True)
    columns = list(dict.fromkeys(curves["dataset"]))
    shown = shown[["method", "", *columns, "notes"]]
    reporting.write_table(shown, best_stem, caption=caption)
    recognition_claims(curves, paper, claims_output)
    return shown


def _verdict(hits: int, total: int) -> str:
    return "reproduced" if hits == total else ("partly reproduced" if hits else "not reproduced")


def recognition_claims(
    curves: pd.DataFrame,
    paper: pd.DataFrame,
    output: str | os.PathLike,
    *,
    close: float = 2.0,
    within: float = 1.0,
    names: Mapping[str, str] | None = None,
) -> str:
    """Markdown verdict per claim of the paper about Figure 11, every number from the curves.

    Methods are found by their labels ``DEE``, ``DSNE``, ``DCV``, ``MMPA`` (``names`` maps
    other labels onto these); other curves (sensitivity variants) are left out of the claims.
    ``close``: the largest gap in points for "very close" accuracies; ``within``: the tolerance
    of "reaches its best" (:func:`near_best_dim`). Smoothness is :func:`fluctuation`.
    """
    rename = {v: k for k, v in (names or {}).items()}
    curves = curves.assign(method=curves["method"].replace(rename))
    curves = curves[curves["method"].isin(CLAIM_METHODS)]  # not the sensitivity variants
    by = {
        d: {m: c.reset_index(drop=True) for m, c in g.groupby("method", sort=False)}
        for d, g in curves.groupby("dataset", sort=False)
    }
    n = len(by)
    best = {d: {m: _best(c) for m, c in g.items()} for d, g in by.items()}
    lines = [
        f"Claims of the paper about Figure 11 (1-NN accuracy, %), checked on {n} datasets.",
        "",
    ]

    hits = [
        d
        for d, g in by.items()
        if int(g["DCV"]["dim"].max()) == int(g["DCV"]["n_classes"].max()) - 1
    ]
    lines.append(
        f"* DCV's subspace stops at C-1 dimensions: {_verdict(len(hits), n)} on {len(hits)}/{n} "
        "datasets ("
        + ", ".join(
            f"{d}: {int(g['DCV']['dim'].max())} (C-1 = {int(g['DCV']['n_classes'].max()) - 1})"
            for d, g in by.items()
        )
        + ")."
    )
    ref = paper[(paper["row"] == "DCV")]
    for _, cell in ref.iterrows():
        d = cell["column"]
        if d not in best:
            continue
        dcv = best[d]["DCV"]["mean"]
        others = {m: b["mean"] for m, b in best[d].items() if m != "DCV"}
        worst = all(dcv < v for v in others.values())
        lines.append(
            f"* {d}: DCV's best accuracy is the worst of the four: "
            f"{'reproduced' if worst else 'not reproduced'} (DCV {dcv:.1f}; "
            + ", ".join(f"{m} {v:.1f}" for m, v in others.items())
            + f"); its value: paper {cell['value']:g}, ours {dcv:.1f} "
            f"(ours - paper = {dcv - cell['value']:+.1f} points)."
        )
    above = [d for d in by if best[d]["DSNE"]["mean"] > best[d]["DCV"]["mean"]]
    lines.append(
        f"* DSNE is (a little) better than DCV at its best: {_verdict(len(above), n)} on "
        f"{len(above)}/{n} datasets ("
        + ", ".join(
            f"{d}: DSNE {best[d]['DSNE']['mean']:.1f}, DCV {best[d]['DCV']['mean']:.1f}" for d in by
        )
        + ")."
    )
    wiggly = [
        d for d, g in by.items() if _fluct(g, "DSNE") > max(_fluct(g, "DEE"), _fluct(g, "MMPA"))
    ]
    lines.append(
        "* DSNE's curve fluctuates more than DEE's and MMPA's (movement beyond one rise, "
        f"points): {_verdict(len(wiggly), n)} on {len(wiggly)}/{n} datasets ("
        + ", ".join(
            f"{d}: " + " / ".join(f"{m} {_fluct(g, m):.1f}" for m in ("DSNE", "DEE", "MMPA"))
            for d, g in by.items()
        )
        + ")."
    )
    top = [
        d
        for d in by
        if set(sorted(best[d], key=lambda m: -best[d][m]["mean"])[:2]) == {"DEE", "MMPA"}
    ]
    lines.append(
        f"* DEE and MMPA reach the two highest accuracies: {_verdict(len(top), n)} on "
        f"{len(top)}/{n} datasets ("
        + ", ".join(
            f"{d}: "
            + " > ".join(
                f"{m} {best[d][m]['mean']:.1f}"
                for m in sorted(best[d], key=lambda m: -best[d][m]["mean"])
            )
            for d in by
        )
        + ")."
    )
    near = [d for d in by if abs(best[d]["DEE"]["mean"] - best[d]["MMPA"]["mean"]) <= close]
    lines.append(
        f"* DEE's and MMPA's best accuracies are very close (within {close:g} points): "
        f"{_verdict(len(near), n)} on {len(near)}/{n} datasets ("
        + ", ".join(f"{d}: {best[d]['DEE']['mean'] - best[d]['MMPA']['mean']:+.1f}" for d in by)
        + " = DEE - MMPA)."
    )
    smooth = [d for d, g in by.items() if _fluct(g, "DEE") < _fluct(g, "MMPA")]
    lines.append(
        f"* DEE's curve is smoother than MMPA's (movement beyond one rise, points): "
        f"{_verdict(len(smooth), n)} on {len(smooth)}/{n} datasets ("
        + ", ".join(
            f"{d}: DEE {_fluct(g, 'DEE'):.1f} / MMPA {_fluct(g, 'MMPA'):.1f}" for d, g in by.items()
        )
        + ")."
    )
    lower = [d for d in by if best[d]["DEE"]["dim"] < best[d]["MMPA"]["dim"]]
    lines.append(
        f"* DEE reaches its best accuracy at a lower dimension than MMPA (argmax of the mean "
        f"curve): {_verdict(len(lower), n)} on {len(lower)}/{n} datasets ("
        + ", ".join(
            f"{d}: DEE d={int(best[d]['DEE']['dim'])}, MMPA d={int(best[d]['MMPA']['dim'])}"
            for d in by
        )
        + ")."
    )
    near = {d: {m: near_best_dim(g[m], within) for m in ("DEE", "MMPA")} for d, g in by.items()}
    lower = [d for d in by if near[d]["DEE"] < near[d]["MMPA"]]
    lines.append(
        f"* The same, with the lowest dimension within {within:g} point(s) of each curve's best "
        f"(plateaus make the argmax arbitrary): {_verdict(len(lower), n)} on {len(lower)}/{n} "
        "datasets ("
        + ", ".join(f"{d}: DEE d={near[d]['DEE']}, MMPA d={near[d]['MMPA']}" for d in by)
        + ")."
    )
    text = "\n".join(lines) + "\n"
    io.write_text(text, output)
    return text


def _fluct(group: Mapping[str, pd.DataFrame], method: str) -> float:
    """Fluctuation of a method's mean curve on the dimensions DEE, DSNE and MMPA all have."""
    shared = set(group["DEE"]["dim"]) & set(group["DSNE"]["dim"]) & set(group["MMPA"]["dim"])
    c = group[method]
    return fluctuation(c.loc[c["dim"].isin(shared), "mean"].to_numpy())


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
    from graphdr.pipeline.papers.dee import plot_embeddings

    loaded = {label: io.read_npz(path) for label, path in runs.items()}
    titles = {label: label for label in loaded}
    plot_embeddings(loaded, titles, f"{dataset}: 2-D embeddings", stem)


def visualisation_table(
    runs: Mapping[tuple[str, str], str | os.PathLike],
    *,
    stem: str | os.PathLike,
    claims_output: str | os.PathLike,
    supervised: tuple[str, ...] = ("DEE", "DSNE"),
    caption: str | None = None,
) -> pd.DataFrame:
    """Class separation of every 2-D embedding (rows: method; columns: dataset) and the
    verdicts of the paper's claims about Figures 7-10. The paper gives no numbers here."""
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
    by = {d: frame[frame["dataset"] == d].set_index("method") for d in datasets}
    n = len(by)
    others = [m for m in methods if m not in supervised]
    lines = [
        f"Claims of the paper about Figures 7-10 (2-D embeddings of every sample), checked on "
        f"{n} datasets with two scores: leave-one-out 1-NN accuracy in 2-D (class overlap) and "
        "mean within-class / mean between-class distance (class scatter).",
        "",
    ]
    sep = [
        d
        for d, g in by.items()
        if g.loc[list(supervised), "loo_1nn"].min() > g.loc[others, "loo_1nn"].max()
    ]
    lines.append(
        f"* {' and '.join(supervised)} separate the classes better than "
        f"{' and '.join(others)} (LOO 1-NN): {_verdict(len(sep), n)} on {len(sep)}/{n} datasets ("
        + ", ".join(
            f"{d}: " + ", ".join(f"{m} {g.loc[m, 'loo_1nn']:.1f}" for m in methods)
            for d, g in by.items()
        )
        + ")."
    )
    comparisons = [
        ("loo_1nn", "less class overlap (higher LOO 1-NN)", np.greater),
        ("within_between", "less intraclass scatter (lower within/between)", np.less),
    ]
    a, b = (*supervised, None)[:2]  # the first two supervised methods (DEE vs DSNE)
    for score, word, better in comparisons if b is not None else []:
        hits = [d for d, g in by.items() if better(g.loc[a, score], g.loc[b, score])]
        lines.append(
            f"* {a} shows {word} than {b} (the paper: Figures 7 and 9): "
            f"{_verdict(len(hits), n)} on {len(hits)}/{n} datasets ("
            + ", ".join(
                f"{d}: {a} {g.loc[a, score]:.3g}, {b} {g.loc[b, score]:.3g}" for d, g in by.items()
            )
            + ")."
        )
    text = "\n".join(lines) + "\n"
    io.write_text(text, claims_output)
    return shown
