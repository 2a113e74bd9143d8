"""Job memory for the scheduler (graphdr.pipeline.cluster): size terms, retries, dataset sizes."""

from __future__ import annotations

import numpy as np
import pytest

from graphdr.evaluation.splits import per_class_count_split
from graphdr.pipeline import cluster


def test_memory_is_the_base_without_a_size_term():
    assert cluster.memory_mb({"mem_mb": 500}) == 500
    assert cluster.memory_mb({"mem_mb": 500}, entries=1e9) == 500  # no per-entry rate: no term


def test_memory_adds_the_kernel_term_and_rounds_up():
    spec = {"mem_mb": 1500, "mem_mb_per_mega_entries": 15}
    assert cluster.memory_mb(spec, entries=20000 * 40000) == 1500 + 15 * 800
    assert cluster.memory_mb(spec, entries=100) == 1501  # 1500.0015 MB -> whole MB, never less


@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_memory_grows_with_the_attempt(attempt):
    spec = {"mem_mb": 1000, "mem_mb_per_mega_entries": 10}
    assert cluster.memory_mb(spec, attempt, entries=1e8) == attempt * 2000


def test_memory_rejects_impossible_attempts_and_sizes():
    with pytest.raises(ValueError, match="attempt must be >= 1"):
        cluster.memory_mb({"mem_mb": 1}, attempt=0)
    with pytest.raises(ValueError, match="entries must be >= 0"):
        cluster.memory_mb({"mem_mb": 1}, entries=-1)


def test_dataset_size_from_registry_options_and_subsample():
    registry = {"shape": [10000, 4096, 100]}
    assert cluster.dataset_size({}, registry) == (10000, 100)
    generated = {"options": {"n_classes": 200, "n_per_class": 200}}
    assert cluster.dataset_size(generated, registry) == (40000, 200)
    assert cluster.dataset_size({"subsample": {"size": 600}}, registry) == (600, 100)
    assert cluster.dataset_size({"subsample": {"size": 0.25}}, registry) == (2500, 100)


@pytest.mark.parametrize(
    ("per_class", "classes", "n_per_class"),
    [(200, 50, 10), (200, 50, 100), (72, 20, 100), (72, 20, 10), (1100, 10, 100), (3, 4, 10)],
)
def test_condition_train_size_matches_the_akda_split(per_class, classes, n_per_class):
    """Against the split the AKDA runs really draw (balanced classes)."""
    y = np.repeat(np.arange(classes), per_class)
    train, _ = per_class_count_split(y, n_per_class, random_state=0)
    assert cluster.condition_train_size(y.size, classes, n_per_class) == train.size
