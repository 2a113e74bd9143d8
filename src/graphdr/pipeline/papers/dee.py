"""Paper 003 (DEE): figures and tables of the optimiser comparison (Figures 2-6).

Reads the runs written by :mod:`graphdr.pipeline.papers.dee_runs`. Outputs whose names contain
``timing`` plot or tabulate wall-clock measurements (see that module).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from graphdr import reporting
from graphdr.pipeline import io

__all__ = [
    "NOT_REPORTED",
    "optimizer_tables",
    "plot_optimizer_study",
    "read_run",
]

#: what the paper's cells that it does not report read as
NOT_REPORTED = "not reported in the paper"


def read_run(result_path: str | os.PathLike, timing_path: str | os.PathLike | None = None):
    """The npz record as a dict, plus ``"timing"`` (the JSON record) when a path is given."""
    run = io.read_npz(result_path)
    if timing_path is not None:
        run["timing"] = json.loads(open(timing_path, encoding="utf-8").read())
    return run


# ---- figures ---------------------------------------------------------------------------------


def plot_embeddings(loaded: Mapping[str, Mapping], titles: Mapping[str, str], suptitle: str, stem):
    """The 2-D embeddings of ``loaded`` (label -> run with ``Z`` and ``y``) side by side, in as
    many rows as keep the figure within the double-column width, one class legend below."""
    from graphdr.plotting import embedding_legend, plot_embedding

    nrows, ncols = reporting.panel_grid(len(loaded))
    with reporting.figure_style(**{"figure.figsize": (2.2 * ncols + 0.4, 2.1 * nrows + 0.6)}):
        fig = reporting.new_figure()
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        for ax, (label, run) in zip(axes, loaded.items(), strict=False):
            plot_embedding(run["Z"], run["y"], ax, legend=False, title=titles[label])
        for ax in axes[len(loaded) :]:
            ax.set_axis_off()
        embedding_legend(axes[0], figure=fig)
        fig.suptitle(suptitle)
        reporting.save_figure(fig, stem)


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
    on the frame of :mod:`graphdr.pipeline.papers.dee_results`), not here.
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
    shown = reporting.paper_vs_reproduced(
        ours, ref, decimals=decimals, layout="rows", row_label="optimiser", missing=NOT_REPORTED
    )
    # the paper's rows come first there: restore the configured optimiser order (blocks of 3)
    # and the configured dataset order of the columns (paper columns come first there too)
    order = {o: i for i, o in enumerate(dict.fromkeys(frame["optimizer"]))}
    block = shown["optimiser"].where(shown["optimiser"] != "").ffill().map(order)
    shown = shown.iloc[np.argsort(block.to_numpy(), kind="stable")].reset_index(drop=True)
    data_columns = list(ours["column"].drop_duplicates())
    return shown[["optimiser", "", *data_columns, "notes"]]
