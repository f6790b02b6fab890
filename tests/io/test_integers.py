"""Integer texts in a model: ASCII digits only, read by one parser (irgraph.core.integers) at every site.

Each site is one integer text of the corpus model dml-split-axis3-2 (a dim, an op attribute, a
Parameter shape dim, a Const offset and size, a layer id, a port id, the IR version), replaced by a
generated text. The model must read the same through the fast path and through lxml; irgraph accepts
exactly its documented grammar; and, against OpenVINO 2026.4.1, irgraph accepts only what OpenVINO
accepts, with the same values, and refuses only what OpenVINO refuses or what irgraph.core.integers
documents as stricter (a sign OpenVINO tolerates, text after the digits OpenVINO drops, a negative
shape dim OpenVINO reads as 0, a duplicate id OpenVINO overwrites).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.errors import Location
from irgraph.core.integers import INT64_MAX, parse_int
from irgraph.ops.op import CODECS
from tests.helpers import CORPUS
from tests.io.test_fast_reader import BASE, read_both, write_case

OPENVINO = "openvino 2026.4.1"

# Other layers get ids no generated text reaches by chance, so the Const's id (the layer-id site) is free.
RENUMBERED = BASE
for _old in ("0", "2", "3", "4"):
    RENUMBERED = RENUMBERED.replace(f'<layer id="{_old}"', f'<layer id="100{_old}"')
    RENUMBERED = RENUMBERED.replace(f'from-layer="{_old}"', f'from-layer="100{_old}"')
    RENUMBERED = RENUMBERED.replace(f'to-layer="{_old}"', f'to-layer="100{_old}"')


@dataclass(frozen=True)
class Site:
    """One integer text of the model (at each '@' of ``template``), its value as written and its kind."""

    name: str
    value: str
    kind: str  # unsigned (ids, offset, size, version) | signed (dims, attributes) | shape (a shape attribute's dim)
    template: str

    def model(self, text: str) -> str:
        """The model with ``text`` at the site, escaped as XML needs (attribute whitespace as references,
        which an XML parser keeps; literal tabs and newlines in an attribute become spaces)."""
        escaped = text.replace("&", "&amp;").replace("<", "&lt;")
        if self.name != "dim":
            escaped = escaped.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
        escaped = escaped.replace("\r", "&#13;")
        return self.template.replace("@", escaped)

    def __repr__(self) -> str:
        return f"SITES[{self.name!r}]"


def _site(name: str, value: str, kind: str, edits: dict[str, str], template: str = BASE) -> Site:
    for old, new in edits.items():
        assert old in template, old
        template = template.replace(old, new, 1)
    return Site(name, value, kind, template)


SITES = {
    site.name: site
    for site in (
        _site("dim", "6", "signed", {"<dim>6</dim>": "<dim>@</dim>"}),
        _site("num_splits", "2", "signed", {'num_splits="2"': 'num_splits="@"'}),
        _site("shape", "6", "shape", {'shape="1,1,6,2"': 'shape="1,1,@,2"'}),
        _site("offset", "0", "unsigned", {'offset="0"': 'offset="@"'}),
        _site("size", "8", "unsigned", {'size="8"': 'size="@"'}),
        _site("version", "11", "unsigned", {'version="11">': 'version="@">'}),
        _site("port-id", "3", "unsigned", {'<port id="3"': '<port id="@"', 'from-port="3"': 'from-port="@"'}),
        _site("layer-id", "1", "unsigned", {'<layer id="1"': '<layer id="@"', 'from-layer="1"': 'from-layer="@"'},
              RENUMBERED),
    )
}


# ------------------------------------------------------------------------------------ texts
ZEROS = {"Arabic-Indic": 0x660, "Extended Arabic-Indic": 0x6F0, "Devanagari": 0x966, "Bengali": 0x9E6,
         "full-width": 0xFF10, "mathematical bold": 0x1D7CE}
SPACES = ["", "", " ", "\t", "\n", "\r", "  ", "\u00a0", "\u3000", "\u2003"]
TRAILERS = ["", "", "", " ", "\t\n", "abc", ".0", "x", "e1", "\u00a0", "\u00b2", "?"]


def _foreign(value: str, zero: int) -> str:
    return "".join(chr(zero + int(d)) for d in value)


XML_CHARACTERS = st.characters(exclude_categories=["Cc", "Cs"], exclude_characters="\ufffe\uffff") | st.sampled_from(
    " \t\n\r")
"""Any character a model may hold (XML forbids other control characters and surrogates)."""


def integer_texts(value: str) -> st.SearchStrategy[str]:
    """Texts around ``value``: whitespace (ASCII and not), signs, zeros, foreign digits, garbage, huge numbers."""
    digits = st.one_of(
        st.just(value),
        st.sampled_from(sorted(ZEROS.values())).map(lambda zero: _foreign(value, zero)),
        st.text(alphabet=st.characters(categories=["Nd"]), min_size=1, max_size=4),
        st.text(alphabet="0123456789", min_size=1, max_size=22),
        st.integers(18, 5000).map(lambda n: "9" * n),
        st.builds(lambda head, tail: head + value + tail, st.sampled_from(["", "0", "000"]),
                  st.sampled_from(["", "\u0663", "\uff13", "\u00b9"])),
    )
    wild = st.builds(
        lambda lead, sign, body, inner, trail: lead + sign + body + inner + trail,
        st.sampled_from(SPACES), st.sampled_from(["", "", "", "+", "-", "--", "-+"]), digits,
        st.sampled_from(["", "", " ", "\t"]), st.sampled_from(TRAILERS),
    )
    near = st.builds(  # OpenVINO's own spellings of the value and their neighbours: most of these are read
        lambda lead, sign, zeros, trail: lead + sign + zeros + value + trail,
        st.sampled_from(["", " ", "\t", "\n "]), st.sampled_from(["", "+", "-"]), st.sampled_from(["", "0", "00"]),
        st.sampled_from(["", " ", "\n", "a", "\u00a0"]),
    )
    return st.one_of(near, near, wild)


def site_texts() -> st.SearchStrategy[tuple[Site, str]]:
    return st.sampled_from(sorted(SITES.values(), key=lambda s: s.name)).flatmap(
        lambda site: st.tuples(st.just(site), st.one_of(integer_texts(site.value), st.text(XML_CHARACTERS, max_size=8)))
    )


# ------------------------------------------------------------------------------------ grammars
_SPACE = "[ \t\n\r]*"
IRGRAPH_GRAMMAR = {
    "unsigned": re.compile(f"{_SPACE}([0-9]+)"),
    "signed": re.compile(f"{_SPACE}(-?[0-9]+){_SPACE}"),
    "shape": re.compile(f"{_SPACE}([0-9]+|-1){_SPACE}"),
}
"""What irgraph reads at each kind of site (irgraph.core.integers; ranges checked apart)."""


def irgraph_value(kind: str, text: str) -> int | None:
    """The value irgraph's grammar gives ``text``, or None when the grammar refuses it."""
    match = IRGRAPH_GRAMMAR[kind].fullmatch(text)
    if match is None or len(match.group(1).lstrip("-").lstrip("0")) > 19:
        return None
    value = int(match.group(1))
    return value if -(2**63) <= value <= INT64_MAX else None


