"""The conda environments of the workflow: exact pins of requirements.lock, and per rule,
everything the rule's script imports.

The import check is static and sound for what it covers: it follows, from each rule's script,
every ``import`` statement (inside functions too, as the rule may call them; not those guarded by
``except ImportError``, which have a fallback) through workflow/scripts and this checkout's
``src/graphdr`` (package ``__init__`` files included, as Python runs them), keeps the top-level
third-party modules, maps each to its distribution with this venv's
``importlib.metadata.packages_distributions()`` and requires that distribution among the pins of
the rule's ``conda:`` file. It does not build the environments (too slow here), so a module
imported by a string (``importlib.import_module``) or one that a pinned distribution fails to
provide on conda-forge is outside it.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ENV_FILES = sorted((ROOT / "envs").glob("*.yaml"))
# conda-forge names that differ from the PyPI names of the lock file
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib", "python-xxhash": "xxhash"}


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
        if name == "python":  # the lock has no python entry: the oldest supported version
            assert op == "=" and version == oldest_supported_python()
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


# ---- Python version: the README's promise ---------------------------------------------------


def oldest_supported_python() -> str:
    """The X.Y of ``Python >= X.Y`` in the README, checked equal to pyproject's requires-python."""
    readme = re.search(r"Python >= (3\.\d+)", (ROOT / "README.md").read_text())
    assert readme, "README.md states no 'Python >= X.Y'"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == f">={readme.group(1)}"
    return readme.group(1)


def test_running_python_is_a_supported_one():
    major, minor = map(int, oldest_supported_python().split("."))
    assert sys.version_info[:2] >= (major, minor)


# ---- each rule's environment provides what its script imports -------------------------------

SCRIPTS = ROOT / "workflow" / "scripts"
SRC = ROOT / "src"
# Provided by Snakemake itself: its script preamble puts its own package on sys.path inside the
# job, whatever the environment (graphdr imports it only in runtime.mock_snakemake, by hand).
PROVIDED = {"snakemake"}


@functools.cache
def rule_scripts_and_envs() -> dict[str, tuple[Path, Path]]:
    """rule name -> (script, conda environment file) of every rule with a script."""
    found = {}
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"^(?=rule )", smk.read_text(), flags=re.MULTILINE)[1:]:
            name = re.match(r"rule (\w+):", block).group(1)
            script = re.search(r'^    script:\s*\n\s*"\.\./scripts/([\w.]+)"', block, re.M)
            if script is None:
                continue
            conda = re.search(r'^    conda:\s*\n\s*"\.\./\.\./envs/([\w.]+)"', block, re.M)
            assert conda, f"rule {name} runs a script but names no conda environment"
            found[name] = (SCRIPTS / script.group(1), ROOT / "envs" / conda.group(1))
    return found


def _optional(tree: ast.AST) -> set[ast.AST]:
    """Import nodes inside ``try`` blocks that catch ImportError: the code runs without them."""
    optional = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
            for h in node.handlers
        ):
            for statement in node.body:
                optional.update(ast.walk(statement))
    return optional


def _imports(path: Path, package: str) -> set[str]:
    """Dotted names of every import statement of a file (relative ones resolved), inside
    functions too (a rule may call them), optional ones (``except ImportError``) left out."""
    names = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    optional = _optional(tree)
    for node in ast.walk(tree):
        if node in optional:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)  # maybe modules
    return names


def _source_file(module: str) -> tuple[Path, str] | None:
    """(file, package of its relative imports) of a graphdr module or a workflow script module."""
    if module.split(".")[0] == "graphdr":
        base = SRC.joinpath(*module.split("."))
        if (base / "__init__.py").is_file():
            return base / "__init__.py", module
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), module.rpartition(".")[0]
        return None
    if "." not in module and (SCRIPTS / f"{module}.py").is_file():  # _bootstrap
        return SCRIPTS / f"{module}.py", ""
    return None


def third_party_imports(script: Path) -> dict[str, str]:
    """Top-level third-party module -> the first file importing it, over the script's closure."""
    stdlib = set(sys.stdlib_module_names)
    todo, seen, found = [(script, "")], set(), {}
    while todo:
        path, package = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in sorted(_imports(path, package)):
            parts = name.split(".")
            local = False
            for i in range(1, len(parts) + 1):  # parents first: Python runs their __init__
                source = _source_file(".".join(parts[:i]))
                if source is not None:
                    local = True
                    todo.append(source)
            top = parts[0]
            if not local and top and top not in stdlib and top not in PROVIDED:
                found.setdefault(top, str(path.relative_to(ROOT)))
    return found


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def env_distributions(path: Path) -> set[str]:
    return {CONDA_TO_PYPI.get(n, n).lower() for n, _, _ in conda_pins(path)}


def _normalise(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


@pytest.mark.parametrize("rule", sorted(rule_scripts_and_envs()), ids=lambda r: r)
def test_rule_environment_provides_every_module_its_script_imports(rule):
    script, env = rule_scripts_and_envs()[rule]
    distributions = _distributions()
    pinned = {_normalise(d) for d in env_distributions(env)}
    missing = []
    for module, where in sorted(third_party_imports(script).items()):
        provided_by = {_normalise(d) for d in distributions.get(module, [])}
        assert provided_by, f"{module} (imported by {where}) is not installed in this venv"
        if not provided_by & pinned:
            missing.append(f"{module} ({sorted(provided_by)}, imported by {where})")
    assert not missing, f"rule {rule}: envs/{env.name} lacks {missing}"


def test_import_closure_sees_through_the_package():
    """The closure reaches third-party imports made deep inside graphdr (a check of the check)."""
    found = third_party_imports(SCRIPTS / "run_akda_toy.py")
    assert {"numpy", "scipy", "sklearn", "matplotlib"} <= set(found), found
    assert "graphdr" not in found and "_bootstrap" not in found
    assert found["matplotlib"].startswith("src/graphdr/")
