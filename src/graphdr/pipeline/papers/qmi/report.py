"""Paper 001 (QMI): the benchmark and face sweeps, their tables and claims, and Figures 1-6.

* :func:`graphdr.pipeline.papers.qmi.protocol.run_sweep` — one dataset, every fold (computed by
  the sweep module, which this one imports only where it fits: the table jobs read the protocol
  from :mod:`~graphdr.pipeline.papers.qmi.settings`): the long error table, a deterministic
  record (sizes, decompositions) and a ``timing`` record;
* :func:`sweep_tables` — one table per classifier (each cell: the minimum over dimensions of the
  fold-averaged error, with that dimension; last row: wins per method within its group),
  Table I (datasets), the sweep's timing summary, the error-vs-dimension figure (faces) and the
  verdict of each claim of the paper (``config/references/qmi_claims.csv``);
* Figures 1-4 (2-D projections) are :mod:`~graphdr.pipeline.papers.qmi.visualise`'s: it fits
  the methods, which this module (tables, figures and claims of computed runs) never imports,
  so the report jobs do not depend on the estimators' code.

The paper's table bodies (Tables I-V, VII-VIII) are lost in the text we have: only the claims
made about them can be checked (see ``paper_figures/qmi/NOTES.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphdr import reporting
from graphdr.pipeline import io
from graphdr.pipeline.papers.qmi import settings as qp
from graphdr.pipeline.papers.qmi.settings import DEFAULTS, protocol
from graphdr.pipeline.results import result_frame, result_row, sort_results

__all__ = [
    "DEFAULTS",
    "results_frame",
    "min_error_table",
    "protocol",
    "classifier_table",
    "plot_curves",
    "study_summary",
    "wins",
]

GROUPS = {"kernel": qp.KERNEL_METHODS, "linear": qp.LINEAR_METHODS}
CLASSIFIER_NAMES = {
    "ncc": "NCC",
    "knn": "3-NN",
    "linear_svm": "linear SVM (C = 100)",
    "rbf_svm": "RBF SVM (C = 100, sigma = 1)",
}


# ---- tables ----------------------------------------------------------------------------------


def min_error_table(errors: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method, classifier): fold-averaged error per dimension, then its minimum
    and the dimension reaching it (ties: the smallest dimension)."""
    mean = errors.groupby(["dataset", "method", "classifier", "dim"], sort=False)["error"].mean()
    mean = mean.reset_index().sort_values(
        ["dataset", "method", "classifier", "error", "dim"], kind="stable"
    )
    best = mean.groupby(["dataset", "method", "classifier"], sort=False).head(1)
    return best.rename(columns={"error": "min_error"}).reset_index(drop=True)


def wins(errors: pd.DataFrame, classifier: str) -> dict[str, int]:
    """Datasets on which each method is best within its group (kernel / linear), at the cell's
    dimension, with the ledger's ties: every method the paired Wilcoxon test over folds
    (Holm-corrected, the ledger's level) cannot separate from the best shares the win."""
    from graphdr.ledger.wins import ALPHA, win_counts

    best = min_error_table(errors)[["dataset", "method", "classifier", "dim"]]
    cell = errors.merge(best, on=["dataset", "method", "classifier", "dim"])
    cell = cell[cell["classifier"] == classifier]
    data = pd.DataFrame(
        {
            "dataset": cell["dataset"],
            "method": cell["method"],
            "split": cell["fold"],
            "value": cell["error"],
        }
    )
    counts = {}
    for members in GROUPS.values():
        present = [m for m in members if m in set(data["method"])]
        if present:
            counts.update(win_counts(data, present, higher_is_better=False, alpha=ALPHA))
    return counts


def _display(errors, classifier, methods, labels) -> pd.DataFrame:
    best = min_error_table(errors)
    sub = best[best["classifier"] == classifier].set_index(["dataset", "method"])
    cell = errors.merge(
        best[["dataset", "method", "classifier", "dim"]],
        on=["dataset", "method", "classifier", "dim"],
    )
    std = cell[cell["classifier"] == classifier].groupby(["dataset", "method"])["error"].std(ddof=1)
    rows = []
    for d in labels:
        row = {"dataset": d}
        for m in methods:
            r = sub.loc[(d, m)]
            row[m] = f"{100 * r['min_error']:.2f} ± {100 * std.loc[(d, m)]:.2f} ({int(r['dim'])})"
        rows.append(row)
    w = wins(errors, classifier)
    rows.append(
        {"dataset": "wins (within group; ties by test)", **{m: str(w.get(m, 0)) for m in methods}}
    )
    return pd.DataFrame(rows)


def _scale_text(cfg: Mapping) -> str:
    rules = {m: cfg["scale"][m] for m in cfg["methods"]}
    if all(rules[m] == qp.OWN_SCALE[m] for m in rules):
        return "by each method's own constraint (NOTES.md)"
    if len(set(rules.values())) == 1:
        return f"uniformly ({next(iter(rules.values())).replace('_', ' ')} columns)"
    return "as " + ", ".join(f"{m} {r.replace('_', ' ')}" for m, r in rules.items())


