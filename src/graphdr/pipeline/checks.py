"""Config checks that resolve every name before any job runs (standard library only).

The Snakefile loads this file by path at parse time (like :mod:`graphdr.pipeline.plan`), so it
imports nothing outside the standard library and never imports graphdr: the estimator classes'
``__init__`` parameters and the kernel names are read from the package *source* with :mod:`ast`
(``tests/test_config_checks.py`` checks them against :func:`inspect.signature` of every class).
No job imports this module, so editing it re-runs nothing.

:func:`check_config` collects every problem of the config into one ``ValueError``; each line
names the config path (``papers.qmi.studies.benchmarks.datasets[3]``), the bad value and the
allowed values (or the closest ones). What is checked:

* every dataset, task, method, condition, table row and claim label referenced anywhere is
  defined where the reference points;
* every estimator name resolves to a class of ``graphdr.methods`` (dotted names of other
  packages: the top-level package must be installed), its ``params`` and ``grid`` keys are
  parameters of that class's ``__init__``, and a ``kernel`` value is one of
  ``graphdr.kernels.KERNELS``;
* sizes against the dataset, where the registry states them (``shape`` and ``class_sizes``):
  subsample sizes, split counts and per-class counts (an NGEU ``ordered`` split asking for more
  samples per class than the smallest class has fails here instead of quietly giving fewer).
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib.util
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ESTIMATOR_PACKAGE = ("graphdr", "methods")


def _literal_tuple(path: Path, name: str) -> tuple:
    """The literal tuple assigned to ``name`` at the top level of the module at ``path``, read
    from its source (the module is not imported)."""
    pattern = rf"^{name}\s*(?::[^=]*)?=\s*(\(.*?\))"
    found = re.search(pattern, path.read_text("utf-8"), re.M | re.S)
    if found is None:
        raise ValueError(f"{path} has no literal {name} tuple.")
    return tuple(ast.literal_eval(found.group(1)))


#: the methods papers.akda may name (graphdr.pipeline.papers.akda.columns; the schema's enum,
#: workflow/schemas/papers/akda.schema.yaml, lists them too: tests/test_papers_akda.py)
AKDA_METHODS = _literal_tuple(Path(__file__).resolve().parent / "papers/akda/columns.py", "METHODS")
#: NGEU rows on raw features (graphdr.pipeline.papers.ngeu.protocol.RAW_METHODS)
NGEU_RAW_METHODS = ("knn", "svm", "tree")
#: NGEU rows must be classes of these modules (graphdr.pipeline.papers.ngeu.protocol._estimator): the GE
#: and GEU/NGEU families and the modules of the other groups' baselines (RSLDA; TRPCA) ...
NGEU_MODULES = ("graph_embedding", "uncertain", "sparse_discriminant", "robust_pca")
#: ... or one of these classes: FastSDA lives in ``subclass`` beside paper 002's AKSDA, KSDA and
#: GSDA, which are not NGEU rows
NGEU_CLASSES = ("FastSDA",)

#: loader options that change how many samples a dataset has (its registry shape then no longer
#: applies, unless the options say the size themselves: n_classes and n_per_class)
_SIZE_OPTIONS = {"n_samples", "n_per_class", "n_classes", "subset", "first", "path", "split"}


# ---- what the package source defines --------------------------------------------------------


class SourceIndex:
    """Estimator classes of ``graphdr.methods`` and the kernel names, read from the source."""

    def __init__(self, src: str | Path):
        self.src = Path(src)
        self.classes = _classes(self.src)
        self.exported = _exported(self.src)
        self.kernels = _kernels(self.src)

    def estimators(self, modules: Iterable[str] | None = None) -> list[str]:
        """Exported estimator names, optionally only those defined in ``modules``."""
        wanted = None if modules is None else set(modules)
        return sorted(
            n
            for n in self.exported
            if n in self.classes and (wanted is None or self.classes[n]["module"] in wanted)
        )

    def parameters(self, name: str) -> set[str] | None:
        """``__init__`` parameter names of class ``name`` (inherited within the package), or
        None when they cannot be listed (``**kwargs``)."""
        seen = set()
        while name in self.classes and name not in seen:
            seen.add(name)
            info = self.classes[name]
            if info["params"] is not None or info["open"]:
                return None if info["open"] else set(info["params"])
            bases = [b for b in info["bases"] if b in self.classes]
            if not bases:
                return set()  # sklearn's BaseEstimator and mixins define no __init__
            name = bases[0]
        return set()


@functools.lru_cache(maxsize=4)
def _source_index(src: str) -> SourceIndex:
    return SourceIndex(src)


def _package_dir(src: Path) -> Path:
    return src.joinpath(*ESTIMATOR_PACKAGE)


# A class at column 0 and its __init__ one level in. Only these few lines go to ast (parsing the
# whole package costs ~0.2 s of every dry run); tests compare the result with inspect.signature.
_CLASS = re.compile(r"^class (\w+)(?:\((.*?)\))?:", re.MULTILINE | re.DOTALL)
_INIT = re.compile(
    r"^    def __init__\((.*?)\)(?:\s*->\s*[^:\n]+)?:[ \t]*(?:#.*)?$", re.MULTILINE | re.DOTALL
)


def _classes(src: Path) -> dict[str, dict]:
    classes = {}
    for path in sorted(_package_dir(src).glob("*.py")):
        text = path.read_text(encoding="utf-8")
        heads = list(_CLASS.finditer(text))
        for k, head in enumerate(heads):
            body_end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
            bases = ast.parse(f"f({head.group(2) or ''})", mode="eval").body.args
            info = {
                "module": path.stem,
                "bases": [_base_name(b) for b in bases],
                "params": None,
                "open": False,
            }
            init = _INIT.search(text, head.end(), body_end)
            if init is not None:
                args = ast.parse(f"def f({init.group(1)}): pass").body[0].args
                names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
                info["params"] = names[1:] if names and names[0] == "self" else names
                info["open"] = args.kwarg is not None
            classes[head.group(1)] = info
    return classes


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _exported(src: Path) -> set[str]:
    """Names ``graphdr.methods`` re-exports (its ``from ... import`` statements)."""
    path = _package_dir(src) / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def _kernels(src: Path) -> tuple[str, ...]:
    return _literal_tuple(src / "graphdr" / "kernels" / "__init__.py", "KERNELS")


# ---- messages -------------------------------------------------------------------------------


def _choices(value, allowed: Iterable[str], what: str) -> str:
    """``'x' is not <what>; did you mean ...? Allowed: ...`` (long lists: the closest only)."""
    allowed = sorted(str(a) for a in allowed)
    if not allowed:
        return f"{value!r} is not {what} (there are none)."
    lower = {a.lower(): a for a in allowed}  # 'ORL' suggests 'orl'
    close = difflib.get_close_matches(str(value).lower(), list(lower), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(lower[c]) for c in close)}?" if close else "."
    if len(allowed) <= 40:
        return f"{value!r} is not {what}{hint} Allowed: {', '.join(allowed)}."
    return f"{value!r} is not {what}{hint} ({len(allowed)} names are allowed.)"


class _Problems(list):
    def unknown(self, where: str, value, allowed: Iterable[str], what: str) -> bool:
        """Record a problem when ``value`` is not in ``allowed``; True when it is known."""
        allowed = list(allowed)
        if value in allowed:
            return True
        self.append(f"{where}: {_choices(value, allowed, what)}")
        return False

    def names(self, where: str, values, allowed: Iterable[str], what: str) -> list:
        """Check every item of a list; returns the known ones."""
        allowed = list(allowed)
        return [
            v for i, v in enumerate(values or []) if self.unknown(f"{where}[{i}]", v, allowed, what)
        ]

    def keys(self, where: str, mapping: Mapping | None, allowed: Iterable[str], what: str) -> None:
        allowed = list(allowed)
        for key in mapping or {}:
            self.unknown(f"{where}.{key}", key, allowed, what)


DATASET = "a dataset (a key of datasets:)"


def _known_datasets(p: _Problems, where: str, spec: Mapping, config: Mapping) -> list:
    """Check ``spec["datasets"]`` (dataset names) against the config's ``datasets:``; returns
    the known ones."""
    return p.names(f"{where}.datasets", spec.get("datasets"), config.get("datasets", {}), DATASET)


# ---- estimators -----------------------------------------------------------------------------


def _check_estimator(
    p: _Problems,
    where: str,
    spec: Mapping,
    index: SourceIndex,
    *,
    modules: Iterable[str] | None = None,
    classes: Iterable[str] = (),
    extra_names: Iterable[str] = (),
    param_keys: Iterable[str] = ("params", "grid"),
) -> None:
    """``spec["estimator"]`` resolves (to a class of ``modules``, one of ``classes`` or one of
    ``extra_names``); the keys of ``spec[<param_keys>]`` are its parameters; a ``kernel`` value
    is a known kernel."""
    name = spec.get("estimator")
    if name is None or name in extra_names:
        return
    if "." in name:  # a class of another package (sklearn.manifold.TSNE): its package only
        top = name.split(".")[0]
        if importlib.util.find_spec(top) is None:
            p.append(f"{where}.estimator: package {top!r} of {name!r} is not installed.")
        return
    exported = set(index.estimators())
    allowed = [*index.estimators(modules), *(c for c in classes if c in exported), *extra_names]
    what = (
        "an estimator of graphdr.methods"
        if modules is None
        else f"a row estimator ({', '.join([*extra_names, *classes])} or a class of "
        f"graphdr.methods.{{{', '.join(modules)}}})"
    )
    if not p.unknown(f"{where}.estimator", name, allowed, what):
        return
    params = index.parameters(name)
    for key in param_keys:
        values = spec.get(key) or {}
        for param, value in values.items():
            path = f"{where}.{key}.{param}"
            if params is not None and param not in params:
                p.unknown(path, param, params, f"a parameter of {name}")
                continue
            if param == "kernel":
                for i, kernel in enumerate(value if key == "grid" else [value]):
                    sub = f"{path}[{i}]" if key == "grid" else path
                    if isinstance(kernel, str):
                        p.unknown(sub, kernel, index.kernels, "a kernel of graphdr.kernels")


# ---- dataset sizes --------------------------------------------------------------------------


def dataset_sizes(spec: Mapping, registry: Mapping) -> dict | None:
    """``{"n": samples, "classes": classes, "min_class": smallest class or None}`` of a config
    dataset as prepared (loader options and subsample applied), or None when unknown."""
    entry = registry["datasets"].get(spec.get("source"))
    if entry is None:
        return None
    options = spec.get("options") or {}
    if "n_classes" in options and "n_per_class" in options:
        n_classes, per = int(options["n_classes"]), int(options["n_per_class"])
        sizes = {"n": n_classes * per, "classes": n_classes, "min_class": per}
    elif "shape" in entry and not (_SIZE_OPTIONS & set(options)):
        n, _, n_classes = entry["shape"]
        low = entry.get("class_sizes", [None])[0]
        sizes = {"n": int(n), "classes": int(n_classes), "min_class": low}
    else:
        return None
    sub = spec.get("subsample")
    if sub:
        size = float(sub["size"])
        total = int(size) if size >= 1 else max(1, round(size * sizes["n"]))
        if total > sizes["n"]:
            sizes["oversized"] = total
            return sizes
        balanced = (
            sizes["min_class"] is not None and sizes["min_class"] * sizes["classes"] == sizes["n"]
        )
        # a stratified subset of a balanced set keeps at least floor(total / classes) per class
        sizes = {
            "n": total,
            "classes": sizes["classes"],
            "min_class": total // sizes["classes"] if balanced else None,
        }
    return sizes


def _check_datasets(p: _Problems, config: Mapping, registry: Mapping) -> dict[str, dict]:
    sizes = {}
    for name, spec in config.get("datasets", {}).items():
        found = dataset_sizes(spec, registry)
        if found is None:
            continue
        if "oversized" in found:
            p.append(
                f"datasets.{name}.subsample.size: {spec['subsample']['size']!r} asks for "
                f"{found['oversized']} samples, but {spec['source']!r} has {found['n']}; "
                f"use at most {found['n']} (or a fraction in (0, 1))."
            )
            continue
        sizes[name] = {**found, "name": name}
    return sizes


def _too_many(p: _Problems, where: str, asked: int, sizes: dict, per_class: bool, fix: str) -> None:
    have = sizes["min_class"] if per_class else sizes["n"]
    if asked > have:
        name = repr(sizes["name"])
        of = f"the smallest class of dataset {name}" if per_class else f"dataset {name}"
        unit = " per class" if per_class else ""
        p.append(f"{where}: needs {asked} samples{unit}, but {of} has {have}; {fix}")


def _check_split(p: _Problems, where: str, split: Mapping, sizes: dict | None) -> None:
    """A split spec (graphdr.pipeline.splits.split_indices, every kind) against the dataset's
    size: integer counts together at most its samples, per-class counts at most its smallest
    class."""
    if sizes is None:
        return
    kind = split.get("kind")
    if kind == "stratified":
        counts = [v for v in split.get("sizes", {}).values() if isinstance(v, int)]
        _too_many(p, f"{where}.sizes", sum(counts), sizes, False, "lower the counts.")
    elif kind == "per_class_count" and sizes.get("min_class") is not None:
        _too_many(
            p,
            f"{where}.n_per_class (plus one test sample)",
            int(split["n_per_class"]) + 1,
            sizes,
            True,
            "lower it.",
        )
    elif kind == "per_class_ordered" and sizes.get("min_class") is not None:
        counts = [split.get("train"), split.get("val"), split.get("test")]
        wanted = sum(int(c) for c in counts if isinstance(c, int | float))
        if split.get("test") is None:
            wanted += 1  # "the rest" must hold at least one test sample per class
        _too_many(
            p,
            f"{where} (train {split.get('train')} + val {split.get('val')} + test "
            f"{split.get('test')} per class)",
            wanted,
            sizes,
            True,
            "lower the per-class counts so that every class keeps all of its test samples.",
        )
    elif kind == "sequential" and split.get("pool") is None:
        counts = [split.get(k) for k in ("train", "val", "test")]
        wanted = sum(int(c) for c in counts if isinstance(c, int | float))
        _too_many(p, f"{where} (train + val + test)", wanted, sizes, False, "lower the counts.")
    elif kind == "kfold" and split.get("first"):
        _too_many(p, f"{where}.first", int(split["first"]), sizes, False, "lower it.")


# ---- sections -------------------------------------------------------------------------------


def _check_experiments(p: _Problems, config: Mapping, index: SourceIndex, sizes: dict) -> None:
    for name, exp in config.get("experiments", {}).items():
        where = f"experiments.{name}"
        for d in _known_datasets(p, where, exp, config):
            _check_split(p, f"{where}.split", exp.get("split", {}), sizes.get(d))
        for method, spec in exp.get("methods", {}).items():
            _check_estimator(p, f"{where}.methods.{method}", spec, index)


def _check_studies(p: _Problems, config: Mapping, index: SourceIndex) -> None:
    for name, study in config.get("optimizer_studies", {}).items():
        where = f"optimizer_studies.{name}"
        _known_datasets(p, where, study, config)
        params = index.parameters(study.get("estimator", ""))
        if study.get("estimator") in index.classes and params is not None:
            if "optimizer" not in params:  # then its params were meant for another class
                p.append(
                    f"{where}.estimator: {study['estimator']!r} has no `optimizer` parameter "
                    "(the study compares its optimizers)."
                )
                continue
        _check_estimator(p, where, study, index, param_keys=("params",))


def _check_ngeu(p: _Problems, config: Mapping, ngeu: Mapping, index, sizes: dict) -> None:
    where = "papers.ngeu"
    datasets = list(config.get("datasets", {}))
    tasks = ngeu.get("tasks", {})
    for task, spec in tasks.items():
        path = f"{where}.tasks.{task}"
        if p.unknown(f"{path}.dataset", spec.get("dataset"), datasets, DATASET):
            _check_split(p, f"{path}.split", spec.get("split", {}), sizes.get(spec["dataset"]))
    methods = ngeu.get("methods", {})
    for method, spec in methods.items():
        _check_estimator(
            p,
            f"{where}.methods.{method}",
            spec,
            index,
            modules=NGEU_MODULES,
            classes=NGEU_CLASSES,
            extra_names=NGEU_RAW_METHODS,
            param_keys=("params",),
        )
    grids = {f"{where}.grid": ngeu.get("grid", {})}
    grids |= {
        f"{where}.tasks.{t}.grid": spec["grid"] for t, spec in tasks.items() if "grid" in spec
    }
    for path, grid in grids.items():
        for i, kernel in enumerate(grid.get("kernels", [])):
            p.unknown(f"{path}.kernels[{i}]", kernel, index.kernels, "a kernel of graphdr.kernels")
    tables = {t: spec for t, spec in ngeu.get("tables", {}).items() if spec is not None}
    # a sensitivity run of a table re-runs a study the ledger judges: a table without variant_of
    studies = [t for t, spec in tables.items() if "variant_of" not in spec]
    for table, spec in tables.items():
        path = f"{where}.tables.{table}"
        if "variant_of" in spec:
            p.unknown(
                f"{path}.variant_of.study",
                spec["variant_of"]["study"],
                studies,
                f"a table of {where}.tables that is not itself a sensitivity run",
            )
        p.names(f"{path}.tasks", spec.get("tasks"), tasks, f"a task of {where}.tasks")
        rows = p.names(
            f"{path}.methods", spec.get("methods"), methods, f"a method of {where}.methods"
        )
        labels = {methods[m].get("label", m) for m in rows}
        # with an unknown row the claims cannot be judged (the row's label is unknown too)
        for i, pair in enumerate(spec.get("claims", []) if rows == spec.get("methods") else []):
            for j, label in enumerate(pair):
                p.unknown(
                    f"{path}.claims[{i}][{j}]", label, labels, f"the label of a row of {path}"
                )
        _check_file(p, f"{path}.reference", spec.get("reference"))


def _check_akda(p: _Problems, config: Mapping, akda: Mapping) -> None:
    where = "papers.akda"
    _known_datasets(p, where, akda, config)
    # keys may name datasets the section does not run (an overlay such as config/quick.yaml
    # narrows `datasets` and keeps the full protocol's skips): any config dataset will do
    datasets, known = list(config.get("datasets", {})), DATASET
    conditions = list(akda.get("conditions", {}))
    for d, conds in akda.get("dataset_conditions", {}).items():
        if p.unknown(f"{where}.dataset_conditions.{d}", d, datasets, known):
            p.names(
                f"{where}.dataset_conditions.{d}",
                conds,
                conditions,
                f"a condition of {where}.conditions",
            )
    for d, by_condition in akda.get("skip", {}).items():
        path = f"{where}.skip.{d}"
        if not p.unknown(path, d, datasets, known):
            continue
        for c, by_method in by_condition.items():
            if p.unknown(f"{path}.{c}", c, conditions, f"a condition of {where}.conditions"):
                p.keys(f"{path}.{c}", by_method, AKDA_METHODS, "an AKDA method")
    toy = akda.get("toy") or {}
    if toy:
        p.unknown(f"{where}.toy.dataset", toy.get("dataset"), datasets, known)
        p.unknown(
            f"{where}.toy.condition",
            toy.get("condition"),
            conditions,
            f"a condition of {where}.conditions",
        )
    equivalence = akda.get("equivalence") or {}
    if equivalence:
        for d in equivalence.get("datasets", []):
            p.unknown(f"{where}.equivalence.datasets", d, datasets, known)
        for c in equivalence.get("conditions", []):
            p.unknown(
                f"{where}.equivalence.conditions",
                c,
                conditions,
                f"a condition of {where}.conditions",
            )
    _check_file(p, f"{where}.reference", akda.get("reference"))


def _check_dee(p: _Problems, config: Mapping, dee: Mapping, index, sizes: dict) -> None:
    all_datasets = list(config.get("datasets", {}))
    for part in ("recognition", "visualisation"):
        section = dee.get(part) or {}
        where = f"papers.dee.{part}"
        datasets = _known_datasets(p, where, section, config)
        for method, spec in section.get("methods", {}).items():
            _check_estimator(p, f"{where}.methods.{method}", spec, index, param_keys=("params",))
        if part != "recognition":
            continue
        protocol = section.get("protocol", {})
        for d in datasets:
            if d not in protocol:
                p.append(f"{where}.protocol: no entry for dataset {d!r} of {where}.datasets.")
        for d, spec in protocol.items():
            if not p.unknown(f"{where}.protocol.{d}", d, all_datasets, DATASET):
                continue
            found = sizes.get(d) or {}
            if found.get("min_class") is not None and isinstance(spec.get("train_per_class"), int):
                _too_many(
                    p,
                    f"{where}.protocol.{d}.train_per_class (plus one test sample)",
                    spec["train_per_class"] + 1,
                    found,
                    True,
                    "lower it.",
                )
        _check_file(p, f"{where}.reference", section.get("reference"))


def _check_qmi(p: _Problems, config: Mapping, qmi: Mapping) -> None:
    datasets = list(config.get("datasets", {}))
    for study, spec in qmi.get("studies", {}).items():
        where = f"papers.qmi.studies.{study}"
        _known_datasets(p, where, spec, config)
        _check_file(p, f"{where}.sizes_reference", spec.get("sizes_reference"))
    visual = qmi.get("visualisations", {})
    where = "papers.qmi.visualisations"
    _known_datasets(p, where, visual, config)
    p.keys(f"{where}.protocol", visual.get("protocol"), datasets, DATASET)
    studies = list(qmi.get("studies", {}))
    for study, spec in qmi.get("studies", {}).items():
        if spec.get("sensitivity_of") is not None:
            p.names(
                f"papers.qmi.studies.{study}.sensitivity_of",
                [spec["sensitivity_of"]],
                [s for s in studies if s != study],
                "another study of papers.qmi.studies",
            )


def _check_ledger(p: _Problems, config: Mapping) -> None:
    """The claims ledger: every paper it judges has a paper section and a claims file."""
    papers = list(config.get("papers", {}))
    for paper, spec in config.get("ledger", {}).get("papers", {}).items():
        p.names("ledger.papers", [paper], papers, "a paper of the papers: section")
        _check_file(p, f"ledger.papers.{paper}.claims", spec.get("claims"))


def _check_file(p: _Problems, where: str, path) -> None:
    """A reference file named by the config exists (relative to the working directory)."""
    if path and not Path(path).is_file():
        p.append(f"{where}: file {path!r} does not exist (relative to the workflow directory).")


# ---- entry point ----------------------------------------------------------------------------


def find_problems(config: Mapping, registry: Mapping, src: str | Path) -> list[str]:
    """Every problem of the config (empty when it is sound); see the module docstring."""
    index = _source_index(str(Path(src).resolve()))
    p = _Problems()
    sizes = _check_datasets(p, config, registry)
    _check_experiments(p, config, index, sizes)
    _check_studies(p, config, index)
    papers = config.get("papers", {})
    if papers.get("ngeu"):
        _check_ngeu(p, config, papers["ngeu"], index, sizes)
    if papers.get("akda"):
        _check_akda(p, config, papers["akda"])
    if papers.get("dee"):
        _check_dee(p, config, papers["dee"], index, sizes)
    if papers.get("qmi"):
        _check_qmi(p, config, papers["qmi"])
    _check_ledger(p, config)
    return list(p)


def check_config(config: Mapping, registry: Mapping, src: str | Path) -> None:
    """Raise one ``ValueError`` listing every problem :func:`find_problems` finds."""
    problems = find_problems(config, registry, src)
    if problems:
        raise ValueError(
            f"invalid workflow config ({len(problems)} problem"
            f"{'s' if len(problems) > 1 else ''}, found before any job ran):\n  - "
            + "\n  - ".join(problems)
        )
