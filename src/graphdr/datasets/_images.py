"""Readers for image sets: MATLAB ``.mat`` files (``fea``/``gnd`` style) and MNIST's IDX files.

Every loader returns images flattened row-major (C order), whatever the file's order, so
``dataset.images()`` is upright. Integer (uint8) pixels are divided by 255 unless ``scale=False``,
so every image set lies in [0, 1]; float pixels are kept as stored.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import scipy.io

from ._build import build, split_from_parts

_IDX_TYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def to_row_major(X: np.ndarray, image_shape, order: str) -> np.ndarray:
    """Rows holding images flattened in ``order`` ("C" or "F") -> rows flattened in C order.

    A column-major row ``r`` of an ``h x w`` image has pixel ``(i, j)`` at ``r[i + j * h]``;
    reading it row-major as ``(w, h)`` and transposing gives the image.
    """
    if order not in ("C", "F"):
        raise ValueError(f"image_order must be 'C' or 'F', got {order!r}.")
    X = np.asarray(X)
    if order == "C" or image_shape is None:
        return X
    n, shape = X.shape[0], tuple(image_shape)
    axes = (0, *range(len(shape), 0, -1))
    return np.ascontiguousarray(X.reshape(n, *shape[::-1]).transpose(axes)).reshape(n, -1)


def scale_pixels(X: np.ndarray, scale: bool) -> np.ndarray:
    """uint8 pixels -> [0, 1] floats (``scale=True``) or 0..255 floats; floats unchanged."""
    if X.dtype == np.uint8 and scale:
        return X.astype(np.float64) / 255.0
    return X.astype(np.float64)


def load_mat(entry: dict, get_paths, *, scale: bool = True):
    """Loader ``mat``: arrays ``x_keys``/``y_keys`` (default ``fea``/``gnd``) of one .mat file.

    Registry settings: ``samples`` ("rows" or "columns": how samples are stored), ``image_shape``,
    ``image_order`` ("C"/"F"), several ``x_keys``/``y_keys`` pairs with ``split_names`` for a
    predefined split, and ``class_order``/``class_names``/``class_name_format``.
    """
    (path,) = get_paths()
    x_keys = entry.get("x_keys", ["fea"])
    y_keys = entry.get("y_keys", ["gnd"])
    contents = scipy.io.loadmat(path, variable_names=[*x_keys, *y_keys])
    missing = [k for k in [*x_keys, *y_keys] if k not in contents]
    if missing:
        raise ValueError(f"{path}: no variables {missing} (registry entry {entry['name']!r}).")
    xs, ys = [], []
    for xk, yk in zip(x_keys, y_keys, strict=True):
        block = contents[xk].T if entry.get("samples", "rows") == "columns" else contents[xk]
        xs.append(scale_pixels(block, scale))
        ys.append(contents[yk].ravel())
    X = to_row_major(np.vstack(xs), entry.get("image_shape"), entry.get("image_order", "C"))
    split = split_from_parts([len(v) for v in ys], entry.get("split_names"))
    return build(entry, X, np.concatenate(ys), split=split)


def read_idx(path: str | Path) -> np.ndarray:
    """Array stored in an IDX file (MNIST format), gzip'd or not.

    Header: two zero bytes, a type code, the number of dimensions, then one big-endian uint32
    per dimension; the data follow in C order.
    """
    path = Path(path)
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rb") if gzipped else open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES:
        raise ValueError(f"{path}: not an IDX file (header {data[:4].hex()}).")
    ndim = data[3]
    dims = struct.unpack(f">{ndim}I", data[4 : 4 + 4 * ndim])
    dtype = _IDX_TYPES[data[2]]
    arr = np.frombuffer(data, dtype=dtype, offset=4 + 4 * ndim)
    if arr.size != int(np.prod(dims)):
        raise ValueError(
            f"{path}: header announces shape {dims}, the file holds {arr.size} values."
        )
    return arr.reshape(dims).astype(dtype.newbyteorder("="))


def load_mnist_idx(entry: dict, get_paths, *, scale: bool = True):
    """Loader ``mnist_idx``: an images file and a labels file."""
    images_path, labels_path = get_paths()
    images, labels = read_idx(images_path), read_idx(labels_path)
    if images.shape[0] != labels.shape[0]:
        raise ValueError(
            f"{images_path} has {images.shape[0]} images but {labels_path} has {labels.shape[0]} labels."
        )
    X = scale_pixels(images.reshape(images.shape[0], -1), scale)
    return build(entry, X, labels, image_shape=images.shape[1:])
