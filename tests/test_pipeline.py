"""Unit tests of graphdr.pipeline: the functions the workflow scripts call, and their plumbing.

References are independent of the code under test: numpy/scikit-learn computations done here,
hand-made packages for the import scanner, and byte comparisons for determinism.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from graphdr import datasets
from graphdr.methods import KPCA_GE, LDA_GE
from graphdr.pipeline import codedeps, data, evaluate, fit, io, plan, report, runtime, splits

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = SRC.parent


# ------------------------------------------------------------------------------------------
# fixtures
# ------------------------------------------------------------------------------------------


def toy_dataset(n_per_class=(30, 20, 10), n_features=5, split=None, seed=0) -> datasets.Dataset:
    """Gaussian blobs with well separated means; classes in blocks (like a sorted file)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    X = rng.normal(size=(y.size, n_features)) + 4.0 * y[:, None] * np.eye(n_features)[0]
    names = [f"c{k}" for k in range(len(n_per_class))]
    return datasets.Dataset(name="toy", X=X, y=y, class_names=names, split=split)


@pytest.fixture
def prepared(tmp_path):
    path = tmp_path / "prepared" / "toy.npz"
    path.parent.mkdir()
    datasets.save_npz(toy_dataset(), path)
    return path


def demo_config(**experiment_overrides) -> dict:
    experiment = {
        "paper": "demo",
        "datasets": ["a", "b"],
        "methods": {"PCA": {"estimator": "PCA_GE", "params": {}}, "LDA": {"estimator": "LDA_GE"}},
        "split": {"kind": "stratified", "sizes": {"train": 0.7, "test": None}},
        "seeds": [0, 1],
        "classifiers": {"1nn": {"name": "1nn"}},
        "tables": {"t": {"classifier": "1nn"}},
        "figures": {"f": {"kind": "projection", "seed": 1}},
    }
    experiment.update(experiment_overrides)
    return {
        "datasets": {"a": {"source": "sklearn_wine", "label": "A"}, "b": {"source": "x"}},
        "experiments": {"demo": experiment},
    }


# ------------------------------------------------------------------------------------------
# io: atomic and deterministic writers
# ------------------------------------------------------------------------------------------


def test_write_npz_is_deterministic_and_loadable(tmp_path, monkeypatch):
    arrays = {"Z": np.arange(12.0).reshape(3, 4), "y": np.array([0, 1, 1]), "s": np.asarray("a")}
    io.write_npz(tmp_path / "a.npz", arrays)
    later = time.time() + 3 * 86400  # a zip member date would change with the clock
    monkeypatch.setattr(time, "time", lambda: later)
    monkeypatch.setattr(time, "localtime", lambda *_: time.gmtime(later))
    io.write_npz(tmp_path / "b.npz", arrays)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    loaded = io.read_npz(tmp_path / "a.npz")
    assert list(loaded) == ["Z", "y", "s"]
    for key, value in arrays.items():
        np.testing.assert_array_equal(loaded[key], value)


def test_json_records_read_back_as_written(tmp_path):
    """write_json converts numpy scalars and arrays; read_json gives the plain values back, and
    a non-ASCII label survives the UTF-8 round trip."""
    record = {"map": np.float64(0.25), "n": np.int64(3), "ap": np.array([0.5, 1.0]), "λ": "µ"}
    io.write_json(record, tmp_path / "r.json")
    assert io.read_json(tmp_path / "r.json") == {"map": 0.25, "n": 3, "ap": [0.5, 1.0], "λ": "µ"}


def test_copy_file_copies_the_bytes_into_a_new_folder_and_leaves_no_temporary(tmp_path):
    source = tmp_path / "a.csv"
    source.write_bytes(b"x,y\n1,\xc2\xb5\n")
    destination = tmp_path / "published" / "ngeu_run_a.csv"
    io.copy_file(source, destination)
    assert destination.read_bytes() == source.read_bytes()
    assert sorted(p.name for p in destination.parent.iterdir()) == ["ngeu_run_a.csv"]


