"""graphdr.reporting: table files, paper-vs-reproduced layout, deterministic figures."""

import io
import os
import re
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from graphdr import reporting as rp

matplotlib.use("Agg")


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "method": ["KDA", "LDA_GEU", "k-NN | raw"],
            "accuracy": [98.75, 95.421875, 1 / 3],
            "dim": [19, 12, 64],
            "ok": [True, False, True],
        }
    )


# ---------------------------------------------------------------- write_table


def test_write_table_writes_three_files_and_csv_round_trips(tmp_path, frame):
    paths = rp.write_table(frame, tmp_path / "sub" / "table1", caption="Test accuracy (%)")
    assert {p.name for p in paths.values()} == {"table1.csv", "table1.md", "table1.tex"}
    back = pd.read_csv(paths["csv"])
    pd.testing.assert_frame_equal(back, frame)  # full precision, not the display format
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == [
        "table1.csv",
        "table1.md",
        "table1.tex",
    ]  # no temporary file left behind


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_tables_and_figures_get_the_mode_of_an_ordinary_file(tmp_path, frame, umask):
    old = os.umask(umask)
    try:
        rp.write_table(frame, tmp_path / "table1")
        from matplotlib.figure import Figure

        fig = Figure(figsize=(1, 1))
        rp.save_figure(fig, tmp_path / "figure1")
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert len(modes) == 5 and set(modes.values()) == {0o666 & ~umask}, modes


def test_markdown_is_a_github_pipe_table(tmp_path, frame):
    md = rp.write_table(frame, tmp_path / "t", caption="Accuracy")["md"].read_text("utf-8")
    lines = md.splitlines()
    assert lines[0] == "**Accuracy**"
    header, rule, *rows = lines[2:]
    assert header.split("|")[1].strip() == "method"
    # text left-aligned, numbers right-aligned
    assert [cell.endswith(":") for cell in rule.strip("|").split("|")] == [
        False,
        True,
        True,
        False,
    ]
    assert "98.75" in md and "95.42" in md and "0.33" in md and "19" in md
    assert "k-NN \\| raw" in md  # a pipe inside a cell is escaped
    assert len(rows) == 3 and all(r.count("|") - r.count("\\|") == 5 for r in rows)


def test_latex_is_escaped_booktabs(tmp_path, frame):
    tex = rp.write_table(frame, tmp_path / "t", caption="50% & more", label="tab:acc")["tex"]
    text = tex.read_text("utf-8")
    assert r"\caption{50\% \& more}" in text and r"\label{tab:acc}" in text
    assert r"\begin{tabular}{lrrl}" in text and r"\toprule" in text and r"\bottomrule" in text
    assert r"LDA\_GEU & 95.42 & 12 & False \\" in text


def test_float_format_variants(frame):
    for spec in (".1f", "%.1f", "{:.1f}", lambda x: f"{x:.1f}"):
        assert re.search(r"\|\s+95\.4 \|", rp.to_markdown(frame, float_format=spec))


def test_two_writes_are_byte_identical(tmp_path, frame):
    first = rp.write_table(frame, tmp_path / "a", caption="c")
    second = rp.write_table(frame, tmp_path / "b", caption="c")
    for ext in ("csv", "md", "tex"):
        assert first[ext].read_bytes() == second[ext].read_bytes()
    before = first["md"].read_bytes()
    rp.write_table(frame, tmp_path / "a", caption="c")  # overwrite in place
    assert first["md"].read_bytes() == before


def test_a_failed_write_leaves_the_old_file_untouched(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), rp._atomic_path(target) as tmp:
        Path(tmp).write_text("half a tab")
        raise RuntimeError("crash while writing")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


# ---------------------------------------------------------------- paper vs reproduced


@pytest.fixture
def paper():
    rows = ["k-NN", "SVM", "RSLDA + k-NN"]
    return pd.DataFrame(
        {
            "row": np.repeat(rows, 2),
            "column": ["COIL20", "USPS"] * 3,
            "value": [88.75, 94.57, 93.75, 94.17, 80.00, 93.68],
            "std": [np.nan, 1.34, np.nan, np.nan, np.nan, np.nan],
        }
    )


@pytest.fixture
def ours():
    return pd.DataFrame(
        {
            "row": ["k-NN", "k-NN", "SVM", "KDA-NGEU"],
            "column": ["COIL20", "USPS", "COIL20", "COIL20"],
            "value": [89.10, 94.00, 92.50, 97.90],
            "std": [np.nan, 0.50, np.nan, np.nan],
            "detail": [12, np.nan, np.nan, np.nan],
        }
    )


