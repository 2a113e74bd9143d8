"""``load(name)``: registry entry -> loader -> :class:`Dataset`, plus the stratified subset."""

from __future__ import annotations

import importlib
import inspect
import os

import numpy as np

from ._fetch import fetch
from ._registry import dataset_entry, file_entry
from .prepared import Dataset

# Registry loader name -> "module:function" inside graphdr.datasets. Loaders are imported when
# used, so loading one dataset imports (and, in the workflow, depends on) its loader's module
# only: editing the synthetic generators does not re-run the datasets read from raw files. The
# workflow reads this literal mapping without importing graphdr
# (graphdr.pipeline.codedeps.loader_module): keep it a dict of string literals.
LOADERS = {
    "keel": "_tabular:load_attribute_files",
    "arff": "_tabular:load_attribute_files",
    "csv": "_tabular:load_csv",
    "mat": "_images:load_mat",
    "mnist_idx": "_images:load_mnist_idx",
    "awgn_mnist": "_awgn:load_awgn_mnist",
    "lsu_nmnist": "_user:load_lsu_nmnist",
    "user_file": "_user:load_user_file",
    "swiss_roll": "synthetic:load_swiss_roll",
    "toy_uncertain": "synthetic:load_uncertain_toy",
    "gaussian_mixture": "synthetic:load_gaussian_mixture",
    "sklearn": "_bundled:load_sklearn",
}


def get_loader(name: str):
    """The loader function registered as ``name`` (imported on first use)."""
    if name not in LOADERS:
        raise KeyError(name)
    module, function = LOADERS[name].split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), function)


def loader_options(loader) -> list[str]:
    """Keyword options a loader accepts (everything after ``entry, get_paths``)."""
    return list(inspect.signature(loader).parameters)[2:]


def _jsonable(value):
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def load(
    name: str,
    *,
    mirror: str | os.PathLike | None = None,
    data_home: str | os.PathLike | None = None,
    registry: str | os.PathLike | None = None,
    **options,
) -> Dataset:
    """Load the registered dataset ``name`` in the prepared form.

    ``mirror``/``data_home``/``registry`` are passed to :func:`fetch`; ``options`` go to the
    dataset's loader (e.g. ``scale=False``, ``missing="drop"``, ``path=...``, ``random_state=``);
    ``docs/datasets.md`` lists them. ``dataset.info`` records the loader, the options and the
    sha256 of every file read.
    """
    entry = dataset_entry(name, registry)
    if entry["loader"] not in LOADERS:
        raise ValueError(
            f"Dataset {name!r} names loader {entry['loader']!r}; known loaders: {sorted(LOADERS)}."
        )
    loader = get_loader(entry["loader"])
    accepted = loader_options(loader)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise TypeError(f"load({name!r}) got unknown options {unknown}; it accepts {accepted}.")
    used: dict[str, str] = {}

    def get_paths():
        paths = [
            fetch(f, mirror=mirror, data_home=data_home, registry=registry) for f in entry["files"]
        ]
        used.update({f: file_entry(f, registry)["sha256"] for f in entry["files"]})
        return paths

    dataset = loader(entry, get_paths, **options)
    dataset.info = {
        **dataset.info,
        "loader": entry["loader"],
        "options": {k: _jsonable(v) for k, v in sorted(options.items())},
        "files": used,
    }
    return dataset


def stratified_indices(y, n: int, random_state=0) -> np.ndarray:
    """Sorted indices of a seeded stratified sample of ``n`` rows (class proportions kept)."""
    y = np.asarray(y)
    if not 0 < n <= y.size:
        raise ValueError(f"n={n} must lie in 1..{y.size} (the number of samples).")
    if n == y.size:
        return np.arange(y.size)
    # imported here: scikit-learn costs about 1.5 s of start-up to every workflow job that
    # reaches this module (the data, split and table jobs need no estimator)
    from sklearn.model_selection import train_test_split

    idx, _ = train_test_split(
        np.arange(y.size), train_size=n, stratify=y, random_state=random_state
    )
    return np.sort(idx)