def load_runs(runs: Mapping[str, Sequence[str]]):
    """(long errors with a ``dataset`` column, records, timings) of a study's runs.

    ``runs`` maps a dataset label to (errors CSV, record JSON, timing JSON), in table order.
    """
    frames, records, timings = [], {}, {}
    for label, (err, rec, tim) in runs.items():
        frames.append(pd.read_csv(err).assign(dataset=label))
        records[label] = io.read_json(rec)
        timings[label] = io.read_json(tim)
    return pd.concat(frames, ignore_index=True), records, timings


def classifier_table(runs, *, cfg: Mapping, classifier: str, name: str, stem) -> pd.DataFrame:
    """One of Tables II-V / VII-VIII: rows datasets, columns methods, cells ``error (dim)``."""
    cfg = protocol(cfg)
    errors, _, _ = load_runs(runs)
    methods = [m for m in cfg["methods"] if m in set(errors["method"])]
    shown = _display(errors, classifier, methods, list(runs))
    caption = (
        f"{name} (reproduced): {CLASSIFIER_NAMES[classifier]} error (%) after each DR method, "
        f"the minimum over dimensions of the mean {cfg['folds']}-fold CV error over "
        f"{cfg['repeats']} repeat(s) (fold seeds {cfg['seed']}..{cfg['seed'] + cfg['repeats'] - 1}),"
        " ± the std over those splits at that dimension, the dimension in parentheses; embeddings "
        f"scaled {_scale_text(cfg)}; last row: datasets won within "
        "the kernel / linear group (methods that a paired Wilcoxon test over the splits, "
        "Holm-corrected at the ledger's level, cannot separate from the best share the win). The "
        "paper's values are not available (table bodies lost in the paper text): see NOTES.md."
    )
    reporting.write_table(shown, stem, caption=caption)
    return shown


def study_summary(
    runs,
    *,
    study: str,
    datasets_stem,
    timing_stem,
    long_output,
    sizes_reference=None,
) -> None:
    """Table I / VI (dataset sizes and decomposition counts), the sweep's measured times and the
    long table of minimum errors (the claims are judged by the ledger on :func:`results_frame`)."""
    errors, records, timings = load_runs(runs)
    best = min_error_table(errors)
    io.write_csv(best, long_output)
    info = pd.DataFrame(
        [
            {
                "dataset": d,
                "n": r["n_samples"],
                "d": r["n_features"],
                "C": r["n_classes"],
                "splits": r["n_folds"],
                "decompositions": r["n_decompositions"],
                "SVM fits capped": r.get("svm_capped", 0),
            }
            for d, r in records.items()
        ]
    )
    if sizes_reference:
        info = _with_paper_sizes(info, pd.read_csv(sizes_reference))
    reporting.write_table(
        info,
        datasets_stem,
        caption=f"Datasets of the {study} sweep: samples n, features d, classes C, CV splits "
        "(repeats x folds), "
        "and the O(N^3) decompositions over all folds (one kernel EVD per fold shared by every "
        "kernel method, plus KLPP's generalised eigenproblem).",
    )
    timing = pd.DataFrame(
        [
            {
                "dataset": d,
                "seconds": t["seconds"],
                "cpu_seconds": t.get("cpu_seconds", np.nan),
                "per_fold": t["seconds"] / max(t["n_folds"], 1),
                "decompositions": records[d]["n_decompositions"],
            }
            for d, t in timings.items()
        ]
    )
    total = {
        "dataset": "total (sum of the per-dataset jobs)",
        "seconds": timing["seconds"].sum(),
        "cpu_seconds": timing["cpu_seconds"].sum(),
        "per_fold": np.nan,
        "decompositions": int(timing["decompositions"].sum()),
    }
    timing = pd.concat([timing, pd.DataFrame([total])], ignore_index=True)
    reporting.write_table(
        timing,
        timing_stem,
        caption="MEASURED on this machine: wall time and CPU time of each dataset's sweep job "
        "(every split, method and classifier; one thread each, two jobs at a time on 2 cores) and "
        "the number of O(N^3) decompositions. The machine was shared with other jobs: CPU "
        "seconds are the load-independent measure (their sum / 2 = the wall time of the sweep "
        "on 2 free cores).",
    )


