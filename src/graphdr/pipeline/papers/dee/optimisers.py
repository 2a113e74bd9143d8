"""Paper 003 (DEE), optimiser comparison: one fit per (dataset, optimiser), on every sample.

One *optimiser run* fits one iterative estimator of :mod:`graphdr.methods` (DEE) with one
optimiser on a whole prepared dataset (no split: the paper embeds every sample) and writes:

* ``<run>.npz`` -- the embedding ``Z``, labels ``y``, ``class_names`` and the optimiser's
  record without times (``objective``, ``step``, ``n_evals`` per iteration, ``n_iter``,
  ``converged``, ``stop_message``). The fit is bitwise deterministic (fixed seed, fixed
  summation order), so this file is byte-identical run to run.
* ``<run>.timing.json`` -- the measurements: seconds per iteration (``history_["time"]``),
  ``timings_`` (set-up, direction, iterations) and the fit's wall time. They vary from run to
  run and from machine to machine.

With ``starts > 1`` the run also fits the random starts ``random_state + k``, k = 1..starts-1
(the equal-accuracy comparison needs several starts per dataset): their records are the
``start<k>_*`` arrays of the npz (``Z``, ``objective``, ``n_iter``, ``converged``) and the
``starts`` list of the JSON (one timing record per start, start 0 first); ``starts_seed`` lists
every start's seed. The plain keys are start 0 (the figures' run).

Naming convention: every workflow output whose file name contains ``timing`` holds wall-clock
measurements and is excluded from the byte-identity guarantee (docs/workflow.md); everything
else is deterministic. This module imports no plotting or reporting code, so editing those
re-runs the figures and tables, not the fits.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Mapping

import numpy as np

from graphdr.datasets.prepared import load_npz
from graphdr.methods.registry import estimator_class
from graphdr.pipeline import io

__all__ = ["TIMING_MARK", "is_timing_output", "optimizer_run", "start_records"]

#: substring of the file name of every output that holds wall-clock measurements
TIMING_MARK = "timing"


def is_timing_output(path: str | os.PathLike) -> bool:
    """True for outputs holding wall-clock measurements (name contains :data:`TIMING_MARK`)."""
    return TIMING_MARK in os.path.basename(os.fspath(path))


def optimizer_run(
    prepared: str | os.PathLike,
    *,
    estimator: str,
    params: Mapping,
    optimizer: str,
    result_path: str | os.PathLike,
    timing_path: str | os.PathLike,
    starts: int = 1,
) -> dict:
    """Fit ``estimator(**params, optimizer=optimizer)`` on every sample of ``prepared``, from
    ``starts`` random starts (seeds ``params["random_state"] + k``).

    Writes the deterministic record to ``result_path`` (npz) and the measurements to
    ``timing_path`` (JSON); returns the timing record.
    """
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise ValueError(f"starts must be an integer >= 1, got {starts!r}.")
    dataset = load_npz(prepared)
    make = estimator_class(estimator)
    _warm_up(make, params, optimizer, dataset)
    seed0 = int(params.get("random_state") or 0)
    arrays = {
        "y": dataset.y,
        "class_names": np.asarray(dataset.class_names, dtype=np.str_),
        "starts_seed": np.arange(seed0, seed0 + starts),
    }
    records = []
    for k in range(starts):
        model = make(**(dict(params) | {"optimizer": optimizer, "random_state": seed0 + k}))
        start = time.perf_counter()
        Z = model.fit_transform(dataset.X, dataset.y)
        fit_seconds = time.perf_counter() - start
        history = model.history_
        prefix = "" if k == 0 else f"start{k}_"
        arrays |= {
            f"{prefix}Z": np.asarray(Z, dtype=np.float64),
            f"{prefix}objective": np.asarray(history["objective"], dtype=np.float64),
            f"{prefix}n_iter": np.asarray(model.n_iter_),
            f"{prefix}converged": np.asarray(bool(model.converged_)),
        }
        if k == 0:
            arrays |= {
                "step": np.asarray(history["step"], dtype=np.float64),
                "n_evals": np.asarray(history["n_evals"]),
                "stop_message": np.asarray(str(model.stop_message_), dtype=np.str_),
            }
        records.append(
            {
                "seed": seed0 + k,
                "n_iter": int(model.n_iter_),
                "fit_seconds": fit_seconds,
                "phases": {key: float(v) for key, v in model.timings_.items()},
                "iteration_seconds": [float(t) for t in history["time"]],
            }
        )
    timing = {"optimizer": optimizer, **records[0], "starts": records}
    io.write_npz(result_path, arrays)
    io.write_json(timing, timing_path)
    return timing


def start_records(run: Mapping) -> list[dict]:
    """Every start of a run read by :func:`graphdr.pipeline.papers.dee.report.read_run` (with its
    timing): ``seed, Z, y, objective, n_iter, converged`` and ``timing`` (that start's JSON
    record), start 0 first. Runs written before multi-start records hold one start."""
    seeds = np.asarray(run.get("starts_seed", [0])).tolist()
    timings = run.get("timing", {}).get("starts") or [run.get("timing", {})]
    out = []
    for k, seed in enumerate(seeds):
        prefix = "" if k == 0 else f"start{k}_"
        out.append(
            {
                "seed": int(seed),
                "Z": run[f"{prefix}Z"],
                "y": run["y"],
                "objective": np.asarray(run[f"{prefix}objective"], dtype=float),
                "n_iter": int(run[f"{prefix}n_iter"]),
                "converged": bool(run[f"{prefix}converged"]),
                "timing": timings[k] if k < len(timings) else {},
            }
        )
    return out


def _warm_up(make, params, optimizer, dataset, per_class: int = 5) -> None:
    """A 2-iteration fit on a few samples per class, so the timed fit does not pay the one-off
    load of the compiled numba kernels (about a second per process on this project's machines)."""
    y = dataset.y
    idx = np.concatenate([np.flatnonzero(y == c)[:per_class] for c in np.unique(y)])
    small = dict(params) | {"optimizer": optimizer, "max_iter": 2, "pca": None}
    small["n_components"] = min(int(small.get("n_components", 2)), idx.size - 1)
    with warnings.catch_warnings():  # a tiny subset is ill-posed (few samples): irrelevant here
        warnings.simplefilter("ignore")
        make(**small).fit(dataset.X[idx], y[idx])
