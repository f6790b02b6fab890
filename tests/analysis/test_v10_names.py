"""validate: an IR v10 input named as another input's tensor is refused as OpenVINO 2026.4.1's v10 reader refuses
it ("Model operation names have collisions with tensor names", tests/io/test_openvino_reads.py runs OpenVINO); the
same model as IR v11 is fine. Shape inference reuses its types while the model is unchanged."""

from __future__ import annotations

import irgraph as ir
from irgraph.analysis.shape_inference import ensure_shapes


def _model(version: int) -> ir.Model:
    m = ir.Model()
    x = m.parameter("x", [2])
    m.node(x.node_id).tensor_names[0] = ["t1"]
    y = m.parameter("t1", [2])  # a layer named as x's tensor
    m.node(y.node_id).tensor_names[0] = ["u"]
    m.result(m.concat([x, y], axis=0, name="c"), name="out")
    m.ir_version = version
    return m


def test_a_v10_input_named_as_another_inputs_tensor_is_a_collision_and_v11_is_not() -> None:
    assert [(d.code, d.message) for d in ir.validate(_model(10))] == [
        ("name-collision", "IR v10: input layer name 't1' is also the name of another input or output tensor, so "
                           "OpenVINO refuses the model (\"Model operation names have collisions with tensor names\"); "
                           "write it as IR v11")]
    assert ir.validate(_model(11)) == []


def test_ensure_shapes_keeps_the_types_of_an_unchanged_model() -> None:
    model = _model(11)
    ensure_shapes(model)
    before = [node.output_types for node in model]
    ensure_shapes(model)
    assert all(now is then for now, then in zip([node.output_types for node in model], before, strict=True))
