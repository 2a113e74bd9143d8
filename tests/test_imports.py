"""numba is imported only through graphdr._numba, so the per-user cache directory is always set.

A module that imported numba first would make numba fix its cache location before
``NUMBA_CACHE_DIR`` is settled, and write caches into the (possibly read-only) source tree.
"""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "graphdr"


def _numba_imports(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "numba" for name in names):
            lines.append(node.lineno)
    return lines


def test_numba_is_imported_only_through_graphdr_numba():
    offenders = [
        f"{path.relative_to(SRC)}:{line}"
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "_numba.py"
        for line in _numba_imports(path)
    ]
    assert not offenders, f"import numba via graphdr._numba instead: {offenders}"


def test_the_check_sees_a_direct_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\nfrom numba import prange\n")
    assert _numba_imports(bad) == [2]


def _graphdr_imports(path: Path) -> set[str]:
    """Every ``graphdr...`` module a file imports (``from graphdr import x`` counts as
    ``graphdr.x``), including imports inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "graphdr":
                found |= {f"graphdr.{a.name}" for a in node.names}
            else:
                found.add(node.module)
    return {m for m in found if m == "graphdr" or m.startswith("graphdr.")}


#: layer -> the packages it must never import (docs/architecture.md: imports run one way)
_LOWER_LAYERS = {
    "methods": ("graphdr.pipeline", "graphdr.evaluation", "graphdr.reporting", "graphdr.ledger"),
    "datasets": ("graphdr.pipeline", "graphdr.evaluation", "graphdr.methods", "graphdr.ledger"),
    "evaluation": ("graphdr.pipeline", "graphdr.ledger"),
    "ledger": ("graphdr.pipeline", "graphdr.methods", "graphdr.evaluation", "graphdr.datasets"),
    "kernels": ("graphdr.pipeline", "graphdr.methods", "graphdr.evaluation", "graphdr.ledger"),
    "graphs.py": ("graphdr.pipeline", "graphdr.methods", "graphdr.evaluation"),
    "solvers.py": ("graphdr.pipeline", "graphdr.methods", "graphdr.evaluation"),
    "optim.py": ("graphdr.pipeline", "graphdr.methods", "graphdr.evaluation"),
    "uncertainty.py": ("graphdr.pipeline", "graphdr.methods", "graphdr.evaluation"),
    "reporting.py": ("graphdr.pipeline", "graphdr.methods", "graphdr.ledger"),
    "plotting.py": ("graphdr.pipeline", "graphdr.methods", "graphdr.ledger"),
    "_files.py": ("graphdr",),  # the lowest layer: no graphdr import at all
}


def test_imports_run_one_way():
    offenders = []
    for layer, banned in _LOWER_LAYERS.items():
        target = SRC / layer
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        assert files and all(f.exists() for f in files), layer
        for path in files:
            for module in _graphdr_imports(path):
                if any(module == b or module.startswith(b + ".") for b in banned):
                    offenders.append(f"{path.relative_to(SRC)} imports {module}")
    assert offenders == []


#: modules that may import by name at run time: the estimator registry (the one place that maps
#: names to classes), the dataset layer's loaders, and the package's lazy export of the
#: estimators (``graphdr.KDA_GE``): a visible import there would make every workflow job depend
#: on every method module (``graphdr/__init__`` is imported by all)
IMPORT_BY_NAME_ALLOWED = {
    "methods/registry.py",
    "datasets/_load.py",
    "datasets/_registry.py",
    "src/graphdr/__init__.py",
}
WORKFLOW = SRC.parents[1] / "workflow"


def _python_files():
    yield from sorted(SRC.rglob("*.py"))
    yield from sorted(WORKFLOW.rglob("*.py"))


def test_no_private_name_crosses_a_module_and_no_hidden_imports():
    """Honest boundaries (issue 12): no ``from graphdr.x import _private`` (a module's private
    names stay in it; shared helpers get public names, private modules such as
    ``graphdr._files`` export public ones), and no ``importlib.import_module``/``__import__``
    outside the registry and the dataset loaders (imports by string are invisible to the
    workflow's code-dependency tracker, ``graphdr.pipeline.codedeps``)."""
    private, by_name = [], []
    for path in _python_files():
        where = str(path.relative_to(SRC.parents[1]))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graphdr"):
                private += [
                    f"{where}:{node.lineno} {a.name}" for a in node.names if a.name.startswith("_")
                ]
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ("import_module", "__import__"):
                    if not any(where.endswith(ok) for ok in IMPORT_BY_NAME_ALLOWED):
                        by_name.append(f"{where}:{node.lineno}")
    assert private == []
    assert by_name == []


def test_the_boundary_check_sees_offenders(tmp_path, monkeypatch):
    """The check above is not vacuous: it flags both kinds in a planted file."""
    bad = tmp_path / "graphdr" / "bad.py"
    bad.parent.mkdir()
    bad.write_text(
        "import importlib\nfrom graphdr.kernels import _x\nimportlib.import_module('m')\n"
    )
    monkeypatch.setattr(__import__(__name__), "SRC", tmp_path / "graphdr")
    monkeypatch.setattr(__import__(__name__), "WORKFLOW", tmp_path / "none")
    try:
        test_no_private_name_crosses_a_module_and_no_hidden_imports()
    except AssertionError as err:
        assert "bad.py:2 _x" in str(err)
    else:
        raise AssertionError("the planted private import was not flagged")


def test_a_ledger_rule_edit_re_runs_no_report():
    """Code inputs follow imports (graphdr.pipeline.codedeps): the four reports and the
    results-frame writer reach the ledger's vocabulary, tests and win count (paper 001's tables
    count wins the ledger's way, ``ledger.wins``), never its rules or engine, so editing a rule
    re-runs the ledger's own jobs and not the tables. The ledger's jobs see the whole ledger
    (the check finds it there)."""
    from graphdr.pipeline import codedeps

    src, ledger = SRC.parent, SRC / "ledger"
    judging = {ledger / "rules.py", ledger / "engine.py"}
    for paper in ("akda", "dee", "ngeu", "qmi"):
        closure = set(codedeps.code_closure([f"graphdr.pipeline.papers.{paper}.report"], src))
        assert SRC / "pipeline/results.py" in closure and ledger / "vocabulary.py" in closure
        assert not judging & closure, paper
    qmi = codedeps.code_closure(["graphdr.pipeline.papers.qmi.report"], src)
    assert ledger / "wins.py" in set(qmi)
    assert judging <= set(codedeps.code_closure(["graphdr.pipeline.claims"], src))
