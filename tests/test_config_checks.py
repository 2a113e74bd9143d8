"""Config checks before any job (graphdr.pipeline.checks): one case per kind of error.

Most cases call the checks directly on a modified copy of config/config.yaml (fast); two run
``snakemake -n`` on a config overlay to show the workflow stops at load time with the message.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from graphdr import kernels, methods
from graphdr.pipeline import checks, plan

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def _merge(base: dict, overlay: dict) -> dict:
    """Snakemake's --configfile merge: mappings merge key by key, the rest replaces."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


@pytest.fixture(scope="module")
def full() -> dict:
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    return json.loads(json.dumps(config))  # unshare YAML aliases: one edit changes one place


@pytest.fixture(scope="module")
def registry() -> dict:
    return plan.read_registries([SRC / "graphdr" / "datasets" / "registry.toml"])


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # reference files are relative to the workflow directory


def problems(config, registry) -> list[str]:
    return checks.find_problems(config, registry, SRC)


# ---- the source index agrees with the classes --------------------------------------------------


def test_source_index_matches_the_estimators_signatures():
    index = checks.SourceIndex(SRC)
    for cls in methods.ALL_ESTIMATORS:
        assert index.parameters(cls.__name__) == set(inspect.signature(cls).parameters), cls
    assert set(index.estimators()) >= {cls.__name__ for cls in methods.ALL_ESTIMATORS}
    assert index.kernels == kernels.KERNELS
    assert set(index.estimators(checks.NGEU_MODULES)) >= {"KDA_GE", "KPCA_NGEU", "LDA_GEU"}
    assert "AKDA" not in index.estimators(checks.NGEU_MODULES)


def test_full_and_quick_configs_are_sound(full, registry):
    assert problems(full, registry) == []
    quick = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text(encoding="utf-8"))
    assert problems(_merge(full, quick), registry) == []


@pytest.mark.parametrize(
    "names",
    [
        ["ngeu_kda_draws.yaml"],
        ["ngeu_usps2000_rbf.yaml"],
        ["ngeu_usps_anisotropic.yaml"],
        ["ngeu_rslda_iterations.yaml"],
    ],
)
def test_committed_overlays_are_sound(full, registry, names):
    config = full
    for name in names:
        config = _merge(config, yaml.safe_load((ROOT / "config" / name).read_text("utf-8")))
    assert problems(config, registry) == []


