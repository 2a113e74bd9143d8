"""What the workflow must build, read from the config (standard library only).

The Snakefile loads this file by path at parse time, so it imports nothing outside the standard
library. It holds the decisions that turn config data into jobs: which (experiment, dataset,
method, seed, fold) combinations exist, which paper outputs to build, the resources of a rule,
the environment of every job, and the cross-checks a JSON schema cannot express.
"""

from __future__ import annotations

import difflib
import getpass
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

#: split kinds of ``experiments.<name>.split.kind`` (drawn by :mod:`graphdr.pipeline.splits`)
SPLIT_KINDS = (
    "stratified",
    "sequential",
    "predefined",
    "per_class_index",
    "per_class_ordered",
    "per_class_count",
    "kfold",
)

#: classifier names scored by mean average precision (all others: accuracy)
MAP_CLASSIFIERS = ("ovr_svm_map",)


def n_folds(split: Mapping) -> int:
    """Number of folds a split spec produces (``kfold``: ``n_folds`` x ``repeats``;
    ``sequential``: ``draws``; else 1)."""
    if split["kind"] == "kfold":
        return int(split["n_folds"]) * int(split.get("repeats", 1))
    if split["kind"] == "sequential":
        return int(split.get("draws", 1))
    return 1


def replicates(experiment: Mapping) -> list[tuple[int, int]]:
    """Every (seed, fold) of an experiment, seeds outer."""
    return [(int(s), f) for s in experiment["seeds"] for f in range(n_folds(experiment["split"]))]


def score_jobs(config: Mapping, name: str) -> list[dict]:
    """Wildcards of every score file of experiment ``name`` (dataset, method, seed, fold)."""
    experiment = config["experiments"][name]
    return [
        {"experiment": name, "dataset": d, "method": m, "seed": s, "fold": f}
        for d in experiment["datasets"]
        for m in experiment["methods"]
        for s, f in replicates(experiment)
    ]


def paper_jobs(config: Mapping, section: str, kind: str | None = None) -> list[dict]:
    """Wildcards ``paper``, ``name``, ``experiment`` of every table or figure (``section``).

    ``kind`` keeps only figures of that kind (each figure kind has its own rule).
    """
    jobs = []
    for exp_name, experiment in config["experiments"].items():
        for name, spec in experiment.get(section, {}).items():
            if kind is None or spec.get("kind") == kind:
                jobs.append({"paper": experiment["paper"], "name": name, "experiment": exp_name})
    return jobs


def locate(config: Mapping, section: str, paper: str, name: str) -> tuple[str, Mapping]:
    """The experiment holding table/figure ``name`` of ``paper``, and its spec."""
    for exp_name, experiment in config["experiments"].items():
        if experiment["paper"] == paper and name in experiment.get(section, {}):
            return exp_name, experiment[section][name]
    raise KeyError(f"no {section[:-1]} {name!r} for paper {paper!r} in the config.")


def figure_panels(config: Mapping, experiment: str, spec: Mapping) -> list[dict]:
    """Panels of a projection figure, datasets outer: ``dataset, method, seed, fold`` each.

    Defaults: every dataset and method of the experiment, its first seed, fold 0.
    """
    exp = config["experiments"][experiment]
    seed, fold = spec.get("seed", exp["seeds"][0]), spec.get("fold", 0)
    return [
        {"dataset": d, "method": m, "seed": seed, "fold": fold}
        for d in spec.get("datasets", exp["datasets"])
        for m in spec.get("methods", list(exp["methods"]))
    ]


def labels(config: Mapping, experiment: str) -> dict[str, dict[str, str]]:
    """Display names of the experiment's methods and datasets, in config order."""
    exp = config["experiments"][experiment]
    return {
        "method": {m: spec.get("label", m) for m, spec in exp["methods"].items()},
        "dataset": {d: config["datasets"][d].get("label", d) for d in exp["datasets"]},
    }


def resources_for(config: Mapping, rule: str, experiment: str | None = None) -> dict:
    """Threads, mem_mb and runtime of a rule: defaults < per-rule < per-experiment settings."""
    resources = config.get("resources", {})
    merged = dict(resources.get("default", {}))
    merged.update(resources.get(rule, {}))
    if experiment is not None:
        merged.update(config["experiments"][experiment].get("resources", {}).get(rule, {}))
    return merged


def read_registries(registries: list[str | os.PathLike]) -> dict[str, dict]:
    """Merged ``{"files": ..., "datasets": ...}`` of registry files in increasing priority.

    ``registries`` are the package's ``registry.toml`` then a user registry (TOML, or JSON when
    the name ends in ``.json``); a later entry replaces an earlier one of the same name, as in
    :mod:`graphdr.datasets`.
    """
    merged: dict[str, dict] = {"files": {}, "datasets": {}}
    for path in registries:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"dataset registry {path} does not exist (set by data.registry in the config or "
                "$GRAPHDR_EXTRA_REGISTRY)."
            )
        text = path.read_text(encoding="utf-8")
        table = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
        for section in merged:
            merged[section].update(table.get(section, {}))
    return merged


