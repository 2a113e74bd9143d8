"""Paper 004 (NGEU) workflow: the quick Table II, Figure 3 and ledger targets run end to end in a
copy of the checkout, their outputs are complete and a second run has nothing to do."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from test_workflow import (
    FIGURES,
    MIRROR,
    RESULTS,
    clean_env,
    copy_checkout,
    planned_after_edit,
    quick_build_copy,
    snakemake,
)

pytestmark = pytest.mark.workflow

# AWGN-MNIST and MNIST; COIL20 and USPS (quick Table I: the results frame reads every table)
RAW = (
    "mnist/t10k-images-idx3-ubyte.gz",
    "mnist/t10k-labels-idx1-ubyte.gz",
    "COIL20.mat",
    "usps/usps_7291_2007.mat",
)
TARGETS = [
    f"{FIGURES}/ngeu/ngeu_table2.csv",
    f"{FIGURES}/ngeu/ngeu_table1_pairs.csv",
    f"{FIGURES}/ngeu/ngeu_figure3_toy.png",
    f"{FIGURES}/ngeu/ngeu_verdicts.csv",
]


@pytest.fixture(scope="module")
def repo(request, tmp_path_factory):
    if not all((MIRROR / raw).is_file() for raw in RAW):
        pytest.skip(f"no offline data mirror with {RAW} ({MIRROR})")
    base = tmp_path_factory.mktemp("ngeu")
    repo = base / "repo"  # the whole quick build, or a checkout that builds our targets
    if not quick_build_copy(request, tmp_path_factory, repo):
        copy_checkout(repo)
    mirror = base / "mirror"
    for raw in RAW:
        (mirror / raw).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(MIRROR / raw, mirror / raw)
    env = clean_env(GRAPHDR_DATA_MIRROR=mirror, GRAPHDR_DATA_HOME=base / "home")
    first = snakemake(repo, *TARGETS, env=env).stdout
    second = snakemake(repo, "-n", *TARGETS, env=env).stdout
    return {"repo": repo, "env": env, "first": first, "second": second}


def test_quick_table2_and_figure3_are_complete(repo):
    figures = repo["repo"] / FIGURES / "ngeu"
    for stem in ("ngeu_table2", "ngeu_table2_selected", "ngeu_table2_grid", "ngeu_table2_pairs"):
        for ext in ("csv", "md", "tex"):
            assert (figures / f"{stem}.{ext}").stat().st_size > 0
    table = pd.read_csv(figures / "ngeu_table2.csv")
    rows = set(table["method"])
    assert {"KDA-NGEU-N + k-NN", "KMFA-GE + k-NN", "SVM"} <= rows
    # other groups' methods are rows of their own, with a value (mean ± std over the folds)
    assert "±" in table.set_index("method").loc["RSLDA + k-NN", "AWGN-MNIST ours"]
    grid = pd.read_csv(figures / "ngeu_table2_grid.csv").set_index("method")
    # one fit per model-changing grid point, per fold: never one per dimension
    assert (grid["fits"] <= grid["grid_cells"]).all()
    assert grid.loc["KDA-GE + k-NN", "fits"] < grid.loc["KDA-GE + k-NN", "grid_cells"]
    assert (figures / "ngeu_figure3_toy.png").stat().st_size > 0
    assert (repo["repo"] / RESULTS / "ngeu/uncertainty/awgn.npz").is_file()
    # selected values on the edge of their grid are flagged (the quick grids have one value
    # per parameter: nothing to flag)
    assert "grid_edge" in pd.read_csv(figures / "ngeu_table2_selected.csv").columns
    # USPS: validation re-drawn twice on one training draw; the fits are shared, and the pairs
    # table has a McNemar row per draw and a Wilcoxon row over the draws
    pairs = pd.read_csv(figures / "ngeu_table1_pairs.csv")
    usps = pairs[
        (pairs["variant"] == "primary")
        & (pairs["dataset"] == "USPS")
        & (pairs["method"] == "KDA-NGEU + k-NN")
        & (pairs["versus"] == "KDA-GE + k-NN")
    ]
    assert usps["test"].value_counts().to_dict() == {
        "McNemar (exact)": 2,
        "Wilcoxon over splits": 1,
    }
    grid1 = pd.read_csv(figures / "ngeu_table1_grid.csv")
    kda = grid1[(grid1["dataset"] == "USPS") & (grid1["method"] == "KDA-GE + k-NN")].iloc[0]
    assert 2 * kda["fits"] <= kda["grid_cells"]
    # the sensitivity runs: a pairs block and a grid row per variant copy; the baselines' rows
    assert {"solver=positive", "diagonal=mean_embedding"} <= set(pairs["variant"])
    assert "KDA-NGEU + k-NN [solver=positive]" in set(grid1["method"])
    assert {"fastSDA + k-NN", "RSLDA + k-NN", "TRPCAA + k-NN"} <= rows
    assert "±" in table.set_index("method").loc["fastSDA + k-NN", "AWGN-MNIST ours"]


def test_quick_results_frame_and_verdicts(repo):
    figures = repo["repo"] / FIGURES / "ngeu"
    frame = pd.read_csv(figures / "ngeu_results.csv", dtype={"split": str}, keep_default_na=False)
    table2 = frame[frame["study"] == "table2"]
    # several folds: the claims use the per-fold accuracies, no per-sample rows
    assert table2[table2["metric"] == "correct"].empty
    accuracy = table2[table2["metric"] == "accuracy"]
    assert {"primary", "kernel=linear", "kernel=rbf"} <= set(accuracy["variant"])
    assert set(accuracy["split"]) == {"0", "1", "2"}
    # COIL20 (one split): per-sample rows, also under the sensitivity variants
    correct = frame[(frame["dataset"] == "COIL20") & (frame["metric"] == "correct")]
    assert set(correct["value"]) <= {0.0, 1.0}
    assert {"primary", "solver=positive", "beta=extended"} <= set(correct["variant"])
    toy = frame[frame["study"] == "figure3"]
    assert set(toy["variant"]) == {"primary", "solver=positive"}
    verdicts = pd.read_csv(figures / "ngeu_verdicts.csv", dtype=str, keep_default_na=False)
    claims = pd.read_csv(repo["repo"] / "config/references/ngeu_claims.csv", dtype=str)
    assert set(verdicts["claim"]) == set(claims["claim"])
    primary = verdicts[verdicts["variant"] == "primary"].set_index("claim")
    judged = claims[(claims["study"] == "table2") & (claims["status"] == "check")]["claim"]
    # Table II runs in the quick config: every claim finds its data; a claim judged over
    # splits may lack the units its test needs there (the quick config runs fewer folds)
    unchecked = primary.loc[judged][primary.loc[judged, "verdict"] == "not checked"]
    assert unchecked["evidence"].str.startswith("too few units").all(), unchecked["evidence"]
    assert len(unchecked) < len(judged)


def test_second_run_has_nothing_to_do(repo):
    assert "Nothing to be done" in repo["second"]


def test_a_baseline_edit_reruns_the_selection_jobs_and_an_unused_module_none(repo):
    """The selection jobs depend on the modules of every estimator their tasks run, also those
    the registry imports by name (RSLDA's module): editing it re-runs every task's grid (each
    has an RSLDA row); editing LFDA's module, which no NGEU row uses, re-runs nothing."""
    selections = {f"{RESULTS}/ngeu/select/{t}_scores.csv" for t in ("awgn", "coil20", "usps")}
    assert selections <= planned_after_edit(
        repo["repo"], "graphdr/methods/sparse_discriminant.py", *TARGETS, env=repo["env"]
    )
    planned = planned_after_edit(
        repo["repo"], "graphdr/methods/local_fisher.py", *TARGETS, env=repo["env"]
    )
    assert not [f for f in planned if "/ngeu/" in f], sorted(planned)