def documented_stricter(kind: str, text: str) -> bool:
    """Texts OpenVINO 2026.4.1 reads that irgraph refuses on purpose (irgraph.core.integers says why)."""
    body = text.lstrip(" \t\n\r")
    if kind == "unsigned":  # a sign: '+1', '-0'
        return re.fullmatch(r"[+-][0-9]+", body) is not None
    if kind == "signed":  # '+6', or anything after the digits ('6abc', '6.0', '0x6', '6\u00a0')
        return re.match(r"[+-]?[0-9]+", body) is not None and (
            body.startswith("+") or re.fullmatch(r"-?[0-9]+[ \t\n\r]*", body) is None
        )
    # shape: OpenVINO reads any run of digits and '-' ('-2', '-0', '-', '1-' as 0, 0, 0, 1) and wraps numbers
    # above int64; irgraph reads digits and -1 only
    token = text.strip(" \t\n\r")
    return re.fullmatch(r"[0-9-]+", token) is not None and irgraph_value(kind, text) is None


# ------------------------------------------------------------------------------------ irgraph alone
def _outcome(path: Path) -> tuple[object, object]:
    fast, reference, _ = read_both(path)
    return fast, reference


def _accepted(outcome: object) -> bool:
    return not isinstance(outcome[0], str)  # type: ignore[index]


