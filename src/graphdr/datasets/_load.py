"""``load(name)``: registry entry -> loader -> :class:`Dataset`, plus subset helpers."""

from __future__ import annotations

import inspect
import os

import numpy as np
from sklearn.model_selection import train_test_split

from ._awgn import load_awgn_mnist
from ._dataset import Dataset
from ._fetch import fetch
from ._images import load_mat, load_mnist_idx, read_idx
from ._registry import dataset_entry, file_entry
from ._tabular import load_attribute_files, load_csv
from ._user import load_lsu_nmnist, load_user_file
from .synthetic import load_gaussian_mixture, load_sklearn, load_swiss_roll, load_uncertain_toy

LOADERS = {
    "keel": load_attribute_files,
    "arff": load_attribute_files,
    "csv": load_csv,
    "mat": load_mat,
    "mnist_idx": load_mnist_idx,
    "awgn_mnist": load_awgn_mnist,
    "lsu_nmnist": load_lsu_nmnist,
    "user_file": load_user_file,
    "swiss_roll": load_swiss_roll,
    "toy_uncertain": load_uncertain_toy,
    "gaussian_mixture": load_gaussian_mixture,
    "sklearn": load_sklearn,
}


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
    loader = LOADERS.get(entry["loader"])
    if loader is None:
        raise ValueError(
            f"Dataset {name!r} names loader {entry['loader']!r}; known loaders: {sorted(LOADERS)}."
        )
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
    idx, _ = train_test_split(
        np.arange(y.size), train_size=n, stratify=y, random_state=random_state
    )
    return np.sort(idx)


def mnist_subset(n: int, random_state=0, **load_kw) -> Dataset:
    """A seeded stratified subset of ``n`` digits from the MNIST test file (works offline).

    The reproduced papers drew their MNIST subsets from the 60k training set; the offline
    mirror holds only the 10k test images, so experiments draw from those (paper notes say so).
    """
    full = load("mnist", **load_kw)
    idx = stratified_indices(full.y, n, random_state)
    subset = full.subset(idx, name=f"mnist_{n}")
    subset.info = {**subset.info, "random_state": _jsonable(random_state)}
    return subset


def mnist_train_labels(**fetch_kw) -> np.ndarray:
    """The 60000 MNIST training labels (int64), from the mirror's train-labels file."""
    return read_idx(fetch("mnist/train-labels-idx1-ubyte.gz", **fetch_kw)).astype(np.int64)
