"""convert_onnx: the ONNX project's own Split/Concat node tests, every opset quirk, and the tools compared.

Each hand-made quirk records what onnxruntime and onnx.reference do with the same model:
``same`` (they give our arrays), ``refuses`` (they raise), ``differs`` (they return something
else, while we refuse or compute another answer) — the table is the list of decisions where the
tools disagree, checked against the real tools by the oracle tests.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import irgraph as ir
from irgraph.core.errors import ConversionError, EvaluationError, IrError
from irgraph.ops import Split, VariadicSplit
from tests.io.onnx_cases import onnx_node_cases, same

F = TensorProto.FLOAT


# ------------------------------------------------------------------------------------ builders
def make(nodes, inputs, outputs, opset, initializers=()) -> onnx.ModelProto:
    """A model of ``nodes`` importing ai.onnx ``opset``, stamped with an IR version onnxruntime loads."""
    graph = helper.make_graph(nodes, "quirk", inputs, outputs, initializer=list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = 3 if opset < 7 else min(helper.find_min_ir_version_for(proto.opset_import), 13)
    return proto


def tensor(name, shape, element_type=F):
    return helper.make_tensor_value_info(name, element_type, shape)


def outs(count, element_type=F, prefix="y"):
    return [helper.make_tensor_value_info(f"{prefix}{i}", element_type, None) for i in range(count)]


def split(count, inputs=("x",), **attributes):
    return helper.make_node("Split", list(inputs), [f"y{i}" for i in range(count)], name="split", **attributes)


def lengths_init(values, name="s", data_type=TensorProto.INT64):
    return helper.make_tensor(name, data_type, [len(values)], values)


def run_irgraph(proto, feeds, explain=None) -> dict[str, np.ndarray]:
    return ir.run(ir.convert_onnx(proto, explain=explain), feeds)


def run_tool(tool: str, proto: onnx.ModelProto, feeds) -> dict[str, np.ndarray]:
    """Outputs of onnxruntime or onnx.reference, by output name."""
    names = [o.name for o in proto.graph.output]
    if tool == "onnxruntime":
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4
        session = onnxruntime.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return dict(zip(names, session.run(None, dict(feeds)), strict=True))
    from onnx.reference import ReferenceEvaluator

    return dict(zip(names, ReferenceEvaluator(proto).run(None, dict(feeds)), strict=True))


X6 = np.arange(6, dtype=np.float32)
X7 = np.arange(7, dtype=np.float32)
X28 = np.arange(16, dtype=np.float32).reshape(2, 8)
A22 = np.arange(4, dtype=np.float32).reshape(2, 2)
B23 = np.arange(6, dtype=np.float32).reshape(2, 3) + 10


# ------------------------------------------------------------------------------------ the ONNX project's node tests
NODE_CASES = onnx_node_cases()
KNOWN_NODE_CASES = {
    "test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0",
    "test_concat_3d_axis_1", "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1",
    "test_concat_3d_axis_negative_2", "test_concat_3d_axis_negative_3", "test_split_1d_uneven_split_opset18",
    "test_split_2d_uneven_split_opset18", "test_split_equal_parts_1d_opset13", "test_split_equal_parts_1d_opset18",
    "test_split_equal_parts_2d", "test_split_equal_parts_2d_opset13", "test_split_equal_parts_default_axis_opset13",
    "test_split_equal_parts_default_axis_opset18", "test_split_variable_parts_1d_opset13",
    "test_split_variable_parts_1d_opset18", "test_split_variable_parts_2d_opset13",
    "test_split_variable_parts_2d_opset18", "test_split_variable_parts_default_axis_opset13",
    "test_split_variable_parts_default_axis_opset18", "test_split_zero_size_splits_opset13",
    "test_split_zero_size_splits_opset18",
}


def node_feeds(case) -> dict[str, np.ndarray]:
    inputs, _ = case.data_sets[0]
    return {value.name: np.asarray(array) for value, array in zip(case.model.graph.input, inputs, strict=True)}


def test_every_known_onnx_node_case_is_collected():
    assert KNOWN_NODE_CASES <= {c.name for c in NODE_CASES}


@pytest.mark.parametrize("case", NODE_CASES, ids=lambda c: c.name)
def test_onnx_node_case_gives_the_expected_outputs_exactly(case):
    _, expected = case.data_sets[0]
    got = run_irgraph(case.model, node_feeds(case))
    assert list(got) == [o.name for o in case.model.graph.output]
    for value, array in zip(case.model.graph.output, expected, strict=True):
        assert same(got[value.name], array), value.name


@pytest.mark.oracle
@pytest.mark.parametrize("tool", ["onnxruntime", "reference"])
@pytest.mark.parametrize("case", NODE_CASES, ids=lambda c: c.name)
def test_onnx_node_case_matches_the_tools_exactly(case, tool):
    feeds = node_feeds(case)
    ours, theirs = run_irgraph(case.model, feeds), run_tool(tool, case.model, feeds)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert same(ours[name], theirs[name]), name


# ------------------------------------------------------------------------------------ opset quirks
@dataclass
class Quirk:
    """A hand-made model: what irgraph does with it, and what onnxruntime and onnx.reference do."""

    id: str
    proto: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    ort: str
    ref: str
    lengths: list[int] | None = None
    axis: int = 0
    concat_axis: int | None = None
    error: str | None = None
    run_error: str | None = None
    explain: str | None = None
    ir_op: type | None = None

    def expected(self) -> dict[str, np.ndarray]:
        arrays = list(self.feeds.values())
        if self.concat_axis is not None:
            return {"y0": np.concatenate(arrays, axis=self.concat_axis)}
        cuts = np.cumsum(self.lengths)[:-1]
        return {f"y{i}": part for i, part in enumerate(np.split(arrays[0], cuts, axis=self.axis))}


def s1(name, values):
    return helper.make_tensor(name, F, [len(values)], values)


QUIRKS = [
    # Split-1: attribute, optional second input (honoured; OpenVINO ignores it), no default axis.
    Quirk("split1-attribute", make([split(2, axis=0, split=[2, 4])], [tensor("x", [6])], outs(2), 1),
          {"x": X6}, ort="refuses", ref="refuses", lengths=[2, 4], ir_op=VariadicSplit),
    Quirk("split1-second-input", make([split(2, ("x", "s"), axis=0)], [tensor("x", [6])], outs(2), 1,
                                      [s1("s", [1, 5])]),
          {"x": X6}, ort="refuses", ref="refuses", lengths=[1, 5], explain="(honoured; OpenVINO ignores it)"),
    Quirk("split1-second-input-constant-node",
          make([helper.make_node("Constant", [], ["s"], value=s1("v", [5, 1])), split(2, ("x", "s"), axis=0)],
               [tensor("x", [6])], outs(2), 1),
          {"x": X6}, ort="refuses", ref="refuses", lengths=[5, 1]),
    Quirk("split1-both-agree", make([split(2, ("x", "s"), axis=0, split=[2, 4])], [tensor("x", [6])], outs(2), 1,
                                    [s1("s", [2, 4])]),
          {"x": X6}, ort="refuses", ref="refuses", lengths=[2, 4]),
    Quirk("split1-both-disagree", make([split(2, ("x", "s"), axis=0, split=[2, 4])], [tensor("x", [6])], outs(2), 1,
                                       [s1("s", [1, 5])]),
          {"x": X6}, ort="refuses", ref="refuses", error=r"'split' attribute \[2, 4\] and the second input 's'"),
    Quirk("split1-lengths-from-graph-input",
          make([split(2, ("x", "s"), axis=0)], [tensor("x", [6]), tensor("s", [2])], outs(2), 1),
          {"x": X6, "s": np.array([1, 5], np.float32)}, ort="refuses", ref="refuses",
          error="must be an initializer or a Constant"),
    Quirk("split1-fractional-lengths", make([split(2, ("x", "s"), axis=0)], [tensor("x", [6])], outs(2), 1,
                                            [s1("s", [1.5, 4.5])]),
          {"x": X6}, ort="refuses", ref="refuses", error=r"whole numbers; got \[1.5, 4.5\]"),
    Quirk("split1-no-axis", make([split(2)], [tensor("x", [2, 8])], outs(2), 1),
          {"x": X28}, ort="refuses", ref="refuses", lengths=[1, 1], explain="Split-1's spec gives no default",
          ir_op=Split),
    # Split-2 and Split-11: the attribute; negative axes arrive in 11 but the tools take them in 2.
    Quirk("split2-attribute-default-axis", make([split(2, split=[4, 2])], [tensor("x", [6])], outs(2), 2),
          {"x": X6}, ort="same", ref="same", lengths=[4, 2]),
    Quirk("split2-negative-axis", make([split(2, axis=-1, split=[3, 5])], [tensor("x", [2, 8])], outs(2), 2),
          {"x": X28}, ort="same", ref="same", lengths=[3, 5], axis=1, explain="negative axis -1 counts from the end"),
    Quirk("split2-equal-uneven", make([split(2)], [tensor("x", [7])], outs(2), 2),
          {"x": X7}, ort="refuses", ref="differs", error="must divide by 2"),
    Quirk("split11-zero-length", make([split(2, split=[0, 6])], [tensor("x", [6])], outs(2), 11),
          {"x": X6}, ort="same", ref="same", lengths=[0, 6]),
    Quirk("split11-equal-negative-axis", make([split(4, axis=-1)], [tensor("x", [2, 8])], outs(4), 11),
          {"x": X28}, ort="same", ref="same", lengths=[2, 2, 2, 2], axis=1, ir_op=Split),
    # Split-13: lengths as an input (constant or not); the old attribute is refused.
    Quirk("split13-initializer", make([split(3, ("x", "s"))], [tensor("x", [6])], outs(3), 13,
                                      [lengths_init([1, 2, 3])]),
          {"x": X6}, ort="same", ref="same", lengths=[1, 2, 3], ir_op=VariadicSplit),
    Quirk("split13-constant-node",
          make([helper.make_node("Constant", [], ["s"], value_ints=[2, 4]), split(2, ("x", "s"))],
               [tensor("x", [6])], outs(2), 13),
          {"x": X6}, ort="same", ref="same", lengths=[2, 4]),
    Quirk("split13-equal-lengths-static", make([split(2, ("x", "s"))], [tensor("x", [6])], outs(2), 13,
                                               [lengths_init([3, 3])]),
          {"x": X6}, ort="same", ref="same", lengths=[3, 3], ir_op=Split, explain="equal lengths [3, 3]"),
    Quirk("split13-equal-lengths-dynamic", make([split(2, ("x", "s"))], [tensor("x", ["N"])], outs(2), 13,
                                                [lengths_init([3, 3])]),
          {"x": X6}, ort="same", ref="same", lengths=[3, 3], ir_op=VariadicSplit),
    Quirk("split13-graph-input",
          make([split(2, ("x", "s"))], [tensor("x", [6]), tensor("s", ["k"], TensorProto.INT64)], outs(2), 13),
          {"x": X6, "s": np.array([4, 2], np.int64)}, ort="same", ref="same", lengths=[4, 2], ir_op=VariadicSplit,
          explain="Parameter shape [?] -> [2]"),
    Quirk("split13-attribute", make([split(2, split=[3, 3])], [tensor("x", [6])], outs(2), 13),
          {"x": X6}, ort="refuses", ref="differs",
          error="has a 'split' attribute, but from opset 13"),
    Quirk("split13-uneven", make([split(3)], [tensor("x", [7])], outs(3), 13),
          {"x": X7}, ort="refuses", ref="differs", error=r"axis 0 of size 7 must divide by 3"),
    Quirk("split13-negative-length", make([split(2, ("x", "s"))], [tensor("x", [6])], outs(2), 13,
                                          [lengths_init([2, -1])]),
          {"x": X6}, ort="refuses", ref="differs", error=r"lengths must be >= 0 .* got \[2, -1\]"),
    Quirk("split13-sum-mismatch", make([split(2, ("x", "s"))], [tensor("x", [7])], outs(2), 13,
                                       [lengths_init([3, 3])]),
          {"x": X7}, ort="refuses", ref="differs", error=r"sum to 6, but the axis dim is 7"),
    Quirk("split13-count-mismatch", make([split(3, ("x", "s"))], [tensor("x", [6])], outs(3), 13,
                                         [lengths_init([2, 4])]),
          {"x": X6}, ort="refuses", ref="refuses", error="has 3 outputs but 'split' lists 2 lengths"),
    # Split-18: num_outputs with ceil-sized chunks; the empty/negative last chunk is refused.
    Quirk("split18-7-into-4", make([split(4, num_outputs=4)], [tensor("x", [7])], outs(4), 18),
          {"x": X7}, ort="same", ref="same", lengths=[2, 2, 2, 1], ir_op=VariadicSplit,
          explain="lengths [2, 2, 2, 1] (ceil-sized chunks of 2"),
    Quirk("split18-8-into-3-axis-1", make([split(3, axis=1, num_outputs=3)], [tensor("x", [2, 8])], outs(3), 18),
          {"x": X28}, ort="same", ref="same", lengths=[3, 3, 2], axis=1),
    Quirk("split18-5-into-4", make([split(4, num_outputs=4)], [tensor("x", [5])], outs(4), 18),
          {"x": X7[:5]}, ort="refuses", ref="differs", error="leave -1 for the last output"),
    Quirk("split18-6-into-4", make([split(4, num_outputs=4)], [tensor("x", [6])], outs(4), 18),
          {"x": X6}, ort="refuses", ref="differs", error="leave 0 for the last output, and an output cannot be empty"),
    Quirk("split18-0-into-3", make([split(3, num_outputs=3)], [tensor("x", [0])], outs(3), 18),
          {"x": X6[:0]}, ort="refuses", ref="same", lengths=[0, 0, 0], ir_op=Split),
    Quirk("split18-neither", make([split(3)], [tensor("x", [6])], outs(3), 18),
          {"x": X6}, ort="refuses", ref="same", lengths=[2, 2, 2], explain="neither 'split' nor 'num_outputs'"),
    Quirk("split18-neither-uneven", make([split(3)], [tensor("x", [7])], outs(3), 18),
          {"x": X7}, ort="refuses", ref="differs", error="must divide by 3"),
    Quirk("split18-both", make([split(2, ("x", "s"), num_outputs=2)], [tensor("x", [6])], outs(2), 18,
                               [lengths_init([2, 4])]),
          {"x": X6}, ort="refuses", ref="differs", error="either the 'split' input or the 'num_outputs' attribute"),
    # onnxruntime cuts into the number of outputs, onnx.reference into num_outputs (dropping the rest).
    Quirk("split18-num-outputs-mismatch", make([split(2, num_outputs=3)], [tensor("x", [6])], outs(2), 18),
          {"x": X6}, ort="differs", ref="differs", error=r"equal the number of outputs \(2\); got 3"),
    Quirk("split18-dynamic-divisible", make([split(3, num_outputs=3)], [tensor("x", ["N"])], outs(3), 18),
          {"x": X6}, ort="same", ref="same", lengths=[2, 2, 2], ir_op=Split, explain="must divide by 3 at run time"),
    Quirk("split18-dynamic-uneven", make([split(4, num_outputs=4)], [tensor("x", ["N"])], outs(4), 18),
          {"x": X7}, ort="differs", ref="differs", run_error="must be evenly divisible by 'num_splits'"),
    Quirk("split18-axis-out-of-range", make([split(2, axis=2, num_outputs=2)], [tensor("x", [2, 8])], outs(2), 18),
          {"x": X28}, ort="refuses", ref="refuses", error=r"axis 2 is out of range \[-2, 1\]"),
    # Concat: Concat-1's default axis is 1 (its spec); 4 and later require the attribute.
    Quirk("concat1-default-axis", make([helper.make_node("Concat", ["a", "b"], ["y0"])],
                                       [tensor("a", [2, 2]), tensor("b", [2, 3])], outs(1), 1),
          {"a": A22, "b": B23}, ort="refuses", ref="refuses", concat_axis=1,
          explain="axis 1, the Concat-1 spec's default"),
    Quirk("concat1-axis-0", make([helper.make_node("Concat", ["a", "b"], ["y0"], axis=0)],
                                 [tensor("a", [2, 2]), tensor("b", [2, 2])], outs(1), 1),
          {"a": A22, "b": A22 + 1}, ort="refuses", ref="same", concat_axis=0),
    Quirk("concat4-missing-axis", make([helper.make_node("Concat", ["a", "b"], ["y0"])],
                                       [tensor("a", [2, 2]), tensor("b", [2, 3])], outs(1), 4),
          {"a": A22, "b": B23}, ort="refuses", ref="refuses", error="Concat-4 requires the 'axis' attribute"),
    Quirk("concat4-negative-axis", make([helper.make_node("Concat", ["a", "b"], ["y0"], axis=-1)],
                                        [tensor("a", [2, 2]), tensor("b", [2, 3])], outs(1), 4),
          {"a": A22, "b": B23}, ort="same", ref="same", concat_axis=1, explain="negative axis -1"),
    Quirk("concat11-negative-axis", make([helper.make_node("Concat", ["a", "b"], ["y0"], axis=-2)],
                                         [tensor("a", [2, 2]), tensor("b", [2, 2])], outs(1), 11),
          {"a": A22, "b": A22 + 1}, ort="same", ref="same", concat_axis=0),
    Quirk("concat13-zero-size-and-dynamic", make([helper.make_node("Concat", ["a", "b"], ["y0"], axis=0)],
                                                 [tensor("a", [0, "W"]), tensor("b", ["N", "W"])], outs(1), 13),
          {"a": np.zeros((0, 3), np.float32), "b": B23}, ort="same", ref="same", concat_axis=0),
    Quirk("concat13-shape-mismatch", make([helper.make_node("Concat", ["a", "b"], ["y0"], axis=1)],
                                          [tensor("a", [2, 2]), tensor("b", [3, 3])], outs(1), 13),
          {"a": A22, "b": np.zeros((3, 3), np.float32)}, ort="refuses", ref="refuses",
          error=r"Argument shapes are inconsistent.* Inputs: 'a' f32\[2,2\], 'b' f32\[3,3\]"),
]


def _outcome(proto, feeds) -> dict[str, np.ndarray] | IrError:
    try:
        return run_irgraph(proto, feeds)
    except IrError as err:
        return err


@pytest.mark.parametrize("case", QUIRKS, ids=lambda q: q.id)
def test_quirk_converts_as_documented(case):
    lines: list[str] = []
    if case.error:
        with pytest.raises(ConversionError, match=case.error):
            ir.convert_onnx(case.proto, explain=lines)
        return
    model = ir.convert_onnx(case.proto, explain=lines)
    if case.explain:
        assert any(case.explain in line for line in lines), lines
    if case.ir_op is not None:
        assert [type(n.op) for n in model if type(n.op) in (Split, VariadicSplit)] == [case.ir_op]
    if case.run_error:
        with pytest.raises(EvaluationError, match=case.run_error):
            ir.run(model, case.feeds)
        return
    got = ir.run(model, case.feeds)
    expected = case.expected()
    assert got.keys() == expected.keys()
    for name, array in expected.items():
        assert same(got[name], array), name


# Why each tool refuses a quirk, in the words of the versions pinned in the test extra: a refusal
# for another reason (a missing package, a crash in the harness) is a failure, not a match.
_NO_SPLIT_1 = r"Could not find an implementation for Split\(1\)"
_NO_REF_SPLIT_1 = "No implementation for operator 'Split' domain '' and version 1"
_NOT_EVEN = "The input is not evenly splittable"
REFUSALS: dict[tuple[str, str], str] = {
    **{(quirk, "onnxruntime"): _NO_SPLIT_1 for quirk in (
        "split1-attribute", "split1-second-input", "split1-second-input-constant-node", "split1-both-agree",
        "split1-both-disagree", "split1-lengths-from-graph-input", "split1-fractional-lengths", "split1-no-axis")},
    **{(quirk, "reference"): _NO_REF_SPLIT_1 for quirk in (
        "split1-attribute", "split1-second-input", "split1-second-input-constant-node", "split1-both-agree",
        "split1-both-disagree", "split1-lengths-from-graph-input", "split1-fractional-lengths", "split1-no-axis")},
    ("split2-equal-uneven", "onnxruntime"): _NOT_EVEN,
    ("split13-attribute", "onnxruntime"): "Unrecognized attribute: split for operator Split",
    ("split13-uneven", "onnxruntime"): _NOT_EVEN,
    ("split13-negative-length", "onnxruntime"): r"Mismatch between the sum of 'split' \(1\)",
    ("split13-sum-mismatch", "onnxruntime"): r"Mismatch between the sum of 'split' \(6\)",
    ("split13-count-mismatch", "onnxruntime"): r"Mismatch between number of splits \(2\) and outputs \(3\)",
    ("split13-count-mismatch", "reference"): "Unable to find output name 'y2'",
    ("split18-5-into-4", "onnxruntime"): "Split size 2 exceeds the remaining size of the selected axis, 1",
    ("split18-6-into-4", "onnxruntime"): "Split size 2 exceeds the remaining size of the selected axis, 0",
    ("split18-0-into-3", "onnxruntime"): "Invalid num_outputs value of 3. Size of dimension being split is 0",
    ("split18-neither", "onnxruntime"): "Neither 'split' input nor 'num_outputs' attribute has been given",
    ("split18-neither-uneven", "onnxruntime"): "Neither 'split' input nor 'num_outputs' attribute has been given",
    ("split18-both", "onnxruntime"): "Both 'split' input and 'num_outputs' attribute were given",
    ("split18-axis-out-of-range", "onnxruntime"): "Invalid value of attribute 'axis'. Rank=2 Value=2",
    ("split18-axis-out-of-range", "reference"): "tuple index out of range",
    ("concat1-default-axis", "onnxruntime"): r"Could not find an implementation for Concat\(1\)",
    ("concat1-default-axis", "reference"): "Attribute 'axis' is expected",
    ("concat1-axis-0", "onnxruntime"): r"Could not find an implementation for Concat\(1\)",
    ("concat4-missing-axis", "onnxruntime"): "Required attribute 'axis' is missing",
    ("concat4-missing-axis", "reference"): "Attribute 'axis' is expected",
    ("concat13-shape-mismatch", "onnxruntime"): "Can't merge shape info",
    ("concat13-shape-mismatch", "reference"): "all the input array dimensions except for the concatenation axis",
}


def tool_version(tool: str) -> str:
    """``onnxruntime 1.31.1`` / ``onnx.reference 1.23.2``: the tool a quirk row describes."""
    from importlib.metadata import version

    return f"onnxruntime {version('onnxruntime')}" if tool == "onnxruntime" else f"onnx.reference {version('onnx')}"


def test_every_refusal_has_its_reason():
    refusing = {(q.id, tool) for q in QUIRKS for tool, verdict in (("onnxruntime", q.ort), ("reference", q.ref))
                if verdict == "refuses"}
    assert refusing == REFUSALS.keys()


@pytest.mark.oracle
@pytest.mark.parametrize("tool", ["onnxruntime", "reference"], ids=tool_version)
@pytest.mark.parametrize("case", QUIRKS, ids=lambda q: q.id)
def test_quirk_tools_behave_as_the_table_says(case, tool):
    verdict = case.ort if tool == "onnxruntime" else case.ref
    described = tool_version(tool)
    ours = _outcome(case.proto, case.feeds)
    try:
        theirs = run_tool(tool, case.proto, case.feeds)
    except ImportError:
        raise
    except Exception as err:  # noqa: BLE001 - the reason is checked below
        assert verdict == "refuses", f"{described} now refuses: {err}"
        assert re.search(REFUSALS[(case.id, tool)], str(err)), f"{described} refuses for another reason: {err}"
        return
    assert verdict != "refuses", f"{described} now accepts the model and gives {theirs}"
    agree = isinstance(ours, dict) and ours.keys() == theirs.keys() and all(same(ours[k], theirs[k]) for k in ours)
    assert agree == (verdict == "same"), f"{described} changed: it gives {theirs}; irgraph gives {ours}"


# ------------------------------------------------------------------------------------ names, types, dims
def test_names_inputs_outputs_and_intermediate_tensors_after_onnx():
    proto = make(
        [split(2, axis=1, num_outputs=2), helper.make_node("Concat", ["y1", "y0"], ["joined"], name="join", axis=1)],
        [tensor("x", ["batch", 8])], [tensor("joined", ["batch", 8]), tensor("y0", None)], 18,
    )
    model = ir.convert_onnx(proto)
    assert [p.name for p in model.parameters] == ["x"]
    assert [model.output_key(r) for r in model.results] == ["joined", "y0"]
    by_name = {node.name: node for node in model}
    assert [output.tensor_names for output in by_name["split"].outputs] == [["y0"], ["y1"]]
    assert [output.tensor_names for output in by_name["join"].outputs] == [["joined"]]
    assert str(model.parameters[0].op.shape) == "[?,8]"
    got = ir.run(model, {"x": X28})
    assert same(got["joined"], np.concatenate([X28[:, 4:], X28[:, :4]], axis=1))


def test_dim_param_and_unknown_dims_become_dynamic_and_are_explained():
    lines: list[str] = []
    unknown = tensor("x", ["N", 3])
    unknown.type.tensor_type.shape.dim[0].Clear()
    proto = make([helper.make_node("Concat", ["x", "z"], ["y0"], axis=0)], [unknown, tensor("z", ["M", 3])],
                 outs(1), 13)
    model = ir.convert_onnx(proto, explain=lines)
    assert [str(p.op.shape) for p in model.parameters] == ["[?,3]", "[?,3]"]
    assert "input 'x': Parameter f32[?,3] (dim 0 unknown -> ?)" in lines
    assert "input 'z': Parameter f32[?,3] (dim 0 'M' -> ?)" in lines
    no_shape = make([helper.make_node("Concat", ["x"], ["y0"], axis=0)], [tensor("x", None)], outs(1), 13)
    assert ir.convert_onnx(no_shape).parameters[0].op.shape.rank_is_dynamic


ELEMENT_TYPES = [
    (TensorProto.FLOAT, np.float32), (TensorProto.DOUBLE, np.float64), (TensorProto.FLOAT16, np.float16),
    (TensorProto.BFLOAT16, ml_dtypes.bfloat16), (TensorProto.INT8, np.int8), (TensorProto.INT16, np.int16),
    (TensorProto.INT32, np.int32), (TensorProto.INT64, np.int64), (TensorProto.UINT8, np.uint8),
    (TensorProto.UINT16, np.uint16), (TensorProto.UINT32, np.uint32), (TensorProto.UINT64, np.uint64),
    (TensorProto.BOOL, np.bool_), (TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
    (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2), (TensorProto.FLOAT8E8M0, ml_dtypes.float8_e8m0fnu),
    (TensorProto.FLOAT4E2M1, ml_dtypes.float4_e2m1fn), (TensorProto.INT4, ml_dtypes.int4),
    (TensorProto.UINT4, ml_dtypes.uint4), (TensorProto.UINT2, ml_dtypes.uint2), (TensorProto.STRING, object),
]


@pytest.mark.parametrize(("data_type", "dtype"), ELEMENT_TYPES, ids=lambda v: str(v))
def test_every_element_type_splits_and_joins_exactly(data_type, dtype):
    values = np.arange(6).reshape(2, 3) % 2
    array = values.astype(str).astype(object) if dtype is object else values.astype(dtype)
    constant = helper.make_tensor("k", data_type, [2, 3], array.reshape(-1).tolist() if dtype is not object else
                                  [v.encode() for v in array.reshape(-1)])
    proto = make([split(2, ("x", "s"), axis=1), helper.make_node("Concat", ["y1", "k", "y0"], ["y2"], axis=1)],
                 [tensor("x", [2, 3], data_type)], outs(3, data_type), 13, [lengths_init([1, 2]), constant])
    got = run_irgraph(proto, {"x": array})
    assert same(got["y0"], array[:, :1]) and same(got["y1"], array[:, 1:])
    assert same(got["y2"], np.concatenate([array[:, 1:], array, array[:, :1]], axis=1))


def test_unconvertible_element_type_names_the_tensor_and_the_type():
    proto = make([split(2, num_outputs=2)], [tensor("x", [4], TensorProto.COMPLEX64)], outs(2), 18)
    with pytest.raises(ConversionError, match="graph input 'x' has ONNX element type COMPLEX64, which has no IR"):
        ir.convert_onnx(proto)


def test_constant_node_forms_become_consts():
    nodes = [
        helper.make_node("Constant", [], ["a"], value_floats=[1.5, 2.5]),
        helper.make_node("Constant", [], ["b"], value_float=3.5),
        helper.make_node("Constant", [], ["c"], value=helper.make_tensor("t", F, [1], [4.5])),
        helper.make_node("Constant", [], ["d"], value_ints=[7]),
        helper.make_node("Constant", [], ["e"], value_strings=[b"p", b"q"]),
        helper.make_node("Constant", [], ["f"], value_string=b"r"),
        helper.make_node("Concat", ["a", "c"], ["floats"], axis=0),
    ]
    proto = make(nodes, [], [tensor("floats", [3]), tensor("b", []), tensor("d", [1], TensorProto.INT64),
                             tensor("e", [2], TensorProto.STRING), tensor("f", [], TensorProto.STRING)], 13)
    got = run_irgraph(proto, {})
    assert same(got["floats"], np.array([1.5, 2.5, 4.5], np.float32))
    assert same(got["b"], np.float32(3.5)) and same(got["d"], np.array([7], np.int64))
    assert got["e"].tolist() == ["p", "q"] and got["f"].tolist() == "r"


def test_identity_adds_a_tensor_name_and_keys_the_output():
    proto = make([helper.make_node("Identity", ["x"], ["alias"]), split(2, ("alias",), num_outputs=2)],
                 [tensor("x", [6])], [tensor("alias", [6]), *outs(2)], 18)
    lines: list[str] = []
    model = ir.convert_onnx(proto, explain=lines)
    assert model.parameters[0].outputs[0].tensor_names == ["x", "alias"]
    got = ir.run(model, {"x": X6})
    assert list(got) == ["alias", "y0", "y1"] and same(got["alias"], X6)
    assert any("'alias' becomes another tensor name of 'x'" in line for line in lines)


def test_initializer_listed_as_graph_input_is_a_const_and_passthrough_outputs_work():
    proto = make([helper.make_node("Concat", ["x", "w"], ["y0"], axis=0)], [tensor("x", [2]), tensor("w", [2])],
                 [*outs(1), tensor("x", [2]), tensor("w", [2])], 13, [helper.make_tensor("w", F, [2], [8, 9])])
    lines: list[str] = []
    model = ir.convert_onnx(proto, explain=lines)
    assert [p.name for p in model.parameters] == ["x"]
    assert "input 'w': also an initializer, so a Const (its initializer value), not a Parameter" in lines
    got = ir.run(model, {"x": np.array([1, 2], np.float32)})
    assert same(got["y0"], np.array([1, 2, 8, 9], np.float32)) and same(got["w"], np.array([8, 9], np.float32))
    assert same(got["x"], np.array([1, 2], np.float32))


# ------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("nodes", "inputs", "message"),
    [
        ([helper.make_node("Bernoulli", ["x"], ["s"], name="a"), helper.make_node("Bernoulli", ["s"], ["t"], name="b"),
          helper.make_node("Det", ["t"], ["y0"], name="c")], [tensor("x", [2])],
         r"3 nodes of 2 ONNX op types irgraph does not convert: Bernoulli×2, Det×1; it converts \(ai.onnx domain\): "
         r"Abs, Acos, Acosh, Add, "),
        ([helper.make_node("Split", ["x"], ["y0"], domain="com.example")], [tensor("x", [2])],
         r"1 node of 1 ONNX op type irgraph does not convert: Split \(domain 'com.example'\)×1; "),
        ([helper.make_node("Concat", ["x", "late"], ["y0"], axis=0), helper.make_node("Identity", ["x"], ["late"])],
         [tensor("x", [2])], "input 'late' is not a graph input, an initializer or the output of an earlier node"),
        ([split(2, num_outputs=2, foo=1)], [tensor("x", [2])],
         r"Split-18 node 'split': has the attribute 'foo', which this op version does not define \(it takes: axis, "
         r"num_outputs\)"),
        ([split(2, num_outputs=2, axis=1.0)], [tensor("x", [2])], "attribute 'axis' must be INT; got FLOAT"),
        ([helper.make_node("Concat", ["x"], ["y0"], axis=0, name="c"), helper.make_node("Identity", ["x"], ["y0"])],
         [tensor("x", [2])], "output 'y0' is already produced elsewhere"),
    ],
    ids=["unsupported-op", "other-domain", "not-topological", "unknown-attribute", "attribute-type", "duplicate"],
)
def test_conversion_errors_name_the_node_and_the_rule(nodes, inputs, message):
    with pytest.raises(ConversionError, match=message):
        ir.convert_onnx(make(nodes, inputs, outs(1), 18))


def test_declared_output_type_must_match():
    proto = make([split(2, num_outputs=2)], [tensor("x", [6])], [tensor("y0", [3], TensorProto.INT64),
                                                                 tensor("y1", [3])], 18)
    with pytest.raises(ConversionError, match="graph output 'y0' is declared i64 but its producer gives f32"):
        ir.convert_onnx(proto)


def test_missing_onnx_package_gives_a_one_line_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ConversionError) as caught:
        ir.convert_onnx("model.onnx")
    assert str(caught.value) == ("ONNX support needs the onnx package, which is not installed: pip install onnx (in a "
                                 "clone of irgraph: pip install -e '.[onnx]')")


def test_reads_paths_and_bytes_and_reports_unreadable_files(tmp_path):
    proto = make([split(2, num_outputs=2)], [tensor("x", [6])], outs(2), 18)
    path = tmp_path / "model.onnx"
    path.write_bytes(proto.SerializeToString())
    assert ir.convert_onnx(path).source == str(path)
    assert len(ir.convert_onnx(proto.SerializeToString()).results) == 2
    with pytest.raises(OSError, match="cannot read the ONNX model: No such file"):
        ir.convert_onnx(tmp_path / "missing.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"\x00\xff not protobuf")
    with pytest.raises(ConversionError, match="junk.onnx: the file is not a readable ONNX model"):
        ir.convert_onnx(tmp_path / "junk.onnx")


def test_model_without_opset_import_before_ir_3_uses_opset_1():
    proto = make([helper.make_node("Concat", ["a", "b"], ["y0"])], [tensor("a", [2, 2]), tensor("b", [2, 3])],
                 outs(1), 1)
    del proto.opset_import[:]
    proto.ir_version = 2
    assert same(run_irgraph(proto, {"a": A22, "b": B23})["y0"], np.concatenate([A22, B23], axis=1))


# ------------------------------------------------------------------------------------ generated models vs the tools
ORT_TYPES = [np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_]


@st.composite
def split_models(draw):
    """A random Split (any opset form) whose parts are re-joined by a Concat in a random order."""
    opset = draw(st.sampled_from([11, 13, 18]))
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    axis = draw(st.integers(-rank, rank - 1))
    count = draw(st.integers(1, 4))
    form = draw(st.sampled_from(["lengths", "equal"] + (["uneven"] if opset >= 18 else [])))
    if form == "lengths":
        lengths = draw(st.lists(st.integers(0, 4), min_size=count, max_size=count))
        shape[axis] = sum(lengths)
    elif form == "equal":  # onnxruntime refuses num_outputs on an empty axis, so opset 18 gets >= 1 per part
        shape[axis] = count * draw(st.integers(0 if opset < 18 else 1, 3))
    else:  # ceil-sized chunks with a smaller, non-empty last one
        chunk = draw(st.integers(2, 4))
        shape[axis] = chunk * (count - 1) + draw(st.integers(1, chunk - 1)) if count > 1 else chunk
    dtype = draw(st.sampled_from(ORT_TYPES))
    data_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    attributes: dict = {"axis": axis}
    inputs, initializers = ["x"], []
    if form == "lengths":
        if opset >= 13:
            inputs.append("s")
            initializers.append(lengths_init(lengths))
        else:
            attributes["split"] = lengths
    elif opset >= 18:
        attributes["num_outputs"] = count
    order = draw(st.permutations(range(count)))
    nodes = [split(count, inputs, **attributes),
             helper.make_node("Concat", [f"y{i}" for i in order], ["joined"], axis=axis)]
    proto = make(nodes, [tensor("x", shape, data_type)], [tensor("joined", None, data_type), *outs(count, data_type)],
                 opset, initializers)
    data = (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dtype)
    return proto, {"x": data}


@pytest.mark.oracle
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(split_models())
def test_generated_models_match_onnxruntime_and_reference(generated):
    proto, feeds = generated
    ours = run_irgraph(proto, feeds)
    for tool in ("onnxruntime", "reference"):
        theirs = run_tool(tool, proto, feeds)
        assert ours.keys() == theirs.keys()
        for name in ours:
            assert same(ours[name], theirs[name]), (tool, name)


# ------------------------------------------------------------------------------------ the IR we write runs in OpenVINO
CONVERTIBLE = [(c.name, c.model, node_feeds(c)) for c in NODE_CASES] + [
    (q.id, q.proto, q.feeds) for q in QUIRKS if not q.error and not q.run_error
]


@pytest.mark.oracle
@pytest.mark.parametrize(("name", "proto", "feeds"), CONVERTIBLE, ids=[c[0] for c in CONVERTIBLE])
def test_converted_ir_runs_the_same_in_openvino(name, proto, feeds, tmp_path):
    """Including what OpenVINO's own ONNX frontend gets wrong (Concat-1's default axis, Split-1's input)."""
    import openvino

    model = ir.convert_onnx(proto)
    ours = ir.run(model, feeds)
    ir.write_model(model, tmp_path / "model.xml")
    core = openvino.Core()
    compiled = core.compile_model(core.read_model(tmp_path / "model.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(dict(feeds))
    theirs = {key: results[output] for output in compiled.outputs for key in ours if key in output.get_names()}
    assert theirs.keys() == ours.keys()
    for key in ours:
        assert same(ours[key], theirs[key]), key
