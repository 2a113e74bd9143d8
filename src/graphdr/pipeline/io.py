"""Atomic, byte-deterministic writers for every workflow output.

Atomic: each writer writes a hidden temporary file in the destination directory and moves it into
place with ``os.replace`` (atomic on POSIX within one file system), so a killed job never leaves a
truncated file that looks complete; the next writer of the same output removes what a killed one
left behind. Deterministic: no writer embeds a timestamp, a host name or a
random name in the bytes, so the same inputs give byte-identical files.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from graphdr._files import (  # noqa: F401 - re-exported: the workflow's writers are all here
    atomic_path,
    atomic_stem,
    shared_file_mode,
    write_text,
)

# Fixed member date of every .npz (the earliest a zip can hold): numpy's own ``savez`` stamps the
# current time, which makes two identical runs differ byte-wise.
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def write_npz(path: str | os.PathLike, arrays: Mapping[str, object]) -> None:
    """Write ``arrays`` as an ``.npz`` readable by ``numpy.load``, atomically, without timestamps.

    Members are stored in the given order, deflate-compressed, with a fixed date. Object arrays are
    refused (``allow_pickle=False``) so files never need pickle to be read.
    """
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, value in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)


def read_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """All arrays of an ``.npz`` as a plain dict (the file is closed on return)."""
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def write_csv(df, path: str | os.PathLike) -> None:
    """Write a DataFrame as CSV (no index, ``\\n`` line ends, shortest round-trip floats)."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, lineterminator="\n")


def write_json(obj, path: str | os.PathLike) -> None:
    """Write JSON with sorted keys and a trailing newline (numpy scalars converted)."""
    write_text(json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n", path)


def read_json(path: str | os.PathLike):
    """The JSON document of ``path`` (UTF-8; the file is closed on return): the reader of
    :func:`write_json`'s records for the reports."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def copy_file(source: str | os.PathLike, destination: str | os.PathLike) -> None:
    """Copy ``source`` to ``destination`` byte for byte, atomically (the folder is created)."""
    with atomic_path(destination) as tmp:
        shutil.copyfile(source, tmp)


def write_pickle(obj, path: str | os.PathLike) -> None:
    """Pickle ``obj`` (protocol 5) atomically; used for fitted estimators."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        pickle.dump(obj, fh, protocol=5)


def read_pickle(path: str | os.PathLike):
    """Load a pickle written by :func:`write_pickle` (trusted files: this workflow's own)."""
    with open(path, "rb") as fh:
        return pickle.load(fh)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON: {value!r}")
