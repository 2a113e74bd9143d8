"""What re-runs after a change, asked of Snakemake (``snakemake -n``) in a copy of the quick
build of tests/test_workflow.py: a code edit, a generator edit, a config overlay, a second
experiment. Each question must name exactly the jobs downstream of the change.

A module of its own so that pytest-xdist runs these dry runs on another worker than the quick
build's remaining tests (``--dist loadfile`` keeps a file on one worker): the build is the suite's
critical path. Without the build in the session (this file alone), the fixture builds the quick
configuration itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_workflow import (
    DATASETS,
    DEE_DATASETS,
    DEE_OPTIMIZERS,
    FIGURE_JOB,
    FIGURES,
    RESULTS,
    ROOT,
    TABLE_JOB,
    built_checkout,
    edited,
    fit,
    fits,
    overlay,
    planned,
    prepare,
    score,
    scores,
    split,
)

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def build(request, tmp_path_factory):
    repo, env = built_checkout(request, tmp_path_factory, "changes")
    assert planned(repo, env=env) == set()  # the copy is complete: every change starts from it
    return {"repo": repo, "env": env}


@pytest.fixture(scope="module")
def repo(build) -> Path:
    return build["repo"]


@pytest.fixture(scope="module")
def env(build) -> dict:
    return build["env"]


BELOW_FITS = fits() | scores() | {TABLE_JOB, FIGURE_JOB}
# the DEE optimiser study (first output of each job): runs, figures per dataset, tables
# (config/quick.yaml: the raw-pixel study and its PCA-100 sensitivity run on Yale)
DEE_STUDIES = {"dee_optimizers": DEE_DATASETS, "dee_optimizers_pca100": ("yale",)}
DEE_RUNS = {
    f"{RESULTS}/optimizers/{study}/{d}/{o}.npz"
    for study, datasets in DEE_STUDIES.items()
    for d in datasets
    for o in DEE_OPTIMIZERS
}
DEE_PLOTS = {
    f"{FIGURES}/dee/{study}_{d}_embeddings.pdf"
    for study, datasets in DEE_STUDIES.items()
    for d in datasets
} | {f"{FIGURES}/dee/{study}_iterations.csv" for study in DEE_STUDIES}


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("graphdr/reporting.py", {TABLE_JOB, FIGURE_JOB} | DEE_PLOTS),
        ("graphdr/pipeline/evaluate.py", scores() | {TABLE_JOB}),
        # a fit depends on the module defining its estimator (graphdr.methods only re-exports):
        # editing the GE module re-runs the demo's fits, not the DEE study, and vice versa
        ("graphdr/methods/graph_embedding.py", BELOW_FITS),
        ("graphdr/methods/elastic.py", DEE_RUNS | DEE_PLOTS),
        # a classifier is used by grid selection (fits) and scoring, not by the splits
        ("graphdr/evaluation/classifiers.py", BELOW_FITS),
        ("graphdr/evaluation/splits.py", {split(d) for d in DATASETS} | BELOW_FITS),
    ],
)
def test_code_change_reruns_exactly_downstream_jobs(repo, env, module, expected):
    with edited(repo / "src" / module):
        assert planned(repo, env=env) == expected
    assert planned(repo, env=env) == set()  # the same code again: nothing to do


def _cosmetic(text: str) -> str:
    """A comment, a docstring edit and blank lines: the module's text changes, its code does not
    (each kind alone: tests/test_pipeline.py, on the digest)."""
    text = text.replace('"""', '"""Edited by a test. ', 1).replace("\n\n\n", "\n\n\n\n")
    return text + "\n# a note by a test\n"


def test_edits_that_leave_the_code_as_it_was_rerun_nothing(repo, env):
    """Jobs depend on what their modules do (code stamps), not on their text: a comment, a
    docstring and blank lines in the module of the demo's fits re-run no job, and its stamp is
    not rewritten."""
    path = repo / "src" / "graphdr" / "methods" / "graph_embedding.py"
    stamp = repo / RESULTS / "code" / "graphdr" / "methods" / "graph_embedding.py.digest"
    before, text = (stamp.stat().st_mtime_ns, stamp.read_text()), path.read_text()
    with edited(path, _cosmetic):
        assert path.read_text() != text
        assert planned(repo, env=env) == set()
    assert (stamp.stat().st_mtime_ns, stamp.read_text()) == before


def _datasets_read_by(module: str) -> set[str]:
    """Quick-config datasets whose registry loader is defined in graphdr.datasets.<module>."""
    from snakemake.utils import update_config

    from graphdr.pipeline import codedeps, plan

    config: dict = {}
    for name in ("config.yaml", "quick.yaml"):
        update_config(config, yaml.safe_load((ROOT / "config" / name).read_text()))
    registry = plan.read_registries([ROOT / "src/graphdr/datasets/registry.toml"])
    return {
        name
        for name, spec in config["datasets"].items()
        if codedeps.loader_module(registry["datasets"][spec["source"]]["loader"], ROOT / "src")
        == f"graphdr.datasets.{module}"
    }


def test_generator_edit_reruns_only_the_synthetic_datasets(repo, env):
    """A prepare job depends on its own loader's module: editing the synthetic generators
    re-runs the synthetic datasets (and their paper stages), no dataset read from a file."""
    synthetic = _datasets_read_by("synthetic")
    with edited(repo / "src/graphdr/datasets/synthetic.py"):
        jobs = planned(repo, env=env)
    # in scope: preparations only (the paper stages below them are filtered out)
    assert jobs and jobs <= {prepare(d) for d in synthetic}, jobs
    # ... and the demo and the DEE optimiser study, which read files, have nothing to re-run
    assert not synthetic & {*DATASETS, *DEE_DATASETS}


KDA_PARAM = (
    "experiments:\n  demo:\n    methods:\n      KDA_GE: {params: {kernel: rbf, gamma: 0.05}}\n"
)
OTHER = """experiments:
  other:
    paper: other
    datasets: [wine]
    methods: {LDA_GE: {estimator: LDA_GE}}
    split: {kind: stratified, sizes: {train: 0.5, test: null}}
    classifiers: {1nn: {name: 1nn}}
    tables: {other_accuracy: {classifier: 1nn}}
