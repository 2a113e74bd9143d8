"""Datasets of the reproduced papers: a registry of raw files with sha256 and URLs, checked
fetching (offline mirror first), loaders per raw format, synthetic sets, and one prepared form.

>>> from graphdr.datasets import load
>>> ds = load("usps")                       # doctest: +SKIP
>>> ds.X.shape, ds.n_classes, sorted(ds.split)  # doctest: +SKIP
((9298, 256), 10, ['test', 'train'])

Raw files come from ``$GRAPHDR_DATA_MIRROR`` (or ``mirror=``) when present, else from the download
cache, else from the registry's URLs; every file's sha256 is checked. See ``docs/datasets.md``.
"""

from ._awgn import add_awgn, awgn_variance
from ._fetch import ChecksumError, DownloadError, fetch, file_sha256
from ._images import read_idx
from ._load import load, stratified_indices
from ._mnist import mnist_subset, mnist_train_labels
from ._registry import dataset_entry, dataset_files, file_entry, list_datasets, list_files
from ._tabular import read_attribute_file
from .prepared import Dataset, load_npz, save_npz
from .synthetic import make_gaussian_mixture, make_swiss_roll_classes, make_uncertain_toy

__all__ = [
    "ChecksumError",
    "Dataset",
    "DownloadError",
    "add_awgn",
    "awgn_variance",
    "dataset_entry",
    "dataset_files",
    "fetch",
    "file_entry",
    "file_sha256",
    "list_datasets",
    "list_files",
    "load",
    "load_npz",
    "make_gaussian_mixture",
    "make_swiss_roll_classes",
    "make_uncertain_toy",
    "mnist_subset",
    "mnist_train_labels",
    "read_attribute_file",
    "read_idx",
    "save_npz",
    "stratified_indices",
]
