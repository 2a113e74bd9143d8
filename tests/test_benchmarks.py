"""The benchmark suite still reaches the library it measures.

``python -m benchmarks`` is not part of ``make test`` (its sizes take minutes); a refactor that
moves a function out of a module a benchmark calls is then only found when someone runs the
benchmark (``bench_ngeu`` crashed that way once: ``ngeu.split_indices`` had moved to the shared
splits). This test resolves, without running anything, every ``graphdr`` name a benchmark
imports and every attribute it reads from an imported ``graphdr`` module.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def unresolved_names(source: str) -> list[str]:
    """``module.name`` references of ``source`` into ``graphdr`` that do not exist."""
    tree = ast.parse(source)
    modules, missing = {}, []  # local name -> imported graphdr module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graphdr"):
            parent = importlib.import_module(node.module)
            for alias in node.names:
                local = alias.asname or alias.name
                try:
                    modules[local] = importlib.import_module(f"{node.module}.{alias.name}")
                except ModuleNotFoundError:
                    if not hasattr(parent, alias.name):
                        missing.append(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("graphdr") and alias.asname:
                    modules[alias.asname] = importlib.import_module(alias.name)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and not hasattr(modules[node.value.id], node.attr)
        ):
            missing.append(f"{modules[node.value.id].__name__}.{node.attr}")
    return sorted(set(missing))


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.py")), ids=lambda p: p.name)
def test_every_graphdr_name_a_benchmark_uses_exists(path):
    assert unresolved_names(path.read_text(encoding="utf-8")) == []


def test_a_moved_function_is_found():
    """The case that happened: a benchmark calling a function its module no longer has."""
    source = (
        "from graphdr.pipeline.papers.ngeu import protocol as ngeu\n"
        "from graphdr.kernels import pairwise_kernel, no_such_kernel\n"
        "import graphdr.methods.qmi as qmi\n"
        "def run():\n"
        "    ngeu.split_indices([0, 1], {})\n"
        "    ngeu.run_methods\n"
        "    qmi.KQMI, qmi.no_such_estimator\n"
    )
    assert unresolved_names(source) == [
        "graphdr.kernels.no_such_kernel",
        "graphdr.methods.qmi.no_such_estimator",
        "graphdr.pipeline.papers.ngeu.protocol.split_indices",
    ]


def test_the_diagonal_rbf_floor_computes_the_division_sum_of_every_pair():
    """bench_ngeu's floor row divides by the time of ``_division_floor``: it must do the work it
    stands for (``sum_k (x_ik - x_jk)^2 / (1 + 2 gamma (s_ik + s_jk))`` on every pair, both
    triangles), checked against numpy, and that sum is the quadratic part of the kernel's log."""
    import numpy as np

    from benchmarks.bench_ngeu import _division_floor
    from graphdr.kernels.expected import expected_kernel

    rng = np.random.default_rng(0)
    X, S, gamma = rng.normal(size=(7, 5)), rng.uniform(0, 0.5, (7, 5)), 0.3
    out = np.full((7, 7), np.nan)
    _division_floor(X, S, gamma, out)
    a = 1 + 2 * gamma * (S[:, None, :] + S[None, :, :])
    quad = (((X[:, None, :] - X[None, :, :]) ** 2) / a).sum(-1)
    off = ~np.eye(7, dtype=bool)
    np.testing.assert_allclose(out[off], quad[off], rtol=1e-12)
    K = expected_kernel(X, x_variance=S, kernel="rbf", gamma=gamma)
    np.testing.assert_allclose(K[off], (np.prod(a, -1) ** -0.5 * np.exp(-gamma * quad))[off])