SETTINGS = settings(max_examples=250, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SETTINGS
@given(case=site_texts())
@example(case=(SITES["dim"], "\u0663"))
@example(case=(SITES["offset"], " 0"))
@example(case=(SITES["offset"], "0 "))
@example(case=(SITES["num_splits"], "\t2\n"))
@example(case=(SITES["version"], "011"))
def test_integer_texts_read_by_the_grammar_both_ways(tmp_path, case):
    site, text = case
    fast, reference = _outcome(write_case(tmp_path, site.model(text)))
    assert fast == reference
    value = irgraph_value(site.kind, text)
    if value is None:  # outside the grammar: refused, saying what the text must be
        assert not _accepted(reference), f"{site.name} {text!r} was read"
        assert "must be" in reference[1] or "cannot parse dimension" in reference[1] or "IR version" in reference[1] \
            or "is above" in reference[1], reference
    elif value == int(site.value):  # the written value, spelled another way: the same model as written
        canonical = _outcome(write_case(tmp_path, site.model(site.value)))[1]
        assert _accepted(reference), reference
        assert _without_lines(reference) == _without_lines(canonical)


def _without_lines(outcome: object) -> object:
    """A read model's description without locations (an edited text may move nothing, but ids do not)."""
    description, findings = outcome  # type: ignore[misc]
    name, version, rt_info, legacy, _source, _line, nodes, edges = description
    located = [tuple(part for part in node if not isinstance(part, Location)) for node in nodes]
    return name, version, rt_info, legacy, located, edges, findings


@pytest.mark.parametrize("family", ["Arabic-Indic", "Devanagari", "full-width"])
@pytest.mark.parametrize(
    ("site", "message"),
    [
        ("dim", "port <dim> must be an integer >= -1 (ASCII digits 0-9 only). Got: {text!r}"),
        ("num_splits", "attribute 'num_splits' must be an integer (ASCII digits 0-9 only). Got: {text!r}"),
        ("offset", "Const attribute 'offset' must be a non-negative integer (ASCII digits 0-9 only). Got: {text!r}"),
        ("size", "Const attribute 'size' must be a non-negative integer (ASCII digits 0-9 only). Got: {text!r}"),
        ("layer-id", "layer 'id' must be a non-negative integer (ASCII digits 0-9 only). Got: {text!r}"),
        ("port-id", "port id {text!r} must be a non-negative integer (ASCII digits 0-9 only) (output ports)"),
    ],
)
def test_digits_of_other_scripts_are_refused_by_name(tmp_path, family, site, message):
    text = _foreign(SITES[site].value, ZEROS[family])
    fast, reference = _outcome(write_case(tmp_path, SITES[site].model(text)))
    assert fast == reference
    kind, printed = reference
    assert kind == ("OpError" if site == "num_splits" else "IrParseError")
    assert printed.endswith(message.format(text=text)), printed


@pytest.mark.parametrize("family", ["Arabic-Indic", "Devanagari", "full-width"])
def test_digits_of_other_scripts_in_a_shape_are_refused(tmp_path, family):
    text = _foreign("6", ZEROS[family])
    with pytest.raises(ir.IrParseError) as info:
        ir.Shape.parse(f"1,{text},2")
    assert info.value.message == (
        f"cannot parse dimension {text!r} (expected N, ?, -1, lo..hi, ..hi or lo..) (ASCII digits 0-9 only)"
    )
    _, reference = _outcome(write_case(tmp_path, SITES["shape"].model(text)))
    assert reference[1].endswith(f"attribute 'shape' must be a partial shape like 1,?,1..8. Got: '1,1,{text},2'")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", 7), (" 7", 7), ("7 ", 7), ("\t-7\n", -7), ("007", 7), ("-0", 0),
        (str(INT64_MAX), INT64_MAX), (str(-(2**63)), -(2**63)),
    ],
)
def test_parse_int_reads_ascii_integers(text, expected):
    assert parse_int(text) == expected