NOT_REPRODUCED = {"RSLDA + k-NN": "another group's method; not implemented"}


def test_compare_to_paper_keeps_every_paper_cell(ours, paper):
    cmp = rp.compare_to_paper(ours, paper, NOT_REPRODUCED)
    assert len(cmp) == 7  # 6 paper cells + 1 cell only we have
    assert cmp[["row", "column"]].iloc[:6].equals(paper[["row", "column"]])  # paper order
    reproduced = cmp[cmp["status"] == "reproduced"]
    np.testing.assert_allclose(reproduced["diff"], reproduced["ours"] - reproduced["paper"])
    np.testing.assert_allclose(reproduced["diff"], [0.35, -0.57, -1.25], atol=1e-12)
    missing = cmp[cmp["status"] == "not reproduced"].set_index(["row", "column"])["reason"]
    assert missing[("RSLDA + k-NN", "USPS")] == NOT_REPRODUCED["RSLDA + k-NN"]
    assert missing[("SVM", "USPS")] == rp.NO_REASON  # missing without a reason: still shown
    extra = cmp[cmp["status"] == "not in paper"]
    assert extra[["row", "column"]].values.tolist() == [["KDA-NGEU", "COIL20"]]
    assert extra["paper"].isna().all()  # never filled in


def test_paper_vs_reproduced_columns_layout(tmp_path, ours, paper):
    table = rp.paper_vs_reproduced(ours, paper, NOT_REPRODUCED, row_label="method")
    assert list(table.columns) == [
        "method",
        "COIL20 paper",
        "COIL20 ours",
        "COIL20 Δ",
        "USPS paper",
        "USPS ours",
        "USPS Δ",
        "notes",
    ]
    knn = table.set_index("method").loc["k-NN"]
    assert (knn["COIL20 paper"], knn["COIL20 ours"], knn["COIL20 Δ"]) == (
        "88.75",
        "89.10 (12)",
        "+0.35",
    )
    assert (knn["USPS paper"], knn["USPS ours"], knn["USPS Δ"]) == (
        "94.57 ± 1.34",
        "94.00 ± 0.50",
        "-0.57",
    )
    rslda = table.set_index("method").loc["RSLDA + k-NN"]
    assert rslda["COIL20 ours"] == rslda["USPS ours"] == "not reproduced [2]"
    assert rslda["notes"] == "[2] another group's method; not implemented"
    assert table.set_index("method").loc["SVM", "notes"] == f"[1] {rp.NO_REASON}"

    files = rp.write_table(table, tmp_path / "table1", caption="Table I")
    md, tex = files["md"].read_text("utf-8"), files["tex"].read_text("utf-8")
    for text in (md, tex):
        for expected in ("88.75", "89.10", "+0.35", "-1.25", "97.90", "not reproduced [2]"):
            assert expected in text
        assert "another group's method; not implemented" in text
    assert "94.57 ± 1.34" in md and r"94.57 $\pm$ 1.34" in tex
    assert "COIL20 Δ" in md and r"COIL20 $\Delta$" in tex
    # the Δ columns are numeric: right-aligned even with em-dash placeholders
    rule = md.splitlines()[3].strip("|").split("|")
    assert rule[3].endswith(":") and rule[6].endswith(":") and not rule[7].endswith(":")


def test_paper_vs_reproduced_rows_layout(ours, paper):
    table = rp.paper_vs_reproduced(ours, paper, NOT_REPRODUCED, layout="rows")
    assert list(table.columns) == ["row", "", "COIL20", "USPS", "notes"]
    assert len(table) == 3 * 4
    assert table[""].tolist() == ["paper", "ours", "Δ"] * 4
    svm = table.iloc[3:6]
    assert svm["COIL20"].tolist() == ["93.75", "92.50", "-1.25"]
    assert svm["USPS"].tolist() == ["94.17", "not reproduced [1]", "—"]


def test_paper_vs_reproduced_in_a_given_row_order_and_columns(ours, paper):
    """``row_order`` puts its rows first in its order (the rest after, in their order) and
    ``columns`` restricts and orders the columns; the cells and notes are those of the default
    layout, row by row."""
    default = rp.paper_vs_reproduced(ours, paper, NOT_REPRODUCED, layout="rows")
    table = rp.paper_vs_reproduced(
        ours, paper, NOT_REPRODUCED, layout="rows", row_order=["KDA-NGEU", "SVM"],
        columns=["USPS"],
    )  # fmt: skip
    assert list(table.columns) == ["row", "", "USPS", "notes"]
    labels = [r for r in table["row"] if r]
    assert labels == ["KDA-NGEU", "SVM", "k-NN", "RSLDA + k-NN"]
    blocks = {r: default.index[default["row"] == r][0] for r in labels}
    for i, r in enumerate(labels):
        got = table.iloc[3 * i : 3 * i + 3].reset_index(drop=True)
        want = default.iloc[blocks[r] : blocks[r] + 3].reset_index(drop=True)
        assert got[["row", "", "USPS", "notes"]].equals(want[["row", "", "USPS", "notes"]])


