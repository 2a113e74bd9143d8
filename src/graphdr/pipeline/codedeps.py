"""Which package source files a workflow rule depends on (standard library only).

The workflow lists these files as inputs of each rule, so editing a module re-runs exactly the
jobs downstream of it. The Snakefile loads this file by path at parse time (without importing
graphdr, which would load numpy and numba for every dry run), hence no third-party imports here.

Policy: a rule depends on the modules it names in ``import`` statements, followed transitively
inside the package. Importing a package itself (``from graphdr import evaluation``) depends on
its ``__init__`` and so on everything that re-exports; importing one module of it
(``from graphdr.evaluation.splits import stratified_split``) depends on that module only. Python
still runs the parent ``__init__`` files then, so a parent counts when it does more than
re-export (:func:`reexports_only`: docstring, imports, names bound to literals or other names);
a parent that only re-exports cannot change a result and is left out. A module imported by a
string (``importlib.import_module``) is invisible on purpose: the workflow adds the module that
defines the configured estimator with :func:`defining_module`, so a fit does not depend on
every method family.

What a job depends on is a file's *meaning*, not its text: the workflow lists a stamp per source
file (:func:`code_stamp`) holding the digest of its syntax tree without docstrings
(:func:`semantic_digest`), rewritten only when that digest changes. A comment, a docstring, a
re-formatting or a moved line re-runs nothing; any change to what the code does re-runs the jobs
below it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path


def module_path(module: str, src: Path) -> Path | None:
    """File of a dotted module name under ``src`` (a module file or a package ``__init__``)."""
    base = Path(src).joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path, src: Path) -> tuple[str, str]:
    """Dotted name of a source file and the package its relative imports start from."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def imported_modules(path: Path, src: Path) -> set[str]:
    """Dotted names of every module an ``import`` statement in ``path`` may load.

    ``from pkg import name`` yields ``pkg.name`` when that is a module, else ``pkg``; relative
    imports are resolved against the file's package. Imports inside functions count. Results
    are remembered per (file, modification time): rules share most of their closure.
    """
    path, src = Path(path), Path(src)
    return set(_imported_modules(str(path), path.stat().st_mtime_ns, str(src)))