@pytest.mark.parametrize(
    ("text", "minimum", "message"),
    [
        ("", -(2**63), "an integer"),
        ("+7", -(2**63), "an integer"),
        ("7a", -(2**63), "an integer"),
        ("\u00a07", -(2**63), "an integer"),
        ("\u00b2", -(2**63), "an integer (ASCII digits 0-9 only)"),
        ("\u0967", 0, "a non-negative integer (ASCII digits 0-9 only)"),
        (str(2**63), -(2**63), "an integer in the int64 range"),
        ("9" * 5000, 0, f"at most {INT64_MAX}"),
        ("-2", -1, "an integer >= -1"),
        ("-3", 0, "a non-negative integer"),
        ("-" + "9" * 30, -1, "an integer >= -1"),
    ],
)
def test_parse_int_says_what_the_text_must_be(text, minimum, message):
    with pytest.raises(ValueError) as info:
        parse_int(text, minimum)
    assert str(info.value) == message


# ------------------------------------------------------------------------------------ OpenVINO
def _openvino_read(content: str) -> object:
    """What OpenVINO makes of the model: the observed values, or None when it refuses it."""
    ov = pytest.importorskip("openvino", reason="the test extra installs openvino")
    weights = (CORPUS / "dml-split-axis3-2" / "model.bin").read_bytes()
    try:
        model = ov.Core().read_model(content.encode("utf-8"), ov.Tensor(np.frombuffer(weights, np.uint8)))
    except Exception:  # noqa: BLE001 - OpenVINO raises RuntimeError and friends for every refusal
        return None
    split = next(op for op in model.get_ops() if op.get_type_name() == "Split")
    const = next(op for op in model.get_ops() if op.get_type_name() == "Constant")
    return str(model.inputs[0].partial_shape), int(split.get_attributes()["num_splits"]), const.get_data().tolist()


def _irgraph_read(path: Path) -> object:
    try:
        model = ir.read_model(path)
        ir.infer_shapes(model)
    except ir.IrError:
        return None
    split = next(node for node in model if node.type_name == "Split")
    const = next(node for node in model if node.type_name == "Const")
    shape = "[" + ",".join(str(d) for d in model.parameters[0].op.shape) + "]"
    return shape, split.op.num_splits, const.op.value.tolist()


def _ov_value(text: str) -> int | None:
    """The value OpenVINO 2026.4.1 parses from ``text`` at a site of ``kind`` (for duplicate-id checks)."""
    match = re.match(r"[ \t\n\r]*([+-]?[0-9]{1,19})", text)
    return int(match.group(1)) if match else None


@pytest.mark.oracle
@settings(max_examples=200, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=site_texts())
@example(case=(SITES["offset"], "+0"))
@example(case=(SITES["dim"], "6abc"))
@example(case=(SITES["shape"], "-0"))
def test_irgraph_reads_a_subset_of_what_openvino_2026_4_1_reads(tmp_path, case):
    site, text = case
    content = site.model(text)
    theirs = _openvino_read(content)
    ours = _irgraph_read(write_case(tmp_path, content))
    if ours is not None:
        assert theirs == ours, f"{OPENVINO} reads {site.name} {text!r} as {theirs}, irgraph as {ours}"
    elif theirs is not None:
        duplicate = site.name in ("layer-id", "port-id") and _ov_value(text) in (
            {1000, 1002, 1003, 1004} if site.name == "layer-id" else {2})
        assert documented_stricter(site.kind, text) or duplicate, (
            f"{OPENVINO} reads {site.name} {text!r} (as {theirs}) but irgraph refuses it, undocumented"
        )


@pytest.mark.parametrize(("text", "message"), [("\u0663.5", "a number (ASCII digits 0-9 only)"), ("1_000", "a number")])
def test_float_attribute_texts_are_ascii_too(text, message):
    """Python's float() reads other scripts' digits and underscores; a float attribute text does not."""
    with pytest.raises(ValueError) as info:
        CODECS[float].read(text)
    assert str(info.value) == message
    assert CODECS[float].read(" 2.5e1 ") == 25.0


@pytest.mark.parametrize(("text", "minimum", "message"), [
    ("-99999999999999999999", 0, "a non-negative integer"),  # signed syntax, out of range below 0
    ("-99999999999999999999", 1, "an integer >= 1"),
    ("-99999999999999999999", -1, "an integer >= -1"),
])
def test_out_of_range_below_names_the_minimum(text, minimum, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_int(text, minimum=minimum)