def test_atomic_path_keeps_old_file_on_failure(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("complete\n")
    with pytest.raises(RuntimeError, match="killed"), io.atomic_path(target) as tmp:
        tmp.write_text("half a fi")
        raise RuntimeError("killed")
    assert target.read_text() == "complete\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temporary left


def test_atomic_path_keeps_suffix_and_replaces(tmp_path):
    target = tmp_path / "sub" / "x.npz"
    with io.atomic_path(target) as tmp:
        assert tmp.parent == target.parent and tmp.suffix == ".npz" and tmp.name.startswith(".")
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new"


def test_atomic_stem_moves_every_suffix_or_none(tmp_path):
    stem = tmp_path / "table"
    with io.atomic_stem(stem, [".csv", ".md"]) as tmp:
        for suffix in (".csv", ".md"):
            tmp.with_name(tmp.name + suffix).write_text(suffix)
    assert (tmp_path / "table.md").read_text() == ".md"
    with pytest.raises(FileNotFoundError, match="table.tex"), io.atomic_stem(stem, [".tex"]):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv", "table.md"]


def test_writers_remove_what_a_killed_writer_left(tmp_path):
    """SIGKILL skips cleanup: the next writer of the same output removes its temporaries only."""
    import tempfile

    killed = Path(tempfile.mkstemp(prefix=".x.", suffix=".tmp.npz", dir=tmp_path)[1])
    other = Path(tempfile.mkstemp(prefix=".x.y.", suffix=".tmp.npz", dir=tmp_path)[1])
    other_suffix = Path(tempfile.mkstemp(prefix=".x.", suffix=".tmp.pkl", dir=tmp_path)[1])
    killed_stem = Path(tempfile.mkdtemp(prefix=".table.", suffix=".tmp", dir=tmp_path))
    (killed_stem / "table.csv").write_text("half")
    io.write_npz(tmp_path / "x.npz", {"a": np.arange(3)})
    with io.atomic_stem(tmp_path / "table", [".csv"]) as tmp:
        tmp.with_name(tmp.name + ".csv").write_text("whole")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([other.name, other_suffix.name, "table.csv", "x.npz"])
    assert not killed.exists() and not killed_stem.exists()


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_outputs_get_the_mode_of_an_ordinary_file(tmp_path, umask):
    """0644 under umask 022 (mkstemp alone gives 0600: collaborators could not read outputs)."""
    old = os.umask(umask)
    try:
        io.write_npz(tmp_path / "a.npz", {"x": np.arange(3)})
        io.write_csv(pd.DataFrame({"a": [1]}), tmp_path / "b.csv")
        io.write_json({"a": 1}, tmp_path / "c.json")
        io.write_pickle([1], tmp_path / "d.pkl")
        io.write_text("x", tmp_path / "e.md")
        with io.atomic_stem(tmp_path / "f", [".txt"]) as stem:
            Path(f"{stem}.txt").write_text("x")
        (tmp_path / "ordinary").write_text("x")
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert set(modes.values()) == {0o666 & ~umask}, {k: oct(v) for k, v in modes.items()}


def test_csv_json_pickle_roundtrip(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": [0.1, 1 / 3]})
    io.write_csv(df, tmp_path / "x.csv")
    assert (tmp_path / "x.csv").read_bytes().count(b"\r") == 0
    back = pd.read_csv(tmp_path / "x.csv")
    pd.testing.assert_frame_equal(back, df)
    io.write_json({"b": np.float64(1.5), "a": np.arange(2)}, tmp_path / "x.json")
    assert (tmp_path / "x.json").read_text() == '{\n  "a": [\n    0,\n    1\n  ],\n  "b": 1.5\n}\n'
    io.write_pickle({"k": [1, 2]}, tmp_path / "x.pkl")
    assert io.read_pickle(tmp_path / "x.pkl") == {"k": [1, 2]}


# ------------------------------------------------------------------------------------------
# codedeps: which source files a rule depends on
# ------------------------------------------------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_results_frames_sort_numbers_as_numbers_and_write_one_way(tmp_path):
    import pandas as pd

    from graphdr.pipeline.results import sort_results, write_results

    frame = pd.DataFrame(
        {"study": ["s"] * 5, "method": ["B", "A", "A", "A", "A"]}
        | {"split": ["1", "10", "9", "", "x"], "value": [1.0, 2.0, 1 / 3, 4.0, 5.0]}
    )
    by_number = sort_results(frame, ["study", "method", "split"])
    # empty and non-numeric splits first in their given order, then 9 before 10; B after A
    assert list(by_number["split"]) == ["", "x", "9", "10", "1"]
    assert list(by_number.index) == list(range(5))
    as_text = sort_results(frame, ["study", "method", "split"], numeric=())
    assert list(as_text["split"]) == ["", "10", "9", "x", "1"]
    path = tmp_path / "r.csv"
    write_results(by_number, path)
    assert path.read_text().splitlines()[3] == "s,A,9,0.3333333333"  # values as %.10g


def test_result_rows_and_frames_share_the_ledgers_columns_in_order():
    import pandas as pd

    from graphdr.ledger.vocabulary import RESULT_COLUMNS
    from graphdr.pipeline.results import result_frame, result_row

    row = result_row("p", "s", "primary", "d", "m", "acc", 1, split="0", reference="KDA")
    assert list(row) == [*RESULT_COLUMNS, "reference"]
    assert row["value"] == 1.0 and isinstance(row["value"], float)
    assert (row["classifier"], row["dimension"]) == ("", "")
    by_rows = result_frame([row], extra=("reference",))
    assert list(by_rows.columns) == [*RESULT_COLUMNS, "reference"]
    by_columns = result_frame(
        paper="p", study="s", variant="primary", dataset="d", method=pd.Series(["m", "n"]),
        split=["0", "1"], metric="acc", value=[1.0, 2.0],
    )  # fmt: skip
    assert list(by_columns.columns) == list(RESULT_COLUMNS)
    assert by_columns[["method", "split", "dimension"]].values.tolist() == [
        ["m", "0", ""], ["n", "1", ""],
    ]  # fmt: skip
    empty = result_frame()
    assert empty.empty and list(empty.columns) == list(RESULT_COLUMNS)


def test_complete_variant_copies_only_the_primary_units_the_variant_lacks():
    """A variant with its own (d1, A) row gets the primary rows of the other pairs, after the
    frame's rows; ``within`` limits both sides to a part of the frame (here study s1)."""
    from graphdr.pipeline.results import complete_variant, result_frame

    rows = [("s1", "primary", "d1", "A", 1.0), ("s1", "primary", "d1", "B", 2.0),
            ("s1", "primary", "d2", "A", 3.0), ("s2", "primary", "d1", "A", 4.0),
            ("s1", "v", "d1", "A", 9.0)]  # fmt: skip
    frame = result_frame(
        paper="p", study=[r[0] for r in rows], variant=[r[1] for r in rows],
        dataset=[r[2] for r in rows], method=[r[3] for r in rows], metric="acc",
        value=[r[4] for r in rows],
    )  # fmt: skip
    out = complete_variant(frame, "v", ["dataset", "method"])
    assert out.iloc[: len(frame)].equals(frame)
    copied = out.iloc[len(frame) :]
    assert copied[["study", "variant", "dataset", "method", "value"]].values.tolist() == [
        ["s1", "v", "d1", "B", 2.0], ["s1", "v", "d2", "A", 3.0],
    ]  # fmt: skip
    # by dataset, inside study s1: d1 has the variant's own row, d2 is copied; s2 is untouched
    only_s1 = complete_variant(frame, "v", ["dataset"], within=frame["study"] == "s1")
    assert only_s1.iloc[len(frame) :][["study", "dataset", "method"]].values.tolist() == [
        ["s1", "d2", "A"]
    ]
    # a variant with no rows of its own gets every primary row
    assert len(complete_variant(frame, "w", ["dataset", "method"])) == len(frame) + 4
    # nothing to copy (no source rows): the frame comes back whole, its integer column intact
    counted = frame.assign(fold=np.arange(len(frame)))
    same = complete_variant(counted, "v", ["dataset"], source="kernel=rbf")
    assert same.equals(counted) and same["fold"].dtype == np.int64


def test_code_closure_follows_imports_not_parents_or_strings(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import heavy\n",
            "pkg/heavy.py": "",
            "pkg/a.py": "from . import b\nfrom pkg.sub import c\nimport numpy\n",
            "pkg/b.py": "def f():\n    from .sub.d import g\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/c.py": "from ..b import f\n",
            "pkg/sub/d.py": "import importlib\nimportlib.import_module('pkg.heavy')\ng = 1\n",
        },
    )
    files = codedeps.code_closure(["pkg.a"], tmp_path, package="pkg")
    names = [p.relative_to(tmp_path).as_posix() for p in files]
    # parent package __init__ files and string imports are not followed; function-level are
    assert names == ["pkg/a.py", "pkg/b.py", "pkg/sub/c.py", "pkg/sub/d.py"]
    # importing a package itself does follow its __init__
    assert tmp_path / "pkg/heavy.py" in codedeps.code_closure(["pkg"], tmp_path, package="pkg")
    with pytest.raises(FileNotFoundError, match="pkg.nope"):
        codedeps.code_closure(["pkg.nope"], tmp_path, package="pkg")


def _imports_by_walk(path: Path) -> list[str]:
    """Reference: every import node of a file, found by visiting every node (``ast.walk``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom))


def test_import_scan_finds_imports_in_every_kind_of_block(tmp_path):
    """The scan visits statements only: imports nested in any block are still found, in the
    same number as a visit of every node, on a synthetic file and on every file of graphdr."""
    source = (
        "import a\n"
        "def f():\n    import b\n    def g():\n        from c import d\n"
        "class K:\n    import e\n    def m(self):\n        import f1\n"
        "if x:\n    import g1\nelif y:\n    import g2\nelse:\n    import g3\n"
        "try:\n    import h1\nexcept ImportError:\n    import h2\nelse:\n    import h3\n"
        "finally:\n    import h4\n"
        "for i in y:\n    import i1\nelse:\n    import i2\n"
        "while z:\n    import j1\n"
        "with ctx():\n    import k1\n"
        "async def co():\n    async with c:\n        import l1\n    async for q in r:\n"
        "        import l2\n"
        "match v:\n    case 1:\n        import m1\n    case _:\n        import m2\n"
        "s = 'import not_a_module'\n"
    )
    path = tmp_path / "pkg" / "mod.py"
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": source})
    found = codedeps.imported_modules(path, tmp_path)
    expected = {"a", "b", "c", "e", "f1", "g1", "g2", "g3", "h1", "h2", "h3", "h4", "i1", "i2"}
    assert found == expected | {"j1", "k1", "l1", "l2", "m1", "m2"}
    for file in sorted(SRC.rglob("*.py")):
        tree = ast.parse(file.read_text(encoding="utf-8"))
        scanned = sorted(ast.dump(n) for n in codedeps._import_statements(tree.body))
        assert scanned == _imports_by_walk(file), file


def test_import_summaries_are_cached_by_content_and_survive_a_damaged_cache(tmp_path, monkeypatch):
    """The on-disk summaries: a second process reads what the first wrote (same answer, no
    parse); an edit is seen at once; a damaged entry is parsed again and rewritten; an
    unwritable cache only costs the parse."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from pkg import b\n", "pkg/b.py": ""})
    a = tmp_path / "pkg/a.py"

    def fresh():  # a new process: nothing remembered in memory
        codedeps._summary.cache_clear()
        codedeps._imported_modules.cache_clear()
        return codedeps.imported_modules(a, tmp_path)

    assert fresh() == {"pkg.b"}
    (entry,) = (tmp_path / "cache/graphdr/codedeps").glob("*.json")
    monkeypatch.setattr(codedeps.ast, "parse", lambda *a, **k: pytest.fail("parsed again"))
    assert fresh() == {"pkg.b"}  # read from the entry
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    a.write_text("from pkg import b\nimport pkg\n")  # same size class, new content: new key
    assert fresh() == {"pkg.b", "pkg"}
    entry.write_text('{"format": "graphdr.codedeps 1", "imp')  # damaged
    a.write_text("from pkg import b\n")
    assert fresh() == {"pkg.b"} and json.loads(entry.read_text())["imports"] == [[0, "pkg", ["b"]]]
    (tmp_path / "a_file").write_text("")  # a cache "directory" that cannot be created
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a_file"))
    assert fresh() == {"pkg.b"}


