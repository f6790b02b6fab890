"""Op errors: every invalid case of Split, VariadicSplit, Concat, Parameter and Const, attribute texts
that are not numbers (num_splits="3.0", "abc") included. Attribute texts fail while reading (OpError or
IrParseError at the layer); rules that need the input types fail in shape inference
(ShapeInferenceError at the layer, an [op] diagnostic); rules that need fed values fail at run time
(EvaluationError at the layer)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run, ir_validate
from irgraph.core.errors import EvaluationError, GraphError, IrParseError, OpError, ShapeInferenceError, WeightsError
from tests.helpers import line_of
from tests.hostile.conftest import (
    EXIT_FAILURE,
    const,
    edge,
    expect_cli_error,
    expect_error,
    layer,
    net,
    parameter,
    port,
    result,
    save_npz,
)

_DTYPES = {"i64": np.int64, "i32": np.int32, "f32": np.float32}
_PRECISIONS = {"i64": "I64", "i32": "I32", "f32": "FP32"}


def split(num_splits: str | None = "2", axis: object = 1, axis_shape: Sequence[int] = (), axis_type: str = "i64",
          shape: Sequence[int] = (2, 6), outputs: int = 2) -> tuple[str, bytes]:
    """x -> Split(axis Const, num_splits) -> ``outputs`` Results."""
    axis_value = np.asarray(axis, _DTYPES[axis_type]).reshape(axis_shape)
    precision = _PRECISIONS[axis_type]
    xml = net(
        [parameter(0, shape=shape), const(1, "axis", axis_type, axis_shape, 0, axis_value.nbytes, precision),
         layer(2, "split", "Split", data=None if num_splits is None else {"num_splits": num_splits},
               inputs=[port(0, shape), port(1, axis_shape, precision)], outputs=[port(2 + i) for i in range(outputs)])]
        + [result(10 + i, f"r{i}", ()) for i in range(outputs)],
        [edge(0, 0, 2, 0), edge(1, 0, 2, 1)] + [edge(2, 2 + i, 10 + i, 0) for i in range(outputs)],
    )
    return xml, axis_value.tobytes()


def variadic_split(lengths: object, axis: object = 1, axis_shape: Sequence[int] = (), lengths_type: str = "i64",
                   lengths_shape: Sequence[int] | None = None, shape: Sequence[int] = (2, 6),
                   outputs: int | None = None) -> tuple[str, bytes]:
    """x -> VariadicSplit(axis Const, lengths Const) -> Results."""
    values = np.asarray(lengths, _DTYPES[lengths_type])
    lengths_shape = tuple(values.shape) if lengths_shape is None else lengths_shape
    outputs = max(1, values.size) if outputs is None else outputs
    axis_value = np.asarray(axis, np.int64).reshape(axis_shape)
    precision = _PRECISIONS[lengths_type]
    xml = net(
        [parameter(0, shape=shape), const(1, "axis", "i64", axis_shape, 0, axis_value.nbytes, "I64"),
         const(2, "lengths", lengths_type, lengths_shape, axis_value.nbytes, values.nbytes, precision),
         layer(3, "vs", "VariadicSplit", inputs=[port(0, shape), port(1, axis_shape, "I64"),
                                                 port(2, lengths_shape, precision)],
               outputs=[port(4 + i) for i in range(outputs)])]
        + [result(10 + i, f"r{i}", ()) for i in range(outputs)],
        [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2)] + [edge(3, 4 + i, 10 + i, 0) for i in range(outputs)],
    )
    return xml, axis_value.tobytes() + values.tobytes()


def concat(axis: str | None = "1", shapes: Sequence[Sequence[int]] = ((2, 3), (2, 3)),
           types: Sequence[str] = ("f32", "f32")) -> tuple[str, bytes]:
    """x0, x1, ... -> Concat(axis) -> Result."""
    count = len(shapes)
    layers = [parameter(i, f"x{i}", s, t, _PRECISIONS[t]) for i, (s, t) in enumerate(zip(shapes, types, strict=True))]
    layers.append(layer(count, "cat", "Concat", data=None if axis is None else {"axis": axis},
                        inputs=[port(i, s) for i, s in enumerate(shapes)], outputs=[port(count)]))
    layers.append(result(count + 1, "r", ()))
    return net(layers, [edge(i, 0, count, i) for i in range(count)] + [edge(count, count, count + 1, 0)]), b""


def lone_parameter(data: dict[str, str] | None) -> tuple[str, bytes]:
    return net([layer(0, "x", "Parameter", data=data, outputs=[port(0, (2, 6))]), result(1, "r", (2, 6))],
               [edge(0, 0, 1, 0)]), b""


def lone_const(data: dict[str, str] | None, weights: bytes = bytes(8)) -> tuple[str, bytes]:
    return net([layer(0, "c", "Const", data=data, outputs=[port(0)]), result(1, "r")], [edge(0, 0, 1, 0)]), weights


def _const_data(**changes: str | None) -> dict[str, str]:
    data = {"element_type": "i64", "shape": "", "offset": "0", "size": "8"}
    data.update(changes)  # type: ignore[arg-type]
    return {k: v for k, v in data.items() if v is not None}


# Refused while reading: (model, error class, message, layer id)
READ_ERRORS = {
    "split-num_splits-3.0": (split("3.0"), OpError, "attribute 'num_splits' must be an integer. Got: '3.0'", 2),
    "split-num_splits-abc": (split("abc"), OpError, "attribute 'num_splits' must be an integer. Got: 'abc'", 2),
    "split-num_splits-empty": (split(""), OpError, "attribute 'num_splits' must be an integer. Got: ''", 2),
    "split-num_splits-hex": (split("0x2"), OpError, "attribute 'num_splits' must be an integer. Got: '0x2'", 2),
    "split-num_splits-2e0": (split("2e0"), OpError, "attribute 'num_splits' must be an integer. Got: '2e0'", 2),
    "split-num_splits-zero": (split("0"), OpError, "Attribute 'num_splits' must be greater than zero. Got: 0", 2),
    "split-num_splits-negative": (split("-1"), OpError, "Attribute 'num_splits' must be greater than zero. Got: -1",
                                  2),
    "split-num_splits-missing": (split(None), OpError, "Attribute 'num_splits' must be greater than zero. Got: 0", 2),
    "split-num_splits-beyond-int64": (split("9" * 30), OpError,
                                      "attribute 'num_splits' must be an integer in the int64 range", 2),
    "concat-axis-abc": (concat("abc"), OpError, "attribute 'axis' must be an integer. Got: 'abc'", 2),
    "concat-axis-1.5": (concat("1.5"), OpError, "attribute 'axis' must be an integer. Got: '1.5'", 2),
    "concat-axis-empty": (concat(""), OpError, "attribute 'axis' must be an integer. Got: ''", 2),
    "parameter-shape-abc": (lone_parameter({"shape": "abc", "element_type": "f32"}), OpError,
                            "attribute 'shape' must be a partial shape like 1,?,1..8. Got: 'abc'", 0),
    "parameter-shape-2.5": (lone_parameter({"shape": "2.5,6", "element_type": "f32"}), OpError,
                            "attribute 'shape' must be a partial shape like 1,?,1..8. Got: '2.5,6'", 0),
    "parameter-shape-negative": (lone_parameter({"shape": "2,-2", "element_type": "f32"}), OpError,
                                 "attribute 'shape' must be a partial shape", 0),
    "parameter-shape-empty-interval": (lone_parameter({"shape": "2,6..1", "element_type": "f32"}), OpError,
                                       "attribute 'shape' must be a partial shape", 0),
    "parameter-element_type-f33": (lone_parameter({"shape": "2,6", "element_type": "f33"}), OpError,
                                   "attribute 'element_type' must be an IR element type like f32. Got: 'f33'", 0),
    "parameter-element_type-empty": (lone_parameter({"shape": "2,6", "element_type": ""}), OpError,
                                     "attribute 'element_type' must be an IR element type like f32. Got: ''", 0),
    "parameter-without-data": (lone_parameter(None), IrParseError,
                               "a Parameter layer needs <data> with 'shape' and 'element_type'", 0),
    "const-element_type-abc": (lone_const(_const_data(element_type="abc")), OpError,
                               "attribute 'element_type' must be an IR element type like f32. Got: 'abc'", 0),
    "const-element_type-dynamic": (lone_const(_const_data(element_type="dynamic")), OpError,
                                   "Const element_type must be a concrete type. Got: dynamic", 0),
    "const-element_type-missing": (lone_const(_const_data(element_type=None)), OpError,
                                   "Const-1 needs the attribute 'element_type'; it is missing", 0),
    "const-without-data": (lone_const(None), OpError, "Const-1 needs the attribute 'element_type'; it is missing", 0),
    "const-shape-missing": (lone_const(_const_data(shape=None)), OpError,
                            "Const-1 needs the attribute 'shape'; it is missing", 0),
    "const-shape-abc": (lone_const(_const_data(shape="abc")), OpError,
                        "attribute 'shape' must be an integer. Got: 'abc'", 0),
    "const-shape-1.5": (lone_const(_const_data(shape="1.5")), OpError,
                        "attribute 'shape' must be an integer. Got: '1.5'", 0),
    "const-shape-dynamic": (lone_const(_const_data(shape="?")), OpError,
                            "attribute 'shape' must be an integer. Got: '?'", 0),
    "const-shape-interval": (lone_const(_const_data(shape="1..2")), OpError,
                             "attribute 'shape' must be an integer. Got: '1..2'", 0),
    "const-shape-negative": (lone_const(_const_data(shape="2,-1")), OpError,
                             "Const shape dims must be >= 0. Got: [2, -1]", 0),
    "const-offset-abc": (lone_const(_const_data(offset="abc")), IrParseError,
                         "Const attribute 'offset' must be a non-negative integer. Got: 'abc'", 0),
    "const-offset-8.0": (lone_const(_const_data(offset="8.0")), IrParseError,
                         "Const attribute 'offset' must be a non-negative integer. Got: '8.0'", 0),
    "const-offset-missing": (lone_const(_const_data(offset=None)), IrParseError,
                             "Const needs the attribute 'offset'; it is missing", 0),
    "const-size-x": (lone_const(_const_data(size="x")), IrParseError,
                     "Const attribute 'size' must be a non-negative integer. Got: 'x'", 0),
    "const-size-missing": (lone_const(_const_data(size=None)), IrParseError,
                           "Const needs the attribute 'size'; it is missing", 0),
    "const-string-count-wrong": (lone_const(_const_data(element_type="string", shape="2"), b"\x05" + bytes(7)),
                                 WeightsError, "string Const declares 5 strings but shape [2] has 2 elements", 0),
}


def _layer_line(text: str, layer_id: int) -> int:
    return line_of(text, f'<layer id="{layer_id}"')


@pytest.mark.parametrize("case", list(READ_ERRORS))
def test_invalid_attributes_are_refused_while_reading(case, write_ir, capsys):
    (text, weights), kind, message, layer_id = READ_ERRORS[case]
    files = write_ir(text, weights)
    line = _layer_line(text, layer_id)
    expect_error(lambda: ir.read_model(files.xml), kind, message, file=files.xml, line=line, layer_id=layer_id)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    assert f"{files.xml}:{line}: error:" in outcome.out
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_FAILURE, message)


# Read, then refused by shape inference: (model, message, layer id)
INFERENCE_ERRORS = {
    "split-not-divisible": (split("4", outputs=4),
                            "Dimension of data input shape along 'axis': 6 must be evenly divisible by 'num_splits' "
                            "attribute value: 4", 2),
    "split-more-parts-than-the-dim": (split("12", outputs=12), "must be evenly divisible by 'num_splits' attribute "
                                      "value: 12", 2),
    # 2**31 - 1 parts on dynamic dims: refused from the port count, before a list of 2**31 types is built
    "split-num_splits-huge": (split("2147483647", shape=(2, -1)),
                              "Split-1 produces 2147483647 outputs here but the layer declares 2", 2),
    "split-fewer-output-ports": (split("3", outputs=2), "Split-1 produces 3 outputs here but the layer declares 2", 2),
    "split-axis-too-large": (split(axis=2), "Axis 2 out of the tensor rank range [-2, 1].", 2),
    "split-axis-too-small": (split(axis=-3), "Axis -3 out of the tensor rank range [-2, 1].", 2),
    "split-axis-not-scalar": (split(axis=[1], axis_shape=(1,)), "'axis' input must be a scalar. Got: [1]", 2),
    "split-axis-float": (split(axis=1.0, axis_type="f32"), "Element type of 'axis' input must be integer. Got: f32", 2),
    "split-scalar-data": (split(shape=()), "Split 'data' input must have rank >= 1. Got a scalar", 2),
    "variadic-split-sum": (variadic_split([2, 3]),
                           "Total length of splits: 5 must match the length of the chosen axis: 6", 3),
    "variadic-split-two-minus-ones": (variadic_split([-1, -1]),
                                      "Cannot infer split with multiple -1 values at 0 and 1", 3),
    "variadic-split-length-below-minus-one": (variadic_split([-2, 8]),
                                              "Invalid value -2 in split lengths input. Should be >= -1.", 3),
    "variadic-split-minus-one-resolves-negative": (variadic_split([7, -1]),
                                                   "split_lengths [7, -1] leave -1 for the -1 entry", 3),
    "variadic-split-lengths-2d": (variadic_split([[2, 4]], outputs=2),
                                  "Split lengths should be a 1-D tensor. Got 2 instead.", 3),
    "variadic-split-lengths-scalar": (variadic_split(6, outputs=1),
                                      "Split lengths should be a 1-D tensor. Got 0 instead.", 3),
    "variadic-split-axis-of-two": (variadic_split([2, 4], axis=[1, 1], axis_shape=(2,)),
                                   "Axis should be a scalar or of shape [1]. Got [2] instead.", 3),
    "variadic-split-axis-out-of-range": (variadic_split([2, 4], axis=5), "Axis 5 out of the tensor rank range", 3),
    "variadic-split-output-count": (variadic_split([2, 4], outputs=3),
                                    "VariadicSplit-1 produces 2 outputs here but the layer declares 3", 3),
    "variadic-split-nan-lengths": (variadic_split([np.nan, 3], lengths_type="f32"),
                                   "'split_lengths' input must hold finite numbers. Got: [nan, 3.0]", 3),
    "variadic-split-huge-lengths": (variadic_split([10**18, -(10**18) + 6]),
                                    "Invalid value -999999999999999994 in split lengths input", 3),
    "variadic-split-scalar-data": (variadic_split([1], shape=()),
                                   "VariadicSplit 'data' input must have rank >= 1. Got a scalar", 3),
    "variadic-split-a-million-lengths": (variadic_split(np.ones(10**6, np.int64), shape=(2, 10**6), outputs=1),
                                         "VariadicSplit-1 produces 1000000 outputs here but the layer declares 1", 3),
    "concat-axis-too-large": (concat("2"), "Axis 2 out of the tensor rank range [-2, 1].", 2),
    "concat-axis-too-small": (concat("-3"), "Axis -3 out of the tensor rank range [-2, 1].", 2),
    "concat-ranks-differ": (concat(shapes=((2, 3), (2, 3, 1))), "Argument shapes are inconsistent", 2),
    "concat-dims-differ": (concat(shapes=((2, 3), (3, 3))),
                           "must have equal dimension everywhere except on the concatenation axis (axis 1)", 2),
    "concat-types-differ": (concat(types=("f32", "i32")), "Argument element types are inconsistent.", 2),
    "concat-scalars": (concat("0", shapes=((), ())), "Concat inputs must have rank >= 1. Got a scalar at input 0", 2),
}


@pytest.mark.parametrize("case", list(INFERENCE_ERRORS))
def test_op_rules_are_refused_by_shape_inference_at_the_layer(case, write_ir, capsys):
    (text, weights), message, layer_id = INFERENCE_ERRORS[case]
    files = write_ir(text, weights)
    line = _layer_line(text, layer_id)
    model = ir.read_model(files.xml)
    errors = [d for d in ir.validate(model) if d.is_error]
    assert [(d.code, d.location.line, d.location.layer_id) for d in errors] == [("op", line, layer_id)], errors
    assert message in errors[0].message
    expect_error(lambda: ir.infer_shapes(model), ShapeInferenceError, message, file=files.xml, line=line,
                 layer_id=layer_id)
    expect_error(lambda: ir.Interpreter(model), ShapeInferenceError, message, file=files.xml, line=line,
                 layer_id=layer_id)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    assert f"{files.xml}:{line}: error: [op]" in outcome.out
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_FAILURE, message)
    assert not (files.directory / "copy.xml").exists()


def test_concat_without_inputs_is_a_graph_error(write_ir, capsys):
    text, _ = concat("0", shapes=(), types=())
    files = write_ir(text)
    model = ir.read_model(files.xml)
    message = "Concat-1 takes at least 1 inputs; the layer has 0"
    expect_error(lambda: ir.Interpreter(model), GraphError, message, file=files.xml, line=_layer_line(text, 0),
                 layer_id=0)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)


def _fed_axis_model() -> str:
    """x -> Split(axis fed by a Parameter) and VariadicSplit(axis, lengths fed) -> Results."""
    return net(
        [parameter(0, shape=(2, 6)), parameter(1, "axis", (), "i64", "I64"),
         parameter(2, "lengths", (2,), "i64", "I64"),
         layer(3, "split", "Split", data={"num_splits": "2"}, inputs=[port(0, (2, 6)), port(1, (), "I64")],
               outputs=[port(2), port(3)]),
         layer(4, "vs", "VariadicSplit", inputs=[port(0, (2, 6)), port(1, (), "I64"), port(2, (2,), "I64")],
               outputs=[port(3), port(4)]),
         result(5, "r0"), result(6, "r1"), result(7, "r2"), result(8, "r3")],
        [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(0, 0, 4, 0), edge(1, 0, 4, 1), edge(2, 0, 4, 2),
         edge(3, 2, 5, 0), edge(3, 3, 6, 0), edge(4, 3, 7, 0), edge(4, 4, 8, 0)],
    )


@pytest.mark.parametrize(
    ("axis", "lengths", "message", "layer_id"),
    [
        (5, [3, 3], "Axis 5 out of the tensor rank range [-2, 1].", 3),
        (-3, [3, 3], "Axis -3 out of the tensor rank range [-2, 1].", 3),
        (1, [7, -1], "split_lengths [7, -1] leave -1 for the -1 entry", 4),
        (1, [-1, -1], "Cannot infer split with multiple -1 values at 0 and 1", 4),
        (1, [2, 2], "Total length of splits: 4 must match the length of the chosen axis: 6", 4),
    ],
)
def test_op_rules_on_fed_values_fail_at_run_time_at_the_layer(axis, lengths, message, layer_id, write_ir, capsys):
    text = _fed_axis_model()
    files = write_ir(text)
    model = ir.read_model(files.xml)
    assert [d for d in ir.validate(model) if d.is_error] == []
    feeds = {"x": np.zeros((2, 6), np.float32), "axis": np.int64(axis), "lengths": np.asarray(lengths, np.int64)}
    expect_error(lambda: ir.Interpreter(model).run(feeds), EvaluationError, message, file=files.xml,
                 line=_layer_line(text, layer_id), layer_id=layer_id)
    inputs = save_npz(files.directory / "inputs.npz", **feeds)
    output = files.directory / "out.npz"
    expect_cli_error(ir_run.main, [files.xml, "--inputs", inputs, "--output", output], capsys, EXIT_FAILURE, message)
    assert not output.exists()
