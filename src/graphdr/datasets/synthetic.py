"""Generated datasets (seeded, no files) and scikit-learn's bundled sets.

* :func:`make_swiss_roll_classes` -- Swiss roll with classes along the roll (QMI paper, Fig. 1-2);
* :func:`make_uncertain_toy` -- 2-D two-class data where every sample has its own covariance
  (NGEU paper, Fig. 3);
* :func:`make_gaussian_mixture` -- many-class high-dimensional Gaussian mixture standing in for
  DeCAF fc6 features (AKDA paper), generated class by class in float32 to keep memory low.

The ``load_*`` functions are the registry loaders wrapping them (``load("swiss_roll", ...)``).
"""

from __future__ import annotations

import numpy as np

from ._build import build

_TOY_MEANS = np.array([[-1.0, -0.5], [1.0, 0.5]])
# Elongated along a direction that is not the mean difference, so LDA and PCA disagree.
_TOY_CLASS_COV = np.array([[1.0, 0.7], [0.7, 0.8]])


def make_swiss_roll_classes(n_samples=1000, n_classes=4, *, noise=0.0, random_state=0):
    """Swiss roll points ``X`` (n, 3), classes ``y`` = quantile bins of the roll parameter ``t``.

    Class k holds the samples with ``t`` between the k/C and (k+1)/C quantiles of ``t``, so the
    classes are contiguous pieces along the roll of (nearly) equal size. Returns ``X, y, t``.
    """
    if n_classes < 1 or n_classes > n_samples:
        raise ValueError(f"n_classes={n_classes} must lie in 1..n_samples={n_samples}.")
    import sklearn.datasets  # here: the data and table jobs that import this package need no sklearn

    X, t = sklearn.datasets.make_swiss_roll(n_samples, noise=noise, random_state=random_state)
    edges = np.quantile(t, np.linspace(0.0, 1.0, n_classes + 1)[1:-1])
    return X, np.searchsorted(edges, t, side="right").astype(np.int64), t


def _random_covariances(rng, n, covariance, max_std):
    """Per-sample covariances: standard deviations uniform in [0.05, 1] * max_std per axis
    ("diagonal"), one for both axes ("isotropic"), or a diagonal one rotated by a uniform
    random angle ("full"). Returns the (n,), (n, 2) or (n, 2, 2) array."""
    if covariance == "isotropic":
        return (max_std * rng.uniform(0.05, 1.0, n)) ** 2
    diag = (max_std * rng.uniform(0.05, 1.0, (n, 2))) ** 2
    if covariance == "diagonal":
        return diag
    if covariance == "full":
        theta = rng.uniform(0.0, np.pi, n)
        c, s = np.cos(theta), np.sin(theta)
        R = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
        return np.einsum("nij,nj,nkj->nik", R, diag, R)
    raise ValueError(f"covariance must be 'isotropic', 'diagonal' or 'full', got {covariance!r}.")


def make_uncertain_toy(n_per_class=100, *, covariance="diagonal", max_std=1.0, random_state=0):
    """Two Gaussian classes in 2-D where sample i also has its own covariance S_i.

    Model: mu_i ~ N(m_c, C) for the class c of sample i; S_i random (``_random_covariances``);
    observed x_i ~ N(mu_i, S_i). Returns ``X`` (2n, 2), ``y``, and ``S`` ((2n,), (2n, 2) or
    (2n, 2, 2) by ``covariance``): the uncertainty a method such as NGEU takes as input.
    """
    rng = np.random.default_rng(random_state)
    n = 2 * n_per_class
    y = np.repeat(np.arange(2), n_per_class)
    mu = _TOY_MEANS[y] + rng.multivariate_normal(np.zeros(2), _TOY_CLASS_COV, n)
    S = _random_covariances(rng, n, covariance, max_std)
    if S.ndim == 3:
        noise = np.einsum("nij,nj->ni", np.linalg.cholesky(S), rng.standard_normal((n, 2)))
    else:
        std = np.sqrt(S if S.ndim == 2 else S[:, None])
        noise = std * rng.standard_normal((n, 2))
    return mu + noise, y, S