def _with_paper_sizes(info: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Table VI: the paper's samples and classes next to ours; datasets we lack are listed."""
    cells = paper.set_index(["row", "column"])["value"]
    rows = []
    for name in dict.fromkeys(paper["row"]):
        ours = info[info["dataset"] == name]
        row = {
            "dataset": name,
            "n (paper)": int(cells[(name, "samples")]),
            "C (paper)": int(cells[(name, "classes")]),
        }
        if len(ours):
            row.update(ours.iloc[0].to_dict())
        else:
            row["dataset"] = f"{name} (not available: user-supplied file only)"
        rows.append(row)
    shown = pd.DataFrame(rows)
    order = ["dataset", "n (paper)", "n", "C (paper)", "C", "d", "splits", "decompositions"]
    order += [c for c in shown.columns if c not in order]
    return shown[order].astype({c: "Int64" for c in order[1:]})


# ---- the tidy results frame of the claims ledger ------------------------------------------------


def results_frame(studies: Mapping[str, Mapping], visual: Mapping | None = None) -> pd.DataFrame:
    """Paper 001's tidy results frame (``docs/claims.md``): one row per fold.

    ``studies`` maps a study name to ``{"runs": <as load_runs>, "sensitivity_of": str | None}``;
    a study with ``sensitivity_of`` enters as that study's variant named after itself. Metrics
    (percent): ``error`` — each fold's error at the dimension of the table cell (the minimum of
    the fold-averaged curve, ties: the smallest dimension); ``curve_mean_error`` — each fold's
    mean error over the dimension curve (Figures 5-6: the whole curve, not its best point);
    ``angle_<A>_<B>_deg`` — each fold's largest principal angle between the training embeddings
    of two methods that coincide by construction (the ledger's equivalence diagnostic);
    ``kernel_rank_fraction`` (method ``kernel``) — the kept eigenpairs of each fold's centred
    training kernel over the N - 1 it can have (1: full rank, where KQMI and GDA coincide).
    ``visual`` maps a dataset label to the scores CSV of :func:`visualise`: study
    ``visualisation``, metric ``loo_1nn_error`` (percent), one row per held-out half.
    """
    parts = []
    for name, spec in studies.items():
        errors, records, _ = load_runs(spec["runs"])
        base = spec.get("sensitivity_of") or name
        variant = name if spec.get("sensitivity_of") else "primary"
        best = min_error_table(errors)[["dataset", "method", "classifier", "dim"]]
        cell = errors.merge(best, on=["dataset", "method", "classifier", "dim"])
        cell = cell.assign(metric="error", value=100.0 * cell["error"])
        curve = errors.groupby(["dataset", "method", "classifier", "fold"], sort=False)["error"]
        curve = curve.mean().reset_index().assign(dim="", metric="curve_mean_error")
        curve["value"] = 100.0 * curve.pop("error")
        for frame in (cell, curve):
            parts.append(
                result_frame(
                    paper="qmi",
                    study=base,
                    variant=variant,
                    dataset=frame["dataset"],
                    method=frame["method"],
                    classifier=frame["classifier"],
                    dimension=frame["dim"].astype(str),
                    split=frame["fold"].astype(int).astype(str),
                    metric=frame["metric"],
                    value=frame["value"],
                )
            )
        angles = [
            result_row(
                "qmi",
                base,
                variant,
                d,
                pair.split("~")[0],
                f"angle_{pair.replace('~', '_')}_deg",
                angle,
                split=str(fold),
            )
            for d, rec in records.items()
            for pair, per_fold in rec.get("subspace_angles_deg", {}).items()
            for fold, angle in enumerate(per_fold)
        ]
        ranks = [
            result_row(
                "qmi", base, variant, d, "kernel", "kernel_rank_fraction", value, split=str(fold)
            )
            for d, rec in records.items()
            for fold, value in enumerate(rec.get("kernel_rank_fraction", []))
        ]
        parts.append(result_frame(angles + ranks))
    for label, path in (visual or {}).items():
        sc = pd.read_csv(path)
        parts.append(
            result_frame(
                paper="qmi",
                study="visualisation",
                variant="primary",
                dataset=label,
                method=sc["method"],
                dimension="2",
                split=sc["split"].astype(int).astype(str),
                metric="loo_1nn_error",
                value=sc["loo_1nn_error"],
            )
        )
    keys = ["study", "variant", "metric", "classifier", "dataset", "method", "split"]
    return sort_results(pd.concat(parts, ignore_index=True), keys, numeric=("split",))


# ---- figures ---------------------------------------------------------------------------------


def plot_curves(runs, cfg: Mapping, classifier: str, stem) -> None:
    """Fold-averaged error against dimension (Figures 5-6), one panel per dataset."""
    cfg = protocol(cfg)
    errors = load_runs(runs)[0]
    sub = errors[errors["classifier"] == classifier]
    datasets = list(dict.fromkeys(sub["dataset"]))
    methods = [m for m in cfg["methods"] if m in set(sub["method"])]
    size = (3.2 * len(datasets) + 0.4, 2.9)
    with reporting.figure_style(**{"figure.figsize": size}):
        fig = reporting.new_figure()
        axes = fig.subplots(1, len(datasets), squeeze=False)[0]
        for ax, d in zip(axes, datasets, strict=True):
            part = sub[sub["dataset"] == d]
            for i, m in enumerate(methods):
                curve = part[part["method"] == m].groupby("dim")["error"].mean()
                style = "-" if m in qp.KERNEL_METHODS else "--"
                ax.plot(curve.index, 100 * curve.to_numpy(), style, label=m, lw=1, color=f"C{i}")
            ax.set_title(d)
            ax.set_xlabel("dimension")
            ax.set_ylabel(f"{CLASSIFIER_NAMES[classifier]} error (%)")
        axes[-1].legend(fontsize=6, ncol=2)
        reporting.save_figure(fig, stem)
