#!/usr/bin/env python3
"""Regenerate samples/: the seed examples as IR files written by the real OpenVINO.

Each sample directory gets model.xml + model.bin (``openvino.serialize``, no fp16 compression),
inputs.npz (keyed by Parameter name, the documents' values), expected.npz (OpenVINO CPU outputs
with INFERENCE_PRECISION_HINT=f32, keyed as in DESIGN.md section 6) and nothing else. Every
expected output is cross-checked against a NumPy evaluation of the same example before anything
is written. Needs the ``test`` (or ``oracle``) extra:

    .venv/bin/python samples/make_samples.py [OUTPUT_DIR]      # default: the samples/ folder
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.oracle.ov_models import output_keys  # noqa: E402 - the oracle's DESIGN.md section 6 keys


@dataclass(frozen=True)
class Sample:
    name: str
    what: str
    build: Callable[[], tuple[ov.Model, dict[str, np.ndarray], dict[str, np.ndarray]]]
    """Returns the model, its inputs and the NumPy outputs keyed by output tensor name."""


def _name_outputs(outputs: list[ov.Output], names: list[str]) -> list[ov.Node]:
    """Give each output a tensor name and a Result of the same name."""
    results = []
    for output, name in zip(outputs, names, strict=True):
        output.get_tensor().set_names({name})
        result = ops.result(output)
        result.set_friendly_name(name)
        results.append(result)
    return results


def _parameter(name: str, value: np.ndarray) -> ov.Node:
    node = ops.parameter(list(value.shape), ov.Type.f32, name=name)
    node.output(0).get_tensor().set_names({name})
    return node


def openvino_split() -> tuple[ov.Model, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """OpenVINO Split-1 spec example: data 6x12x10x24, axis 1, num_splits 3 -> three 6x4x10x24."""
    data = np.arange(6 * 12 * 10 * 24, dtype=np.float32).reshape(6, 12, 10, 24)
    x = _parameter("data", data)
    split = ops.split(x, ops.constant(np.int64(1), name="axis"), 3, name="split")
    names = ["part0", "part1", "part2"]
    model = ov.Model(_name_outputs(list(split.outputs()), names), [x], "openvino-split-1")
    return model, {"data": data}, dict(zip(names, np.split(data, 3, axis=1), strict=True))


_DML_INPUT = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)  # the DirectML Split page's tensor


def directml_split_axis2() -> tuple[ov.Model, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """DirectML Split example 1: 1x1x6x2 on axis 2 into sizes 2, 1, 3 (VariadicSplit-1)."""
    x = _parameter("input", _DML_INPUT)
    axis = ops.constant(np.int64(2), name="axis")
    lengths = ops.constant(np.array([2, 1, 3], np.int64), name="split_lengths")
    split = ops.variadic_split(x, axis, lengths, name="split")
    names = ["output0", "output1", "output2"]
    model = ov.Model(_name_outputs(list(split.outputs()), names), [x], "directml-split-axis2")
    expected = [_DML_INPUT[:, :, 0:2], _DML_INPUT[:, :, 2:3], _DML_INPUT[:, :, 3:6]]
    return model, {"input": _DML_INPUT}, dict(zip(names, expected, strict=True))


def directml_split_axis3() -> tuple[ov.Model, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """DirectML Split example 2: 1x1x6x2 on axis 3 into two 1x1x6x1 (Split-1, num_splits 2)."""
    x = _parameter("input", _DML_INPUT)
    split = ops.split(x, ops.constant(np.int64(3), name="axis"), 2, name="split")
    names = ["output0", "output1"]
    model = ov.Model(_name_outputs(list(split.outputs()), names), [x], "directml-split-axis3")
    expected = [_DML_INPUT[..., 0:1], _DML_INPUT[..., 1:2]]
    return model, {"input": _DML_INPUT}, dict(zip(names, expected, strict=True))


def directml_join_axis3() -> tuple[ov.Model, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """DirectML Join example 1: 1x1x2x3 and 1x1x2x4 joined on axis 3 (the only possible axis)."""
    a = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    b = np.arange(7, 15, dtype=np.float32).reshape(1, 1, 2, 4)
    inputs = [_parameter("input0", a), _parameter("input1", b)]
    join = ops.concat(inputs, 3, name="join")
    model = ov.Model(_name_outputs([join.output(0)], ["output"]), inputs, "directml-join-axis3")
    return model, {"input0": a, "input1": b}, {"output": np.concatenate([a, b], axis=3)}


def directml_join_three() -> tuple[ov.Model, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """DirectML Join example 2: three 1x1x2x2 joined on axis 1, on axis 2 and on axis 3."""
    values = [np.arange(1 + 4 * i, 5 + 4 * i, dtype=np.float32).reshape(1, 1, 2, 2) for i in range(3)]
    inputs = [_parameter(f"input{i}", v) for i, v in enumerate(values)]
    names = ["axis1", "axis2", "axis3"]
    joins = [ops.concat(inputs, axis, name=f"join_axis{axis}").output(0) for axis in (1, 2, 3)]
    model = ov.Model(_name_outputs(joins, names), inputs, "directml-join-three")
    expected = {name: np.concatenate(values, axis=axis) for name, axis in zip(names, (1, 2, 3), strict=True)}
    return model, {f"input{i}": v for i, v in enumerate(values)}, expected


SAMPLES = [
    Sample("openvino-split", "OpenVINO Split-1 spec example: 6x12x10x24 into 3 along axis 1", openvino_split),
    Sample("dml-split-axis2", "DirectML Split example 1: 1x1x6x2 into 2, 1, 3 along axis 2", directml_split_axis2),
    Sample("dml-split-axis3", "DirectML Split example 2: 1x1x6x2 into 2 along axis 3", directml_split_axis3),
    Sample("dml-join-axis3", "DirectML Join example 1: 1x1x2x3 + 1x1x2x4 along axis 3", directml_join_axis3),
    Sample("dml-join-three", "DirectML Join example 2: three 1x1x2x2 along axes 1, 2 and 3", directml_join_three),
]


# ------------------------------------------------------------------------------------ writing
def write_sample(sample: Sample, directory: Path) -> None:
    """Serialize the model, run it on OpenVINO CPU, cross-check with NumPy and write the files."""
    model, inputs, numpy_outputs = sample.build()
    directory.mkdir(parents=True, exist_ok=True)
    xml_path = directory / "model.xml"
    ov.serialize(model, str(xml_path), str(directory / "model.bin"))

    core = ov.Core()
    read = core.read_model(str(xml_path))
    compiled = core.compile_model(read, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    feeds = {p.get_friendly_name(): inputs[p.get_friendly_name()] for p in read.get_parameters()}
    request.infer(feeds)
    keys = [key for _, key in output_keys(xml_path.read_text())]
    expected = {}
    for index, key in enumerate(keys):
        value = np.array(request.get_output_tensor(index).data, copy=True)
        reference = numpy_outputs[key]
        if value.dtype != reference.dtype or value.shape != reference.shape or not np.array_equal(value, reference):
            raise SystemExit(f"{sample.name}: OpenVINO and NumPy disagree on output {key!r}")
        expected[key] = value
    if len(expected) != len(numpy_outputs):
        raise SystemExit(f"{sample.name}: outputs {sorted(expected)} but NumPy has {sorted(numpy_outputs)}")
    np.savez(directory / "inputs.npz", **inputs)
    np.savez(directory / "expected.npz", **expected)
    print(f"{directory}: {sample.what}; outputs {', '.join(keys)}")


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else HERE
    for sample in SAMPLES:
        write_sample(sample, root / sample.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
