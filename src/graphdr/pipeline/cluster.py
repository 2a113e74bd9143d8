"""Job memory for the scheduler: sized by the job's input, raised on a retry (standard library only).

The Snakefile loads this file by path at parse time (like :mod:`graphdr.pipeline.plan`), so it
imports nothing outside the standard library. Resources decide where and when a job runs, never
what it computes, so nothing here is a code input of any job.

A rule's ``resources`` entry in the config (``resources.<rule>``) gives ``mem_mb``; a rule whose
peak memory grows with the size of its kernel matrices also gives ``mem_mb_per_mega_entries``,
the megabytes per million matrix entries (measured, see config/config.yaml). Every rule asks
``attempt`` times its memory on attempt ``attempt`` (Snakemake's ``retries``), so a job killed
for memory is resubmitted with twice as much, then three times.
"""

from __future__ import annotations

from collections.abc import Mapping


def memory_mb(spec: Mapping, attempt: int = 1, entries: float = 0.0) -> int:
    """Memory (MB) of one job of a rule with resources ``spec``.

    ``mem_mb + mem_mb_per_mega_entries * entries / 1e6``, times ``attempt`` (1 on the first
    run), rounded up to a whole MB. ``entries`` is the job's number of kernel-matrix entries
    (0 for rules without a size term).
    """
    if attempt < 1:
        raise ValueError(f"attempt must be >= 1 (Snakemake counts from 1); got {attempt}.")
    if entries < 0:
        raise ValueError(f"entries must be >= 0; got {entries}.")
    base = spec["mem_mb"] + spec.get("mem_mb_per_mega_entries", 0) * entries / 1e6
    return int(-(-base * attempt // 1))


def dataset_size(dataset: Mapping, registry_entry: Mapping) -> tuple[int, int]:
    """(samples, classes) of a configured dataset, without loading it.

    ``dataset`` is the config entry (``datasets.<name>``: options, subsample), ``registry_entry``
    the registry's (``shape = [n, d, classes]``). Generated sets with ``n_classes`` and
    ``n_per_class`` options take those; a subsample's size (count or fraction) caps ``n``.
    """
    n, _, classes = registry_entry["shape"]
    options = dataset.get("options") or {}
    if "n_classes" in options:
        classes = int(options["n_classes"])
        if "n_per_class" in options:
            n = classes * int(options["n_per_class"])
    size = (dataset.get("subsample") or {}).get("size")
    if size is not None:
        n = int(size) if isinstance(size, int) else int(round(float(size) * n))
    return int(n), int(classes)


def condition_train_size(n: int, classes: int, n_per_class: int) -> int:
    """Training samples of an AKDA condition on a balanced set (as
    ``graphdr.evaluation.splits.per_class_count_split`` draws them): ``n_per_class`` per class,
    or half of a class with fewer than ``2 n_per_class`` samples."""
    per_class = n // classes
    take = n_per_class if per_class >= 2 * n_per_class else max(per_class // 2, 1)
    return take * classes
