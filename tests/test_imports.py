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
