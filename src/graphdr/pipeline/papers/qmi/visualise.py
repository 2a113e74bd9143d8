"""Paper 001 (QMI), Figures 1-4: 2-D projections by the kernel and the linear methods.

Each method is fitted on a stratified half of a dataset and the other half projected to 2-D;
the class separability of each projection is its leave-one-out 1-NN error
(:func:`graphdr.evaluation.dimensions.loo_one_nn_error`), over :data:`VISUAL_SPLITS` halves
(:func:`graphdr.evaluation.splits.stratified_halves`; split 0 is the one drawn). The compute
half of the figures: the tables and claims of paper 001 are
:mod:`~graphdr.pipeline.papers.qmi.report`'s.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from graphdr.datasets.prepared import load_npz
from graphdr.evaluation.dimensions import loo_one_nn_error
from graphdr.evaluation.splits import stratified_halves
from graphdr.pipeline import io
from graphdr.pipeline.papers.qmi.settings import protocol

__all__ = ["VISUAL_SPLITS", "visual_projections", "visualise"]


def _visual_estimators(n_classes: int, cfg: Mapping) -> dict:
    from graphdr.methods import CKFD, GDA, KLPP_GE, KPCA_GE, KQMI, LDA_GE, LPP_GE, LQMI, PCA_GE

    g, tol = cfg["gamma"], cfg["kernel_tol"]
    k = cfg["lpp_neighbors"]
    graph = {"mutual": cfg["lpp_mutual"], "connect": cfg["lpp_connect"]}
    return {
        "kernel": {
            "KQMI": KQMI(2, gamma=g, tol=tol, unit_covariance=True),
            "KLPP": KLPP_GE(2, gamma=g, tol=tol, n_neighbors=k, **graph),
            "GDA": GDA(2, gamma=g, rtol=tol),
            "CKFD": CKFD(2, gamma=g, tol=tol, theta=cfg["ckfd_theta"]),
            "KPCA": KPCA_GE(2, gamma=g, tol=tol),
        },
        "linear": {
            "LQMI": LQMI(2),
            "LDA": LDA_GE(2),
            "PCA": PCA_GE(2),
            "LPP (supervised)": LPP_GE(2, n_neighbors=k, **graph),
            "LPP": LPP_GE(2, n_neighbors=k, supervised=False, mutual=cfg["lpp_mutual"]),
        },
    }


#: method names of the 2-D scores (the results frame) for the figure labels
VISUAL_NAMES = {"LPP (supervised)": "LPP", "LPP": "LPP_unsup"}
#: held-out halves scored per visualisation dataset (split 0 is the one drawn)
VISUAL_SPLITS = 10


def visual_projections(X, y, cfg: Mapping, train, test) -> dict:
    """{group: {label: held-out 2-D projection}}: every method of Figures 1-4 fitted on the
    training half (features scaled, PCA step of the linear methods, on that half only)."""
    from graphdr.pipeline.papers.qmi import protocol as qs

    X_tr, X_te = qs.scale_features(X[train], X[test], cfg["preprocessing"])
    lin_tr, lin_te = X_tr, X_te
    if cfg.get("linear_pca_variance"):
        mean, basis = qs.pca_variance_basis(X_tr, cfg["linear_pca_variance"])
        lin_tr, lin_te = (X_tr - mean) @ basis, (X_te - mean) @ basis
    out = {}
    for group, ests in _visual_estimators(np.unique(y).size, cfg).items():
        a, b = (X_tr, X_te) if group == "kernel" else (lin_tr, lin_te)
        out[group] = {name: est.fit(a, y[train]).transform(b) for name, est in ests.items()}
    return out


def visualise(prepared, cfg: Mapping, *, title: str, kernel_stem, linear_stem, scores=None):
    """Figures 1-4, on held-out points: each method fitted on a stratified half and the other
    half projected to 2-D (split 0 drawn), and the LOO 1-NN error of the held-out projection on
    :data:`VISUAL_SPLITS` halves (``scores``: CSV ``dataset, method, split, loo_1nn_error``).

    Held out because on its own training points a near-full-rank kernel method collapses each
    class to a point by interpolation (KQMI, GDA): the paper's figures show training points."""
    from graphdr.plotting import plot_embedding_panels

    ds = load_npz(prepared)
    cfg = protocol(cfg)
    rows, drawn = [], None
    for split, (train, test) in enumerate(stratified_halves(ds.y, VISUAL_SPLITS, random_state=0)):
        proj = visual_projections(ds.X, ds.y, cfg, train, test)
        if split == 0:
            drawn = (proj, ds.y[test])
        for group in proj.values():
            for name, Z in group.items():
                err = loo_one_nn_error(Z, ds.y[test])
                rows.append((ds.name, VISUAL_NAMES.get(name, name), split, 100.0 * err))
    frame = pd.DataFrame(rows, columns=["dataset", "method", "split", "loo_1nn_error"])
    if scores is not None:
        io.write_csv(frame, scores)
    first = frame[frame["split"] == 0].set_index("method")["loo_1nn_error"]
    proj, y_test = drawn
    for group, stem in (("kernel", kernel_stem), ("linear", linear_stem)):
        ests = proj[group]
        panels = [
            (f"{name}: {first[VISUAL_NAMES.get(name, name)]:.1f} %", Z, y_test)
            for name, Z in ests.items()
        ]
        suptitle = f"{title}: held-out half in 2-D, {group} methods (LOO 1-NN error)"
        plot_embedding_panels(
            panels, stem, suptitle=suptitle, panel_height=2.2, top=0.5, suptitle_size=8, s=3
        )
    return frame
