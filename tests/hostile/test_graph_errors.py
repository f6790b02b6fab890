"""Graph errors: edges to missing layers or ports, two producers for one input port, an unconnected
input, cycles, duplicate layer ids (OpenVINO silently keeps the later one; irgraph refuses), ids that
are not integers, a Result without input, a model without any Result."""

from __future__ import annotations

import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run, ir_validate
from irgraph.core.errors import GraphError, IrParseError
from tests.helpers import line_of
from tests.hostile.conftest import (
    EXIT_FAILURE,
    edge,
    expect_cli_error,
    expect_error,
    layer,
    net,
    parameter,
    port,
    result,
    split_model,
)

BASE, BASE_BIN = split_model()
SPLIT = layer(2, "split", "Split", data={"num_splits": "2"}, inputs=[port(0, (2, 6)), port(1, (), "I64")],
              outputs=[port(2, (2, 3), names="y0"), port(3, (2, 3), names="y1")])
AXIS = BASE[BASE.index('\t\t<layer id="1"'):BASE.index('\t\t<layer id="2"')]
CONCAT = layer(5, "cat", "Concat", data={"axis": "1"}, inputs=[port(0, (2, 3)), port(1, (2, 3))],
               outputs=[port(2, (2, 6))])

# Refused while reading: (model text, error class, message, text on the line the error names, layer id or None)
READ_ERRORS = {
    "edge-from-a-missing-layer": (BASE.replace('from-layer="1"', 'from-layer="9"'), GraphError,
                                  "edge from layer 9 port 0 to layer 2 port 1: there is no layer with id 9",
                                  'from-layer="9"', None),
    "edge-to-a-missing-layer": (BASE.replace('to-layer="4"', 'to-layer="9"'), GraphError,
                                "there is no layer with id 9", 'to-layer="9"', None),
    "edge-from-a-missing-port": (BASE.replace('from-port="3"', 'from-port="7"'), GraphError,
                                 "layer 2 'split' (Split) has no output port with id 7 (its output port ids: 2, 3)",
                                 'from-port="7"', None),
    "edge-to-a-missing-port": (BASE.replace('to-layer="2" to-port="1"', 'to-layer="2" to-port="5"'), GraphError,
                               "layer 2 'split' (Split) has no input port with id 5 (its input port ids: 0, 1)",
                               'to-port="5"', None),
    "edge-from-an-input-port": (BASE.replace('from-layer="2" from-port="2"', 'from-layer="2" from-port="0"'),
                                GraphError, "has no output port with id 0", 'from-layer="2" from-port="0"', None),
    "edge-without-to-port": (BASE.replace('to-layer="2" to-port="1"', 'to-layer="2"'), IrParseError,
                             "<edge> is missing the attribute 'to-port'", 'from-layer="1"', None),
    "edge-with-a-text-port": (BASE.replace('from-port="3"', 'from-port="three"'), IrParseError,
                              "'from-port' must be a non-negative integer. Got: 'three'", 'from-port="three"', None),
    "two-producers-for-one-input": (BASE.replace('to-layer="4" to-port="0"', 'to-layer="3" to-port="0"'), GraphError,
                                    "input port 0 of layer 3 'r0' (Result) has two producers: layer 2 port 2 (edge at "
                                    "line 27) and layer 2 port 3", 'from-port="3"', None),
    "the-same-edge-twice": (BASE.replace("\t</edges>", edge(0, 0, 2, 0).replace(" to", "  to") + "\t</edges>"),
                            GraphError, "has two producers", '"0"  to', None),
    "duplicate-layer-ids": (BASE.replace('<layer id="4"', '<layer id="3"'), GraphError,
                            "layer id 3 is used twice: by the layer at line 17 and the layer at line 20 (OpenVINO "
                            "would silently keep only the later one)", '<layer id="4"', 3),
    "duplicate-parameter-ids": (net([parameter(0), parameter(0, "x2"), result(1, "r", (2, 6))], [edge(0, 0, 1, 0)]),
                                GraphError, "layer id 0 is used twice", 'name="x2"', 0),
    "duplicate-port-ids": (BASE.replace('<port id="1" precision="I64"', '<port id="0" precision="I64"'),
                           IrParseError, "port id '0' is used twice (input ports)", '<port id="1" precision="I64"',
                           2),
}
for _text, _needle in (("two", "two"), ("2.0", "2.0"), ("-2", "-2"), ("", ""), ("0x2", "0x2"), ("1e3", "1e3"),
                       ("\u0662", "\u0662")):
    READ_ERRORS[f"layer-id-{_needle or 'empty'}"] = (
        BASE.replace('<layer id="2"', f'<layer id="{_text}"'), IrParseError,
        f"layer 'id' must be a non-negative integer{' (ASCII digits 0-9 only)' if _text == chr(0x662) else ''}. "
        f"Got: {_text!r}", '<layer id="2"', None)
READ_ERRORS["port-id-not-an-integer"] = (BASE.replace('<port id="3"', '<port id="3.0"'), IrParseError,
                                         "port id '3.0' must be a non-negative integer (output ports)",
                                         '<port id="3"', 2)
READ_ERRORS["layer-without-type"] = (BASE.replace(' type="Split"', ""), IrParseError,
                                     "<layer> is missing the attribute 'type'", '<layer id="2"', None)


def _original_line(text: str, needle: str) -> int:
    # The needle names the edited spot in the edited text when present there, else in the base model.
    return line_of(text, needle) if needle in text else line_of(BASE, needle)


