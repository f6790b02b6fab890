"""The worked examples of ../shared/seeds, built with the public API and checked against the documents."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir

DML_INPUT = np.array([[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]], np.float32)


def run_split(build):
    model = ir.Model("seed")
    x = model.parameter("x", [1, 1, 6, 2], "f32")
    for i, part in enumerate(build(model, x)):
        model.result(part, name=f"out{i}")
    outputs = ir.run(model, {"x": DML_INPUT})
    return [outputs[f"out{i}"] for i in range(len(outputs))]


def test_directml_split_example_1_axis_2_into_2_1_3():
    out0, out1, out2 = run_split(lambda m, x: m.variadic_split(x, axis=2, lengths=[2, 1, 3]))
    assert out0.shape == (1, 1, 2, 2) and out0.tolist() == [[[[1, 2], [3, 4]]]]
    assert out1.shape == (1, 1, 1, 2) and out1.tolist() == [[[[5, 6]]]]
    assert out2.shape == (1, 1, 3, 2) and out2.tolist() == [[[[7, 8], [9, 10], [11, 12]]]]


def test_directml_split_example_2_axis_3_into_two_equal_parts():
    out0, out1 = run_split(lambda m, x: m.split(x, axis=3, num_splits=2))
    assert out0.shape == (1, 1, 6, 1) and out0.ravel().tolist() == [1, 3, 5, 7, 9, 11]
    assert out1.shape == (1, 1, 6, 1) and out1.ravel().tolist() == [2, 4, 6, 8, 10, 12]
    assert out0.dtype == np.float32


def test_directml_join_example_1_axis_3():
    model = ir.Model("join1")
    a = model.parameter("a", [1, 1, 2, 3])
    b = model.parameter("b", [1, 1, 2, 4])
    model.result(model.concat([a, b], axis=3), name="joined")
    joined = ir.run(model, {"a": np.array([[[[1, 2, 3], [4, 5, 6]]]], np.float32),
                            "b": np.array([[[[7, 8, 9, 10], [11, 12, 13, 14]]]], np.float32)})["joined"]
    assert joined.shape == (1, 1, 2, 7)
    assert joined.tolist() == [[[[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]]]


JOIN2_INPUTS = [np.array([[[[1, 2], [3, 4]]]], np.float32), np.array([[[[5, 6], [7, 8]]]], np.float32),
                np.array([[[[9, 10], [11, 12]]]], np.float32)]


@pytest.mark.parametrize(
    ("axis", "shape", "expected"),
    [
        (1, (1, 3, 2, 2), [[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]]),
        (2, (1, 1, 6, 2), [[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]]),
        (3, (1, 1, 2, 6), [[[[1, 2, 5, 6, 9, 10], [3, 4, 7, 8, 11, 12]]]]),
    ],
)
def test_directml_join_example_2(axis, shape, expected):
    model = ir.Model("join2")
    inputs = [model.parameter(f"in{i}", [1, 1, 2, 2]) for i in range(3)]
    model.result(model.concat(inputs, axis=axis), name="joined")
    joined = ir.run(model, {f"in{i}": array for i, array in enumerate(JOIN2_INPUTS)})["joined"]
    assert joined.shape == shape and joined.tolist() == expected


def test_openvino_split_1_example_6x12x10x24_into_3_on_axis_1():
    model = ir.Model("split1")
    data = model.parameter("data", [6, 12, 10, 24])
    parts = model.split(data, axis=1, num_splits=3)
    for i, part in enumerate(parts):
        model.result(part, name=f"part{i}")
    ir.infer_shapes(model)
    split_node = model.node(parts[0].node_id)
    assert [str(output.type) for output in split_node.outputs] == ["f32[6,4,10,24]"] * 3
    x = np.arange(6 * 12 * 10 * 24, dtype=np.float32).reshape(6, 12, 10, 24)
    outputs = ir.run(model, {"data": x})
    for i in range(3):
        assert outputs[f"part{i}"].shape == (6, 4, 10, 24)
        np.testing.assert_array_equal(outputs[f"part{i}"], x[:, 4 * i: 4 * (i + 1)])
    assert outputs["part1"][0, 0, 0, :3].tolist() == [960.0, 961.0, 962.0]