_CODE = '''"""Module doc."""
import os


def f(x, k=2):
    """Doc of f."""
    return os.sep.join([x] * k)  # a comment


class C:
    """Doc of C."""

    def g(self):
        """Only a docstring: kept."""
'''


@pytest.mark.parametrize(
    ("edit", "same"),
    [
        (lambda s: s.replace("  # a comment", ""), True),
        (lambda s: s + "\n\n# trailing comment\n", True),
        (lambda s: s.replace('"""Doc of f."""', '"""Another text."""'), True),
        (lambda s: s.replace('"""Module doc."""\n', ""), True),
        (lambda s: s.replace("[x] * k", "[x]*k").replace("k=2", "k = 2"), True),
        (lambda s: "\n\n" + s, True),  # every line moved
        (lambda s: s.replace("k=2", "k=3"), False),  # a default
        (lambda s: s.replace("[x] * k", "[x] * (k + 1)"), False),
        (lambda s: s.replace("os.sep", "os.pathsep"), False),
        (lambda s: s.replace('"""Only a docstring: kept."""', "pass"), False),
        (lambda s: s.replace('"""Doc of C."""', '"""Doc of C."""\n    N = 1'), False),
    ],
)
def test_semantic_digest_sees_what_code_does_not_how_it_is_written(
    tmp_path, monkeypatch, edit, same
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(_CODE)
    b.write_text(edit(_CODE))
    assert a.read_text() != b.read_text()
    assert (codedeps.semantic_digest(a) == codedeps.semantic_digest(b)) is same


def test_semantic_digest_of_every_module_survives_unparse_and_comment_removal(
    tmp_path, monkeypatch
):
    """The digest of each graphdr source equals that of ``ast.unparse`` of it (no comments,
    another layout, docstrings re-quoted) and of its text with every comment token removed."""
    import io as _io
    import tokenize

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for path in sorted((SRC / "graphdr").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tokens = tokenize.generate_tokens(_io.StringIO(text).readline)
        uncommented = tokenize.untokenize(
            (t.type, t.string) for t in tokens if t.type != tokenize.COMMENT
        )
        digests = set()
        for i, variant in enumerate([text, ast.unparse(ast.parse(text)), uncommented]):
            copy = tmp_path / f"{path.stem}_{i}.py"
            copy.write_text(variant, encoding="utf-8")
            digests.add(codedeps.semantic_digest(copy))
        assert len(digests) == 1, path


def test_no_workflow_code_reads_a_docstring():
    """The code stamps leave docstrings out, which is sound only while no result depends on
    one: no module of the package reads ``__doc__`` or ``inspect.getdoc`` (the calibration
    command's ``--help`` text aside, which no job runs)."""
    readers = {
        path.relative_to(SRC).as_posix()
        for path in (SRC / "graphdr").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.Attribute) and node.attr in ("__doc__", "getdoc"))
        or (isinstance(node, ast.Name) and node.id in ("__doc__", "getdoc"))
    }
    assert readers == {"graphdr/pipeline/papers/akda/calibrate.py"}


def test_code_stamps_change_only_with_the_digest(tmp_path, monkeypatch):
    """A stamp is written once, left untouched by a comment or docstring edit, rewritten by a
    change of code, and healed when damaged or deleted."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/a.py": "X = 1\n"})
    src, root, a = tmp_path / "src", tmp_path / "results/code", tmp_path / "src/pkg/a.py"

    def stamp():
        path = codedeps.code_stamp(a, src, root)
        return path, path.stat().st_mtime_ns, path.read_text()

    path, mtime, text = stamp()
    assert path == root / "pkg/a.py.digest" and text == codedeps.semantic_digest(a) + "\n"
    a.write_text('"""Doc."""\nX = 1  # one\n')
    assert stamp() == (path, mtime, text)  # not rewritten: Snakemake sees nothing new
    a.write_text("X = 2\n")
    new_path, new_mtime, new_text = stamp()
    assert new_text != text and new_text == codedeps.semantic_digest(a) + "\n"
    path.write_text("damaged")
    assert stamp()[2] == new_text
    path.unlink()
    assert stamp()[2] == new_text
    assert not list(root.rglob("*.tmp"))


def test_code_closure_counts_parent_packages_that_run_code(tmp_path):
    """Importing one submodule runs its parents' __init__: they count unless they only re-export."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": '"""Doc."""\n',
            "pkg/ev/__init__.py": (
                '"""Re-exports."""\nfrom pkg.ev.a import f\nfrom .b import g\n'
                "ALL: list = [f, g]\n__all__ = ['f', 'g', 'ALL']\n"
            ),
            "pkg/ev/a.py": "def f():\n    pass\n",
            "pkg/ev/b.py": "from pkg.ev.a import f\ng = f\n",
            "pkg/cfg/__init__.py": "import os\nTHREADS = int(os.environ.get('N', '1'))\n",
            "pkg/cfg/c.py": "from pkg.ev.b import g\n",
            "pkg/one.py": "from pkg.ev.a import f\n",
            "pkg/whole.py": "from pkg import ev\n",
            "pkg/deep.py": "from pkg.cfg.c import g\n",
        },
    )

    def closure(module):
        files = codedeps.code_closure([module], tmp_path, package="pkg")
        return [p.relative_to(tmp_path / "pkg").as_posix() for p in files]

    assert codedeps.reexports_only(tmp_path / "pkg/ev/__init__.py")
    assert not codedeps.reexports_only(tmp_path / "pkg/cfg/__init__.py")
    assert closure("pkg.one") == ["ev/a.py", "one.py"]  # not b.py through the parent
    assert closure("pkg.whole") == ["ev/__init__.py", "ev/a.py", "ev/b.py", "whole.py"]
    # a parent that computes something counts, with what it imports
    assert closure("pkg.deep") == ["cfg/__init__.py", "cfg/c.py", "deep.py", "ev/a.py", "ev/b.py"]


def test_defining_module_scans_text(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/m/__init__.py": "from pkg.m.one import Est\n",
            "pkg/m/one.py": "class Est:\n    pass\nclass EstBig:\n    pass\n",
            "pkg/m/two.py": "def make():\n    pass\nALIAS: type = int\n",
        },
    )
    assert codedeps.defining_module("Est", "pkg.m", tmp_path) == "pkg.m.one"
    assert codedeps.defining_module("make", "pkg.m", tmp_path) == "pkg.m.two"
    assert codedeps.defining_module("ALIAS", "pkg.m", tmp_path) == "pkg.m.two"
    assert codedeps.defining_module("Missing", "pkg.m", tmp_path) is None


def test_real_stage_dependencies():
    """Table code does not depend on the estimators; fit code depends on its estimator only."""
    report_files = codedeps.code_closure(["graphdr.pipeline.report"], SRC)
    assert {"report.py", "reporting.py", "io.py"} <= {p.name for p in report_files}
    assert not [p for p in report_files if p.parent.name in ("methods", "evaluation")]
    module = codedeps.defining_module("LDA_GE", "graphdr.methods", SRC)
    assert module == LDA_GE.__module__
    fit_files = codedeps.code_closure(["graphdr.pipeline.fit", module], SRC)
    assert SRC / "graphdr" / "methods" / "graph_embedding.py" in fit_files
    assert SRC / "graphdr" / "solvers.py" in fit_files


