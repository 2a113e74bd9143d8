"""graphdr.plotting: class colours and markers, legends for many classes, print-sized figures."""

import re

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_hex

from graphdr import plotting, reporting
from graphdr.pipeline import io, report
from graphdr.pipeline.papers.dee import report as dee_report

matplotlib.use("Agg")


def _data(n_classes, per_class=5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    Z = rng.normal(size=(y.size, 2)) + 3 * y[:, None]
    return Z, y


def _axes():
    with reporting.figure_style():
        return reporting.new_figure().subplots()


def _pdf_width_inches(path) -> float:
    box = re.search(rb"MediaBox \[ *0 0 ([0-9.]+) ([0-9.]+) *\]", path.read_bytes())
    return float(box.group(1)) / 72


def _drawn(ax):
    return [c for c in ax.collections if c.get_gid() == plotting._GID]


@pytest.mark.parametrize("n_classes", [3, 8, 9, 20, 40])
def test_one_legend_entry_and_one_distinct_style_per_class(n_classes):
    Z, y = _data(n_classes)
    ax = plotting.plot_embedding(Z, y, _axes())
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [str(c) for c in range(n_classes)]
    drawn = _drawn(ax)
    assert len(drawn) == n_classes
    for k, collection in enumerate(drawn):  # each class's own points, nothing else
        np.testing.assert_array_equal(collection.get_offsets(), Z[y == k])
    colours = [to_hex(c.get_facecolor()[0]) for c in drawn]
    markers = [m for _, m in plotting.class_styles(n_classes)]
    assert colours == [c for c, _ in plotting.class_styles(n_classes)]
    assert len(set(zip(colours, markers, strict=True))) == n_classes
    assert len(set(colours)) == min(n_classes, 20)
    if n_classes > 8:  # neighbouring classes differ in shape too
        assert all(a != b for a, b in zip(markers, markers[1:], strict=False))
    # legend markers are opaque even though the points are not
    assert all(h.get_alpha() == 1.0 for h in legend.legend_handles)


def test_up_to_eight_classes_use_okabe_ito_discs():
    styles = plotting.class_styles(8)
    assert [c.upper() for c, _ in styles] == list(reporting.OKABE_ITO)
    assert {m for _, m in styles} == {"o"}


def test_many_classes_legend_is_small_and_in_columns_outside_the_axes():
    Z, y = _data(40)
    ax = plotting.plot_embedding(Z, y, _axes())
    legend = ax.get_legend()
    assert legend._ncols == 2
    assert legend.get_texts()[0].get_fontsize() <= 6
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # the legend sits right of the axes, it does not hide points
    assert legend.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1 - 1


def test_string_labels_and_label_names():
    rng = np.random.default_rng(1)
    y = np.array(["zebra", "ant", "moth"] * 4)
    Z = rng.normal(size=(y.size, 3))
    ax = plotting.plot_embedding(Z, y, _axes())
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["ant", "moth", "zebra"]
    np.testing.assert_array_equal(_drawn(ax)[0].get_offsets(), Z[y == "ant"][:, :2])
    ax = plotting.plot_embedding(Z, y, _axes(), labels={"ant": "A", "moth": "M", "zebra": "Z"})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "M", "Z"]
    ax = plotting.plot_embedding(Z, y, _axes(), labels=["a", "m", "z"], legend=False)
    assert ax.get_legend() is None and [c.get_label() for c in _drawn(ax)] == ["a", "m", "z"]


def test_one_dimensional_embedding_is_drawn_against_zero():
    Z, y = _data(3)
    ax = plotting.plot_embedding(Z[:, 0], y, _axes())
    offsets = np.concatenate([c.get_offsets() for c in _drawn(ax)])
    np.testing.assert_array_equal(offsets[:, 1], 0.0)
    np.testing.assert_array_equal(np.sort(offsets[:, 0]), np.sort(Z[:, 0]))


def test_auto_legend_stops_beyond_the_readable_number_of_classes():
    Z, y = _data(plotting.MAX_LEGEND_CLASSES + 1, per_class=2)
    assert plotting.plot_embedding(Z, y, _axes()).get_legend() is None
    assert plotting.plot_embedding(Z, y, _axes(), legend=True).get_legend() is not None


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(labels=["a", "b"]), "labels has 2 names but y has 3 classes"),
        (dict(labels={0: "a", 1: "b"}), r"no name for the classes \[2\]"),
        (dict(legend="outside"), "legend must be 'auto', True or False"),
    ],
)
def test_bad_arguments_are_explained(kwargs, match):
    Z, y = _data(3)
    with pytest.raises(ValueError, match=match):
        plotting.plot_embedding(Z, y, _axes(), **kwargs)


def test_bad_shapes_are_explained():
    Z, y = _data(3)
    with pytest.raises(ValueError, match="one label per row of Z"):
        plotting.plot_embedding(Z, y[:-1], _axes())
    with pytest.raises(ValueError, match="ax holds no classes"):
        plotting.embedding_legend(_axes())


def test_panel_grid_keeps_figures_within_the_double_column():
    assert (reporting.SINGLE_COLUMN, reporting.DOUBLE_COLUMN) == (3.5, 7.2)
    assert reporting.panel_grid(2) == (1, 2)
    assert reporting.panel_grid(3) == (1, 3)
    assert reporting.panel_grid(4) == (2, 2)
    assert reporting.panel_grid(5) == (2, 3)
    assert reporting.panel_grid(7) == (3, 3)
    for n in range(1, 12):
        rows, cols = reporting.panel_grid(n)
        assert rows * cols >= n and 2.2 * cols + 0.4 <= reporting.DOUBLE_COLUMN
    with pytest.raises(ValueError, match="wider than max_width"):
        reporting.panel_grid(2, panel_width=8.0)


def test_paper_embedding_figures_fit_the_printed_page(tmp_path):
    """Five panels (QMI's count) and forty classes (ORL's) in one figure: at most 7.2 in wide,
    one legend entry per class, and the same bytes twice."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(40), 3)
    runs = {f"M{k}": {"Z": rng.normal(size=(y.size, 2)), "y": y} for k in range(5)}
    titles = {label: label for label in runs}
    for stem in ("a", "b"):
        dee_report.plot_embeddings(runs, titles, "Faces: 2-D embeddings", tmp_path / stem)
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert _pdf_width_inches(tmp_path / "a.pdf") <= reporting.DOUBLE_COLUMN


def test_projection_figure_fits_the_printed_page_with_named_classes(tmp_path):
    rng = np.random.default_rng(0)
    paths = {}
    for dataset, k in (("Digits", 10), ("Wine", 3)):
        names = np.asarray([f"{dataset.lower()} {c}" for c in range(k)], dtype=np.str_)
        for method in ("PCA-GE", "LDA-GE", "KDA-GE", "LPP-GE"):
            path = tmp_path / f"{dataset}{method}.npz"
            y_test = np.arange(60) % k
            io.write_npz(
                path, {"Z_test": rng.normal(size=(60, 2)), "y_test": y_test, "class_names": names}
            )
            paths[(dataset, method)] = path
    report.plot_projection(paths, tmp_path / "demo", title="t")
    assert _pdf_width_inches(tmp_path / "demo.pdf") <= reporting.DOUBLE_COLUMN
