"""Fuzzing: valid IR files (samples/ and the OpenVINO golden corpus) with their attributes, dims, edges, port
ids, layers, raw bytes and weights mutated. Reading, validating, running (with small random feeds) and
re-writing them may fail, but only with an irgraph.IrError that names the file (an InputError about the
feeds may name none), on one line: never another exception, whatever the damage."""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

import ml_dtypes  # noqa: F401 - registers the dtypes feeds may need
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.ops import Parameter
from tests.helpers import CORPUS
from tests.hostile.conftest import SAMPLES

MAX_FEED_ELEMENTS = 100_000
"""Feeds larger than this are not built (a mutated dim may declare 10^9 elements): the run is skipped."""


@cache
def corpus() -> list[tuple[str, str, bytes | None]]:
    """(name, model.xml text, model.bin bytes or None) of every valid model in samples/ and tests/data/ov."""
    found = []
    for path in sorted(SAMPLES.glob("*/model.xml")) + sorted(CORPUS.glob("*/model.xml")):
        weights = path.with_suffix(".bin")
        found.append((f"{path.parent.parent.name}/{path.parent.name}", path.read_text("utf-8"),
                      weights.read_bytes() if weights.is_file() else None))
    assert len(found) > 100
    return found


# ------------------------------------------------------------------------------------ mutations
INTERESTING = [
    "", " ", "0", "1", "2", "3", "-1", "-2", "7", "64", "3.0", "2.5", "1e3", "0x2", "abc", "?", "-", "..", "1..0",
    "0..4", "2..", "..8", "1,2", "2,,3", ",", "1, 2", "9223372036854775807", "9223372036854775808",
    "99999999999999999999999", "-9223372036854775809", "1000000000", "2147483648", "100000,100000,100000", "f32",
    "i64", "u4", "string", "boolean", "dynamic", "undefined", "f33", "FP32", "I64", "opset1", "opset8", "opset999",
    "Split", "Concat", "Result", "Parameter", "Const", "VariadicSplit", "Frobnicate", "true", "nan", "inf", "\u0662",
    "x" * 3000,
]
OP_TYPES = ["Split", "VariadicSplit", "Concat", "Const", "Parameter", "Result", "Frobnicate"]

_ATTRIBUTE = re.compile(r'(\s[\w:.-]+=")([^"]*)(")')
_DIM = re.compile(r"<dim>([^<]*)</dim>")
_EDGE = re.compile(r"<edge\b[^>]*/>")
_EDGE_FIELD = re.compile(r'((?:from|to)-(?:layer|port)=")([^"]*)(")')
_PORT_ID = re.compile(r'(<port id=")([^"]*)(")')
_LAYER = re.compile(r"<layer\b.*?</layer>|<layer\b[^>]*/>", re.DOTALL)
_TYPE = re.compile(r'(\stype=")([^"]*)(")')


def _values() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(INTERESTING),
        st.integers(-3, 12).map(str),
        st.integers(-(2**64), 2**64).map(str),
        st.text(max_size=8).map(lambda text: html.escape(text, quote=True)),
    )


def _pick(draw: st.DrawFn, matches: list[re.Match[str]]) -> re.Match[str] | None:
    return matches[draw(st.integers(0, len(matches) - 1))] if matches else None


def _replace_group(text: str, match: re.Match[str], group: int, value: str) -> str:
    return text[: match.start(group)] + value + text[match.end(group):]


def _mutate_text(draw: st.DrawFn, text: str) -> str:
    kind = draw(st.sampled_from(["attribute", "dim", "edge", "port", "layer", "type"]))
    if kind == "attribute":
        match = _pick(draw, list(_ATTRIBUTE.finditer(text)))
        return text if match is None else _replace_group(text, match, 2, draw(_values()))
    if kind == "dim":
        match = _pick(draw, list(_DIM.finditer(text)))
        if match is None:
            return text
        action = draw(st.sampled_from(["value", "drop", "repeat"]))
        if action == "value":
            return _replace_group(text, match, 1, draw(_values()))
        return text[: match.start()] + (match.group(0) * 2 if action == "repeat" else "") + text[match.end():]
    if kind == "edge":
        match = _pick(draw, list(_EDGE.finditer(text)))
        if match is None:
            return text
        action = draw(st.sampled_from(["field", "field", "drop", "repeat", "reverse"]))
        edge = match.group(0)
        if action == "field":
            field = _pick(draw, list(_EDGE_FIELD.finditer(edge)))
            value = draw(st.one_of(st.integers(-1, 12).map(str), _values()))
            edge = edge if field is None else _replace_group(edge, field, 2, value)
        elif action == "drop":
            edge = ""
        elif action == "repeat":
            edge = edge * 2
        else:  # the edge points backwards: a cycle, or a port of the wrong direction
            fields = {m.group(1): m.group(2) for m in _EDGE_FIELD.finditer(edge)}
            edge = (f'<edge from-layer="{fields.get("to-layer=")}" from-port="{fields.get("to-port=")}" '
                    f'to-layer="{fields.get("from-layer=")}" to-port="{fields.get("from-port=")}"/>')
        return text[: match.start()] + edge + text[match.end():]
    if kind == "port":
        match = _pick(draw, list(_PORT_ID.finditer(text)))
        value = draw(st.one_of(st.integers(-1, 8).map(str), _values()))
        return text if match is None else _replace_group(text, match, 2, value)
    if kind == "layer":
        match = _pick(draw, list(_LAYER.finditer(text)))
        if match is None:
            return text
        layer = match.group(0)
        layer = draw(st.sampled_from(["", layer * 2, layer + layer.replace('name="', 'name="copy_', 1)]))
        return text[: match.start()] + layer + text[match.end():]
    match = _pick(draw, list(_TYPE.finditer(text)))
    return text if match is None else _replace_group(text, match, 2, draw(st.sampled_from(OP_TYPES)))