def test_prepare_jobs_depend_on_their_own_loader_only():
    """A dataset's prepare job: the data stage + its loader's module (from the literal LOADERS)."""
    from graphdr.datasets import _load

    base = {Path(p).name for p in codedeps.code_closure(["graphdr.pipeline.data"], SRC)}
    assert "_load.py" in base and not base & {"synthetic.py", "_tabular.py", "_images.py"}
    for loader, target in _load.LOADERS.items():
        module = codedeps.loader_module(loader, SRC)
        # the module the workflow lists is the one load() imports and calls
        assert _load.get_loader(loader).__module__ == module, loader
        assert module == "graphdr.datasets." + target.split(":")[0]
    keel = codedeps.code_closure(
        ["graphdr.pipeline.data", codedeps.loader_module("keel", SRC)], SRC
    )
    names = {Path(p).name for p in keel}
    assert "_tabular.py" in names and "synthetic.py" not in names and "_bundled.py" not in names
    with pytest.raises(ValueError, match="unknown dataset loader 'kele'"):
        codedeps.loader_module("kele", SRC)


def test_evaluation_is_split_by_concern():
    """Drawing splits does not depend on the classifiers; scoring does not depend on the splits."""
    evaluation = SRC / "graphdr" / "evaluation"

    def closure(module):
        return {
            p.relative_to(evaluation).as_posix() for p in _closure(module) if p.parent == evaluation
        }

    assert closure("graphdr.pipeline.splits") == {"_checks.py", "splits.py"}
    assert closure("graphdr.pipeline.evaluate") == {
        "_checks.py",
        "classifiers.py",
        "metrics.py",
        "selection.py",
    }
    assert "classifiers.py" in closure("graphdr.pipeline.fit")  # grid selection scores with one
    # the package keeps its public API in one namespace
    import graphdr.evaluation as ev
    from graphdr.evaluation import classifiers, selection
    from graphdr.evaluation import splits as ev_splits

    assert ev.make_classifier is classifiers.make_classifier
    assert ev.score_dimensions is selection.score_dimensions
    assert ev.stratified_split is ev_splits.stratified_split
    assert all(hasattr(ev, name) for name in ev.__all__)


def _closure(module):
    return codedeps.code_closure([module], SRC)


# ------------------------------------------------------------------------------------------
# plan: config -> jobs
# ------------------------------------------------------------------------------------------


def test_score_jobs_cover_every_combination():
    config = demo_config(split={"kind": "kfold", "n_folds": 3})
    jobs = plan.score_jobs(config, "demo")
    assert len(jobs) == 2 * 2 * 2 * 3  # datasets x methods x seeds x folds
    assert len({tuple(j.values()) for j in jobs}) == len(jobs)
    assert plan.replicates(config["experiments"]["demo"])[:4] == [(0, 0), (0, 1), (0, 2), (1, 0)]


def test_paper_jobs_locate_and_labels():
    config = demo_config()
    assert plan.paper_jobs(config, "tables") == [
        {"paper": "demo", "name": "t", "experiment": "demo"}
    ]
    assert plan.paper_jobs(config, "figures", kind="other") == []
    assert plan.locate(config, "figures", "demo", "f") == (
        "demo",
        {"kind": "projection", "seed": 1},
    )
    with pytest.raises(KeyError, match="no table 'x'"):
        plan.locate(config, "tables", "demo", "x")
    assert plan.labels(config, "demo") == {
        "method": {"PCA": "PCA", "LDA": "LDA"},
        "dataset": {"a": "A", "b": "b"},
    }


def test_figure_panels_defaults_and_order():
    config = demo_config()
    panels = plan.figure_panels(config, "demo", {"kind": "projection"})
    assert [(p["dataset"], p["method"]) for p in panels] == [
        ("a", "PCA"),
        ("a", "LDA"),
        ("b", "PCA"),
        ("b", "LDA"),
    ]
    assert {(p["seed"], p["fold"]) for p in panels} == {(0, 0)}  # first seed, fold 0
    spec = {"kind": "projection", "datasets": ["b"], "methods": ["LDA"], "seed": 1}
    assert plan.figure_panels(config, "demo", spec) == [
        {"dataset": "b", "method": "LDA", "seed": 1, "fold": 0}
    ]


def test_check_config_accepts_demo_and_lists_every_problem():
    plan.check_config(demo_config())
    bad = demo_config(
        datasets=["a", "nope"],
        tables={"t": {"classifier": "svm"}, "f": {"classifier": "1nn", "dimension": "best_val"}},
        figures={"f": {"kind": "projection", "methods": ["KPCA"], "seed": 7}},
    )
    bad["experiments"]["demo"]["methods"]["LDA"]["grid"] = {"reg": [1e-3, 1e-1]}
    with pytest.raises(ValueError) as err:
        plan.check_config(bad)
    message = str(err.value)
    for fragment in (
        "['nope'], not defined under datasets",
        "classifier 'svm' is not one of",
        "uses the validation part, but the split has none",
        "methods names ['KPCA']",
        "seed 7 is not one of",
        "have a grid, which needs a 'val' part",
        "paper_figures/demo/f is produced twice",
    ):
        assert fragment in message


def test_check_config_metric_must_match_classifier():
    config = demo_config(tables={"t": {"classifier": "1nn", "metric": "map"}})
    with pytest.raises(ValueError, match="metric 'map' does not match classifier '1nn'"):
        plan.check_config(config)


