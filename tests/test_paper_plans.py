"""The papers' plans (``graphdr.pipeline.papers.<paper>.plan``): what each paper's workflow runs
and writes, decided from its config section by standard-library code the workflow loads by path.

Checked on small sections written here (each rule of the config: defaults, overrides, skips) and
on the full configuration against the committed outputs it names.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ("akda", "dee", "ngeu", "qmi")


def load_plan(paper: str):
    """The plan module loaded by path, as the workflow does (no package import)."""
    path = ROOT / "src/graphdr/pipeline/papers" / paper / "plan.py"
    spec = importlib.util.spec_from_file_location(f"_plan_{paper}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def full_config():
    return yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))


def committed(paper: str, config: dict):
    """(plan, section, results frame) of the full configuration, after checking that every
    output the plan names is committed under paper_figures/."""
    plan, section = load_plan(paper), config["papers"][paper]
    outputs = plan.outputs(section)
    assert outputs and all((ROOT / "paper_figures" / f).is_file() for f in outputs)
    frame = pd.read_csv(ROOT / f"paper_figures/{paper}/{paper}_results.csv", low_memory=False)
    return plan, section, frame


@pytest.mark.parametrize("paper", PAPERS)
def test_a_plan_imports_only_the_standard_library(paper):
    tree = ast.parse((ROOT / "src/graphdr/pipeline/papers" / paper / "plan.py").read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert names, "a plan with no imports at all: the check would be vacuous"
    assert {n.split(".")[0] for n in names} <= set(sys.stdlib_module_names) | {"__future__"}


@pytest.mark.parametrize("paper", PAPERS)
def test_the_workflow_loads_its_paper_plan_by_path(paper):
    smk = (ROOT / f"workflow/rules/common_{paper}.smk").read_text(encoding="utf-8")
    assert f'_load_module("papers/{paper}/plan")' in smk


# ---- paper 002 (AKDA) ------------------------------------------------------------------------

AKDA = {
    "conditions": {"10Ex": 10, "100Ex": 100},
    "datasets": ["big", "small"],
    "methods": ["PCA", "KDA", "KDA_K2", "AKDA", "LSVM"],
    "estimators": {"KDA_K2": {"estimator": "KDA"}, "PCA": {"estimator": "PCA"}},
    "dataset_conditions": {"big": ["100Ex"]},
    "skip": {"big": {"100Ex": {"KDA": "too big", "LSVM": "too slow"}}},
    "cv": {"folds": 3, "max_learn": 2000},
    "dataset_cv": {"big": {"max_learn": 1000}},
    "draws": {"default": 5, "big": 1, "small": {"100Ex": 3}},
}


def test_akda_columns_split_by_estimator_in_config_order():
    plan = load_plan("akda")
    grouped, single = plan.columns(AKDA, ("KDA", "AKDA", "KSVM"))
    assert grouped == ["KDA", "KDA_K2", "AKDA"]  # KDA_K2 is a KDA: grouped
    assert single == ["PCA", "LSVM"]
    assert plan.estimator(AKDA, "KDA_K2") == "KDA" and plan.estimator(AKDA, "LSVM") == "LSVM"


def test_akda_dataset_settings_override_the_section():
    plan = load_plan("akda")
    assert plan.dataset_cv(AKDA, "big") == {"folds": 3, "max_learn": 1000}
    assert plan.dataset_cv(AKDA, "small") == {"folds": 3, "max_learn": 2000}
    assert AKDA["cv"]["max_learn"] == 2000  # the section itself is not modified
    assert plan.conditions(AKDA, "big") == ["100Ex"]
    assert plan.conditions(AKDA, "small") == ["10Ex", "100Ex"]
    assert plan.draws(AKDA, "big", "100Ex") == 1
    assert plan.draws(AKDA, "small", "100Ex") == 3
    assert plan.draws(AKDA, "small", "10Ex") == 5  # per-condition map without it: the default
    assert plan.draws({}, "small", "10Ex") == 1


def test_akda_cells_and_skipped_cells_partition_the_configured_runs():
    plan = load_plan("akda")
    cells, skipped = plan.cells(AKDA), plan.skipped(AKDA)
    assert skipped == [["big", "100Ex", "KDA", "too big"], ["big", "100Ex", "LSVM", "too slow"]]
    every = [
        (d, c, m)
        for d in AKDA["datasets"]
        for c in plan.conditions(AKDA, d)
        for m in AKDA["methods"]
    ]
    assert len(every) == 15  # big: 1 condition, small: 2; 5 methods each
    assert sorted(cells + [tuple(s[:3]) for s in skipped]) == sorted(every)
    assert cells == [c for c in every if list(c) not in [s[:3] for s in skipped]]  # table order
    assert plan.group_skipped(AKDA, "big", "100Ex", ["KDA", "AKDA"]) == {"KDA": "too big"}
    assert plan.group_skipped(AKDA, "small", "10Ex", ["KDA", "AKDA"]) == {}


def test_akda_outputs_follow_the_conditions_and_the_toy():
    plan = load_plan("akda")
    tables = plan.table_files(AKDA)
    assert len(tables) == 2 * 2 * 3 + 3  # 2 stems x 2 conditions x 3 formats, selected table
    assert "akda/akda_speedup_timing_100Ex.tex" in tables
    assert plan.outputs(AKDA) == [*tables, "akda/akda_results.csv"]
    toy = plan.outputs(AKDA | {"toy": {"dataset": "big"}})
    assert {"akda/akda_toy_scatter.png", "akda/akda_toy_projection.pdf"} <= set(toy)
    assert plan.outputs(AKDA | {"datasets": []}) == []


def test_akda_full_plan_names_the_committed_outputs(full_config):
    plan, section, frame = committed("akda", full_config)
    # the results frame holds a primary MAP of exactly the cells the plan runs
    primary = frame[(frame["study"] == "map") & (frame["variant"] == "primary")]
    ran = set(zip(primary["collection"], primary["condition"], primary["method"], strict=True))
    cells = set(plan.cells(section))
    assert cells and cells == {c for c in ran if c[2] in section["methods"]}
    assert not cells & {tuple(s[:3]) for s in plan.skipped(section)}


# ---- paper 004 (NGEU) ------------------------------------------------------------------------

NGEU = {
    "tasks": {"coil": {"dataset": "coil20"}, "usps": {"dataset": "usps", "grid": {"beta": [1]}}},
    "grid": {"beta": [0.1, 0.3], "dims": [5, 10]},
    "methods": {
        "knn": {"estimator": "knn"},
        "KDA_GE": {"estimator": "KDA_GE", "params": {"reg": 1e-3}},
        "KDA_NGEU": {"estimator": "KDA_NGEU", "uncertainty": "nn"},
        "RSLDA": {"estimator": "RSLDA"},
    },
    "tables": {
        "table1": {"tasks": ["coil", "usps"], "methods": ["knn", "KDA_GE", "KDA_NGEU"]},
        "table2": {"tasks": ["usps"], "methods": ["RSLDA"]},
        "dropped": None,
    },
    "variants": {
        "solver=positive": {"methods": ["KDA_GE", "KDA_NGEU"], "params": {"solver": "positive"}},
        "width=auto": {
            "methods": ["KDA_NGEU", "RSLDA"],
            "tasks": ["usps"],
            "method": {"kernel_width": "auto"},
        },
    },
}


def test_ngeu_tables_grids_and_the_variant_separator():
    from graphdr.pipeline.papers.ngeu import protocol

    plan = load_plan("ngeu")
    assert list(plan.tables(NGEU)) == ["table1", "table2"]  # null drops a table
    assert plan.task_grid(NGEU, "usps") == {"beta": [1], "dims": [5, 10]}
    assert plan.task_grid(NGEU, "coil") == NGEU["grid"] and NGEU["grid"]["beta"] == [0.1, 0.3]
    assert plan.VARIANT_SEP == protocol.VARIANT_SEP


def test_ngeu_task_methods_add_a_copy_per_covering_variant():
    from graphdr.pipeline.papers.ngeu.protocol import split_variant

    plan = load_plan("ngeu")
    coil = plan.task_methods(NGEU, "coil")
    assert list(coil) == [
        "knn", "KDA_GE", "KDA_NGEU", "KDA_GE@solver=positive", "KDA_NGEU@solver=positive",
    ]  # fmt: skip
    assert coil["KDA_GE@solver=positive"] == {
        "estimator": "KDA_GE", "params": {"reg": 1e-3, "solver": "positive"},
    }  # fmt: skip
    assert NGEU["methods"]["KDA_GE"]["params"] == {"reg": 1e-3}  # the method is not modified
    usps = plan.task_methods(NGEU, "usps")
    assert usps["RSLDA@width=auto"] == {
        "estimator": "RSLDA", "kernel_width": "auto", "params": {},
    }  # fmt: skip
    assert "KDA_NGEU@width=auto" in usps and "KDA_NGEU@width=auto" not in coil
    assert all(split_variant(name)[0] in NGEU["methods"] for name in usps)
    with pytest.raises(ValueError, match="may not contain '@'"):
        plan.expand_variants(NGEU["methods"], {"a@b": {"methods": []}}, "coil")


def test_ngeu_outputs_follow_the_tables_and_the_toy():
    plan = load_plan("ngeu")
    outputs = plan.outputs(NGEU | {"figure3": {"n_per_class": 50}})
    assert len(outputs) == 2 * 5 * 3 + 1 + 3
    assert "ngeu/ngeu_table2_pairs.tex" in outputs and "ngeu/ngeu_figure3_toy.json" in outputs
    assert not any("dropped" in f for f in outputs)
    assert plan.outputs({}) == []


def test_ngeu_full_plan_names_the_committed_outputs(full_config):
    plan, section, frame = committed("ngeu", full_config)
    # every method the plan selects on a task has rows (under its label) in the results frame,
    # and every sensitivity copy's variant too
    for task in section["tasks"]:
        chosen = plan.task_methods(section, task)
        assert {spec.get("label", name) for name, spec in chosen.items()} <= set(frame["method"])
        copies = {name.partition("@")[2] for name in chosen if "@" in name}
        assert copies <= set(frame["variant"])


# ---- paper 003 (DEE) -------------------------------------------------------------------------

DATASETS = {"coil20": {"label": "COIL20"}, "orl": {}}
RECOGNITION = {
    "datasets": ["coil20", "orl"],
    "protocol": {
        "coil20": {"train_per_class": 15, "pca": 100},
        "orl": {"train_fraction": 0.5, "pca": 80},
    },
    "seeds": [0, 1],
    "dimensions": [1, 2],
    "methods": {
        "DEE": {"estimator": "DEE", "params": {"lam": 1.0}, "nested": False},
        "LDA": {"estimator": "LDA_GE", "label": "LDA", "pca": False, "nested": True},
        "DEE_lam10": {
            "estimator": "DEE",
            "label": "DEE (λ=10)",
            "variant": "lam=10",
            "variant_of": "DEE",
        },
    },
}


def test_dee_runs_label_variants_under_their_method():
    plan = load_plan("dee")
    runs = plan.runs(RECOGNITION, DATASETS)
    assert [(r.dataset, r.method) for r in runs][:3] == [
        ("coil20", "DEE"), ("coil20", "LDA"), ("coil20", "DEE_lam10"),
    ]  # fmt: skip
    assert len(runs) == 6 and runs[3].dataset_label == "orl"  # no label: the dataset's name
    variant = runs[2]
    assert (variant.dataset_label, variant.label) == ("COIL20", "DEE (λ=10)")
    assert (variant.variant, variant.base_label) == ("lam=10", "DEE")
    assert (runs[1].variant, runs[1].base_label) == ("primary", "LDA")
    figures = plan.runs(RECOGNITION, DATASETS, only=["orl"], variants=False)
    assert [(r.dataset, r.method) for r in figures] == [("orl", "DEE"), ("orl", "LDA")]


def test_dee_recognition_params_hold_what_a_run_computes_from():
    plan = load_plan("dee")
    dee = plan.recognition_params(RECOGNITION, "coil20", "DEE")
    assert dee == {
        "estimator": "DEE", "params": {"lam": 1.0}, "nested": False, "pca": 100,
        "split": {"train_per_class": 15}, "seeds": [0, 1], "dimensions": [1, 2], "cv": None,
    }  # fmt: skip
    assert plan.recognition_params(RECOGNITION, "orl", "LDA")["pca"] is None  # pca: false
    assert RECOGNITION["protocol"]["coil20"]["pca"] == 100  # the section is not modified
    caption = plan.recognition_caption(RECOGNITION, DATASETS)
    assert "COIL20 15 per class (PCA 100), orl 50% per class (PCA 80)" in caption
    assert "over 2 seeded splits" in caption and plan.recognition_caption({}, DATASETS) == ""


def test_dee_optimiser_studies_starts_threads_and_one_baseline():
    plan = load_plan("dee")
    study = {"paper": "dee", "starts": 3, "starts_per_dataset": {"usps": 1},
             "threads_per_dataset": {"coil20": 2}, "optimizers": {"ld": "LD"}, "baseline": "ld"}  # fmt: skip
    studies = {"a": study, "b": {"paper": "other"}}
    assert list(plan.optimizer_studies(studies)) == ["a"]
    assert plan.study_starts(study, "usps") == 1 and plan.study_starts(study, "orl") == 3
    assert plan.study_starts({}, "orl") == 1
    assert plan.study_threads(study, "coil20") == 2 and plan.study_threads(study, "orl") is None
    assert plan.result_baseline(studies) == "LD" and plan.result_baseline({}) == "LD"
    other = study | {"optimizers": {"gd": "GD"}, "baseline": "gd"}
    with pytest.raises(ValueError, match="different baselines"):
        plan.result_baseline({"a": study, "c": other})


def test_dee_full_plan_runs_are_in_the_results_frame(full_config):
    plan = load_plan("dee")
    frame = pd.read_csv(ROOT / "paper_figures/dee/dee_results.csv", low_memory=False)
    section = full_config["papers"]["dee"]
    shown = set(zip(frame["variant"], frame["dataset"], frame["method"], strict=True))
    for part in ("recognition", "visualisation"):
        runs = plan.runs(section[part], full_config["datasets"])
        assert runs
        assert {(r.variant, r.dataset_label, r.base_label) for r in runs} <= shown


# ---- paper 001 (QMI) -------------------------------------------------------------------------

QMI = {
    "protocol": {"folds": 5, "classifiers": ["ncc", "knn"]},
    "studies": {
        "benchmarks": {"datasets": ["iris"], "tables": ["knn", "ncc", "rbf_svm"]},
        "faces": {"datasets": ["orl"], "tables": ["ncc"], "folds": 2, "curves": True},
        "tol 1e-3": {"datasets": ["iris"], "tables": ["ncc"], "one_job": True, "tol": 1e-3},
        "off": {"datasets": ["iris"], "tables": ["ncc"], "enabled": False},
    },
    "visualisations": {"datasets": ["swiss"], "protocol": {"swiss": {"folds": 1}}},
}


def test_qmi_studies_protocols_and_tables():
    plan = load_plan("qmi")
    assert list(plan.studies(QMI)) == ["benchmarks", "faces", "tol 1e-3"]  # "off" is disabled
    assert plan.one_job_studies(QMI) == ["tol 1e-3"]
    assert plan.per_dataset_studies(QMI) == ["benchmarks", "faces"]
    assert plan.one_job_rule("tol 1e-3") == "run_qmi_sweep_tol_1e_3"
    # layout keys (datasets, tables, curves, one_job, ...) are not part of what a sweep computes
    assert plan.protocol(QMI, "faces") == {"folds": 2, "classifiers": ["ncc", "knn"]}
    assert plan.protocol(QMI, "tol 1e-3") == {
        "folds": 5,
        "classifiers": ["ncc", "knn"],
        "tol": 1e-3,
    }
    assert plan.visual_protocol(QMI, "swiss") == {"folds": 1, "classifiers": ["ncc", "knn"]}
    assert plan.tables(QMI, "benchmarks") == ["knn", "ncc"]  # rbf_svm is not run: no table
    assert plan.classifiers(QMI) == {"knn", "ncc"}
    everything = QMI | {"protocol": {"folds": 5}}  # no classifiers key: all of them run
    assert plan.tables(everything, "benchmarks") == ["knn", "ncc", "rbf_svm"]


def test_qmi_full_plan_tables_are_committed(full_config):
    plan = load_plan("qmi")
    section = full_config["papers"]["qmi"]
    names = [(s, c) for s in plan.studies(section) for c in plan.tables(section, s)]
    assert names
    assert all((ROOT / f"paper_figures/qmi/qmi_{s}_{c}.csv").is_file() for s, c in names)