def _mutate_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    if not data:
        return draw(st.binary(max_size=16))
    position = draw(st.integers(0, len(data) - 1))
    action = draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
    if action == "flip":
        return data[:position] + bytes([data[position] ^ draw(st.integers(1, 255))]) + data[position + 1:]
    if action == "cut":
        return data[:position] + data[position + draw(st.integers(1, 64)):]
    if action == "insert":
        insert = draw(st.sampled_from([b"<", b">", b'"', b"&", b"\x00", b"\xff", b"&#0;", b"&#01;", b"]]>", b"<!--",
                                       b"<?x?>", b"<dim>3</dim>", b"</port>", b"\xc3", b"\xed\xa0\x80"]))
        return data[:position] + insert + data[position:]
    return data[:position]


@st.composite
def damaged_models(draw: st.DrawFn) -> tuple[str, bytes, bytes | None]:
    """A corpus model with 1 to 3 mutations of its text, its raw bytes or its weights."""
    name, text, weights = draw(st.sampled_from(corpus()))
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(["text", "text", "text", "text", "bytes", "weights"]))
        if target == "text":
            text = _mutate_text(draw, text)
        elif target == "bytes":
            text = _mutate_bytes(draw, text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")
        elif weights is not None:
            weights = None if draw(st.integers(0, 9)) == 0 else _mutate_bytes(draw, weights)
    data = text.encode("utf-8", "surrogateescape")
    return name, data, weights


# ------------------------------------------------------------------------------------ feeds
def _feed_shape(draw: st.DrawFn, parameter: Parameter) -> tuple[int, ...]:
    if parameter.shape.dims is None:
        return tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    sizes = []
    for dim in parameter.shape.dims:
        high = dim.min + 3 if dim.max is None else min(dim.max, dim.min + 3)
        sizes.append(draw(st.integers(dim.min, max(dim.min, high))))
    return tuple(sizes)


def _feed(draw: st.DrawFn, parameter: Parameter, rng: np.random.Generator) -> np.ndarray | None:
    shape = _feed_shape(draw, parameter)
    if not all(0 <= size <= MAX_FEED_ELEMENTS for size in shape) or np.prod(shape, dtype=object) > MAX_FEED_ELEMENTS:
        return None
    element_type = parameter.element_type
    if draw(st.integers(0, 19)) == 0:  # now and then a feed of the wrong type
        element_type = draw(st.sampled_from([ElementType.F64, ElementType.I32, ElementType.BOOLEAN]))
    if element_type is ElementType.STRING:
        return np.full(shape, "s")
    dtype = ElementType.F32.numpy_dtype if element_type.is_dynamic else element_type.numpy_dtype
    return rng.integers(-3, 4, size=shape).astype(np.float32).astype(dtype)


# ------------------------------------------------------------------------------------ the test
def _check(err: ir.IrError) -> None:
    text = str(err)
    assert "\n" not in text and "\r" not in text, f"error is not one line: {text!r}"
    assert len(text) < 4000, f"error is {len(text)} characters long"
    if not isinstance(err, ir.InputError):
        assert err.location.file, f"{type(err).__name__} without a file: {text}"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every example (each writes model.xml / model.bin over the last one's)."""
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=2000, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=damaged_models(), data=st.data())
def test_damaged_models_fail_only_with_located_ir_errors(work, case, data):
    _name, xml, weights = case
    path, bin_path = work / "model.xml", work / "model.bin"
    path.write_bytes(xml)
    if weights is None:
        bin_path.unlink(missing_ok=True)
    else:
        bin_path.write_bytes(weights)
    try:
        for diagnostic in ir.validate_file(path):
            assert "\n" not in str(diagnostic) and diagnostic.location.file
        model = ir.read_model(path)
        for diagnostic in ir.validate(model):
            assert "\n" not in str(diagnostic)
        interpreter = ir.Interpreter(model)
        rng = np.random.default_rng(0)
        feeds = {}
        for parameter in model.parameters:
            array = _feed(data.draw, parameter.op, rng)
            if array is None:
                return
            feeds[parameter.name] = array
        interpreter.run(feeds)
        ir.write_model(model, work / "again.xml")
        again = ir.read_model(work / "again.xml")
        assert len(again) == len(model)
    except ir.IrError as err:
        _check(err)
