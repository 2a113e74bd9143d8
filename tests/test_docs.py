"""The Sphinx site (``make docs``): the API reference lists every estimator, and the site builds
with warnings as errors.

The build here runs with the gallery's execution off (``-D plot_gallery=0``), in a copy of
``docs/`` and ``examples/``, so that it stays well under a minute and never writes into the
checkout; ``make docs`` runs the examples too.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import graphdr.methods

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API = DOCS / "api"

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinx_gallery")


def _exported_classes() -> set[str]:
    return {n for n in graphdr.methods.__all__ if inspect.isclass(getattr(graphdr.methods, n))}


def _documented_classes() -> set[str]:
    text = (API / "methods.rst").read_text(encoding="utf-8")
    return set(re.findall(r"^\.\. autoclass:: (\w+)$", text, flags=re.MULTILINE))


def test_api_reference_lists_every_estimator():
    exported = _exported_classes()
    assert len(exported) >= 34 and "KDA_GE" in exported
    documented = _documented_classes()
    assert exported - documented == set(), "add them to docs/api/methods.rst"
    assert documented - exported == set(), "docs/api/methods.rst names classes not exported"


def test_api_pages_document_existing_modules_and_every_page_is_reachable():
    modules = {}
    for page in sorted(API.glob("*.rst")):
        for name in re.findall(r"^\.\. automodule:: ([\w.]+)$", page.read_text(), re.MULTILINE):
            modules[name] = importlib.import_module(name)
    assert set(modules) >= {
        "graphdr.plotting",
        "graphdr.kernels",
        "graphdr.graphs",
        "graphdr.solvers",
        "graphdr.evaluation",
        "graphdr.reporting",
        "graphdr.datasets",
    }
    index = (API / "index.rst").read_text()
    assert {p.stem for p in API.glob("*.rst")} - {"index"} <= set(index.split())
    # every Markdown page of docs/ is in the user guide
    guide = (DOCS / "user_guide.rst").read_text().split()
    assert {p.stem for p in DOCS.glob("*.md")} <= set(guide)


def test_docs_build_without_warnings(tmp_path):
    """sphinx-build -W over a copy of the sources: numpydoc, myst and gallery warnings fail it."""
    skip = shutil.ignore_patterns("_build", "auto_examples", "__pycache__")
    shutil.copytree(DOCS, tmp_path / "docs", ignore=skip)
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=skip)
    env = dict(os.environ)
    # the copy has no src/: the package comes from this checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    out = tmp_path / "html"
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
        + ["-D", "plot_gallery=0", str(tmp_path / "docs"), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    methods = (out / "api" / "methods.html").read_text(encoding="utf-8")
    for name in _exported_classes():  # each class has its own anchor in the reference
        assert f'id="graphdr.methods.{name}"' in methods, name
    assert 'id="graphdr.plotting.plot_embedding"' in (out / "api" / "plotting.html").read_text()
    for page in ("user_guide", "estimators", "workflow", "hpc"):
        assert (out / f"{page}.html").is_file()
    gallery = out / "auto_examples"
    shown = {p.stem for p in gallery.glob("*.html")}
    assert {"index", "plot_pipeline", "run_paper_target", "run_on_slurm"} <= shown
    assert "snakemake" in (gallery / "run_paper_target.html").read_text()
