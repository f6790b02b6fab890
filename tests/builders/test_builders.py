"""The op builders: one per op version, made from its class; each infers its layer at the call that makes it."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import irgraph as ir
from irgraph.builders import namespace
from irgraph.builders.spec import spec_of
from irgraph.core.errors import GraphError, IrParseError, OpError, ShapeInferenceError
from irgraph.ops.activation.relu import Relu


@pytest.fixture
def model():
    return ir.Model("built")


def test_a_builder_adds_its_layer_with_its_attributes_and_inferred_types(model):
    a = model.parameter("a", [2, 3], np.float32)
    b = ir.ops.constant(np.ones((4, 3), np.float32), model=model)
    y = ir.opset16.mat_mul(a, b, transpose_b=True, name="scores")
    node = model.node(y.node_id)
    assert (node.name, node.type_name, node.op.transpose_a, node.op.transpose_b) == ("scores", "MatMul", False, True)
    assert str(model.output_type(y)) == "f32[2,4]"
    assert model.input_sources(node) == [a, b]
    assert node.outputs == [y]


def test_values_become_constants_python_ints_i64_floats_f32_arrays_their_dtype(model):
    x = model.parameter("x", [2], "f32")
    y = ir.ops.add(x, 1.5)
    idx = ir.ops.gather(y, [1, 0], 0)
    narrow = ir.ops.constant(np.array([1, 2], np.int32), model=model)
    sources = [model.output_type(s) for s in model.input_sources(model.node(idx.node_id))]
    assert [str(t) for t in sources] == ["f32[2]", "i64[2]", "i64[]"]
    assert str(model.output_type(model.input_sources(model.node(y.node_id))[1])) == "f32[]"
    assert str(model.output_type(narrow)) == "i32[2]"
    ir.ops.result(idx, name="out")
    np.testing.assert_array_equal(ir.run(model, {"x": np.array([1, 2], np.float32)})["out"], [3.5, 2.5])


def test_a_wrong_shape_raises_at_the_call_naming_the_rule_and_the_model_is_unchanged(model):
    a = model.parameter("a", [2, 3], np.float32)
    before = [node.id for node in model]
    with pytest.raises(ShapeInferenceError) as caught:
        ir.ops.mat_mul(a, np.ones((2, 3), np.float32))  # its Const goes too
    assert isinstance(caught.value, ir.IrError)
    assert "mat_mul: MatMul-1 refuses its inputs (f32[2,3], f32[2,3]): Incompatible MatMul matrix dimension" in str(
        caught.value)
    assert [node.id for node in model] == before and model.edges() == []


def test_a_wrong_attribute_is_an_op_error_naming_it_and_a_wrong_keyword_python_s_type_error(model):
    a = model.parameter("a", [2, 3], np.float32)
    with pytest.raises(OpError, match=r"mat_mul: attribute 'transpose_a' must be a bool\. Got: 'yes'"):
        ir.ops.mat_mul(a, a, transpose_a="yes")
    with pytest.raises(OpError, match=r"max_pool: attribute 'kernel' must be a sequence of ints\. Got: 'ab'"):
        ir.opset1.max_pool(a, kernel="ab")
    with pytest.raises(TypeError, match="transpose"):
        ir.ops.mat_mul(a, a, transpose=True)
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        ir.ops.mat_mul(a)
    assert len(model) == 1


def test_numpy_dtypes_are_taken_wherever_an_element_type_is(model):
    x = model.parameter("x", [2, 3], np.dtype("float16"))
    assert model.node(x.node_id).op.element_type is ir.ElementType.F16
    assert str(model.output_type(ir.ops.convert(x, destination_type=np.float32))) == "f32[2,3]"
    assert str(model.output_type(ir.ops.shape_of(x, output_type=np.int32))) == "i32[2]"
    assert str(model.output_type(ir.ops.top_k(x, 1, axis=1, mode="max", sort="value",
                                              index_element_type=np.int64)[1])) == "i64[2,1]"
    assert str(model.output_type(ir.ops.constant([1, 2], np.int8, model=model))) == "i8[2]"
    assert str(model.output_type(ir.ops.parameter([-1], np.bool_, name="mask", model=model))) == "boolean[?]"
    assert ir.ElementType.of("f16") is ir.ElementType.F16  # the IR name, not NumPy's float128
    assert ir.ElementType.of("i8") is ir.ElementType.I8  # the IR name, not NumPy's int64
    assert ir.ElementType.of("float64") is ir.ElementType.F64
    with pytest.raises(IrParseError, match="'float33' is not an element type"):
        ir.ElementType.of("float33")


def test_ops_with_several_outputs_return_a_tuple_and_a_result_its_node(model):
    x = model.parameter("x", [4, 6], "f32")
    parts = ir.ops.split(x, 1, num_splits=3)
    values, indices = ir.opset11.top_k(x, 2, axis=1, mode="max", sort="value")
    assert [str(model.output_type(p)) for p in parts] == ["f32[4,2]"] * 3
    assert (str(model.output_type(values)), str(model.output_type(indices))) == ("f32[4,2]", "i32[4,2]")
    variable = ir.ops.read_value(x, variable_id="v", variable_shape=[4, 6], variable_type="f32")
    assigned = ir.ops.assign(ir.ops.relu(variable), variable_id="v")  # a sink, with OpenVINO's one output
    assert model.node(assigned.node_id).op.traits.is_sink and str(model.output_type(assigned)) == "f32[4,6]"
    result = ir.ops.result(parts[0], name="first")
    assert isinstance(result, ir.Node) and result.name == "first"


def test_the_builder_finds_its_model_from_the_input_ports_or_model_keyword(model):
    other = ir.Model("other")
    x, y = model.parameter("x", [2], "f32"), other.parameter("y", [2], "f32")
    with pytest.raises(GraphError, match="add: the inputs belong to 2 different models"):
        ir.ops.add(x, y)
    with pytest.raises(GraphError, match="range: no input says which model to build in; pass model=MODEL"):
        ir.ops.range(0, 4, 1, output_type="i64")
    assert str(model.output_type(ir.ops.range(0, 4, 1, output_type=np.int64, model=model))) == "i64[4]"
    plain = ir.OutputPort(x.node_id, 0)  # a handle made by hand, as node.outputs gives
    assert str(model.output_type(ir.ops.relu(plain, model=model))) == "f32[2]"
    # The model keeps plain handles: a port's model takes no part in equality or hashing.
    assert plain == x and hash(plain) == hash(x)
    assert all(source.model is None for source, _ in model.edges())


def test_a_shape_sub_graph_built_layer_by_layer_folds_as_a_whole_walk(model):
    x = model.parameter("x", [2, 3, 4], "f32")
    batch = ir.ops.gather(ir.ops.shape_of(x), [0], 0)
    target = ir.ops.concat([batch, np.array([-1], np.int64)], axis=0)
    flat = ir.ops.reshape(x, target, special_zero=False)
    assert str(model.output_type(flat)) == "f32[2,12]"
    ir.ops.result(flat, name="flat")
    built = [[output.type for output in node.outputs] for node in model]
    ir.infer_shapes(model)
    assert [[output.type for output in node.outputs] for node in model] == built
    assert ir.validate(model) == []


def test_layers_added_without_a_builder_are_inferred_before_a_builder_reads_them(model):
    from irgraph.ops.activation.relu import Relu

    x = model.parameter("x", [3], "f32")
    node = model.add_node(Relu(), "by_hand", [x])
    assert str(model.output_type(ir.ops.exp(node.outputs[0], model=model))) == "f32[3]"


def test_namespaces_hold_each_opset_s_versions_and_ir_ops_the_newest():
    assert ir.opset8.max_pool.__doc__.startswith("Add a MaxPool-8 layer")
    assert ir.ops.max_pool.__doc__.startswith("Add a MaxPool-14 layer")
    assert ir.ops.MaxPool is ir.ops.lookup("MaxPool", "opset14") and ir.ops.Relu.type_name == "ReLU"
    assert ir.ops.softmax is ir.opset16.softmax and "relu" in dir(ir.opset16)
    with pytest.raises(AttributeError, match=r"opset1 has no builder 'gelu' \(opsets 2-16 have it\)"):
        ir.opset1.gelu  # noqa: B018
    with pytest.raises(AttributeError, match=r"irgraph.ops has no builder 'rleu' \(did you mean 'relu'\?\)"):
        ir.ops.rleu  # noqa: B018
    with pytest.raises(AttributeError, match="If, Loop and TensorIterator hold bodies"):
        ir.ops.loop  # noqa: B018
    with pytest.raises(AttributeError, match="no op class of that type"):
        ir.ops.NoSuchOp  # noqa: B018


def test_every_opset_s_every_builder_is_made_with_the_op_s_signature_and_docstring():
    made = 0
    for opset in [*range(1, 17), namespace.LATEST]:
        for name, entry in namespace.entries(opset).items():
            builder = namespace.builder(opset, name)
            if entry.type_name in namespace.HAND_WRITTEN:
                continue
            op_class = namespace.op_class(entry)
            parameters = inspect.signature(builder).parameters
            attributes = [field.name for field in op_class.attribute_fields()]
            assert list(parameters)[-2 - len(attributes):] == [*attributes, "name", "model"], entry.title
            assert builder.__doc__.startswith(f"Add a {op_class.title()} layer: "), entry.title
            made += 1
    assert made > 2000  # 16 opsets of about 150 builders, and ir.ops


def test_ir_ops_convolution_builds_though_the_name_is_also_a_category_package(model):
    import irgraph.ops.convolution.convolution  # noqa: F401 - binds irgraph.ops.convolution to the package

    x = model.parameter("x", [1, 3, 5, 5], "f32")
    y = ir.ops.convolution(x, np.ones((2, 3, 3, 3), np.float32), strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                           dilations=[1, 1])
    assert str(model.output_type(y)) == "f32[1,2,3,3]" and model.node(y.node_id).type_name == "Convolution"
    # No other op category is named like a builder, or its package would hide the builder in ir.ops.
    assert set(ir.ops.CATEGORIES) & set(namespace.entries(namespace.LATEST)) == {"convolution"}


def test_a_builder_returns_a_tuple_only_where_the_op_has_several_outputs_or_its_attributes_say_how_many():
    from irgraph.builders.spec import Returns, spec_of

    returns = {title: spec_of(ir.ops.lookup(*title.split("-")[:1], f"opset{title.split('-')[1]}")).returns
               for title in ("RNNCell-1", "GRUCell-3", "LSTMCell-4", "Split-1", "TopK-11", "NonMaxSuppression-1",
                             "NonMaxSuppression-9", "Relu-1")}
    assert returns == {"RNNCell-1": Returns.PORT, "GRUCell-3": Returns.PORT, "LSTMCell-4": Returns.PORTS,
                       "Split-1": Returns.PORTS, "TopK-11": Returns.PORTS, "NonMaxSuppression-1": Returns.PORT,
                       "NonMaxSuppression-9": Returns.PORTS, "Relu-1": Returns.PORT}


def test_a_builder_loads_its_op_module_only_and_import_irgraph_none_of_them():
    import subprocess
    import sys

    script = ("import sys, irgraph as ir\nbefore = set(sys.modules)\nir.opset16.relu\n"
              "print(' '.join(sorted(m for m in set(sys.modules) - before if m.startswith('irgraph.ops.'))))\n"
              "print('irgraph.builders' in before)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded, builders_before = done.stdout.split("\n")[:2]
    assert "irgraph.ops.activation.relu" in loaded.split() and "irgraph.ops.pooling.max_pool" not in loaded
    assert builders_before == "False"


def test_values_folded_from_a_removed_layer_are_not_read_for_its_id_s_new_layer(model):
    from irgraph.ops import Const

    x = model.parameter("x", [30], "f32")
    shape = ir.ops.shape_of(x)  # its value [30] is known while building
    assert str(model.output_type(ir.ops.reshape(x, shape, special_zero=False))) == "f32[30]"
    model.remove_node(model.consumers(shape)[0].node_id)
    model.remove_node(shape.node_id)
    model.add_node(Const.of(np.array([6, 5], np.int64)), "target", node_id=shape.node_id)
    target = ir.OutputPort(shape.node_id, 0, model)
    assert str(model.output_type(ir.ops.reshape(x, target, special_zero=False))) == "f32[6,5]"


def test_each_opset_module_holds_exactly_its_opsets_builders():
    """ir.opsetN lists the names of opset N, each the builder of its version there (not the next opset's)."""
    for opset in range(1, 17):
        module = getattr(ir, f"opset{opset}")
        assert sorted(dir(module)) == sorted(namespace.entries(opset)), opset
    assert ir.opset7.gelu.__doc__.startswith("Add a Gelu-7 layer") and "gather" in dir(ir.opset7)
    assert ir.opset7.gather.__doc__.startswith("Add a Gather-7 layer")


def test_a_builders_docstring_gives_its_op_classs_summary():
    summary = inspect.getdoc(Relu).split("\n\n")[0]
    assert summary == "std::max(x, 0): x < 0 ? 0 : x (NaN stays NaN). Spec: Relu-1."
    assert ir.opset1.relu.__doc__.startswith(f"Add a ReLU-1 layer: {summary}\n")
    assert spec_of(Relu).summary == summary  # the typed stubs' docstring


def test_a_builder_s_docstring_is_its_op_s_then_its_inputs_and_attributes_with_their_defaults():
    # docstring() itself, not the builders' __doc__: a namespace makes its builders once, in whichever test is first
    from irgraph.builders.builder import docstring
    from irgraph.ops.activation.elu import Elu
    from irgraph.ops.registry import lookup

    assert docstring(spec_of(Relu)) == ir.opset16.relu.__doc__ == (
        "Add a ReLU-1 layer: std::max(x, 0): x < 0 ? 0 : x (NaN stays NaN). Spec: Relu-1.\n\n"
        "Inputs (OutputPorts or values made Consts): data.\nAttributes (keywords): none.\n"
        "Returns its OutputPort; the output types are inferred at once.")
    assert "\nAttributes (keywords): alpha.\n" in docstring(spec_of(Elu))
    assert ("\nAttributes (keywords): kernel=(), strides=(), pads_begin=(), pads_end=(), exclude_pad=False, "
            "auto_pad='explicit', rounding_type='floor', dilations=().\n") in docstring(spec_of(lookup("AvgPool",
                                                                                                      "opset16")))


def test_trailing_optional_inputs_may_be_left_out_and_ints_are_taken_for_floats(model):
    x = model.parameter("x", [2, 1, 3])
    assert str(model.output_type(ir.opset16.squeeze(x))) == "f32[2,3]"  # no axes: every 1 goes
    alpha = model.node(ir.opset16.elu(x, alpha=1).node_id).op.alpha
    assert type(alpha) is float and alpha == 1.0


def test_an_attribute_the_op_refuses_is_named_with_the_builder(model):
    x = model.parameter("x", [2, 1, 3])
    with pytest.raises(OpError, match=r"^split: Attribute 'num_splits' must be greater than zero\. Got: 0$"):
        ir.opset16.split(x, 0, num_splits=0)


def test_what_a_builder_returns_follows_the_op_s_output_count():
    """Ops with an output count of their own: a cell's one state, NMS-1/3/4's one output, Result's none. (The specs
    are read afresh: spec_of keeps the ones a namespace read in whichever test came first.)"""
    from irgraph.builders.spec import Returns, _read_spec
    from irgraph.ops.infrastructure.result import Result
    from irgraph.ops.registry import lookup

    returned = {name: _read_spec(lookup(name, "opset" + version)).returns for name, version in (
        ("GRUCell", "3"), ("RNNCell", "1"), ("NonMaxSuppression", "1"), ("NonMaxSuppression", "4"), ("Split", "1"))}
    assert returned == {"GRUCell": Returns.PORT, "RNNCell": Returns.PORT, "NonMaxSuppression": Returns.PORT,
                        "Split": Returns.PORTS}
    assert _read_spec(Result).returns == Returns.NODE


def test_only_string_attributes_ending_in_type_whose_default_is_an_element_type_name_take_element_types():
    from irgraph.builders.spec import _read_spec  # afresh, as above
    from irgraph.ops.registry import lookup

    def names_element_type(type_name: str, attribute: str) -> bool:
        (found,) = [a for a in _read_spec(lookup(type_name, "opset16")).attributes if a.name == attribute]
        return found.names_element_type

    assert names_element_type("AdaptiveMaxPool", "index_element_type") is True  # 'i64'
    assert names_element_type("MaxPool", "rounding_type") is False  # 'floor'
    assert names_element_type("MulticlassNms", "sort_result_type") is False  # 'none'
