"""Workflow stages before any model: retrieve the raw files, prepare the arrays."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

import numpy as np

# The modules, not the package: a job depends on the code it imports (graphdr.pipeline.codedeps),
# and the package's __init__ would pull in every loader. The workflow adds the dataset's own
# loader module (codedeps.loader_module), which graphdr.datasets.load imports when called.
from graphdr.datasets._fetch import fetch
from graphdr.datasets._load import load, stratified_indices
from graphdr.datasets._registry import dataset_files, file_entry
from graphdr.datasets.prepared import Dataset, save_npz
from graphdr.pipeline import io


def retrieve_dataset(source: str, manifest: str | os.PathLike) -> dict:
    """Make the raw files of registry dataset ``source`` available locally; write a manifest.

    Each file is fetched (mirror, then download cache, then the registry URLs; sha256 checked),
    so this is the only stage that may need the network: the workflow runs it on the submit
    host. The manifest lists the files and their sha256 (no local paths, so it is the same on
    every machine); bundled and synthetic datasets have an empty list.
    """
    files = {}
    for name in dataset_files(source):
        fetch(name)
        files[name] = file_entry(name)["sha256"]
    record = {"dataset": source, "files": files}
    io.write_json(record, manifest)
    return record


def subsample(dataset: Dataset, size: int | float, seed: int) -> Dataset:
    """A seeded stratified subset of ``size`` samples (a count, or a fraction in (0, 1)).

    A predefined split is kept: each part is subsampled in proportion to its size, and the
    part indices are renumbered into the subset.
    """
    n = dataset.n_samples
    total = int(size) if float(size) >= 1 else max(1, round(float(size) * n))
    if not 1 <= total <= n:
        raise ValueError(f"subsample size={size} must select 1..{n} samples of {dataset.name}.")
    if not dataset.split:
        return dataset.subset(stratified_indices(dataset.y, total, seed))
    names = sorted(dataset.split)
    parts = [dataset.split[name] for name in names]
    counts = np.floor(total * np.array([p.size for p in parts]) / n).astype(int)
    chosen = [
        part[stratified_indices(dataset.y[part], max(1, c), seed)]
        for part, c in zip(parts, counts, strict=True)
    ]
    keep = np.sort(np.concatenate(chosen))
    position = np.searchsorted(keep, np.arange(n))
    split = {name: position[np.sort(idx)] for name, idx in zip(names, chosen, strict=True)}
    return dataclasses.replace(dataset.subset(keep), split=split)


def prepare_dataset(
    source: str,
    output: str | os.PathLike,
    *,
    options: Mapping | None = None,
    subsample_spec: Mapping | None = None,
) -> Dataset:
    """Load registry dataset ``source`` with loader ``options``, optionally subsample, save.

    ``subsample_spec`` is ``{"size": n_or_fraction, "seed": int}`` (quick configurations use it).
    The file is written atomically with :func:`graphdr.datasets.save_npz` (byte-deterministic).
    """
    dataset = load(source, **dict(options or {}))
    if subsample_spec:
        dataset = subsample(dataset, subsample_spec["size"], int(subsample_spec.get("seed", 0)))
    with io.atomic_path(output) as tmp:
        save_npz(dataset, tmp)
    return dataset