def make_gaussian_mixture(
    n_classes=100,
    n_per_class=100,
    dim=4096,
    *,
    n_informative=64,
    n_shared=32,
    class_sep=0.16,
    shared_scale=0.5,
    noise=1.0,
    overlap=0.0,
    n_modes=1,
    mode_sep=0.0,
    random_state=0,
    dtype=np.float64,
):
    """Many-class Gaussian mixture in ``dim`` dimensions.

    x = (G_c + overlap * u) P + s z W + noise * e, with class coefficients G_c ~ N(0, class_sep^2 I_k) on
    ``k = n_informative`` random directions P (k x dim, entries N(0, 1/k)), a within-class factor
    shared by all classes (z ~ N(0, I_r), W r x dim with entries N(0, 1/r), r = ``n_shared``,
    s = ``shared_scale``) and isotropic noise e ~ N(0, I). Per coordinate: between-class variance
    class_sep^2, within-class variance s^2 + noise^2 (plus ``overlap^2`` along the informative
    directions, u ~ N(0, I_k): class overlap that more training samples cannot remove); the shared factor concentrates
    s^2 * dim / r of within-class variance on each of r directions, so Euclidean neighbours are
    poor and discriminant projections pay off, as with CNN features. The defaults were set so
    that a linear SVM on the raw features scores about 60% (10 training samples per class) and
    70% (30 per class) with 100 classes; 1-NN scores about 5-7%.

    **Subclasses** (``n_modes > 1``): every class is a mixture of ``n_modes`` equally likely
    modes (subclasses), x = (G_c + M_cj + overlap * u) P + ..., with mode offsets
    M_cj ~ N(0, mode_sep^2 I_k) in the same informative subspace; sample i of a class belongs to
    mode ``i mod n_modes`` (balanced, rows still grouped by class). Two modes of a class lie
    about ``mode_sep sqrt(2k)`` apart against a within-mode spread of ``overlap`` per informative
    direction plus the noise, so ``mode_sep`` sets how separated the subclasses are, and a
    large ``mode_sep`` against ``class_sep`` makes the classes interleave (a class mean then
    says little: the case subclass discriminant analysis is for). The offsets come from their
    own child seeds: ``n_modes=1`` (the default) gives exactly the single-Gaussian classes, and
    the noise of every sample is the same for any ``n_modes``. No mode labels are
    returned: the mode of sample i of a class is ``i mod n_modes`` by construction.

    Each class has its own child seed, so the result does not depend on how it is chunked and
    the first classes do not change when ``n_classes`` grows; rows are grouped by class. Memory:
    the output array plus one class block of float32.
    """
    if int(n_modes) < 1:
        raise ValueError(f"n_modes={n_modes!r} must be >= 1 (subclasses per class).")
    if int(n_modes) > n_per_class:
        raise ValueError(
            f"n_modes={n_modes} exceeds n_per_class={n_per_class}: every mode needs a sample; "
            "lower n_modes or raise n_per_class."
        )
    if mode_sep < 0:
        raise ValueError(f"mode_sep={mode_sep!r} must be >= 0 (a standard deviation).")
    seeds = np.random.SeedSequence(random_state).spawn(n_classes + 1)
    mode_seeds = (
        np.random.SeedSequence([int(random_state), 1]).spawn(n_classes) if n_modes > 1 else None
    )
    rng = np.random.default_rng(seeds[0])
    f32 = np.float32
    P = rng.standard_normal((n_informative, dim), dtype=f32) / f32(np.sqrt(n_informative))
    W = rng.standard_normal((n_shared, dim), dtype=f32) * f32(shared_scale / np.sqrt(n_shared))
    G = rng.standard_normal((n_classes, n_informative), dtype=f32) * f32(class_sep)
    X = np.empty((n_classes * n_per_class, dim), dtype=dtype)
    for c in range(n_classes):
        crng = np.random.default_rng(seeds[c + 1])
        Z = crng.standard_normal((n_per_class, n_shared), dtype=f32)
        block = crng.standard_normal((n_per_class, dim), dtype=f32)
        block *= f32(noise)
        block += Z @ W  # W already carries shared_scale
        centre = np.broadcast_to(G[c], (n_per_class, n_informative))
        if mode_seeds is not None:
            mrng = np.random.default_rng(mode_seeds[c])
            M = mrng.standard_normal((int(n_modes), n_informative), dtype=f32) * f32(mode_sep)
            centre = centre + M[np.arange(n_per_class) % int(n_modes)]
        if overlap:
            U = crng.standard_normal((n_per_class, n_informative), dtype=f32) * f32(overlap)
            block += (centre + U) @ P
        elif mode_seeds is not None:
            block += centre @ P
        else:
            block += G[c] @ P
        X[c * n_per_class : (c + 1) * n_per_class] = block
    return X, np.repeat(np.arange(n_classes, dtype=np.int64), n_per_class)


def load_swiss_roll(entry, get_paths, *, n_samples=1000, n_classes=4, noise=0.0, random_state=0):
    """Loader ``swiss_roll``; the roll parameter t is in ``info`` only as its class edges."""
    X, y, _ = make_swiss_roll_classes(n_samples, n_classes, noise=noise, random_state=random_state)
    entry = {**entry, "class_names": [f"roll part {k + 1}" for k in range(n_classes)]}
    return build(entry, X, y)


def load_uncertain_toy(
    entry, get_paths, *, n_per_class=100, covariance="diagonal", max_std=1.0, random_state=0
):
    """Loader ``toy_uncertain``: ``sample_variance`` holds each sample's covariance."""
    X, y, S = make_uncertain_toy(
        n_per_class, covariance=covariance, max_std=max_std, random_state=random_state
    )
    entry = {**entry, "class_names": ["class 1", "class 2"]}
    return build(entry, X, y, sample_variance=S)


def load_gaussian_mixture(
    entry,
    get_paths,
    *,
    n_classes=100,
    n_per_class=100,
    dim=4096,
    n_informative=64,
    n_shared=32,
    class_sep=0.16,
    shared_scale=0.5,
    noise=1.0,
    overlap=0.0,
    n_modes=1,
    mode_sep=0.0,
    random_state=0,
    dtype="float64",
):
    """Loader ``gaussian_mixture`` (the DeCAF stand-in); ``dtype="float32"`` halves memory;
    ``n_modes > 1``: classes made of subclasses (:func:`make_gaussian_mixture`)."""
    X, y = make_gaussian_mixture(
        n_classes,
        n_per_class,
        dim,
        n_informative=n_informative,
        n_shared=n_shared,
        class_sep=class_sep,
        shared_scale=shared_scale,
        noise=noise,
        overlap=overlap,
        n_modes=n_modes,
        mode_sep=mode_sep,
        random_state=random_state,
        dtype=np.dtype(dtype),
    )
    entry = {**entry, "class_names": [f"class {k + 1}" for k in range(n_classes)]}
    return build(entry, X, y)