"""


def test_config_change_reruns_exactly_downstream_jobs(repo, env):
    # one method's parameter: that method's fits and everything below them, nothing else
    expected = fits(methods=["KDA_GE"]) | scores(methods=["KDA_GE"]) | {TABLE_JOB, FIGURE_JOB}
    assert planned(repo, configs=overlay(repo, "param.yaml", KDA_PARAM), env=env) == expected
    # the experiment's classifier: its scores and table, not its fits or its figure
    args = overlay(repo, "clf.yaml", "experiments:\n  demo:\n    classifiers: {1nn: {name: ncc}}\n")
    assert planned(repo, configs=args, env=env) == scores() | {TABLE_JOB}
    # one dataset's subsample: that dataset's chain only
    args = overlay(repo, "sub.yaml", "datasets:\n  digits:\n    subsample: {size: 300, seed: 0}\n")
    chain = {prepare("digits"), split("digits")} | fits(["digits"]) | scores(["digits"])
    assert planned(repo, configs=args, env=env) == chain | {TABLE_JOB, FIGURE_JOB}
    # a new method: its own jobs, and the table that gains a row (the figure lists its methods)
    args = overlay(
        repo,
        "more.yaml",
        "experiments:\n  demo:\n    methods:\n      MFA_GE: {estimator: MFA_GE, label: MFA-GE}\n",
    )
    new_method = fits(methods=["MFA_GE"]) | scores(methods=["MFA_GE"])
    assert planned(repo, configs=args, env=env) == new_method | {TABLE_JOB}
    # a display label: the outputs that show it, no computation
    args = overlay(
        repo, "label.yaml", "experiments:\n  demo:\n    methods:\n      LDA_GE: {label: LDA}\n"
    )
    assert planned(repo, configs=args, env=env) == {TABLE_JOB, FIGURE_JOB}


def test_experiments_are_independent(repo, env):
    """A change in one experiment adds exactly its own jobs to another experiment's plan."""
    other = overlay(repo, "other.yaml", OTHER)
    other_jobs = planned(repo, configs=other, env=env)
    assert other_jobs == {
        split("wine", "other"),
        fit("wine", "LDA_GE", "other"),
        score("wine", "LDA_GE", "other"),
        f"{FIGURES}/other/other_accuracy.csv",
    }
    overlay(repo, "param.yaml", KDA_PARAM)
    both = planned(repo, configs=(*other, "config/param.yaml"), env=env)
    kda = fits(methods=["KDA_GE"]) | scores(methods=["KDA_GE"]) | {TABLE_JOB, FIGURE_JOB}
    assert both == other_jobs | kda
    # and a change in the other experiment leaves the demo alone
    overlay(repo, "other_seed.yaml", "experiments:\n  other:\n    seeds: [0, 1]\n")
    more = planned(repo, configs=(*other, "config/other_seed.yaml"), env=env)
    assert not [j for j in more if "/demo/" in j]
    assert more - other_jobs == {
        split("wine", "other", 1),
        fit("wine", "LDA_GE", "other", 1),
        score("wine", "LDA_GE", "other", 1),
    }