@functools.lru_cache(maxsize=1024)
def _imported_modules(path: str, mtime_ns: int, src: str) -> frozenset[str]:
    path, src = Path(path), Path(src)
    _, package = _module_name(path, src)
    found: set[str] = set()
    for level, module, names in _summary(str(path), mtime_ns)["imports"]:
        if level < 0:  # ``import a.b, c``
            found.update(names)
            continue
        base = module
        if level:
            anchor = package.split(".")[: len(package.split(".")) - (level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        for name in names:
            sub = f"{base}.{name}"
            found.add(sub if module_path(sub, src) is not None else base)
    return frozenset(found)


#: bump when :func:`_summarise` changes what it records: the on-disk summaries are keyed by it
_SUMMARY_FORMAT = "graphdr.codedeps 2"


@functools.lru_cache(maxsize=1024)
def _summary(path: str, mtime_ns: int) -> dict:
    """What the workflow needs of a source file, without its syntax tree: its import statements
    (``[level, module, names]``, level -1 for ``import a, b``), :func:`reexports_only` and the
    :func:`semantic_digest` of its tree.

    Parsing is most of a dry run's cost of computing the rules' code inputs (74 files, about
    0.5 s on one core, in every ``snakemake`` call and every cluster job's), so summaries are
    kept on disk by content (SHA-256 of the file and :data:`_SUMMARY_FORMAT`) under
    ``$XDG_CACHE_HOME/graphdr/codedeps`` (``~/.cache`` by default): an edit changes the key, so a
    stale summary is never read. An unreadable or damaged entry is parsed again and rewritten; an
    unwritable cache only costs the parse.
    """
    data = Path(path).read_bytes()
    key = hashlib.sha256(_SUMMARY_FORMAT.encode() + b"\0" + data).hexdigest()
    entry = _cache_dir() / f"{key}.json"
    try:
        summary = json.loads(entry.read_text(encoding="utf-8"))
        if summary.get("format") == _SUMMARY_FORMAT:
            return summary
    except (OSError, ValueError, AttributeError):
        pass  # not cached yet, or damaged: parse
    summary = _summarise(ast.parse(data, filename=path))
    try:
        _write_atomic(entry, json.dumps(summary))
    except OSError:
        pass
    return summary


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in its folder and ``os.replace``: a
    concurrent reader (another ``snakemake`` call, a cluster job) sees the old file or the new
    one, never half of one. (Here, not ``graphdr._files.atomic_path``: the workflow loads this
    module by path, without the package.)"""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "graphdr" / "codedeps"


def _summarise(tree: ast.Module) -> dict:
    imports = []
    for node in _import_statements(tree.body):
        names = [alias.name for alias in node.names]
        if isinstance(node, ast.Import):
            imports.append([-1, "", names])
        else:
            imports.append([node.level, node.module or "", names])
    return {
        "format": _SUMMARY_FORMAT,
        "imports": imports,
        "reexports_only": _reexports_only(tree),
        "digest": _tree_digest(tree),  # last: it drops the docstrings from ``tree``
    }


def semantic_digest(path: str | Path) -> str:
    """SHA-256 of a source file's syntax tree without its docstrings (``ast.dump``, no line or
    column numbers): what the code does, not how it is written.

    Comments, blank lines, formatting, line positions and the docstrings of the module, its
    classes and functions do not enter it; every other change does (a statement, an expression,
    a literal, a name, an annotation). A docstring is kept when it is a body's only statement
    (a ``pass`` would otherwise stand in for it, a change of no consequence either way). Leaving
    docstrings out is sound because no result reads one (tested: nothing in the package reads
    ``__doc__`` but a command-line ``--help``).
    """
    path = Path(path)
    return _summary(str(path), path.stat().st_mtime_ns)["digest"]


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _tree_digest(tree: ast.Module) -> str:
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and len(node.body) > 1 and _is_docstring(node.body[0]):
            node.body = node.body[1:]
    return hashlib.sha256(ast.dump(tree).encode("utf-8")).hexdigest()


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def code_stamp(source: str | Path, src: str | Path, root: str | Path) -> Path:
    """The stamp file of a source file under ``root``, holding its :func:`semantic_digest`.

    The stamp of ``src/graphdr/a/b.py`` is ``root/graphdr/a/b.py.digest``. It is written when
    it is missing or holds another digest, and left untouched otherwise (atomically: cluster
    jobs parse the workflow at the same time). The workflow lists the stamps, not the sources,
    as a job's code inputs, so a job re-runs when what its code does changes, not when its text
    does.
    """
    stamp = Path(root) / (
        Path(source).resolve().relative_to(Path(src).resolve()).as_posix() + ".digest"
    )
    text = semantic_digest(source) + "\n"
    try:
        current = stamp.read_text(encoding="utf-8")
    except OSError:
        current = None
    if current != text:
        _write_atomic(stamp, text)
    return stamp


@functools.lru_cache(maxsize=1024)
def _parsed(path: str, mtime_ns: int) -> ast.Module:
    """The syntax tree of a source file, parsed once per (file, modification time)."""
    return ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)


#: nodes whose list fields may hold statements (``try`` handlers, ``match`` cases)
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def _import_statements(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every ``import`` statement in ``body`` and the blocks nested in it (functions, classes,
    ``if``/``try``/``with``/loops/``match``). Only statements are visited: an import is a
    statement, so the expressions, about nine nodes in ten, are skipped (``ast.walk`` visited
    them all and was most of a dry run's cost of reading the imports)."""
    todo = list(reversed(body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                todo.extend(v for v in reversed(value) if isinstance(v, _BLOCKS))


def code_closure(modules: Iterable[str], src: str | Path, package: str = "graphdr") -> list[Path]:
    """Sorted source files of ``modules`` and of every ``package`` module they import, transitively.

    ``modules`` are dotted names (``"graphdr.pipeline.fit"``). Raises ``FileNotFoundError`` for
    a requested module that does not exist (a typo in the workflow must not silently drop code).
    """
    src = Path(src)
    todo = list(modules)
    for name in todo:
        if module_path(name, src) is None:
            raise FileNotFoundError(f"module {name!r} not found under {src}.")
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = module_path(name, src)
        if path is None:
            continue  # a name imported from a module, not a module itself
        seen[name] = path
        todo.extend(
            m
            for m in imported_modules(path, src)
            if (m == package or m.startswith(package + ".")) and m not in seen
        )
        todo.extend(p for p in _parents(name, package) if p not in seen and _runs_code(p, src))
    return sorted(seen.values())


def _parents(name: str, package: str) -> list[str]:
    """Parent packages of a dotted name inside ``package`` (``a.b.c`` -> ``a``, ``a.b``)."""
    parts = name.split(".")
    parents = [".".join(parts[:i]) for i in range(1, len(parts))]
    return [p for p in parents if p == package or p.startswith(package + ".")]


def _runs_code(module: str, src: Path) -> bool:
    path = module_path(module, src)
    return path is not None and not reexports_only(path)


_STATIC_NODES = (ast.Constant, ast.Name, ast.Attribute, ast.Load, ast.List, ast.Tuple, ast.Set)


def reexports_only(path: Path) -> bool:
    """True when a source file holds only a docstring, imports and names bound to literals/names.

    Such a package ``__init__`` (``from .a import f``, ``__all__ = [...]``,
    ``ALL = [ClassA, ClassB]``) cannot change what its submodules compute, so importing one
    submodule does not depend on it. Anything else (a function, a call, a loop) counts.
    """
    path = Path(path)
    return _summary(str(path), path.stat().st_mtime_ns)["reexports_only"]


def _reexports_only(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # docstring
        if isinstance(node, ast.Assign | ast.AnnAssign) and (
            node.value is None or all(isinstance(n, _STATIC_NODES) for n in ast.walk(node.value))
        ):
            continue
        return False
    return True


_DEFINITION = r"^(?:class|def)\s+{name}\b|^{name}\s*(?::[^=]*)?="


def defining_module(name: str, package: str, src: str | Path) -> str | None:
    """Dotted name of the module of ``package`` that defines ``name`` at top level, or None.

    A plain text scan (``class NAME``, ``def NAME`` or ``NAME = ...`` at column 0), so nothing
    is imported. ``__init__`` files are skipped: they re-export, they do not define.
    """
    src = Path(src)
    root = src.joinpath(*package.split("."))
    pattern = re.compile(_DEFINITION.format(name=re.escape(name)), re.MULTILINE)
    for path in sorted(root.rglob("*.py")):
        if path.name != "__init__.py" and pattern.search(path.read_text(encoding="utf-8")):
            return _module_name(path, src)[0]
    return None


def _literal_mapping(module: str, name: str, src: str | Path) -> dict:
    """The literal dict assigned to ``name`` at top level of ``module`` (read, not imported)."""
    path = module_path(module, Path(src))
    for node in _parsed(str(path), path.stat().st_mtime_ns).body:
        targets = (
            [getattr(t, "id", None) for t in node.targets]
            if isinstance(node, ast.Assign)
            else [getattr(node.target, "id", None)]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if targets == [name]:
            return ast.literal_eval(node.value)
    raise ValueError(f"{path} has no literal {name} mapping.")


def loader_module(loader: str, src: str | Path, package: str = "graphdr.datasets") -> str:
    """Dotted name of the module defining registry loader ``loader`` (no import).

    Read from the literal ``LOADERS`` mapping (``name -> "module:function"``) of
    ``graphdr.datasets._load``, which imports a loader only when it is used: a prepare job
    depends on the data stage plus this one module. Raises ``ValueError`` for an unknown loader.
    """
    loaders = _literal_mapping(f"{package}._load", "LOADERS", src)
    if loader not in loaders:
        raise ValueError(f"unknown dataset loader {loader!r}; known: {sorted(loaders)}.")
    return f"{package}.{loaders[loader].split(':')[0]}"


def estimator_module(name: str, src: str | Path) -> str | None:
    """Dotted name of the module defining estimator ``name``, from the literal
    ``ESTIMATOR_MODULES`` of :mod:`graphdr.methods.registry` (no import); None for a name the
    registry does not hold (a scikit-learn model of a paper protocol, say)."""
    return _literal_mapping("graphdr.methods.registry", "ESTIMATOR_MODULES", src).get(name)