@pytest.mark.parametrize(
    ("reasons", "match"),
    [
        ({("SVM", "COIL20"): "x"}, "have reproduced values"),
        ({"RSLDA": "x"}, "does not contain"),
        ({(None, "MNIST"): "x"}, "does not contain"),
    ],
)
def test_inconsistent_reasons_are_errors(ours, paper, reasons, match):
    with pytest.raises(ValueError, match=match):
        rp.compare_to_paper(ours, paper, reasons)


def test_column_and_cell_reasons(ours, paper):
    reasons = {(None, "USPS"): "USPS run pending", ("RSLDA + k-NN", "COIL20"): "no code"}
    cmp = rp.compare_to_paper(ours, paper, reasons).set_index(["row", "column"])["reason"]
    assert cmp[("RSLDA + k-NN", "COIL20")] == "no code"
    assert cmp[("RSLDA + k-NN", "USPS")] == cmp[("SVM", "USPS")] == "USPS run pending"


def test_bad_long_form_inputs(ours, paper):
    with pytest.raises(ValueError, match="missing \\['value'\\]"):
        rp.compare_to_paper(ours.drop(columns="value"), paper)
    with pytest.raises(ValueError, match="several values"):
        rp.compare_to_paper(pd.concat([ours, ours.iloc[:1]]), paper)
    with pytest.raises(ValueError, match="missing values"):
        rp.compare_to_paper(ours.assign(value=[1.0, np.nan, 2.0, 3.0]), paper)


# ---------------------------------------------------------------- figures


def _draw():
    with rp.figure_style():
        fig = rp.new_figure()
        ax = fig.add_subplot()
        x = np.linspace(0, 1, 50)
        for k in range(3):
            ax.plot(x, x**k, label=f"method {k}")
        ax.set_xlabel("dimension")
        ax.set_ylabel("accuracy (%)")
        ax.legend()
    return fig


def test_figure_style_is_scoped():
    before = matplotlib.rcParams["axes.spines.top"], matplotlib.rcParams["font.size"]
    with rp.figure_style(**{"font.size": 11}):
        assert matplotlib.rcParams["axes.spines.top"] is False
        assert matplotlib.rcParams["axes.spines.right"] is False
        assert matplotlib.rcParams["font.size"] == 11
        colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        assert [c.upper() for c in colors] == list(rp.OKABE_ITO)
    assert (matplotlib.rcParams["axes.spines.top"], matplotlib.rcParams["font.size"]) == before


def test_save_figure_is_byte_identical_and_has_no_dates(tmp_path):
    a = rp.save_figure(_draw(), tmp_path / "fig_a")
    b = rp.save_figure(_draw(), tmp_path / "fig_b")
    assert set(a) == {"pdf", "png"}
    for fmt in ("pdf", "png"):
        assert a[fmt].read_bytes() == b[fmt].read_bytes()
    pdf, png = a["pdf"].read_bytes(), a["png"].read_bytes()
    assert pdf.startswith(b"%PDF") and b"CreationDate" not in pdf and b"Matplotlib" not in pdf
    assert png.startswith(b"\x89PNG") and b"Software" not in png and b"Matplotlib" not in png
    dpi = Image.open(io.BytesIO(png)).info["dpi"]
    assert dpi == pytest.approx((200, 200), abs=0.1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fig_a.pdf",
        "fig_a.png",
        "fig_b.pdf",
        "fig_b.png",
    ]


def test_save_figure_accepts_a_plain_figure_and_rejects_unknown_formats(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    assert rp.save_figure(fig, tmp_path / "plain", formats=("svg",))["svg"].exists()
    with pytest.raises(ValueError, match="format 'jpg' is not supported"):
        rp.save_figure(fig, tmp_path / "plain", formats=("jpg",))


def test_footnotes_number_reasons_in_display_order_and_list_each_rows_own():
    markers, notes = rp.footnotes(
        [("MNIST", "budget"), ("MNIST", "rank"), ("USPS", "rank"), ("MNIST", "budget")]
    )
    assert markers == {"budget": 1, "rank": 2}
    assert notes == {"MNIST": "[1] budget; [2] rank", "USPS": "[2] rank"}
    assert rp.footnotes([]) == ({}, {})
