"""Scatter plots of embeddings, one colour and marker per class, as in the paper figures.

:func:`plot_embedding` draws the first two columns of an embedding ``Z`` coloured by the class
labels ``y`` and returns the Axes; :func:`embedding_legend` adds the class legend to an Axes or,
for a figure of several panels, once below them; :func:`plot_embedding_panels` draws and saves
a figure of several embeddings side by side. The styles come from :func:`class_styles`:

* up to 8 classes, the Okabe-Ito palette (:data:`graphdr.reporting.OKABE_ITO`), safe for the
  common colour-vision deficiencies, all drawn as discs;
* beyond 8 classes, matplotlib's ``tab20`` colours (its 10 dark shades first, then their light
  companions) paired with filled marker shapes that change from one class to the next (7 shapes,
  coprime with 20 colours), so neighbouring classes differ in shape as well as colour and no two
  of up to 140 classes share both.

Legends stay readable for 20-40 classes: outside the axes, in several columns, in a small font.
Use these functions inside :func:`graphdr.reporting.figure_style` to get the paper look.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = [
    "MARKERS",
    "MAX_LEGEND_CLASSES",
    "class_styles",
    "plot_embedding",
    "embedding_legend",
    "plot_embedding_panels",
]

#: Filled marker shapes cycled beyond 8 classes (filled: unfilled ones vanish with no edge).
MARKERS = ("o", "s", "^", "D", "v", "P", "X")

#: ``legend="auto"`` draws a legend up to this many classes (beyond, it would not be read).
MAX_LEGEND_CLASSES = 40

# Marks the collections drawn by plot_embedding, so embedding_legend finds its classes.
_GID = "graphdr-class"


def class_styles(n_classes: int) -> list[tuple[str, str]]:
    """One ``(colour, marker)`` pair per class: colours as hex strings, markers as matplotlib codes.

    Parameters
    ----------
    n_classes : int
        Number of classes, at least 1.

    Returns
    -------
    list of tuple of (str, str)
        Lower-case hex colours and marker codes: Okabe-Ito colours with disc markers up to 8 classes; beyond, ``tab20`` colours (dark
        shades first) with the shapes of :data:`MARKERS` cycling, unique up to 140 classes.
    """
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    from graphdr.reporting import OKABE_ITO

    n_classes = int(n_classes)
    if n_classes < 1:
        raise ValueError(f"n_classes must be at least 1, got {n_classes}.")
    if n_classes <= len(OKABE_ITO):
        return [(to_hex(colour), "o") for colour in OKABE_ITO[:n_classes]]
    tab20 = [to_hex(c) for c in colormaps["tab20"].colors]
    colours = tab20[0::2] + tab20[1::2]
    return [(colours[i % len(colours)], MARKERS[i % len(MARKERS)]) for i in range(n_classes)]


def _class_names(classes: np.ndarray, labels) -> list[str]:
    if labels is None:
        return [str(c) for c in classes]
    if isinstance(labels, Mapping):
        missing = [c for c in classes.tolist() if c not in labels]
        if missing:
            raise ValueError(
                f"labels has no name for the classes {missing[:5]}: give one name per class "
                "found in y."
            )
        return [str(labels[c]) for c in classes]
    labels = list(labels)
    if len(labels) != classes.size:
        raise ValueError(
            f"labels has {len(labels)} names but y has {classes.size} classes: give one name per "
            "class, in the sorted order of the classes, or a mapping from class to name."
        )
    return [str(name) for name in labels]


def plot_embedding(
    Z,
    y,
    ax=None,
    *,
    labels: Mapping | Sequence[str] | None = None,
    legend: bool | str = "auto",
    s: float = 4.0,
    alpha: float = 0.8,
    ticks: bool = False,
    title: str | None = None,
    **scatter_kws,
):
    """Scatter the first two columns of an embedding, one colour and marker per class.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_components)
        The embedding, for example ``estimator.transform(X)``. Only the first two columns are
        drawn; a 1-D embedding is drawn against a zero axis.
    y : array-like of shape (n_samples,)
        Class labels (integers or strings); classes are ordered as ``numpy.unique`` sorts them.
    ax : matplotlib.axes.Axes, optional
        Where to draw; by default the current Axes of pyplot.
    labels : mapping or sequence of str, optional
        Legend names of the classes: a mapping from class to name, or one name per class in
        sorted class order. By default the class values themselves.
    legend : {"auto", True, False}, default="auto"
        Draw the class legend outside the Axes (see :func:`embedding_legend`). ``"auto"`` draws
        it for up to :data:`MAX_LEGEND_CLASSES` classes.
    s : float, default=4.0
        Marker area in points squared.
    alpha : float, default=0.8
        Marker opacity (the legend shows opaque markers).
    ticks : bool, default=False
        Keep the tick labels; embedding coordinates rarely mean anything, so they are hidden.
    title : str, optional
        Axes title.
    **scatter_kws
        Further keyword arguments of :meth:`matplotlib.axes.Axes.scatter`.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from graphdr import LDA_GE
    >>> from graphdr.plotting import plot_embedding
    >>> X, y = load_iris(return_X_y=True)
    >>> Z = LDA_GE(n_components=2).fit_transform(X, y)
    >>> ax = plot_embedding(Z, y, labels=["setosa", "versicolor", "virginica"])
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['setosa', 'versicolor', 'virginica']
    """
    Z = np.asarray(Z)
    y = np.asarray(y)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[1] < 1:
        raise ValueError(f"Z must be a 2-D array with at least one column, got shape {Z.shape}.")
    if y.shape != (Z.shape[0],):
        raise ValueError(f"y must hold one label per row of Z ({Z.shape[0]}), got shape {y.shape}.")
    if isinstance(legend, str) and legend != "auto":
        raise ValueError(f"legend must be 'auto', True or False, got {legend!r}.")
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    x0 = Z[:, 0]
    x1 = Z[:, 1] if Z.shape[1] > 1 else np.zeros(Z.shape[0])
    classes = np.unique(y)
    names = _class_names(classes, labels)
    for code, name, (colour, marker) in zip(
        classes, names, class_styles(max(classes.size, 1)), strict=False
    ):
        mask = y == code
        ax.scatter(
            x0[mask],
            x1[mask],
            s=s,
            alpha=alpha,
            linewidths=0,
            color=colour,
            marker=marker,
            label=name,
            gid=_GID,
            **scatter_kws,
        )
    if not ticks:
        ax.set_xticks([])
        ax.set_yticks([])
    if title is not None:
        ax.set_title(title)
    if isinstance(legend, str):  # "auto", checked above
        legend = 0 < classes.size <= MAX_LEGEND_CLASSES
    if legend:
        embedding_legend(ax)
    return ax


def _legend_entries(ax):
    handles = [c for c in ax.collections if c.get_gid() == _GID]
    if not handles:
        raise ValueError("ax holds no classes drawn by plot_embedding: draw them first.")
    return handles, [h.get_label() for h in handles]


def embedding_legend(
    ax,
    *,
    figure=None,
    fontsize: float | None = None,
    ncols: int | None = None,
    **legend_kws,
):
    """The class legend of an Axes drawn by :func:`plot_embedding`, placed outside the panels.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        An Axes on which :func:`plot_embedding` drew the classes.
    figure : matplotlib.figure.Figure, optional
        Draw one legend for the whole figure, below its panels (needs the constrained layout
        of :func:`graphdr.reporting.figure_style`), with as many columns as fit its width. By
        default the legend goes to the right of ``ax``, in columns of at most 20 entries.
    fontsize : float, optional
        Font size in points; by default the style's legend size up to 10 classes, 6 pt beyond.
    ncols : int, optional
        Number of legend columns, instead of the automatic choice.
    **legend_kws
        Further keyword arguments of :meth:`matplotlib.axes.Axes.legend` (or of the figure's).

    Returns
    -------
    matplotlib.legend.Legend
        The legend drawn.
    """
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties

    handles, names = _legend_entries(ax)
    n = len(handles)
    if fontsize is None:
        fontsize = FontProperties(size=mpl.rcParams["legend.fontsize"]).get_size_in_points()
        fontsize = fontsize if n <= 10 else min(fontsize, 6.0)
    # legend markers about as wide as a letter, whatever the scatter's marker size
    size = max(float(np.sqrt(np.max(handles[0].get_sizes()))), 1.0)
    options = dict(
        fontsize=fontsize,
        markerscale=0.6 * fontsize / size,
        handletextpad=0.2,
        columnspacing=0.8,
        borderaxespad=0.2,
        labelspacing=0.25,
        frameon=False,
    )
    if figure is None:
        options |= dict(loc="upper left", bbox_to_anchor=(1.0, 1.0), ncols=ncols or -(-n // 20))
        options |= legend_kws
        leg = ax.legend(handles, names, **options)
    else:
        if ncols is None:
            # an entry is a marker, a gap and its text: about 0.6 em per character
            longest = max(len(name) for name in names)
            entry_inches = (fontsize * (0.6 * longest + 2.6)) / 72
            width = figure.get_figwidth()
            ncols = max(1, min(n, math.floor(width / entry_inches), 10 if n > 10 else n))
        options |= dict(loc="outside lower center", ncols=ncols) | legend_kws
        leg = figure.legend(handles, names, **options)
    for handle in leg.legend_handles:
        handle.set_alpha(1.0)
    return leg


def plot_embedding_panels(
    panels: Sequence[tuple[str, np.ndarray, np.ndarray]],
    stem,
    *,
    suptitle: str,
    panel_height: float = 2.1,
    top: float = 0.6,
    suptitle_size: float | None = None,
    **scatter_kws,
):
    """One :func:`plot_embedding` panel per ``(title, Z, y)`` of ``panels``, in as many rows as
    keep the figure within the double-column width (:func:`graphdr.reporting.panel_grid`; panels
    2.2 in wide, ``panel_height`` tall, ``top`` inches for the titles), one class legend below
    them, written to ``<stem>.pdf`` / ``.png`` by :func:`graphdr.reporting.save_figure` (returned).
    ``scatter_kws`` go to every panel's :func:`plot_embedding` (e.g. ``s=3``)."""
    from graphdr import reporting

    nrows, ncols = reporting.panel_grid(len(panels))
    size = (2.2 * ncols + 0.4, panel_height * nrows + top)
    with reporting.figure_style(**{"figure.figsize": size}):
        fig = reporting.new_figure()
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        for ax, (title, Z, y) in zip(axes, panels, strict=False):
            plot_embedding(Z, y, ax, legend=False, title=title, **scatter_kws)
        for ax in axes[len(panels) :]:
            ax.set_axis_off()
        embedding_legend(axes[0], figure=fig)
        fig.suptitle(suptitle, **({} if suptitle_size is None else {"fontsize": suptitle_size}))
        return reporting.save_figure(fig, stem)
