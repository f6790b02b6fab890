"""ir-run --report: the HTML page of a comparison with OpenVINO (irgraph.tools.report), read back by its structure
and opened in headless Chromium.

The comparison is test_local_error's: irgraph's second-block Gelu of tests/data/models/whisper-tiny-encoder
planted to multiply its f32 output by 1.001 (tests/tools/planted.py, a process of its own), compared with
openvino 2026.4.1 under a tolerance tighter than the f32 rounding the encoder accumulates.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from irgraph.cli import ir_run
from irgraph.tools import report as report_module
from irgraph.tools.report import PROFILE_ROWS
from tests.tools.test_layerwise import line_of_layer

pytestmark = pytest.mark.oracle

ROOT = Path(__file__).resolve().parents[2]
WHISPER = ROOT / "tests" / "data" / "models" / "whisper-tiny-encoder" / "model.xml"
GELU = "__module.layers.1.activation_fn/aten::gelu/Gelu"
CONV1 = "__module.conv1/aten::_convolution/Convolution"
TIGHT = ["--atol", "0", "--rtol", "1e-6"]
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
"""The only URLs the page may hold: the SVG namespaces, names that are never fetched."""
CHROMIUM = "/usr/bin/chromium"


class Page(HTMLParser):
    """What a report holds: its tags, attributes, the text of each section and the rows of each table."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str, str]] = []
        self.sections: dict[str, list[str]] = {}
        self.tables: dict[str, list[list[str]]] = {}
        self.svgs: dict[str, int] = {}
        self._section: str | None = None
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        if tag == "section":
            self._section = found["id"]
            self.sections[self._section or ""] = []
        elif tag == "table":
            self._table = found["id"]
            self.tables[self._table or ""] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "svg" and self._section is not None:
            self.svgs[self._section] = self.svgs.get(self._section, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if self._section is not None and tag in ("h2", "h3", "p", "div", "td", "th", "text"):
            self.sections[self._section].append("\n")  # a block ends: words on either side stay apart
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "section":
            self._section = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._section is not None:
            self.sections[self._section].append(data)

    def text(self, section: str) -> str:
        return " ".join("".join(self.sections[section]).split())


def run_planted(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "tests.tools.planted", GELU, "1.001", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def planted_page(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    pytest.importorskip("matplotlib", reason="the test extra installs matplotlib")
    page = tmp_path_factory.mktemp("report") / "whisper.html"
    done = run_planted([str(WHISPER), "--compare-with", "openvino", "--mark", "all", *TIGHT, "--profile",
                        "--report", str(page)])
    return page, done


def assert_self_contained(text: str, page: Page) -> None:
    assert not page.tags & {"script", "link", "img", "iframe", "object", "embed", "base", "meta"} - {"meta"}
    assert not [(tag, name) for tag, name, _ in page.attributes if name in ("src", "srcset", "action", "data")]
    links = [value for _, name, value in page.attributes if name in ("href", "xlink:href")]
    assert links and all(link.startswith(("#", "file:///")) for link in links), links
    assert set(re.findall(r"https?://[^\"'\s<>)]*", text)) <= NAMESPACES
    assert all(target.startswith("#") for target in re.findall(r"url\(([^)]*)\)", text))  # the SVG's own clip paths
    assert "@import" not in text


def test_the_report_names_the_planted_layer_and_holds_every_part(planted_page) -> None:
    path, done = planted_page
    assert done.returncode == 1, done.stderr
    assert done.stderr.count(f"note: report written: {path}\n") == 1
    assert "needs matplotlib" not in done.stderr
    text = path.read_text("utf-8")
    page = Page(text)
    assert_self_contained(text, page)
    assert list(page.sections) == ["verdict", "plot", "own", "neighbourhood", "profile", "tensors"]
    assert "Verdict: MISMATCH" in page.text("verdict")
    assert f"The layer to blame: {GELU} (Gelu) at {WHISPER}:{line_of_layer(WHISPER, GELU)}" in page.text("verdict")
    # the plot: one inline SVG, the layer to blame written beside its point
    assert page.svgs["plot"] == 1
    assert "to blame: ...activation_fn/aten::gelu/Gelu" in page.text("plot")  # the end of a long name
    assert "first beyond tolerance: ...ten::_convolution/Convolution" in page.text("plot")
    assert "max abs error of 49 tensors against openvino 2026.4.1 (CPU, f32)" in page.text("plot")
    assert f"First layer whose own error exceeds its class: {GELU} (Gelu)" in page.text("own")
    # every compared tensor, in topological order, each with its layer's FILE:LINE
    rows = page.tables["tensor-table"]
    assert rows[0] == ["#", "tensor", "layer", "type", "depth", "verdict", "max abs error", "max rel error",
                       "mismatches", "own error", "tolerance", "FILE:LINE"]
    assert len(rows) - 1 == 49 and [row[0] for row in rows[1:]] == [str(n) for n in range(1, 50)]
    for row in rows[1:]:
        assert row[11] == f"{WHISPER}:{line_of_layer(WHISPER, row[2])}"
    flagged = [row[2] for row in rows[1:] if "(beyond its class)" in row[9]]
    assert flagged[0] == GELU and rows[1][2] == CONV1 and rows[1][5] == "MISMATCH"
    depths = [int(row[4]) for row in rows[1:]]
    assert depths[0] == 1 and max(depths) > 30
    # the neighbourhood, drawn by Graphviz when it is installed, else listed
    if shutil.which("dot"):
        assert page.svgs["neighbourhood"] == 1 and GELU in page.text("neighbourhood")
        assert "Graphviz" not in done.stderr
    else:
        assert GELU in [row[0] for row in page.tables["graph-table"]]
    # the profile: the most expensive layers, and every layer counted once by op type
    head = page.text("profile")
    layers = int(re.search(r"profile: (\d+) layers took", head).group(1))
    assert len(page.tables["profile-layers"]) - 1 == min(PROFILE_ROWS, layers)
    assert sum(int(row[1]) for row in page.tables["profile-types"][1:]) == layers
    assert "openvino 2026.4.1 (CPU, f32)" in head and page.tables["profile-layers"][0][2] == "openvino ms"


def test_without_matplotlib_or_graphviz_the_report_says_so_once_and_holds_the_rest(tmp_path, monkeypatch,
                                                                                  capsys) -> None:
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    monkeypatch.setattr(report_module.shutil, "which", lambda name: None)
    page_path = tmp_path / "report.html"
    code = ir_run.main([str(WHISPER), "--compare-with", "openvino", "--mark", "all", *TIGHT, "--report",
                        str(page_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("note: the report's plot needs matplotlib: pip install -e '.[report]'; the rest of the report "
                     "is written\n") == 1
    assert err.count("note: Graphviz's dot is not installed") == 1
    text = page_path.read_text("utf-8")
    page = Page(text)
    assert_self_contained(text, page)
    assert "svg" not in page.tags
    assert "The plot needs matplotlib: pip install -e '.[report]'." in page.text("plot")
    # without a fault, the first divergent layer only inherits rounding: the neighbourhood is around it
    assert "No layer's own error exceeds its class. The mismatch is only inherited rounding." in page.text("own")
    table = page.tables["graph-table"]
    assert table[0] == ["layer", "type", "depth", "reads", "max abs error", "own error", "FILE:LINE"]
    assert table[2][0] == CONV1 and table[2][6] == f"{WHISPER}:{line_of_layer(WHISPER, CONV1)}"
    assert "profile" not in page.sections  # no --profile


@pytest.mark.parametrize(("argv", "message"), [
    (["--report", "r.html"], "error: --report needs --compare-with: it reports a comparison with another runtime\n"),
    (["--compare-with", "openvino", "--report", "."], "is a directory"),
    (["--compare-with", "openvino", "--report", str(WHISPER)], "model file"),
])
def test_report_usage_errors(argv, message, capsys) -> None:
    assert ir_run.main([str(WHISPER), *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.browser
def test_the_report_opens_in_headless_chromium_and_shows_the_plot(planted_page) -> None:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is not installed (Debian's chromium package)")
    path, done = planted_page
    assert done.returncode == 1, done.stderr
    with tempfile.TemporaryDirectory() as profile:
        shown = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", f"--user-data-dir={profile}", "--dump-dom", path.as_uri()],
            capture_output=True, text=True, timeout=180, check=False)
    assert shown.returncode == 0, shown.stderr[-2000:]
    dom = shown.stdout
    plot = dom[dom.index('<section id="plot">'):dom.index('<section id="own">')]
    assert re.search(r'<div class="plot"><svg [^>]*viewBox="0 0 792 302.4"', plot), plot[:300]
    assert "max abs error of 49 tensors" in plot and plot.count("<path") > 10
    assert "Verdict: <span class=\"mismatch\">MISMATCH</span>" in dom


def test_a_stateful_run_of_two_steps_reports_its_last_step_when_every_step_matches(tmp_path, capsys) -> None:
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    gpt2 = ROOT / "tests" / "data" / "models" / "gpt2-tiny-stateful" / "model.xml"
    page_path = tmp_path / "steps.html"
    assert ir_run.main([str(gpt2), "--steps", "2", "--compare-with", "openvino", "--mark", "all", "--report",
                        str(page_path)]) == 0
    page = Page(page_path.read_text("utf-8"))
    assert page.text("verdict").startswith("Verdict: match every compared tensor and variable of 2 steps matches "
                                           "openvino 2026.4.1 (CPU, f32)")
    assert "step 2 of 2" in page_path.read_text("utf-8").split("</h1>")[0]
    rows = page.tables["tensor-table"][1:]
    keys = [row[1] for row in rows]
    assert len(keys) == len(set(keys)) > 50 and "past.0.key" in keys  # one step's tensors, a variable's among them
    assert {row[5] for row in rows} == {"ok"}
    assert "No layer diverges." in page.text("neighbourhood")
