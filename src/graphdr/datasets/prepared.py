"""The one prepared form of every dataset, and its ``.npz`` file.

Conventions shared by every loader:

* ``X`` is ``(n_samples, n_features)`` float64 (float32 only where a generator is asked for it);
  images are flattened row-major (C order), so ``X.reshape(-1, *image_shape)`` shows them upright;
* ``y`` is int64 in ``0..n_classes-1``; ``class_names[k]`` names class ``k``;
* ``split`` maps a predefined split's part (``"train"``, ``"test"``) to row indices, or is None;
* ``sample_variance`` is the per-sample uncertainty when the data carries one: shape ``(n,)``
  (isotropic variance), ``(n, d)`` (diagonal covariance) or ``(n, d, d)`` (full covariance).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace

import numpy as np

_NPZ_VERSION = 1


@dataclass(eq=False)
class Dataset:
    """A labelled dataset ready for an experiment (see the module doc for the conventions)."""

    name: str
    X: np.ndarray
    y: np.ndarray
    class_names: list[str]
    image_shape: tuple[int, ...] | None = None
    split: dict[str, np.ndarray] | None = None
    sample_variance: np.ndarray | None = None
    description: str = ""
    source: str = ""
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        self.X = _check_X(self.X, self.name)
        self.y = _check_y(self.y, self.X.shape[0], len(self.class_names), self.name)
        self.class_names = [str(c) for c in self.class_names]
        if self.image_shape is not None:
            self.image_shape = tuple(int(s) for s in self.image_shape)
            if int(np.prod(self.image_shape)) != self.X.shape[1]:
                raise ValueError(
                    f"{self.name}: image_shape {self.image_shape} holds "
                    f"{int(np.prod(self.image_shape))} pixels, but X has {self.X.shape[1]} columns."
                )
        if self.split is not None:
            self.split = {
                k: _check_index(v, self.X.shape[0], self.name, k) for k, v in self.split.items()
            }
        if self.sample_variance is not None:
            self.sample_variance = _check_variance(self.sample_variance, self.X.shape, self.name)

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_classes(self) -> int:
        return len(self.class_names)

    def images(self) -> np.ndarray:
        """``X`` as an ``(n, *image_shape)`` view (images only)."""
        if self.image_shape is None:
            raise ValueError(f"{self.name} is not an image dataset (image_shape is None).")
        return self.X.reshape(self.n_samples, *self.image_shape)

    def subset(self, indices, *, name: str | None = None) -> Dataset:
        """Rows ``indices`` (class coding and names kept; a predefined split is dropped)."""
        idx = _check_index(indices, self.n_samples, self.name, "subset")
        var = None if self.sample_variance is None else self.sample_variance[idx]
        return replace(
            self,
            name=name or self.name,
            X=self.X[idx],
            y=self.y[idx],
            split=None,
            sample_variance=var,
            info={**self.info, "subset_of": self.name, "n_subset": int(idx.size)},
        )


def _check_X(X, name) -> np.ndarray:
    X = np.asarray(X)
    if X.dtype not in (np.float64, np.float32):
        X = X.astype(np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name}: X must be 2-D (n_samples, n_features), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name}: X contains NaN or inf.")
    return X


def _check_y(y, n, n_classes, name) -> np.ndarray:
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"{name}: y must have shape ({n},) to match X, got {y.shape}.")
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"{name}: y must hold integer class codes, got dtype {y.dtype}.")
    if n and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(
            f"{name}: class codes must lie in 0..{n_classes - 1} (one per class name), "
            f"found {y.min()}..{y.max()}."
        )
    return y.astype(np.int64, copy=False)


def _check_index(idx, n, name, part) -> np.ndarray:
    idx = np.asarray(idx)
    if idx.dtype == bool:
        idx = np.flatnonzero(idx)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"{name}: split {part!r} must be a 1-D integer index array.")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"{name}: split {part!r} has indices outside 0..{n - 1}.")
    return idx.astype(np.int64, copy=False)


def _check_variance(var, shape, name) -> np.ndarray:
    var = np.asarray(var, dtype=np.float64)
    n, d = shape
    if var.shape not in ((n,), (n, d), (n, d, d)):
        raise ValueError(
            f"{name}: sample_variance must have shape ({n},), ({n}, {d}) or ({n}, {d}, {d}), "
            f"got {var.shape}."
        )
    if not np.all(np.isfinite(var)):
        raise ValueError(f"{name}: sample_variance contains NaN or inf.")
    return var


def save_npz(dataset: Dataset, path: str | os.PathLike, *, compress: bool = False) -> None:
    """Write ``dataset`` to ``path`` (``.npz``), byte-for-byte reproducibly.

    Arrays are written in a fixed order (X, y, class_names, image_shape, sample_variance,
    split.<part> sorted, meta). ``numpy.savez`` stamps every member with the fixed zip date
    1980-01-01 (it builds the entries with ``ZipFile.open(name, "w")``), so equal datasets give
    equal bytes; ``test_datasets.py`` checks this with the clock moved. Metadata is a JSON
    string with sorted keys.
    """
    arrays: dict[str, np.ndarray] = {
        "X": dataset.X,
        "y": dataset.y,
        "class_names": np.asarray(dataset.class_names, dtype=np.str_),
        "image_shape": np.asarray(dataset.image_shape or (), dtype=np.int64),
    }
    if dataset.sample_variance is not None:
        arrays["sample_variance"] = dataset.sample_variance
    for part in sorted(dataset.split or {}):
        arrays[f"split.{part}"] = dataset.split[part]
    meta = {
        "format_version": _NPZ_VERSION,
        "name": dataset.name,
        "description": dataset.description,
        "source": dataset.source,
        "has_image_shape": dataset.image_shape is not None,
        "has_split": dataset.split is not None,
        "info": dataset.info,
    }
    arrays["meta"] = np.asarray(json.dumps(meta, sort_keys=True))
    writer = np.savez_compressed if compress else np.savez
    with open(path, "wb") as fh:
        writer(fh, allow_pickle=False, **arrays)


def load_npz(path: str | os.PathLike) -> Dataset:
    """Read a file written by :func:`save_npz`."""
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(str(npz["meta"]))
        if meta.get("format_version") != _NPZ_VERSION:
            raise ValueError(
                f"{path}: prepared-dataset format version {meta.get('format_version')!r}, "
                f"expected {_NPZ_VERSION}; re-create it with graphdr.datasets.save_npz."
            )
        split = None
        if meta["has_split"]:
            split = {k[len("split.") :]: npz[k] for k in npz.files if k.startswith("split.")}
        return Dataset(
            name=meta["name"],
            X=npz["X"],
            y=npz["y"],
            class_names=[str(c) for c in npz["class_names"]],
            image_shape=tuple(npz["image_shape"]) if meta["has_image_shape"] else None,
            split=split,
            sample_variance=npz["sample_variance"] if "sample_variance" in npz.files else None,
            description=meta["description"],
            source=meta["source"],
            info=meta["info"],
        )
