"""AWGN-MNIST: MNIST plus additive white Gaussian noise at a given signal-to-noise ratio.

With ``path=`` the LSU n-MNIST file is read (see ``_user.py``). Otherwise the noisy set is made
here from the MNIST test images of the mirror (the LSU file is not available offline):

    P_i      = mean_j x_ij^2                 signal power of image i, pixels x_ij in [0, 1]
    sigma_i^2 = P_i / 10^(snr_db / 10)        so that 10 log10(P_i / sigma_i^2) = snr_db
    x~_ij    = x_ij + sigma_i * e_ij,  e_ij ~ N(0, 1) i.i.d., one seeded generator

The SNR is set per image. ``clip=False`` (default) keeps the noise exactly Gaussian, so values
leave [0, 1]; ``clip=True`` clips to [0, 1] like a stored 8-bit image would. Whether the LSU set
defines its "SNR 9.5" in dB or as a plain power ratio, and whether it clips, is not stated in
what we have; a plain ratio 9.5 (= 9.78 dB) gives almost the same noise level (sigma 3% smaller).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ._images import load_mnist_idx
from ._user import load_lsu


def awgn_variance(X: np.ndarray, snr_db: float) -> np.ndarray:
    """Per-row noise variance sigma_i^2 = mean_j(x_ij^2) / 10^(snr_db/10)."""
    power = np.mean(np.square(X, dtype=np.float64), axis=1)
    return power / 10.0 ** (snr_db / 10.0)


def add_awgn(X: np.ndarray, snr_db: float, random_state=0, *, clip: bool = False):
    """Noisy copy of ``X`` at ``snr_db`` per row, and the per-row noise variances."""
    rng = np.random.default_rng(random_state)
    variance = awgn_variance(X, snr_db)
    noisy = X + rng.standard_normal(X.shape) * np.sqrt(variance)[:, None]
    if clip:
        np.clip(noisy, 0.0, 1.0, out=noisy)
    return noisy, variance


def load_awgn_mnist(
    entry: dict,
    get_paths,
    *,
    path=None,
    snr_db: float = 9.5,
    random_state: int = 0,
    clip: bool = False,
    noise_variance: bool = False,
    image_order: str = "C",
):
    """Loader ``awgn_mnist``: the LSU file when ``path`` is given, else generated (module doc).

    ``noise_variance=True`` attaches each image's true noise variance as ``sample_variance``
    (an oracle uncertainty; off by default so generated and LSU data look alike).
    """
    if path is not None:
        return load_lsu(entry, path, image_order=image_order)
    clean = load_mnist_idx(entry, get_paths)
    X, variance = add_awgn(clean.X, snr_db, random_state, clip=clip)
    info = {
        "origin": "generated from the MNIST test set",
        "snr_db": float(snr_db),
        "random_state": random_state if isinstance(random_state, int) else repr(random_state),
        "clip": bool(clip),
    }
    return replace(clean, X=X, sample_variance=variance if noise_variance else None, info=info)
