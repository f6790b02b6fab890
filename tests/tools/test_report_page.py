"""The HTML report's page built from a comparison made by hand (no other runtime needed): names from the model
escaped, depths, the verdict and the table of tensors (irgraph.tools.report)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from irgraph.io.xml.reader import read_ir
from irgraph.tools.compare import TensorTolerance, compare_arrays
from irgraph.tools.layerwise import ComparedTensor, LayerwiseReport
from irgraph.tools.report import html_report, layer_depths
from tests.tools.test_report import Page, assert_self_contained

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "dml-split-axis2" / "model.xml"
HOSTILE = '<script>alert("x")</script>\u202e'


def hand_made_report() -> tuple[LayerwiseReport, object]:
    """The sample's VariadicSplit renamed to HOSTILE, its three outputs compared: the second off by 0.5."""
    model = read_ir(SAMPLE).model
    split = model.node(3)
    split.name = HOSTILE
    tensors = []
    for index in range(3):
        ours = np.arange(4, dtype=np.float32)
        theirs = ours + np.float32(0.5 if index == 1 else 0.0)
        comparison = compare_arrays(f"output{index}", ours, theirs, TensorTolerance(1e-3, 0.0))
        tensors.append(ComparedTensor(f"output{index}", split, index, True, comparison))
    return LayerwiseReport("reference 1.0", 1e-3, 0.0, tensors), model


def test_depths_count_computed_layers_only() -> None:
    model = read_ir(SAMPLE).model
    assert layer_depths(model) == {0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1, 6: 1}


def test_names_are_escaped_and_the_divergent_layer_is_named_with_its_place() -> None:
    report, model = hand_made_report()
    built = html_report(report, model, source="model.xml")
    page = Page(built.html)
    assert_self_contained(built.html, page)
    assert "script" not in page.tags and "<script>" not in built.html
    shown = '<script>alert("x")</script>\\u202e'  # as text: escaped for HTML, the bidi override made visible
    assert f"The layer to blame: {shown} (VariadicSplit) at {SAMPLE}:29." in page.text("verdict")
    assert "Verdict: MISMATCH" in page.text("verdict")
    rows = page.tables["tensor-table"][1:]
    assert [(row[1], row[2], row[4], row[5], row[6], row[8]) for row in rows] == [
        ("output0", shown, "1", "ok", "0", "0 of 4"),
        ("output1", shown, "1", "MISMATCH", "0.5", "4 of 4"),
        ("output2", shown, "1", "ok", "0", "0 of 4"),
    ]
    assert all(row[11] == f"{SAMPLE}:29" for row in rows)
    assert page.svgs["plot"] == 1 and "first beyond tolerance" not in page.text("plot")
    assert 'to blame: ...ipt>alert("x")</script>\\u202e' in page.text("plot")  # the name's last 29 characters
    assert "No layer was run on the reference's own inputs." in page.text("own")


def test_a_layer_named_in_the_text_links_to_its_own_row_of_the_tensor_table() -> None:
    """Rows count from 1; the divergent tensor (output1) is row 2, and both links to its layer go there."""
    report, model = hand_made_report()
    html = html_report(report, model, source="model.xml").html
    assert re.findall(r'<span id="t(\d+)">\1</span>', html) == ["1", "2", "3"]
    assert re.findall(r'<a href="#t(\d+)">', html) == ["2", "2"]


def test_the_plot_s_legend_says_where_bit_equal_errors_are_drawn_only_when_there_are_some() -> None:
    pytest.importorskip("matplotlib", reason="the report extra installs matplotlib")
    from irgraph.tools.report_plot import PlotPoint, error_plot_svg

    nonzero = error_plot_svg([PlotPoint(1, 0.5), PlotPoint(2, 1e-3, own_error=1e-4)], "t")
    assert nonzero is not None and "bit-equal" not in nonzero
    for points in ([PlotPoint(1, 0.0), PlotPoint(2, 1e-3)], [PlotPoint(1, 0.5, own_error=0.0), PlotPoint(2, 1e-3)]):
        drawn = error_plot_svg(points, "t")
        assert drawn is not None and "bit-equal (0), drawn at 1e-04" in drawn  # a decade below the smallest