def _rule_blocks() -> dict[str, str]:
    blocks = {}
    for smk in sorted((SRC.parent / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"^rule ", smk.read_text(), flags=re.MULTILINE)[1:]:
            blocks[block.split(":", 1)[0]] = block
    return blocks


def test_rule_placement_retries_and_sized_resources():
    """Downloads, tables and plots run on the submit host; downloads are not re-run; every rule
    is sized."""
    import yaml

    blocks = _rule_blocks()
    local = {name for name, block in blocks.items() if "    localrule: True" in block}
    assert local >= {
        "retrieve_dataset",
        "collect_table",
        "plot_projection",
        "plot_dee_optimizer_study",
        "write_dee_optimizer_tables",
    }
    # besides the download, a submit-host rule only turns results into tables and figures: it
    # writes under the figures root (and long tables under a results tables/ folder), never a fit
    for name in local - {"retrieve_dataset"}:
        outputs = re.search(r"^    output:\n((?:        .*\n)+)", blocks[name], re.MULTILINE)
        written = re.findall(r"\b(results|figures)\(\s*\"([^\"]*)", outputs.group(1))
        assert any(root == "figures" for root, _ in written), name
        assert all(root == "figures" or "tables/" in path for root, path in written), name
    # network errors are retried inside fetch; a checksum mismatch must not be retried at all
    assert re.search(r"^    retries: 0$", blocks["retrieve_dataset"], flags=re.MULTILINE)
    config = yaml.safe_load((SRC.parent / "config" / "config.yaml").read_text())
    for name in blocks:
        resources = plan.resources_for(config, name)
        assert name in config["resources"], f"rule {name} has no measured resources in the config"
        required = {"threads", "mem_mb", "runtime"}
        assert (
            required
            <= set(resources)
            <= required | {"mem_mb_per_mega_entries", "priority", "priority_by"}
        ), name


def test_resources_precedence():
    config = demo_config(resources={"fit_embed": {"mem_mb": 9000}})
    config["resources"] = {
        "default": {"threads": 1, "mem_mb": 100, "runtime": 5},
        "fit_embed": {"threads": 2, "mem_mb": 500},
    }
    assert plan.resources_for(config, "make_splits") == {"threads": 1, "mem_mb": 100, "runtime": 5}
    assert plan.resources_for(config, "fit_embed") == {"threads": 2, "mem_mb": 500, "runtime": 5}
    assert plan.resources_for(config, "fit_embed", "demo")["mem_mb"] == 9000


def test_job_environment_precedence(monkeypatch):
    monkeypatch.setattr(plan, "_user", lambda: "alice")
    config = {"numba_cache_dir": "/scratch/{user}/numba", "data": {"mirror": "/m", "home": None}}
    blas = {"OPENBLAS_THREAD_TIMEOUT": "16"}
    env = plan.job_environment(config, {})
    assert env == {"NUMBA_CACHE_DIR": "/scratch/alice/numba", "GRAPHDR_DATA_MIRROR": "/m", **blas}
    env = plan.job_environment(
        config, {"NUMBA_CACHE_DIR": "/c", "GRAPHDR_DATA_MIRROR": "", "OPENBLAS_THREAD_TIMEOUT": "8"}
    )
    assert env == {  # environment wins
        "NUMBA_CACHE_DIR": "/c",
        "GRAPHDR_DATA_MIRROR": "",
        "OPENBLAS_THREAD_TIMEOUT": "8",
    }
    env = plan.job_environment({}, {"XDG_CACHE_HOME": "/x"})
    assert env == {"NUMBA_CACHE_DIR": os.path.join("/x", "graphdr", "numba"), **blas}


def test_blas_environment_reaches_make_and_the_benchmarks():
    """The Makefile exports the same OpenBLAS settings as the workflow's jobs, and the benchmark
    package sets them before numpy loads (its first import)."""
    from graphdr.pipeline.plan import BLAS_ENVIRONMENT

    makefile = (SRC.parent / "Makefile").read_text()
    for var, value in BLAS_ENVIRONMENT.items():
        assert re.search(rf"^export {var} \?= {value}$", makefile, re.M), var
    code = (
        "import os, sys; import benchmarks; assert 'numpy' not in sys.modules; "
        "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))"
    )
    env = {k: v for k, v in os.environ.items() if k not in BLAS_ENVIRONMENT}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=SRC.parent, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == BLAS_ENVIRONMENT["OPENBLAS_THREAD_TIMEOUT"]


def test_registry_record_changes_only_with_its_dataset(tmp_path):
    package = SRC / "graphdr" / "datasets" / "registry.toml"
    base = plan.read_registries([package])
    iris, wine = plan.registry_record("iris", base), plan.registry_record("sklearn_wine", base)
    assert iris["files"] == {
        "uci/keel/iris.dat": datasets.file_entry("uci/keel/iris.dat")["sha256"]
    }
    assert iris["dataset"]["loader"] == "keel" and list(iris["dataset"]) == sorted(iris["dataset"])
    assert wine["files"] == {} and plan.registry_record("unknown", base) is None
    # a user registry replacing iris's file (new bytes, new sha256) changes iris's record only;
    # a new download URL of the same bytes changes nothing
    sha = "0" * 64
    user = tmp_path / "extra.toml"
    user.write_text(
        f'[files."mine/iris.dat"]\nsha256 = "{sha}"\n'
        '[files."uci/keel/wine.dat"]\nsha256 = "'
        + datasets.file_entry("uci/keel/wine.dat")["sha256"]
        + '"\nurls = ["https://example.org/wine.dat"]\n'
        '[datasets.iris]\nloader = "keel"\nfiles = ["mine/iris.dat"]\n'
    )
    merged = plan.read_registries([package, user])
    assert plan.registry_record("iris", merged)["files"] == {"mine/iris.dat": sha}
    for name in ("wine", "sklearn_wine", "glass"):
        assert plan.registry_record(name, merged) == plan.registry_record(name, base), name
    with pytest.raises(FileNotFoundError, match="GRAPHDR_EXTRA_REGISTRY"):
        plan.read_registries([package, tmp_path / "missing.toml"])


def test_check_sources_names_unknown_datasets():
    registry = plan.read_registries([SRC / "graphdr" / "datasets" / "registry.toml"])
    plan.check_sources(demo_config() | {"datasets": {"a": {"source": "iris"}}}, registry)
    config = {"datasets": {"a": {"source": "iriss"}, "b": {"source": "wine"}}}
    with pytest.raises(ValueError, match=r"datasets.a.source 'iriss'.*did you mean iris") as err:
        plan.check_sources(config, registry)
    assert "datasets.b" not in str(err.value)


def test_raw_files_reads_registries_in_priority(tmp_path):
    package = SRC / "graphdr" / "datasets" / "registry.toml"
    assert plan.raw_files("sklearn_wine", [package]) == []
    assert plan.raw_files("wine", [package]) == datasets.dataset_files("wine")
    assert plan.raw_files("unknown", [package]) is None
    user = tmp_path / "extra.json"
    user.write_text(json.dumps({"datasets": {"wine": {"files": ["mine.csv"]}}}))
    assert plan.raw_files("wine", [package, user]) == ["mine.csv"]


# ------------------------------------------------------------------------------------------
# data and splits
# ------------------------------------------------------------------------------------------


def test_prepare_dataset_bundled_is_deterministic(tmp_path):
    a = data.prepare_dataset("sklearn_wine", tmp_path / "a.npz")
    data.prepare_dataset("sklearn_wine", tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    back = datasets.load_npz(tmp_path / "a.npz")
    assert back.X.shape == (178, 13) and back.n_classes == 3
    np.testing.assert_array_equal(back.X, a.X)


def test_prepare_dataset_subsample_keeps_class_proportions(tmp_path):
    full = datasets.load("sklearn_digits")
    small = data.prepare_dataset(
        "sklearn_digits", tmp_path / "d.npz", subsample_spec={"size": 0.25, "seed": 3}
    )
    assert small.n_samples == round(0.25 * full.n_samples)
    expected = 0.25 * np.bincount(full.y)
    assert np.all(np.abs(np.bincount(small.y) - expected) <= 1)


def test_subsample_keeps_predefined_split():
    split = {"train": np.arange(0, 60, 2), "test": np.arange(1, 60, 2)}
    ds = toy_dataset(split=split)
    sub = data.subsample(ds, 30, seed=0)
    assert sorted(sub.split) == ["test", "train"]
    assert sub.split["train"].size + sub.split["test"].size == sub.n_samples == 30
    # every remapped index points at a row that came from the same part of the original
    origin = {int(i): part for part, idx in split.items() for i in idx}
    kept = np.flatnonzero(np.isin(ds.X[:, 1], sub.X[:, 1]))
    for part, idx in sub.split.items():
        assert {origin[int(kept[i])] for i in idx} == {part}


def test_retrieve_bundled_dataset_writes_empty_manifest(tmp_path):
    record = data.retrieve_dataset("sklearn_wine", tmp_path / "m.json")
    assert record == {"dataset": "sklearn_wine", "files": {}}
    assert json.loads((tmp_path / "m.json").read_text()) == record


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ({"kind": "stratified", "sizes": {"train": 30, "val": 0.2, "test": None}}, 3),
        ({"kind": "per_class_index", "ranges": {"train": [0, 5], "test": [5, None]}}, 2),
        ({"kind": "per_class_count", "n_per_class": 8}, 2),
        ({"kind": "kfold", "n_folds": 4}, 2),
    ],
)
def test_split_indices_partition(spec, parts):
    ds = toy_dataset()
    folds = splits.split_indices(ds, spec, seed=1)
    assert len(folds) == plan.n_folds(spec)
    for fold in folds:
        assert len(fold) == parts
        joined = np.concatenate(list(fold.values()))
        assert np.unique(joined).size == joined.size  # disjoint
        assert all(np.all(np.diff(idx) > 0) for idx in fold.values())
    if spec["kind"] == "kfold":  # the test folds partition the data
        tests = np.sort(np.concatenate([f["test"] for f in folds]))
        np.testing.assert_array_equal(tests, np.arange(ds.n_samples))
    if spec["kind"] == "per_class_count":  # min(8, half the class): 8, 8, 5
        np.testing.assert_array_equal(np.bincount(ds.y[folds[0]["train"]]), [8, 8, 5])