@pytest.mark.parametrize("case", list(READ_ERRORS))
def test_broken_structure_is_refused_while_reading(case, write_ir, capsys):
    text, kind, message, needle, layer_id = READ_ERRORS[case]
    files = write_ir(text, BASE_BIN)
    line = _original_line(text, needle)
    expect_error(lambda: ir.read_model(files.xml), kind, message, file=files.xml, line=line, layer_id=layer_id)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    assert f"{files.xml}:{line}: error:" in outcome.out
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_FAILURE, message)
    assert not (files.directory / "copy.xml").exists()


# Read, then refused by validate (a diagnostic code) and by the Interpreter: (text, message, code, layer, needle)
STRUCTURE_ERRORS = {
    "unconnected-axis-input": (
        net([parameter(0), AXIS, SPLIT, result(3, "r0"), result(4, "r1")],
            [edge(0, 0, 2, 0), edge(2, 2, 3, 0), edge(2, 3, 4, 0)]),
        "input 1 (axis) is not connected", "graph", 2, '<layer id="2"'),
    "unconnected-data-input": (
        net([parameter(0), AXIS, SPLIT, result(3, "r0"), result(4, "r1")],
            [edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(2, 3, 4, 0)]),
        "input 0 (data) is not connected", "graph", 2, '<layer id="2"'),
    "cycle-through-two-layers": (
        net([parameter(0), AXIS, SPLIT, result(3, "r0"), result(4, "r1"), CONCAT],
            [edge(5, 2, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 5, 0), edge(2, 3, 5, 1), edge(2, 2, 3, 0),
             edge(2, 3, 4, 0)]),
        "the graph has a cycle through layers 2 -> 5 -> 2", "cycle", 2, '<layer id="2"'),
    "self-loop": (
        net([parameter(0), layer(1, "c", "Concat", data={"axis": "0"}, inputs=[port(0, (2, 6)), port(1, (2, 6))],
                                 outputs=[port(2, (4, 6))]), result(2, "r", (4, 6))],
            [edge(0, 0, 1, 0), edge(1, 2, 1, 1), edge(1, 2, 2, 0)]),
        "the graph has a cycle through layers 1 -> 1", "cycle", 1, '<layer id="1"'),
    "result-without-input-port": (
        net([parameter(0), AXIS, SPLIT, result(3, "r0"), layer(4, "r1", "Result")],
            [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)]),
        "Result-1 takes 1 (data) inputs; the layer has 0", "graph", 4, '<layer id="4"'),
    "result-with-its-input-unconnected": (
        net([parameter(0), AXIS, SPLIT, result(3, "r0"), result(4, "r1")],
            [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)]),
        "input 0 (data) is not connected", "graph", 4, '<layer id="4"'),
    "result-with-two-inputs": (
        net([parameter(0), layer(1, "r", "Result", inputs=[port(0, (2, 6)), port(1, (2, 6))])],
            [edge(0, 0, 1, 0), edge(0, 0, 1, 1)]),
        "Result-1 takes 1 (data) inputs; the layer has 2", "graph", 1, '<layer id="1"'),
    "parameter-with-an-input": (
        net([parameter(0), layer(1, "p", "Parameter", data={"shape": "2,6", "element_type": "f32"},
                                 inputs=[port(0, (2, 6))], outputs=[port(1, (2, 6))]), result(2, "r", (2, 6))],
            [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]),
        "Parameter-1 takes 0 inputs; the layer has 1", "graph", 1, '<layer id="1"'),
    "no-result-at-all": (
        net([parameter(0), AXIS, SPLIT], [edge(0, 0, 2, 0), edge(1, 0, 2, 1)]),
        "has no Result layers", "no-results", None, "<net "),
    "no-layers-at-all": (net([], []), "has no Result layers", "no-results", None, "<net "),
}


@pytest.mark.parametrize("case", list(STRUCTURE_ERRORS))
def test_broken_structure_is_reported_by_validate_and_refused_by_the_interpreter(case, write_ir, capsys):
    text, message, code, layer_id, needle = STRUCTURE_ERRORS[case]
    files = write_ir(text, BASE_BIN)
    model = ir.read_model(files.xml)
    line = line_of(text, needle) if needle else None
    errors = [d for d in ir.validate(model) if d.is_error]
    assert [d.code for d in errors] == [code], errors
    assert message in errors[0].message and errors[0].location.file == str(files.xml)
    assert (errors[0].location.line, errors[0].location.layer_id) == (line, layer_id)
    expect_error(lambda: ir.Interpreter(model), GraphError, message, file=files.xml, line=line, layer_id=layer_id)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    assert f"{files.xml}{f':{line}' if line else ''}: error: [{code}]" in outcome.out
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_FAILURE, message)
    assert not (files.directory / "copy.xml").exists()


def test_a_long_cycle_is_found_without_recursion(write_ir, capsys):
    """A cycle through 5,000 Concats: found iteratively (no RecursionError), named by its layers."""
    count = 5000
    layers = [parameter(0, shape=(1,))]
    edges = []
    for i in range(1, count + 1):
        layers.append(layer(i, f"c{i}", "Concat", data={"axis": "0"}, inputs=[port(0, (1,))], outputs=[port(1, (1,))]))
        edges.append(edge(i - 1 if i > 1 else count, 1 if i > 1 else 1, i, 0))
    layers.append(result(count + 1, "r", (1,)))
    edges.append(edge(count, 1, count + 1, 0))
    files = write_ir(net(layers, edges), b"")
    model = ir.read_model(files.xml)
    err = expect_error(lambda: ir.Interpreter(model), GraphError, "the graph has a cycle through layers",
                       file=files.xml)
    assert len(str(err)) < 2500
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, "the graph has a cycle")
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, "the graph has a cycle")
