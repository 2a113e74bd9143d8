"""Sphinx configuration of the graphdr documentation (``make docs``).

The user guide is the Markdown pages of this folder (read by myst-parser, so they stay readable
on GitHub), the API reference is numpydoc-style autodoc, and the gallery is the scripts of
``examples/``, executed at build time by sphinx-gallery when their name starts with ``plot_``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# the package from this checkout, even when another copy is installed
sys.path.insert(0, str(ROOT / "src"))
# examples run in the build process: no window, and one BLAS/OpenMP thread. Their matrices are
# small, and on a busy machine threaded BLAS spins on its locks (measured here: a 300-sample
# KDA fit took 10 s of wall time with 2 threads under load, 0.6 s with 1).
os.environ.setdefault("MPLBACKEND", "Agg")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import scipy.linalg  # noqa: E402, F401  (loaded first, so that the limit below reaches its BLAS)
import sklearn  # noqa: E402, F401
from threadpoolctl import threadpool_limits  # noqa: E402

import graphdr  # noqa: E402

threadpool_limits(limits=1)

project = "graphdr"
author = "the graphdr authors"
copyright = "the graphdr authors, BSD-3-Clause"  # noqa: A001 (Sphinx's name)
release = version = graphdr.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
templates_path: list[str] = []

# ---- the Markdown user guide --------------------------------------------------------------
myst_enable_extensions: list[str] = []
myst_heading_anchors = 3

# ---- API reference --------------------------------------------------------------------------
autodoc_default_options = {
    "member-order": "bysource",
    # scikit-learn's metadata-routing setters: generated, documented by scikit-learn
    "exclude-members": ",".join(
        f"set_{m}_request" for m in ("fit", "partial_fit", "predict", "score", "transform")
    ),
}
autodoc_typehints = "none"  # numpydoc's Parameters section carries the types
numpydoc_show_class_members = False  # :members: lists them, with their docstrings
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# ---- examples gallery -------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # the other scripts are shown, not run (snakemake, SLURM)
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "write_computation_times": False,
    "image_scrapers": ("matplotlib",),
}

# ---- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"graphdr {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
