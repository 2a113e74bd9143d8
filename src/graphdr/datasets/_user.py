"""Datasets that are never downloaded: the user gives a path.

* ``jaffe``, ``cohn_kanade`` (licence-restricted): an ``.npz`` with ``X`` (n, d) and ``y`` (n,)
  (optional ``class_names``, ``image_shape``; images row-major), or a ``.mat`` with ``fea``
  (n, d) and ``gnd`` (n, 1) (images column-major, as MATLAB and Deng Cai's files store them;
  override with ``image_order=``).
* ``nmnist`` / ``awgn_mnist`` with ``path=``: LSU's n-MNIST file, a gzip'd tar holding one .mat
  with ``train_x``, ``train_y`` (one-hot), ``test_x``, ``test_y`` (a bare .mat works too).
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import numpy as np
import scipy.io

from ._build import build, split_from_parts
from ._images import scale_pixels, to_row_major


def require_path(entry: dict, path) -> Path:
    """The user's file, or an error saying how to give it."""
    name = entry["name"]
    if path is None:
        what = entry.get("description", "").rstrip(".")
        raise ValueError(
            f"{name} is not downloadable ({what}). Give your own copy: "
            f"graphdr.datasets.load({name!r}, path='/path/to/file'); in the workflow config, as "
            f"the dataset's loader option: datasets: {{<name>: {{source: {name}, options: "
            "{path: /path/to/file}}}. Accepted formats are listed in docs/datasets.md."
        )
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"{name}: the given file {path} does not exist.")
    return path


def _image_shape(value):
    if value is None:
        return None
    shape = tuple(int(s) for s in np.atleast_1d(value))
    return shape or None


def load_user_file(
    entry: dict, get_paths, *, path=None, image_shape=None, image_order=None, scale=True
):
    """Loader ``user_file``: ``.npz`` (X, y) or ``.mat`` (fea, gnd) given by ``path``."""
    path = require_path(entry, path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        with np.load(path, allow_pickle=False) as npz:
            _require_keys(path, npz.files, ("X", "y"))
            X, raw = npz["X"], npz["y"]
            names = [str(c) for c in npz["class_names"]] if "class_names" in npz.files else None
            if image_shape is None and "image_shape" in npz.files:
                image_shape = npz["image_shape"]
        order = image_order or "C"
    elif suffix == ".mat":
        contents = scipy.io.loadmat(path)
        _require_keys(path, contents, ("fea", "gnd"))
        X, raw, names = contents["fea"], contents["gnd"].ravel(), None
        order = image_order or "F"
    else:
        raise ValueError(
            f"{path}: expected an .npz (X, y) or .mat (fea, gnd) file, got {suffix!r}."
        )
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{path}: X/fea must be 2-D (n_samples, n_features), got {X.shape}.")
    shape = _image_shape(image_shape)
    X = to_row_major(scale_pixels(X, scale), shape, order)
    entry = {**entry, "class_names": names} if names is not None else entry
    return build(entry, X, raw, image_shape=shape)


def _require_keys(path, present, keys):
    missing = [k for k in keys if k not in present]
    if missing:
        raise ValueError(f"{path}: missing arrays {missing}; expected {list(keys)}.")


def read_lsu_mat(path: Path) -> dict:
    """The .mat inside LSU's n-MNIST archive (or a bare .mat) as a dict of arrays."""
    if tarfile.is_tarfile(path):
        with tarfile.open(path, "r:*") as tar:
            members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".mat")]
            if len(members) != 1:
                raise ValueError(
                    f"{path}: expected one .mat inside the archive, found {len(members)}."
                )
            data = tar.extractfile(members[0]).read()
        return scipy.io.loadmat(io.BytesIO(data))
    return scipy.io.loadmat(path)


def _labels_from(array) -> np.ndarray:
    """One-hot rows -> class index; plain label vectors pass through."""
    array = np.asarray(array)
    if array.ndim == 2 and min(array.shape) > 1:
        return np.argmax(array, axis=1)
    return array.ravel()


def load_lsu(entry: dict, path, *, scale: bool = True, image_order: str = "C"):
    """LSU n-MNIST file -> Dataset with the file's train/test split (train rows first)."""
    path = require_path(entry, path)
    contents = read_lsu_mat(path)
    _require_keys(path, contents, ("train_x", "train_y", "test_x", "test_y"))
    xs = [scale_pixels(np.asarray(contents[k]), scale) for k in ("train_x", "test_x")]
    ys = [_labels_from(contents[k]) for k in ("train_y", "test_y")]
    X = to_row_major(np.vstack(xs), (28, 28), image_order)
    split = split_from_parts([len(v) for v in ys], ["train", "test"])
    info = {"origin": f"user file {path.name}"}
    return build(entry, X, np.concatenate(ys), image_shape=(28, 28), split=split, info=info)


def load_lsu_nmnist(
    entry: dict, get_paths, *, path=None, scale: bool = True, image_order: str = "C"
):
    """Loader ``lsu_nmnist``: a user-supplied n-MNIST file (never downloaded)."""
    return load_lsu(entry, path, scale=scale, image_order=image_order)