def test_predefined_split_with_validation_carved_from_train():
    split = {"train": np.arange(40), "test": np.arange(40, 60)}
    ds = toy_dataset(split=split)
    (fold,) = splits.split_indices(ds, {"kind": "predefined", "val_size": 10}, seed=0)
    assert fold["val"].size == 10 and fold["train"].size == 30
    assert set(fold["val"]) | set(fold["train"]) == set(range(40))
    np.testing.assert_array_equal(fold["test"], split["test"])
    with pytest.raises(ValueError, match="use kind 'stratified'"):
        splits.split_indices(toy_dataset(), {"kind": "predefined"}, seed=0)


# ---- the split kinds of the paper protocols (NGEU's tasks), through the same reader ----------


def _split_labels(y, spec, predefined=None):
    """Every fold of ``spec`` on labels alone (the reader needs ``y``, ``split`` and ``name``)."""
    return splits.split_indices(SimpleNamespace(y=np.asarray(y), split=predefined, name="t"), spec)


def test_per_class_ordered_split_takes_views_in_file_order_per_class():
    y = np.repeat(np.arange(3), 10)
    (fold,) = _split_labels(y, {"kind": "per_class_ordered", "train": 5, "val": 2, "test": None})
    for c in range(3):
        rows = np.flatnonzero(y == c)
        np.testing.assert_array_equal(fold["train"][y[fold["train"]] == c], rows[:5])
        np.testing.assert_array_equal(fold["val"][y[fold["val"]] == c], rows[5:7])
        np.testing.assert_array_equal(fold["test"][y[fold["test"]] == c], rows[7:])


def test_sequential_split_is_disjoint_and_uses_the_predefined_parts():
    y = np.tile(np.arange(4), 50)
    predefined = {"train": np.arange(150), "test": np.arange(150, 200)}
    spec = {"kind": "sequential", "pool": "train", "train": 80, "val": 40, "test": "predefined"}
    (fold,) = _split_labels(y, spec, predefined)
    assert fold["train"].size == 80 and fold["val"].size == 40
    assert np.intersect1d(fold["train"], fold["val"]).size == 0
    assert np.all(fold["train"] < 150) and np.all(fold["val"] < 150)
    np.testing.assert_array_equal(fold["test"], predefined["test"])
    assert np.bincount(y[fold["train"]]).tolist() == [20] * 4  # stratified


def test_kfold_with_validation_partitions_the_first_samples():
    y = np.tile(np.arange(3), 40)
    folds = _split_labels(y, {"kind": "kfold", "first": 90, "n_folds": 3, "val": 0.25})
    assert len(folds) == 3
    np.testing.assert_array_equal(
        np.sort(np.concatenate([f["test"] for f in folds])), np.arange(90)
    )
    for f in folds:
        parts = [f["train"], f["val"], f["test"]]
        np.testing.assert_array_equal(np.sort(np.concatenate(parts)), np.arange(90))


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        (
            {"kind": "per_class_ordered", "train": 7, "val": 2, "test": 2},
            "needs 11 samples per class",
        ),
        (
            {"kind": "per_class_ordered", "train": 8, "val": 2, "test": None},
            "smallest class has 10",
        ),
        (
            {"kind": "sequential", "train": 15, "val": 12, "test": 5},
            "test part asks for 5 samples, but only 3",
        ),
        ({"kind": "sequential", "train": 31, "val": 1, "test": None}, "train part asks for 31"),
    ],
)
def test_ngeu_splits_larger_than_the_data_are_refused_not_cut_short(spec, match):
    y = np.repeat(np.arange(3), 10)
    with pytest.raises(ValueError, match=match):
        _split_labels(y, spec)


def test_ngeu_splits_that_fit_exactly_are_kept():
    y = np.repeat(np.arange(3), 10)
    (fold,) = _split_labels(y, {"kind": "per_class_ordered", "train": 7, "val": 2, "test": 1})
    assert fold["test"].size == 3
    spec = {"kind": "sequential", "train": 15, "val": 9, "test": 6}
    (fold,) = _split_labels(y, spec)
    assert [fold[p].size for p in ("train", "val", "test")] == [15, 9, 6]


def test_unknown_split_kind_is_refused():
    with pytest.raises(ValueError, match="split kind 'random' is not supported"):
        _split_labels(np.zeros(4, int), {"kind": "random"})


def test_repeated_splits_reseed_each_draw():
    y = np.repeat(np.arange(3), 40)
    spec = {"kind": "sequential", "train": 30, "val": 15, "test": 15, "seed": 4, "draws": 3}
    draws = _split_labels(y, spec)
    assert len(draws) == 3
    one = {k: v for k, v in spec.items() if k != "draws"}
    for i, fold in enumerate(draws):  # draw i is the single split of seed 4 + i
        (alone,) = _split_labels(y, one | {"seed": 4 + i})
        assert all(np.array_equal(fold[p], alone[p]) for p in alone)
    assert not np.array_equal(draws[0]["train"], draws[1]["train"])
    pre = {"train": np.arange(90), "test": np.arange(90, 120)}
    fixed = _split_labels(
        y, {"kind": "sequential", "pool": "train", "train": 30, "val": 15, "test": "predefined",
            "draws": 3, "fixed_train": True}, pre,
    )  # fmt: skip
    assert all(np.array_equal(f["train"], fixed[0]["train"]) for f in fixed)
    assert not np.array_equal(fixed[0]["val"], fixed[1]["val"])
    for f in fixed:
        assert np.intersect1d(f["train"], f["val"]).size == 0
    cv_spec = {"kind": "kfold", "first": 120, "n_folds": 3, "val": 0.2, "repeats": 2}
    cv = _split_labels(y, cv_spec)
    assert len(cv) == 6
    for rep in (cv[:3], cv[3:]):  # each repeat's test folds partition the samples
        assert np.array_equal(np.sort(np.concatenate([f["test"] for f in rep])), np.arange(120))
    with pytest.raises(ValueError, match="at least 1"):
        _split_labels(y, spec | {"draws": 0})


def test_sequential_split_names_a_missing_predefined_part():
    y = np.tile(np.arange(3), 20)
    spec = {"kind": "sequential", "pool": "train", "train": 9, "val": 6, "test": "predefined"}
    with pytest.raises(ValueError, match=r"\['train', 'test'\] of t, which has no predefined"):
        _split_labels(y, spec)
    with pytest.raises(ValueError, match=r"\['test'\] of t, which has \['train'\]"):
        _split_labels(y, spec, {"train": np.arange(30)})


def test_make_splits_roundtrip(prepared, tmp_path):
    spec = {"kind": "kfold", "n_folds": 3}
    folds = splits.make_splits(prepared, tmp_path / "s.npz", spec=spec, seed=5)
    splits.make_splits(prepared, tmp_path / "t.npz", spec=spec, seed=5)
    assert (tmp_path / "s.npz").read_bytes() == (tmp_path / "t.npz").read_bytes()
    back = splits.read_fold(tmp_path / "s.npz", 2)
    for part in ("train", "test"):
        np.testing.assert_array_equal(back[part], folds[2][part])
    with pytest.raises(ValueError, match="fold=3 does not exist"):
        splits.read_fold(tmp_path / "s.npz", 3)


# ------------------------------------------------------------------------------------------
# fit and evaluate
# ------------------------------------------------------------------------------------------


def _fit_files(tmp_path):
    return {
        "model_path": tmp_path / "m.pkl",
        "embedding_path": tmp_path / "e.npz",
        "info_path": tmp_path / "i.json",
    }