def test_usps2000_control_plans_the_usps_grid_alone_under_its_own_roots(tmp_path):
    """The control of the sensitivity run usps=2000 drops Table II and the run itself
    (``null``): its one grid job is USPS's at 2000 training images (task usps2000) on the
    primary's reduced grid (``tasks.usps``), and nothing is written under the full run's
    roots."""
    env = {**os.environ, "GRAPHDR_DATA_MIRROR": str(tmp_path / "unused")}
    root = "results/ngeu_usps2000_rbf"
    out = subprocess.run(
        [SNAKEMAKE, "-n", "--forceall", f"{root}/paper_figures/ngeu/ngeu_verdicts.csv"]
        + ["--configfile", "config/ngeu_usps2000_rbf.yaml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    outputs = re.findall(r"^    output: (.+)$", out, re.MULTILINE)
    grids = [o for o in outputs if "/ngeu/select/" in o]
    assert len(grids) == 1 and f"{root}/ngeu/select/usps2000_" in grids[0], grids
    files = [f for o in outputs for f in o.split(", ")]
    assert all(f.startswith((f"{root}/", "logs/ngeu_usps2000_rbf/")) for f in files)
    full = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["papers"]["ngeu"]
    overlay = yaml.safe_load((ROOT / "config" / "ngeu_usps2000_rbf.yaml").read_text())
    assert overlay["papers"]["ngeu"]["tasks"]["usps2000"]["grid"] == full["tasks"]["usps"]["grid"]
    assert full["tasks"]["usps"]["split"]["train"] == 6000  # the paper's size
    assert full["tasks"]["usps2000"]["split"] == full["tasks"]["usps"]["split"] | {"train": 2000}
    assert "grid" not in full["tasks"]["usps2000"]  # the full grid


# ---- one case per kind of error -----------------------------------------------------------------


def _set(config: dict, path: str, value) -> None:
    *parents, last = path.split("/")
    node = config
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


QMI = "papers/qmi/studies/benchmarks"
NGEU = "papers/ngeu"
DEMO = "experiments/demo"

CASES = {
    # the claims ledger
    "ledger claims file": (
        "ledger/papers/qmi/claims",
        "config/references/qmi_claim.csv",
        ["ledger.papers.qmi.claims: file 'config/references/qmi_claim.csv' does not exist"],
    ),
    "qmi sensitivity_of": (
        "papers/qmi/studies/tol_1e-3/sensitivity_of",
        "benchmark",
        ["papers.qmi.studies.tol_1e-3.sensitivity_of[0]: 'benchmark'", "did you mean 'benchmarks'"],
    ),
    # unknown names (today: bare KeyError, or a failure inside a job)
    "qmi dataset": (
        f"{QMI}/datasets/3",
        "nosuchset",
        ["papers.qmi.studies.benchmarks.datasets[3]: 'nosuchset' is not a dataset (a key"],
    ),
    "qmi visualisation dataset": (
        "papers/qmi/visualisations/datasets/0",
        "qmi_swissroll",
        ["papers.qmi.visualisations.datasets[0]", "did you mean 'qmi_swiss_roll'"],
    ),
    "akda dataset": (
        "papers/akda/datasets/2",
        "akda_usp",
        ["papers.akda.datasets[2]: 'akda_usp'", "did you mean 'akda_usps'"],
    ),
    "akda skip condition": (
        "papers/akda/skip/akda_decaf50",
        {"1000Ex": {"GDA": "why"}},
        ["papers.akda.skip.akda_decaf50.1000Ex", "Allowed: 100Ex, 10Ex"],
    ),
    "akda skip method": (
        "papers/akda/skip/akda_decaf50/100Ex",
        {"GDAA": "why"},
        ["papers.akda.skip.akda_decaf50.100Ex.GDAA", "did you mean 'GDA'"],
    ),
    "dee dataset": (
        "papers/dee/visualisation/datasets/1",
        "ORL",
        ["papers.dee.visualisation.datasets[1]: 'ORL'", "did you mean 'orl'"],
    ),
    "ngeu task dataset": (
        f"{NGEU}/tasks/mnist/dataset",
        "mnist",
        ["papers.ngeu.tasks.mnist.dataset: 'mnist' is not a dataset (a key", "'ngeu_mnist'"],
    ),
    "ngeu table method": (
        f"{NGEU}/tables/table1/methods/3",
        "KMFA_GEE",
        ["papers.ngeu.tables.table1.methods[3]: 'KMFA_GEE'", "did you mean 'KMFA_GE'"],
    ),
    "ngeu table task": (
        f"{NGEU}/tables/table1/tasks/0",
        "coil",
        ["papers.ngeu.tables.table1.tasks[0]: 'coil'", "Allowed: awgn, coil20, mnist, usps,"],
    ),
    "ngeu sensitivity run of a table": (
        f"{NGEU}/tables/table1_usps2000/variant_of/study",
        "table_1",
        ["papers.ngeu.tables.table1_usps2000.variant_of.study: 'table_1'", "'table1'"],
    ),
    "ngeu task grid kernel": (
        f"{NGEU}/tasks/usps/grid/kernels/0",
        "rbff",
        ["papers.ngeu.tasks.usps.grid.kernels[0]: 'rbff'", "did you mean 'rbf'"],
    ),
    "ngeu claim label": (
        f"{NGEU}/tables/table1/claims/0/1",
        "KDA-NGEU",
        ["papers.ngeu.tables.table1.claims[0][1]: 'KDA-NGEU'", "'KDA-NGEU + k-NN'"],
    ),
    "experiment dataset": (
        f"{DEMO}/datasets/1",
        "wines",
        ["experiments.demo.datasets[1]: 'wines'", "did you mean 'wine'"],
    ),
    "missing reference file": (
        f"{NGEU}/tables/table2/reference",
        "config/references/ngeu_table_2.csv",
        ["papers.ngeu.tables.table2.reference", "does not exist"],
    ),
    # estimators, their parameters, kernels (today: accepted, fail inside the job)
    "estimator name": (
        f"{DEMO}/methods/KDA_GE/estimator",
        "KDA_EG",
        ["experiments.demo.methods.KDA_GE.estimator: 'KDA_EG'", "did you mean 'KDA_GE'"],
    ),
    "ngeu row estimator": (
        f"{NGEU}/methods/KDA_GE/estimator",
        "AKDA",
        ["papers.ngeu.methods.KDA_GE.estimator: 'AKDA' is not a row estimator"],
    ),
    # AKSDA is defined in the module of the NGEU baseline FastSDA: not a row for that reason
    "ngeu row estimator beside a baseline": (
        f"{NGEU}/methods/KDA_GE/estimator",
        "AKSDA",
        ["papers.ngeu.methods.KDA_GE.estimator: 'AKSDA' is not a row estimator"],
    ),
    "estimator parameter": (
        f"{DEMO}/methods/KDA_GE/params",
        {"kernal": "rbf"},
        ["experiments.demo.methods.KDA_GE.params.kernal", "did you mean 'kernel'"],
    ),
    "grid parameter": (
        f"{DEMO}/methods/KDA_GE/grid",
        {"gama": [0.1, 1.0]},
        ["experiments.demo.methods.KDA_GE.grid.gama", "did you mean 'gamma'"],
    ),
    "dee parameter": (
        "papers/dee/recognition/methods/DEE/params/lamda",
        1.0,
        ["papers.dee.recognition.methods.DEE.params.lamda", "did you mean 'lam'"],
    ),
    "study parameter": (
        "optimizer_studies/dee_optimizers/params/max_iters",
        10,
        ["optimizer_studies.dee_optimizers.params.max_iters", "did you mean 'max_iter'"],
    ),
    "study estimator without optimizer": (
        "optimizer_studies/dee_optimizers/estimator",
        "KDA",
        ["optimizer_studies.dee_optimizers.estimator: 'KDA' has no `optimizer` parameter"],
    ),
    "kernel name": (
        f"{DEMO}/methods/KDA_GE/params/kernel",
        "rbff",
        ["experiments.demo.methods.KDA_GE.params.kernel: 'rbff' is not a kernel", "'rbf'"],
    ),
    "grid kernel name": (
        f"{DEMO}/methods/KDA_GE/grid",
        {"kernel": ["rbf", "polynomial"]},
        ["experiments.demo.methods.KDA_GE.grid.kernel[1]: 'polynomial'", "'poly'"],
    ),
    "outside package": (
        "papers/dee/visualisation/methods/tsne/estimator",
        "sklean.manifold.TSNE",
        ["papers.dee.visualisation.methods.tsne.estimator: package 'sklean'"],
    ),
    # sizes against the dataset (today: cut short silently, or a late unrelated failure)
    "subsample": (
        "datasets/usps60/subsample/size",
        20000,
        ["datasets.usps60.subsample.size: 20000 asks for 20000 samples", "has 11000"],
    ),
    "ngeu ordered split beyond the class": (
        f"{NGEU}/tasks/coil20/split",
        {"kind": "per_class_ordered", "train": 70, "val": 3, "test": 4},
        [
            "papers.ngeu.tasks.coil20.split (train 70 + val 3 + test 4 per class): needs 77",
            "the smallest class of dataset 'coil20' has 72",
        ],
    ),
    "ngeu ordered split cut short": (
        f"{NGEU}/tasks/coil20/split",
        {"kind": "per_class_ordered", "train": 68, "val": 3, "test": 4},
        ["needs 75 samples per class, but the smallest class of dataset 'coil20' has 72"],
    ),
    "ngeu ordered split leaves no test": (
        f"{NGEU}/tasks/coil20/split",
        {"kind": "per_class_ordered", "train": 67, "val": 5, "test": None},
        ["test None per class): needs 73 samples per class"],
    ),
    "ngeu sequential split": (
        f"{NGEU}/tasks/mnist/split",
        {"kind": "sequential", "train": 8000, "val": 1500, "test": 1500, "seed": 0},
        [
            "papers.ngeu.tasks.mnist.split (train + val + test): needs 11000",
            "dataset 'ngeu_mnist' has 10000",
        ],
    ),
    "dee train per class": (
        "papers/dee/recognition/protocol/coil20/train_per_class",
        72,
        ["papers.dee.recognition.protocol.coil20.train_per_class (plus one test sample): needs 73"],
    ),
    "experiment split": (
        f"{DEMO}/split/sizes",
        {"train": 160, "test": 10},
        ["experiments.demo.split.sizes: needs 170 samples, but dataset 'iris' has 150"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_kind_of_error_is_named_with_its_path_and_alternatives(case, full, registry):
    path, value, expected = CASES[case]
    config = copy.deepcopy(full)
    _set(config, path, value)
    found = problems(config, registry)
    assert len(found) == 1, found
    for text in expected:
        assert text in found[0], found[0]
    with pytest.raises(ValueError, match="invalid workflow config .*before any job ran"):
        checks.check_config(config, registry, SRC)


def test_split_sizes_that_fit_pass(full, registry):
    config = copy.deepcopy(full)
    for split in ({"train": 8, "val": 3, "test": 4}, {"train": 66, "val": 5, "test": None}):
        _set(config, f"{NGEU}/tasks/coil20/split", {"kind": "per_class_ordered", **split})
        assert problems(config, registry) == []


def test_every_problem_is_listed_at_once(full, registry):
    together = [
        "qmi dataset",
        "akda dataset",
        "ngeu table task",
        "dee parameter",
        "study parameter",
        "estimator parameter",
        "kernel name",
        "subsample",
        "ngeu ordered split cut short",
    ]
    config = copy.deepcopy(full)
    for case in together:
        _set(config, *CASES[case][:2])
    found = problems(config, registry)
    assert len(found) == len(together), found
    for case in together:
        assert any(CASES[case][2][0] in line for line in found), case


# ---- the workflow stops at load time ------------------------------------------------------------


@pytest.mark.parametrize(
    ("overlay", "message"),
    [
        (
            {"papers": {"qmi": {"studies": {"benchmarks": {"datasets": ["iris", "nosuchset"]}}}}},
            "papers.qmi.studies.benchmarks.datasets[1]: 'nosuchset' is not a dataset (a key",
        ),
        (
            {"papers": {"ngeu": {"tasks": {"coil20": {"split": {"train": 70}}}}}},
            "papers.ngeu.tasks.coil20.split (train 70 + val 5 + test None per class)",
        ),
    ],
)
def test_snakemake_dry_run_stops_before_any_job(tmp_path, overlay, message):
    extra = tmp_path / "bad.yaml"
    extra.write_text(yaml.safe_dump(overlay))
    env = {**os.environ, "GRAPHDR_DATA_MIRROR": str(tmp_path / "unused")}
    out = subprocess.run(
        [SNAKEMAKE, "-n", "--quiet", "--configfile", str(extra)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode != 0
    assert message in out.stderr + out.stdout
    assert "KeyError" not in out.stderr + out.stdout


def test_workflow_modules_load_by_path_with_the_standard_library_only():
    """common.smk loads these by path at parse time: no numpy, no graphdr (dry runs stay fast)."""
    code = (
        "import importlib.util, sys\n"
        "for name in ('plan', 'codedeps', 'checks'):\n"
        f"    path = {str(SRC / 'graphdr' / 'pipeline')!r} + f'/{{name}}.py'\n"
        "    spec = importlib.util.spec_from_file_location(f'_wf_{name}', path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "third = sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "               ('numpy', 'graphdr', 'scipy', 'sklearn', 'numba', 'yaml', 'pandas'))\n"
        "print(third)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_priorities_reach_their_rules():
    """A ``priority`` in the resources table only acts through the rule's ``priority:``
    directive (``job_priority``): each configured one has it, and no directive lacks a value."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    configured = {r for r, v in config["resources"].items() if "priority" in v}
    rules = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "workflow/rules").glob("*.smk")
    )
    directed = set(re.findall(r'priority: job_priority\("(\w+)"\)', rules))
    # task_priority is job_priority("select_ngeu_models", task): per-task priorities (priority_by)
    if re.search(r"^    priority: task_priority\b", rules, re.M):
        directed.add("select_ngeu_models")
    # qmi_sweep_priority is job_priority("run_qmi_sweep", dataset): the longest sweeps first
    if re.search(r"^    priority: qmi_sweep_priority\b", rules, re.M):
        directed.add("run_qmi_sweep")
    assert all("priority" in v for v in config["resources"].values() if "priority_by" in v)
    assert configured == directed and {"select_ngeu_models", "run_akda_group"} <= configured
