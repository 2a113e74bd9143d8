"""The conda environments of the workflow pin exactly the versions of requirements.lock."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ENV_FILES = sorted((ROOT / "envs").glob("*.yaml"))
# conda-forge names that differ from the PyPI names of the lock file
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib"}


def lock_versions() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    return pins


def conda_pins(path: Path) -> list[tuple[str, str, str]]:
    """(name, operator, version) of every dependency line of an environment file."""
    env = yaml.safe_load(path.read_text())
    pins = []
    for dep in env["dependencies"]:
        assert isinstance(dep, str), f"{path.name}: pip sections are not used ({dep!r})"
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(==|=)\s*([0-9][^\s]*)", dep)
        assert match, f"{path.name}: {dep!r} is not pinned"
        pins.append(match.groups())
    return pins


def test_env_files_exist_for_every_rule_family():
    assert {p.stem for p in ENV_FILES} == {"datasets", "compute", "plot"}
    rules = "\n".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    for path in ENV_FILES:
        assert f'"../../envs/{path.name}"' in rules, f"no rule uses envs/{path.name}"


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_every_pin_equals_the_lock(path):
    lock = lock_versions()
    env = yaml.safe_load(path.read_text())
    assert env["channels"][0] == "conda-forge"
    for name, op, version in conda_pins(path):
        if name == "python":  # the lock has no python entry: the venv's minor version
            assert op == "=" and version == f"{sys.version_info.major}.{sys.version_info.minor}"
            continue
        pypi = CONDA_TO_PYPI.get(name, name)
        assert pypi in lock, f"{path.name}: {name} is not in requirements.lock"
        assert op == "==", f"{path.name}: {name} must be pinned exactly (==)"
        assert version == lock[pypi], f"{path.name}: {name}=={version}, lock has {lock[pypi]}"


def test_graphdr_runtime_dependencies_are_in_every_env():
    """Each job imports graphdr (numpy, scipy, scikit-learn, numba, pandas, pooch ...)."""
    needed = {"numpy", "scipy", "scikit-learn", "numba", "pandas", "pooch", "threadpoolctl", "tqdm"}
    for path in ENV_FILES:
        names = {CONDA_TO_PYPI.get(n, n) for n, _, _ in conda_pins(path)}
        assert needed <= names, f"{path.name} lacks {sorted(needed - names)}"
    plot = {CONDA_TO_PYPI.get(n, n) for n, _, _ in conda_pins(ROOT / "envs" / "plot.yaml")}
    assert "matplotlib" in plot