def raw_files(source: str, registries: list[str | os.PathLike]) -> list[str] | None:
    """Raw files a registry dataset reads (``[]`` for bundled/synthetic sets), or None if unknown.

    The workflow skips the retrieve step of datasets without raw files.
    """
    entry = read_registries(registries)["datasets"].get(source)
    return None if entry is None else list(entry.get("files", []))


def registry_record(source: str, registry: Mapping[str, Mapping]) -> dict | None:
    """What the registry says about dataset ``source``: its entry and its files' sha256.

    ``registry`` is :func:`read_registries` output. The record is a rule parameter of the data
    stages, so editing one dataset's entry (or replacing a raw file together with its sha256)
    re-runs that dataset's jobs only; a file's URLs, format notes and licence are left out (the
    sha256 pins its bytes). Keys are sorted so the record is the same whatever the file order.
    None for an unknown dataset.
    """
    entry = registry["datasets"].get(source)
    if entry is None:
        return None
    files = {name: registry["files"].get(name, {}).get("sha256") for name in entry.get("files", [])}
    return {"dataset": _sorted(entry), "files": dict(sorted(files.items()))}


def _sorted(value):
    if isinstance(value, Mapping):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


def check_sources(config: Mapping, registry: Mapping[str, Mapping]) -> None:
    """Every configured dataset names a registered source; one ValueError listing the others."""
    known = registry["datasets"]
    problems = []
    for name, spec in config["datasets"].items():
        if spec["source"] not in known:
            close = difflib.get_close_matches(spec["source"], list(known), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            problems.append(
                f"datasets.{name}.source {spec['source']!r} is not in the dataset registry{hint}; "
                "add it with a user registry (data.registry or $GRAPHDR_EXTRA_REGISTRY)."
            )
    if problems:
        raise ValueError("invalid workflow config:\n  - " + "\n  - ".join(problems))


def _parts(split: Mapping) -> set[str] | None:
    """Parts a split spec produces, or None when they depend on the dataset (predefined)."""
    kind = split["kind"]
    if kind == "stratified":
        return set(split["sizes"])
    if kind == "per_class_index":
        return set(split["ranges"])
    if kind == "predefined":
        return {"train", "test", "val"} if split.get("val_size") is not None else None
    return {"train", "test"}


def _check_experiment(config: Mapping, name: str, exp: Mapping) -> list[str]:
    problems = []
    where = f"experiments.{name}"
    missing = [d for d in exp["datasets"] if d not in config["datasets"]]
    if missing:
        problems.append(f"{where}.datasets names {missing}, not defined under datasets:.")
    parts = _parts(exp["split"])
    if parts is not None and not {"train", "test"} <= parts:
        problems.append(
            f"{where}.split must produce 'train' and 'test' parts, gives {sorted(parts)}."
        )
    has_val = parts is None or "val" in parts
    gridded = [m for m, spec in exp["methods"].items() if spec.get("grid")]
    if gridded and ("selection" not in exp or not has_val):
        problems.append(
            f"{where}: methods {gridded} have a grid, which needs a 'val' part in the split and "
            "a selection: entry (classifier used on the validation part)."
        )
    for table, spec in exp.get("tables", {}).items():
        problems += _check_table(f"{where}.tables.{table}", spec, exp, has_val)
    for figure, spec in exp.get("figures", {}).items():
        problems += _check_figure(f"{where}.figures.{figure}", spec, exp)
    return problems


def _check_table(where: str, spec: Mapping, exp: Mapping, has_val: bool) -> list[str]:
    problems = []
    classifier = exp["classifiers"].get(spec["classifier"])
    if classifier is None:
        problems.append(
            f"{where}.classifier {spec['classifier']!r} is not one of the experiment's "
            f"classifiers {sorted(exp['classifiers'])}."
        )
    elif (classifier["name"] in MAP_CLASSIFIERS) != (spec.get("metric") == "map"):
        problems.append(
            f"{where}: metric {spec.get('metric')!r} does not match classifier "
            f"{classifier['name']!r} (MAP needs {MAP_CLASSIFIERS}, accuracy/error the others)."
        )
    if (spec.get("dimension") == "best_val" or spec.get("part") == "val") and not has_val:
        problems.append(f"{where} uses the validation part, but the split has none.")
    if spec.get("rows", "method") == spec.get("columns", "dataset"):
        problems.append(f"{where}: rows and columns must differ (one method, one dataset).")
    return problems


def _check_figure(where: str, spec: Mapping, exp: Mapping) -> list[str]:
    problems = []
    for key, known in (("datasets", exp["datasets"]), ("methods", list(exp["methods"]))):
        unknown = [v for v in spec.get(key, []) if v not in known]
        if unknown:
            problems.append(f"{where}.{key} names {unknown}, not in the experiment ({known}).")
    if spec.get("seed", exp["seeds"][0]) not in exp["seeds"]:
        problems.append(f"{where}.seed {spec['seed']} is not one of the seeds {exp['seeds']}.")
    if not 0 <= spec.get("fold", 0) < n_folds(exp["split"]):
        problems.append(
            f"{where}.fold {spec['fold']} does not exist ({n_folds(exp['split'])} folds)."
        )
    return problems


def optimizer_study_outputs(config: Mapping) -> list[dict]:
    """Wildcards of every optimiser-study output: ``kind`` (tables | figures), paper, study, and
    ``dataset`` for figures (one set of figures per dataset)."""
    jobs = []
    for study, spec in config.get("optimizer_studies", {}).items():
        jobs.append({"kind": "tables", "paper": spec["paper"], "study": study})
        for dataset in spec["datasets"]:
            jobs.append(
                {"kind": "figures", "paper": spec["paper"], "study": study, "dataset": dataset}
            )
    return jobs


def _check_study(config: Mapping, name: str, study: Mapping) -> list[str]:
    where = f"optimizer_studies.{name}"
    problems = [
        f"{where}.datasets: {d!r} is not in datasets."
        for d in study["datasets"]
        if d not in config["datasets"]
    ]
    if study["baseline"] not in study["optimizers"]:
        problems.append(
            f"{where}.baseline: {study['baseline']!r} is not one of its optimizers "
            f"{sorted(study['optimizers'])}."
        )
    if "optimizer" in study.get("params", {}):
        problems.append(f"{where}.params: set the optimisers in `optimizers`, not in params.")
    return problems


def check_config(config: Mapping) -> None:
    """Cross-checks the schema cannot express; one ValueError listing every problem."""
    problems = []
    for name, exp in config["experiments"].items():
        problems += _check_experiment(config, name, exp)
    for name, study in config.get("optimizer_studies", {}).items():
        problems += _check_study(config, name, study)
    seen: dict[tuple[str, str], str] = {}
    for section in ("tables", "figures"):
        for job in paper_jobs(config, section):
            key = (job["paper"], job["name"])
            if key in seen:
                problems.append(
                    f"paper_figures/{key[0]}/{key[1]} is produced twice (experiments "
                    f"{seen[key]} and {job['experiment']}): output names must be unique per paper."
                )
            seen[key] = job["experiment"]
    if problems:
        raise ValueError("invalid workflow config:\n  - " + "\n  - ".join(problems))


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        return str(os.getuid())


def default_numba_cache_dir(environ: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/graphdr/numba``, else ``~/.cache/graphdr/numba`` (per user)."""
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "graphdr", "numba")


#: OpenBLAS settings every job and benchmark gets unless the environment sets them. numpy's and
#: scipy's wheels each bundle their own OpenBLAS, so one process holds two thread pools, and
#: OpenBLAS threads spin for 2^28 cycles (about 0.1 s) after every call by default: a numpy GEMM
#: followed by a scipy solve then runs the solve against the GEMM pool's spinning threads. On the
#: 2-core machine, a GEMM and a Cholesky solve alternating took 25 ms against 12 ms with a
#: timeout of 2^16 cycles (the sum of the two alone), and a kernel discriminant fit at N = 2000
#: 0.31 s against 0.21 s (docs/benchmarks.md, "Two BLAS pools"). Read by OpenBLAS when it loads:
#: set before numpy is imported (the workflow's jobs, ``make``, ``python -m benchmarks``). Here,
#: in a module of the standard library only, because the workflow loads it at parse time.
BLAS_ENVIRONMENT = {"OPENBLAS_THREAD_TIMEOUT": "16"}


def job_environment(config: Mapping, environ: Mapping[str, str]) -> dict[str, str]:
    """Environment variables every job gets: the numba cache, the data locations and the
    OpenBLAS settings of :data:`BLAS_ENVIRONMENT`.

    An environment variable already set wins over the config (site settings such as a mirror
    belong to the machine, not to the experiment); a config value of null leaves the variable
    unset, so the package defaults apply. ``{user}`` in ``numba_cache_dir`` is the user name.
    """
    env = {}
    if environ.get("NUMBA_CACHE_DIR"):
        env["NUMBA_CACHE_DIR"] = environ["NUMBA_CACHE_DIR"]
    elif config.get("numba_cache_dir"):
        path = str(config["numba_cache_dir"]).replace("{user}", _user())
        env["NUMBA_CACHE_DIR"] = os.path.expanduser(path)
    else:
        env["NUMBA_CACHE_DIR"] = default_numba_cache_dir(environ)
    data = config.get("data", {})
    for key, var in (
        ("mirror", "GRAPHDR_DATA_MIRROR"),
        ("home", "GRAPHDR_DATA_HOME"),
        ("registry", "GRAPHDR_EXTRA_REGISTRY"),
    ):
        value = environ.get(var) if var in environ else data.get(key)
        if value is not None:
            env[var] = os.path.expanduser(str(value))
    for var, value in BLAS_ENVIRONMENT.items():
        env[var] = environ.get(var, value)
    return env
