"""Static checks: ruff (whole repository), snakefmt and `snakemake --lint` are clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PYTHON_FILES = ["."]  # the whole repository; exclusions live in pyproject.toml
SNAKE_FILES = ["Snakefile", "workflow/rules"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_ruff_check_is_clean():
    proc = run(str(BIN / "ruff"), "check", *PYTHON_FILES)
    assert proc.returncode == 0, proc.stdout


def test_ruff_format_is_clean():
    proc = run(str(BIN / "ruff"), "format", "--check", *PYTHON_FILES)
    assert proc.returncode == 0, proc.stdout


def test_snakefmt_is_clean():
    proc = run(str(BIN / "snakefmt"), "--check", *SNAKE_FILES)
    assert proc.returncode == 0, proc.stdout


@pytest.mark.workflow
def test_snakemake_lint_is_clean():
    proc = run(str(BIN / "snakemake"), "--lint")
    assert proc.returncode == 0 and "Lints for" not in proc.stdout, proc.stdout


def test_scripts_export_thread_limits_before_importing_graphdr():
    """Numba sizes its pool at import, so the export (importing ``_bootstrap``) must come first;
    each script runs its body through ``_bootstrap.job`` with an example job of its own rule."""
    for script in sorted((ROOT / "workflow" / "scripts").glob("[!_]*.py")):
        text = script.read_text()
        export = text.index("\nfrom _bootstrap import job")
        first_import = text.index("\nfrom graphdr")
        assert export < first_import, script.name
        assert "numpy" not in text[:export] and "numba" not in text[:export], script.name
        assert f'with job(\n    "{script.stem}"' in text or f'with job("{script.stem}"' in text, (
            f"{script.name} must run its body as a job of its own rule"
        )


def test_every_rule_has_log_benchmark_and_a_script_of_its_name():
    import re

    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        text = smk.read_text()
        blocks = re.split(r"^rule ", text, flags=re.MULTILINE)[1:]
        for block in blocks:
            name = block.split(":", 1)[0]
            for directive in ("log:", "benchmark:", "threads:", "resources:", "conda:"):
                assert f"    {directive}" in block, f"rule {name} has no {directive}"
            assert f'"../scripts/{name}.py"' in block, f"rule {name} must run scripts/{name}.py"
            assert (ROOT / "workflow" / "scripts" / f"{name}.py").is_file()


def _load_config(*names: str) -> dict:
    """Config files merged the way Snakemake merges --configfile overlays."""
    import yaml
    from snakemake.utils import update_config

    config: dict = {}
    for name in names:
        update_config(config, yaml.safe_load((ROOT / "config" / name).read_text()))
    return config


@pytest.mark.parametrize("files", [("config.yaml",), ("config.yaml", "quick.yaml")])
def test_configs_satisfy_schema_and_cross_checks(files):
    from snakemake.utils import validate

    from graphdr.pipeline import plan

    config = _load_config(*files)
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    for paper, section in config["papers"].items():  # each paper's section: its own schema
        validate(section, str(ROOT / "workflow" / "schemas" / "papers" / f"{paper}.schema.yaml"))
    plan.check_config(config)
    assert config["experiments"]["demo"]["dimensions"] == "max"  # defaults are filled in


def test_configs_have_separate_output_roots():
    """The quick overlay writes under its own roots, so it never overwrites the full outputs."""
    import jsonschema
    import yaml

    full = _load_config("config.yaml")["output"]
    quick = _load_config("config.yaml", "quick.yaml")["output"]
    assert full == {"results": "results", "figures": "paper_figures", "logs": "logs"}
    assert set(quick) == set(full) and set(quick.values()).isdisjoint(full.values())
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for bad in ("", ".", "results/", "my results"):
        config = _load_config("config.yaml")
        config["output"]["results"] = bad
        assert not validator.is_valid(config), bad


def test_schema_rejects_unknown_keys_everywhere():
    import jsonschema
    import yaml

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(_load_config("config.yaml"))
    for path, key in [
        ((), "experimentz"),
        (("data",), "mirrors"),
        (("output",), "result"),
        (("datasets", "wine"), "sorce"),
        (("experiments", "demo"), "seedz"),
        (("experiments", "demo", "split"), "size"),
        (("experiments", "demo", "methods", "LDA_GE"), "param"),
        (("experiments", "demo", "tables", "demo_accuracy"), "metrics"),
        (("experiments", "demo", "figures", "demo_projection"), "seeds"),
    ]:
        config = _load_config("config.yaml")
        node = config
        for part in path:
            node = node[part]
        node[key] = 1
        messages = [e.message for e in validator.iter_errors(config)]
        messages += [c.message for e in validator.iter_errors(config) for c in e.context or []]
        assert any(f"'{key}' was unexpected" in m for m in messages), (key, messages)