def test_fit_embed_matches_direct_fit(prepared, tmp_path):
    spec = {"kind": "stratified", "sizes": {"train": 0.6, "test": None}}
    splits.make_splits(prepared, tmp_path / "s.npz", spec=spec, seed=0)
    method = {"estimator": "LDA_GE", "params": {"n_components": 2}}
    info = fit.fit_embed(
        prepared,
        tmp_path / "s.npz",
        fold=0,
        method=method,
        preprocessing=[{"name": "standard_scaler"}],
        **_fit_files(tmp_path),
    )
    ds, parts = datasets.load_npz(prepared), splits.read_fold(tmp_path / "s.npz", 0)
    scaler = StandardScaler().fit(ds.X[parts["train"]])
    direct = LDA_GE(n_components=2).fit(
        scaler.transform(ds.X[parts["train"]]), ds.y[parts["train"]]
    )
    arrays = io.read_npz(tmp_path / "e.npz")
    np.testing.assert_allclose(
        arrays["Z_test"], direct.transform(scaler.transform(ds.X[parts["test"]]))
    )
    np.testing.assert_array_equal(arrays["y_test"], ds.y[parts["test"]])
    assert list(arrays["class_names"]) == ["c0", "c1", "c2"]
    assert info["n_components"] == 2 and info["parts"] == {"train": 36, "test": 24}
    model = io.read_pickle(tmp_path / "m.pkl")
    np.testing.assert_array_equal(model.transform(ds.X[parts["test"]]), arrays["Z_test"])
    assert json.loads((tmp_path / "i.json").read_text())["estimator"] == "LDA_GE"


def test_fit_embed_grid_selects_on_validation(prepared, tmp_path):
    spec = {"kind": "stratified", "sizes": {"train": 0.5, "val": 0.25, "test": None}}
    splits.make_splits(prepared, tmp_path / "s.npz", spec=spec, seed=0)
    grid = [0.001, 0.5, 20.0]
    method = {"estimator": "KPCA_GE", "params": {"n_components": 3}, "grid": {"gamma": grid}}
    selection = {"classifier": {"name": "1nn"}, "dims": [2]}
    info = fit.fit_embed(
        prepared,
        tmp_path / "s.npz",
        fold=0,
        method=method,
        selection=selection,
        **_fit_files(tmp_path),
    )
    # reference: the validation accuracy of each grid point at dimension 2, computed here
    ds, parts = datasets.load_npz(prepared), splits.read_fold(tmp_path / "s.npz", 0)
    tr, va = parts["train"], parts["val"]
    scores = []
    for gamma in grid:
        kpca = KPCA_GE(n_components=3, gamma=gamma).fit(ds.X[tr], ds.y[tr])
        knn = KNeighborsClassifier(1).fit(kpca.transform(ds.X[tr])[:, :2], ds.y[tr])
        scores.append(knn.score(kpca.transform(ds.X[va])[:, :2], ds.y[va]))
    assert len(set(scores)) > 1  # the grid matters on this data
    assert info["params"] == {"n_components": 3, "gamma": grid[int(np.argmax(scores))]}
    assert info["selection"]["val_score"] == pytest.approx(max(scores))
    assert info["selection"]["dim"] == 2


def test_fit_embed_errors_name_the_fix(prepared, tmp_path):
    with pytest.raises(ValueError, match="known: .*LDA_GE"):
        fit.resolve_estimator("LDA")
    with pytest.raises(ValueError, match="standard_scaler"):
        fit.estimator_factory({"estimator": "PCA_GE"}, [{"name": "whiten"}])
    splits.make_splits(prepared, tmp_path / "s.npz", spec={"kind": "kfold", "n_folds": 2}, seed=0)
    with pytest.raises(ValueError, match="no 'val' part"):
        fit.fit_embed(
            prepared,
            tmp_path / "s.npz",
            fold=0,
            method={"estimator": "PCA_GE", "grid": {"n_components": [1]}},
            selection={"classifier": {"name": "1nn"}},
            **_fit_files(tmp_path),
        )


def test_dimensions_policy():
    assert evaluate.dimensions("max", 5) == [5]
    assert evaluate.dimensions("all", 3) == [1, 2, 3]
    assert evaluate.dimensions([1, 4, 10], 5) == [1, 4]
    with pytest.raises(ValueError, match="embedding has 2 columns"):
        evaluate.dimensions([3, 4], 2)


def test_evaluate_embedding_matches_sklearn_knn(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {
        "Z_train": rng.normal(size=(40, 3)),
        "y_train": rng.integers(0, 3, 40),
        "Z_test": rng.normal(size=(25, 3)),
        "y_test": rng.integers(0, 3, 25),
    }
    io.write_npz(tmp_path / "e.npz", arrays)
    classifiers = {"1nn": {"name": "1nn"}, "k3": {"name": "knn", "params": {"k": 3}}}
    scores = evaluate.evaluate_embedding(
        tmp_path / "e.npz",
        tmp_path / "s.csv",
        classifiers=classifiers,
        dims="all",
        labels={"experiment": "x", "seed": 0},
    )
    assert list(scores.columns) == ["experiment", "seed", *evaluate.SCORE_COLUMNS]
    assert len(scores) == 2 * 3 and set(scores["part"]) == {"test"}
    for label, k in (("1nn", 1), ("k3", 3)):
        for d in (1, 2, 3):
            knn = KNeighborsClassifier(k).fit(arrays["Z_train"][:, :d], arrays["y_train"])
            expected = knn.score(arrays["Z_test"][:, :d], arrays["y_test"])
            row = scores[(scores["classifier"] == label) & (scores["dim"] == d)]
            assert row["value"].item() == pytest.approx(expected)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "s.csv"), scores, check_dtype=False)


# ------------------------------------------------------------------------------------------
# report: tables and figures
# ------------------------------------------------------------------------------------------


def synthetic_scores() -> pd.DataFrame:
    """Scores of 2 datasets x 2 methods x 3 seeds at dims 1..3, on val and test."""
    rng = np.random.default_rng(1)
    rows = []
    for dataset in ("a", "b"):
        for method in ("M1", "M2"):
            for seed in range(3):
                for part in ("val", "test"):
                    for dim in (1, 2, 3):
                        value = rng.uniform(0.5, 1.0)
                        rows.append(
                            dict(
                                dataset=dataset,
                                method=method,
                                seed=seed,
                                fold=0,
                                part=part,
                                classifier="1nn",
                                metric="accuracy",
                                dim=dim,
                                value=value,
                            )
                        )
    return pd.DataFrame(rows)


def test_table_cells_max_and_fixed_dimension():
    scores = synthetic_scores()
    cells = report.table_cells(scores, {"classifier": "1nn", "scale": 100})
    test = scores[(scores["part"] == "test") & (scores["dim"] == 3)]
    for cell in cells.itertuples():
        values = (
            100 * test[(test["dataset"] == cell.dataset) & (test["method"] == cell.method)]["value"]
        )
        assert cell.value == pytest.approx(values.mean())
        assert cell.std == pytest.approx(np.std(values.to_numpy()))  # ddof=0
        assert cell.n == 3
    capped = report.table_cells(scores[scores["dim"] <= 2], {"classifier": "1nn", "dimension": 5})
    two = scores[(scores["part"] == "test") & (scores["dim"] == 2)]
    assert capped["value"].tolist() == pytest.approx(
        two.groupby(["dataset", "method"], sort=False)["value"].mean().tolist()
    )


def test_table_cells_best_dimension_on_test_or_validation():
    scores = synthetic_scores()
    for dimension, part in (("best", "test"), ("best_val", "val")):
        spec = {"classifier": "1nn", "metric": "error", "dimension": dimension}
        cells = report.table_cells(scores, spec)
        for cell in cells.itertuples():
            sel = scores[(scores["dataset"] == cell.dataset) & (scores["method"] == cell.method)]
            errors = 1 - sel[sel["part"] == part].groupby("dim")["value"].mean()
            assert cell.detail == errors.idxmin()
            reported = 1 - sel[(sel["part"] == "test") & (sel["dim"] == cell.detail)]["value"]
            assert cell.value == pytest.approx(reported.mean())


def test_collect_table_writes_ordered_deterministic_tables(tmp_path):
    scores = synthetic_scores()
    files = []
    for i, (_, group) in enumerate(scores.groupby(["dataset", "method"])):
        files.append(tmp_path / f"s{i}.csv")
        group.to_csv(files[-1], index=False)
    spec = {"classifier": "1nn", "scale": 100, "decimals": 1, "caption": "Acc"}
    labels = {"method": {"M2": "Second", "M1": "First"}, "dataset": {"b": "B", "a": "A"}}
    shown = report.collect_table(
        files, tmp_path / "out" / "t", tmp_path / "long.csv", spec=spec, labels=labels
    )
    assert list(shown.columns) == ["method", "B", "A"] and list(shown["method"]) == [
        "Second",
        "First",
    ]
    assert all(" \u00b1 " in cell for cell in shown[["A", "B"]].to_numpy().ravel())
    first = {s: (tmp_path / "out" / f"t.{s}").read_bytes() for s in ("csv", "md", "tex")}
    report.collect_table(
        files[::-1], tmp_path / "out" / "t", tmp_path / "long.csv", spec=spec, labels=labels
    )
    assert first == {s: (tmp_path / "out" / f"t.{s}").read_bytes() for s in ("csv", "md", "tex")}
    long = pd.read_csv(tmp_path / "long.csv")
    assert list(zip(long["dataset"], long["method"], strict=True)) == [
        ("b", "M2"),
        ("b", "M1"),
        ("a", "M2"),
        ("a", "M1"),
    ]


def test_collect_table_against_paper_reference(tmp_path):
    scores = synthetic_scores()
    scores.to_csv(tmp_path / "s.csv", index=False)
    paper = pd.DataFrame(
        {"row": ["First", "Paper only"], "column": ["A", "A"], "value": [80.0, 70.0]}
    )
    paper.to_csv(tmp_path / "paper.csv", index=False)
    spec = {"classifier": "1nn", "scale": 100, "not_reproduced": {"Paper only": "not implemented"}}
    labels = {"method": {"M1": "First", "M2": "Second"}, "dataset": {"a": "A", "b": "B"}}
    shown = report.collect_table(
        [tmp_path / "s.csv"],
        tmp_path / "t",
        tmp_path / "long.csv",
        spec=spec,
        labels=labels,
        reference=tmp_path / "paper.csv",
    )
    assert "A paper" in shown.columns and "A \u0394" in shown.columns
    assert shown.loc[shown["method"] == "Paper only", "A ours"].item().startswith("not reproduced")


def test_plot_projection_is_deterministic(tmp_path):
    rng = np.random.default_rng(0)
    paths = {}
    for d in ("D1", "D2"):
        for m, k in (("M1", 2), ("M2", 1)):
            path = tmp_path / f"{d}{m}.npz"
            io.write_npz(
                path, {"Z_test": rng.normal(size=(30, k)), "y_test": rng.integers(0, 12, 30)}
            )
            paths[(d, m)] = path
    report.plot_projection(paths, tmp_path / "a", title="t")
    report.plot_projection(paths, tmp_path / "b", title="t")
    for suffix in (".pdf", ".png"):
        a, b = (tmp_path / f"a{suffix}").read_bytes(), (tmp_path / f"b{suffix}").read_bytes()
        assert a == b and len(a) > 1000


# ------------------------------------------------------------------------------------------
# runtime: threads and job logging
# ------------------------------------------------------------------------------------------


def test_limit_threads_applies_to_blas_and_numba():
    import numba

    before = numba.get_num_threads()
    try:
        report_ = runtime.limit_threads(1)
        assert report_["numba"] == 1 and numba.get_num_threads() == 1
        assert all(n == 1 for n in report_.values())
        assert os.environ["OMP_NUM_THREADS"] == "1"
    finally:
        runtime._active_limits.restore_original_limits()
        numba.set_num_threads(before)
    with pytest.raises(ValueError, match=">= 1"):
        runtime.limit_threads(0)


def test_script_header_sizes_numba_pool_before_import(tmp_path):
    """The export the workflow scripts do before importing graphdr reaches numba's pool size."""
    code = (
        "import os, sys\n"
        "os.environ['NUMBA_NUM_THREADS'] = '1'\n"
        f"sys.path.insert(0, {str(SRC)!r})\n"
        "from graphdr.pipeline import runtime\n"
        "import numba\n"
        "print(numba.config.NUMBA_NUM_THREADS, runtime.limit_threads(1)['numba'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1"]


def test_limit_threads_leaves_numba_unloaded_and_sized(tmp_path):
    """A job that never compiles does not pay numba's import; a later import gets the limit."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(SRC)!r})\n"
        "from graphdr.pipeline import runtime\n"
        "report = runtime.limit_threads(1)\n"
        "loaded = 'numba' in sys.modules\n"
        "import numba\n"
        "print(loaded, 'numba' in report, numba.get_num_threads(), runtime.thread_report()['numba'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["False", "False", "1", "1"]


class _FakeSnakemake:
    def __init__(self, log, threads=1):
        self.log, self.threads, self.rule = [str(log)], threads, "fake_rule"
        self.wildcards = {"dataset": "x"}


def test_job_logs_threads_and_failures(tmp_path):
    import numba

    before = numba.get_num_threads()
    log = tmp_path / "job.log"
    try:
        with pytest.raises(ZeroDivisionError), runtime.job(_FakeSnakemake(log)):
            1 / 0  # noqa: B018
    finally:
        runtime._active_limits.restore_original_limits()
        numba.set_num_threads(before)
    text = log.read_text()
    assert "rule fake_rule, wildcards {'dataset': 'x'}" in text
    assert "'numba': 1" in text
    # the log ends with the error (not with "done"): the last line is the exception itself
    assert text.rstrip().splitlines()[-1] == "ZeroDivisionError: division by zero"
    assert "ERROR graphdr.pipeline: job failed" in text and "Traceback" in text
    assert " done\n" not in text


def test_job_log_of_a_success_ends_with_done(tmp_path):
    log = tmp_path / "job.log"
    try:
        with runtime.job(_FakeSnakemake(log)) as logger:
            logger.info("working")
    finally:
        runtime._active_limits.restore_original_limits()
    last = log.read_text().rstrip().splitlines()[-1]
    assert re.search(r"INFO graphdr\.pipeline: done: [0-9.]+ CPU-s \(user .*peak RSS", last)


@pytest.mark.parametrize("inside_job", [False, True])
def test_script_errors_end_the_log_once(tmp_path, inside_job):
    """An error before runtime.job opens the log (a failing import) ends the log too."""
    log = tmp_path / "job.log"  # Snakemake creates the log's directory
    body = (
        "with _bootstrap.job('fake_rule') as job_snakemake:\n"
        "    assert job_snakemake is snakemake\n"
        "    raise KeyError('inside')\n"
        if inside_job
        else "import graphdr.no_such_module\n"
    )
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'workflow' / 'scripts')!r})\n"
        "class S:\n"
        "    threads, rule, wildcards = 1, 'fake_rule', {}\n"
        f"    log = [{str(log)!r}]\n"
        "snakemake = S()\n"
        "import _bootstrap\n" + body
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    text = log.read_text()
    last = "KeyError: 'inside'" if inside_job else "No module named 'graphdr.no_such_module'"
    assert text.rstrip().splitlines()[-1].endswith(last), text
    assert text.count("Traceback") == 1, text
    assert last in out.stderr  # and Snakemake's own report still shows it


def test_script_bootstrap_exports_the_runtime_thread_variables():
    """workflow/scripts/_bootstrap.py cannot import graphdr (numpy would load first): its copy of
    the thread variables must stay equal to the package's."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'workflow' / 'scripts')!r})\n"
        "class S: threads = 3\n"
        "snakemake = S()\n"
        "import _bootstrap\n"
        "import os\n"
        "from graphdr.pipeline import runtime\n"
        "assert _bootstrap.THREAD_VARIABLES == runtime.THREAD_VARIABLES\n"
        "print([os.environ[v] for v in runtime.THREAD_VARIABLES])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['3', '3', '3', '3']"
