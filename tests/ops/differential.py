"""The differential harness: one op, one configuration, three implementations that must agree.

``check_op(op, inputs, build)`` builds the configuration three ways:

1. OpenVINO's **reference**: ``build`` applied to Constants (``openvino.opset16`` builders), a
   Model, then the ``ConstantFolding`` pass; the folded Constant is the expected value. Nodes
   OpenVINO refuses to construct are refused configurations: irgraph must refuse them too (an
   IrError at inference or run).
2. OpenVINO's **CPU plugin** (``INFERENCE_PRECISION_HINT=f32``) on the same graph with Parameters,
   for the element types the plugin computes in their own width (it runs i64 as i32 and f64 as
   f32, which irgraph does not do). Where the reference folded, a CPU difference is only noted
   (``Outcome.cpu_deviation``: the plugin saturates i8 sums the reference wraps); where it could
   not fold, the CPU plugin is the oracle for float and boolean outputs and a difference fails.
3. **irgraph**: a Model with Parameters (Consts for inputs shape inference needs), shape
   inference, then the Interpreter.

Output element types and partial shapes must be equal; values bit for bit, or within the op's
``tolerance`` (``irgraph.ops.op.Tolerance``; docs/tolerances.md lists them). ``check_types``
does the same for partial shapes (dynamic dims, intervals, dynamic rank), without values.

Examples per hypothesis test: ``OP_EXAMPLES`` (25; ``IRGRAPH_OP_EXAMPLES=500`` for a long run).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset16 as ov_ops
from hypothesis import HealthCheck, settings
from openvino import op as ov_op
from openvino.passes import ConstantFolding, Manager
from openvino.utils.node_factory import NodeFactory

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.graph import Model
from irgraph.ops import Op, catalogue
from irgraph.ops.op import EXACT, Tolerance
from irgraph.runtime.interpreter import Interpreter
from tests.oracle.ov_models import const_value, from_tensor, to_tensor

OP_EXAMPLES = settings(
    max_examples=int(os.environ.get("IRGRAPH_OP_EXAMPLES", "25")),
    # The bounded default run is the same examples every time (CI is reproducible); a long run explores.
    derandomize="IRGRAPH_OP_EXAMPLES" not in os.environ,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""Hypothesis settings of every differential test: bounded by default, long with IRGRAPH_OP_EXAMPLES."""

ORACLE = f"openvino {ov.get_version().split('-')[0]}"
CPU_TYPES = frozenset({ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I8, ElementType.U8,
                       ElementType.BOOLEAN})
"""Element types the CPU plugin computes in their own width under the f32 hint."""
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
_core: ov.Core | None = None

BuildOv = Callable[..., Any]
"""OpenVINO node outputs -> the node under test (e.g. ``lambda a, b: ov_ops.add(a, b)``)."""


JUDGED: dict[str, list[int]] = {}
"""Per test (its node id, set by tests/ops/conftest.py): [configurations irgraph computed, of them the ones an
oracle judged]. A test whose configurations no oracle ever judged fails (see conftest), so a generated test
cannot pass by comparing nothing."""
CURRENT_TEST: str | None = None


@dataclass
class Outcome:
    """What one check found: refused by both, or the values compared (and against whom)."""

    refused: bool = False
    reference: bool = False
    """True when OpenVINO's constant folding produced values to compare."""
    cpu: bool = False
    """True when the CPU plugin's values were compared too."""
    evaluated: bool = False
    """True when neither did and the node's own ``evaluate`` (the reference kernel) gave the values compared."""
    cpu_deviation: str | None = None
    """Where the CPU plugin differs from the reference irgraph matched (it saturates narrow integers,
    computes i64 as i32 and f64 as f32): noted, not failed."""


# ------------------------------------------------------------------------------------ OpenVINO side
def ov_type(element_type: ElementType) -> ov.Type:
    """The OpenVINO type of an irgraph element type."""
    return getattr(ov.Type, element_type.ir_name)


def ov_constant(array: np.ndarray) -> Any:
    """A Constant holding ``array`` (in irgraph's in-memory dtype) with its element type."""
    element_type = ElementType.from_numpy(array.dtype)
    return ov_op.Constant(to_tensor(array, element_type.ir_name), shared_memory=False)


def ov_parameter(tensor_type: TensorType) -> Any:
    """A Parameter of an irgraph TensorType (partial shapes included)."""
    shape = tensor_type.shape
    if shape.rank_is_dynamic:
        partial = ov.PartialShape.dynamic()
    else:
        partial = ov.PartialShape([ov.Dimension(d.min, -1 if d.max is None else d.max) for d in shape])
    return ov_ops.parameter(partial, ov_type(tensor_type.element_type))


def from_ov_shape(shape: Any) -> Shape:
    """An irgraph Shape from an OpenVINO PartialShape."""
    if shape.rank.is_dynamic:
        return DYNAMIC_RANK
    dims = []
    for dim in shape:
        high = dim.get_max_length()
        dims.append(Dim(dim.get_min_length(), None if high < 0 else high))
    return Shape(tuple(dims))


def ov_output_types(node: Any) -> list[TensorType]:
    """The output TensorTypes OpenVINO inferred for ``node``."""
    return [
        TensorType(ElementType.from_ir_name(node.get_output_element_type(i).get_type_name()),
                   from_ov_shape(node.get_output_partial_shape(i)))
        for i in range(node.get_output_size())
    ]


def ov_reference(node: Any) -> list[np.ndarray] | None:
    """Values of ``node`` (built on Constants) after OpenVINO's ConstantFolding; None when not folded."""
    model = ov.Model([ov_ops.result(node.output(i)) for i in range(node.get_output_size())], [], "reference")
    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(model)
    values = []
    for result in model.get_results():
        source = result.input_value(0).get_node()
        if source.get_type_name() != "Constant":
            return None
        values.append(const_value(source))
    return values


def ov_evaluate(node: Any, inputs: Sequence[np.ndarray], types: Sequence[TensorType]) -> list[np.ndarray] | None:
    """Values of ``node`` from its own ``evaluate`` (OpenVINO's reference kernel, no folding pass, no plugin);
    None when an output shape is not static or the op has no evaluate for these types."""
    if not all(t.shape.is_static for t in types):
        return None
    outputs = [ov.Tensor(ov_type(t.element_type), ov.Shape(list(t.shape.to_tuple()))) for t in types]
    arguments = [to_tensor(np.ascontiguousarray(x), ElementType.from_numpy(x.dtype).ir_name) for x in inputs]
    try:
        if not node.evaluate(outputs, arguments):
            return None
    except RuntimeError:  # "Evaluate is not implemented", or a kernel's refusal of these values
        return None
    # a 0-d output comes back as [1] from evaluate: the inferred shape is the one to compare
    return [from_tensor(tensor).reshape(t.shape.to_tuple()) for tensor, t in zip(outputs, types, strict=True)]


def assert_attribute_order(op: Op, node: Any) -> None:
    """irgraph writes ``<data>`` attributes in the order OpenVINO visits (and serializes) them, so a
    re-written file stays byte for byte OpenVINO's."""
    ours = [field.ir_name for field in op.attribute_fields()]
    theirs = [name for name in node.get_attributes() if name in ours]
    assert [name for name in ours if name in theirs] == theirs, (
        f"{op.title()} writes its attributes as {ours}; {ORACLE} writes {theirs}")


def cpu_default(tolerance: Tolerance) -> Tolerance:
    """The op's tolerance against the CPU plugin: at least 2 ULP or 1 eps, as the plugin flushes
    subnormals to zero and runs its own vectorised math."""
    return dataclasses.replace(tolerance, ulp=max(tolerance.ulp, 2), eps=max(tolerance.eps, 1.0))


def folding_is_safe(arrays: Sequence[np.ndarray]) -> bool:
    """False for empty inputs broadcast against others: OpenVINO 2026.4.1's reference corrupts its heap on
    them (i64 [1,2] - [0,3,1] folds to a [0,0,2] tensor, then free() aborts). The CPU plugin is the oracle."""
    shapes = {x.shape for x in arrays}
    return len(shapes) == 1 or all(x.size for x in arrays)


def ov_cpu(build: BuildOv, inputs: Sequence[np.ndarray], constant: Collection[int]) -> list[np.ndarray] | None:
    """Values from the CPU plugin (Parameters except the ``constant`` inputs); None when it fails."""
    global _core
    if _core is None:
        _core = ov.Core()
    parameters, arguments = [], []
    for index, array in enumerate(inputs):
        if index in constant:
            arguments.append(ov_constant(array))
            continue
        element_type = ElementType.from_numpy(array.dtype)
        parameter = ov_ops.parameter(ov.PartialShape(list(array.shape)), ov_type(element_type))
        parameters.append((parameter, array, element_type))
        arguments.append(parameter)
    node = build(*arguments)
    model = ov.Model([ov_ops.result(node.output(i)) for i in range(node.get_output_size())],
                     [p for p, _, _ in parameters], "cpu")
    try:
        request = _core.compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
        for index, (_, array, element_type) in enumerate(parameters):
            request.set_input_tensor(index, to_tensor(array, element_type.ir_name))
        request.infer()
    except RuntimeError:
        return None
    return [from_tensor(request.get_output_tensor(i)) for i in range(node.get_output_size())]


def ov_attribute(value: Any) -> Any:
    """An irgraph attribute value as OpenVINO's NodeFactory takes it."""
    if isinstance(value, ElementType):
        return value.ir_name
    if isinstance(value, Shape):
        return value.to_ir()
    if isinstance(value, tuple):
        return list(value)
    return value


def _openvino_type(op: Op) -> str:
    """OpenVINO's class name for the op's type: IR spells four differently (ReLU for Relu, SoftMax, PReLU, Const)."""
    entry = catalogue.find(op.type_name, f"opset{min(op.opsets)}")
    return op.type_name if entry is None else entry.type_name


def same_op(op: Op, type_name: str | None = None) -> BuildOv:
    """A builder of OpenVINO's node for ``op``: its type (``type_name`` when OpenVINO spells it
    differently), its first opset and its attributes, through ``NodeFactory``."""
    factory = NodeFactory(f"opset{min(op.opsets)}")
    attributes = {spec.ir_name: ov_attribute(getattr(op, spec.name)) for spec in op.attribute_fields()}

    def build(*inputs: Any) -> Any:
        outputs = [x.output(0) if hasattr(x, "output") else x for x in inputs]
        return factory.create(type_name or _openvino_type(op), outputs, attributes)

    return build


# ------------------------------------------------------------------------------------ irgraph side
def irgraph_model(op: Op, input_types: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> tuple[Model, Any]:
    """A Model: a Parameter per input (a Const where ``values`` has one), ``op``, a Result per output."""
    model = Model("differential")
    ports = []
    for index, (tensor_type, value) in enumerate(zip(input_types, values, strict=True)):
        if value is not None:
            ports.append(model.const(value, tensor_type.element_type, name=f"c{index}"))
        else:
            ports.append(model.parameter(f"in{index}", tensor_type.shape, tensor_type.element_type))
    node = model.add_node(op, "op", ports)
    for index in range(node.num_outputs):
        model.result(type(ports[0])(node.id, index), name=f"out{index}")
    return model, node


def irgraph_types(op: Op, input_types: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
    """irgraph's inferred output types (raises its IrError when it refuses)."""
    model, node = irgraph_model(op, input_types, values)
    infer_shapes(model)
    return list(node.output_types)


# ------------------------------------------------------------------------------------ comparison
def assert_types_equal(actual: Sequence[TensorType], expected: Sequence[TensorType], what: str) -> None:
    """Element types and partial shapes equal, output by output."""
    assert [str(t) for t in actual] == [str(t) for t in expected], f"{what}: irgraph {actual} vs {ORACLE} {expected}"


def _ordered(array: np.ndarray) -> np.ndarray:
    """Floats as integers whose order is the floats' order (so a difference counts ULPs)."""
    width = array.dtype.itemsize * 8
    bits = np.array(array, order="C").view(f"<i{array.dtype.itemsize}").astype(object if width == 64 else np.int64)
    low = -(2 ** (width - 1))
    return np.where(bits < 0, low - bits, bits).reshape(array.shape)  # ascontiguousarray makes scalars 1-D


def assert_values_close(
    actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance, what: str, magnitude: np.ndarray | None = None
) -> None:
    """Equal dtype and shape; values bit for bit (any NaN equals any NaN) or within ``tolerance``.

    ``magnitude`` (same shape, f64) is the sum of the absolute terms of each value, for ``sum_eps``.
    """
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} vs {ORACLE} {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} vs {ORACLE} {expected.shape}"
    if actual.dtype.kind not in "fV" and ElementType.from_numpy(actual.dtype).is_real is False:
        bad = actual != expected
    else:
        with np.errstate(invalid="ignore"):
            wide_a, wide_e = actual.astype(np.float64), expected.astype(np.float64)
        both_nan = np.isnan(wide_a) & np.isnan(wide_e)
        width = actual.dtype.itemsize
        same_bits = np.array(actual, order="C").view(f"<u{width}") == np.array(expected, order="C").view(f"<u{width}")
        bad = ~(both_nan | same_bits)
        if not tolerance.is_exact and bad.any():
            finite = np.isfinite(wide_a) & np.isfinite(wide_e)
            close = np.zeros(actual.shape, bool)
            if tolerance.ulp:
                distance = np.abs(_ordered(actual) - _ordered(expected))
                close |= finite & (distance <= tolerance.ulp).astype(bool)
            if tolerance.eps:
                eps = float(ml_dtypes.finfo(actual.dtype).eps)
                with np.errstate(invalid="ignore"):  # inf - inf where not finite (masked out)
                    close |= finite & (np.abs(wide_a - wide_e) <= tolerance.eps * eps)
            if tolerance.sum_eps and magnitude is not None:
                eps = float(ml_dtypes.finfo(actual.dtype).eps)
                close |= finite & (np.abs(wide_a - wide_e) <= tolerance.sum_eps * eps * magnitude)
            bad &= ~close
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0]) if actual.ndim else ()
        examples = [(actual[i], expected[i]) for i in map(tuple, np.argwhere(bad)[:4])] if actual.ndim else []
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {actual.size} values differ (tolerance {tolerance.describe()}); first at "
            f"{list(where)}: irgraph {actual[where]!r} vs {ORACLE} {expected[where]!r}; (irgraph, {ORACLE}) at the "
            f"first four: {examples}"
        )


# ------------------------------------------------------------------------------------ the checks
def _log(line: str) -> None:
    """With IRGRAPH_HARNESS_LOG=FILE, each configuration is written there before OpenVINO sees it (to
    find the one a crash of OpenVINO's process leaves no trace of)."""
    path = os.environ.get("IRGRAPH_HARNESS_LOG")
    if path:
        with open(path, "a") as log:
            log.write(line.replace("\n", " ") + "\n")


def describe(arrays: Sequence[np.ndarray]) -> str:
    """Inputs for a message: dtype, shape and (for small arrays) the values."""
    with np.printoptions(threshold=16, edgeitems=3, precision=9):
        return "; ".join(f"{x.dtype}{list(x.shape)} {np.array2string(x, separator=',')}" for x in arrays)


def check_op(
    op: Op,
    inputs: Sequence[np.ndarray],
    build: BuildOv,
    *,
    constant: Collection[int] = (),
    cpu: bool = True,
    cpu_tolerance: Tolerance | None = None,
) -> Outcome:
    """Run one configuration through OpenVINO (reference and CPU) and irgraph; fail on any disagreement.

    ``inputs`` are arrays in irgraph's in-memory dtypes; ``constant`` the input indices that are
    Constants in the CPU model and Consts in irgraph's (shape inference needs their values).
    """
    arrays = [np.asarray(x) for x in inputs]
    input_types = [TensorType(ElementType.from_numpy(x.dtype), Shape.static(x.shape)) for x in arrays]
    _log(f"{op!r} {describe(arrays)}")
    values = [x if i in constant else None for i, x in enumerate(arrays)]
    try:
        node = build(*[ov_constant(x) for x in arrays])
    except Exception as refusal:  # OpenVINO raises NodeValidationFailure (a RuntimeError) and others
        _assert_refused(op, input_types, values, arrays, str(refusal))
        return Outcome(refused=True)
    expected_types = ov_output_types(node)
    actual_types = irgraph_types(op, input_types, values)
    assert_types_equal(actual_types, expected_types, f"{op!r} on {input_types}")
    assert_attribute_order(op, node)
    try:
        reference = ov_reference(node) if folding_is_safe(arrays) else None
    except Exception as refusal:  # the reference refuses the values ("integer division by zero")
        _assert_refused(op, input_types, values, arrays, f"at evaluation: {refusal}")
        return Outcome(refused=True)
    model, _ = irgraph_model(op, input_types, values)
    feeds = {f"in{i}": x for i, x in enumerate(arrays) if i not in constant}
    got = Interpreter(model).run(feeds)
    actual = [got[f"out{i}"] for i in range(len(expected_types))]
    outcome = Outcome()
    magnitudes = term_magnitudes(op, arrays, len(actual))
    if reference is not None:
        outcome.reference = True
        for index, (mine, theirs) in enumerate(zip(actual, reference, strict=True)):
            what = f"{op!r} output {index} vs reference, inputs {describe(arrays)}"
            assert_values_close(mine, theirs, op.tolerance, what, magnitudes[index])
    if cpu and all(ElementType.from_numpy(x.dtype) in CPU_TYPES for x in arrays) and all(
        t.element_type in CPU_TYPES for t in expected_types
    ):
        on_cpu = ov_cpu(build, arrays, constant)
        if on_cpu is not None:
            outcome.cpu = True
            for index, (mine, theirs) in enumerate(zip(actual, on_cpu, strict=True)):
                what = f"{op!r} output {index} vs CPU plugin, inputs {describe(arrays)}"
                if theirs.shape != mine.shape and mine.shape == expected_types[index].shape.to_tuple():
                    # The plugin's output contradicts OpenVINO's own shape inference (pdpd [0,1] / [0] gives
                    # [0,0]): a plugin bug, noted.
                    outcome.cpu_deviation = f"{what}: shape {theirs.shape}, inferred {mine.shape}"
                    continue
                try:
                    assert_values_close(mine, theirs, cpu_tolerance or cpu_default(op.tolerance), what,
                                        magnitudes[index])
                except AssertionError as deviation:
                    if not outcome.reference and mine.dtype.kind in "fb":
                        raise  # the CPU plugin is the only oracle here (it saturates integers: only noted)
                    outcome.cpu_deviation = str(deviation)  # irgraph matches the reference; the CPU differs
    if not outcome.reference and not outcome.cpu:  # nothing judged the values yet: the op's own evaluate does
        evaluated = ov_evaluate(node, arrays, expected_types) if folding_is_safe(arrays) else None
        if evaluated is not None:
            outcome.evaluated = True
            for index, (mine, theirs) in enumerate(zip(actual, evaluated, strict=True)):
                what = f"{op!r} output {index} vs Node.evaluate, inputs {describe(arrays)}"
                assert_values_close(mine, theirs, op.tolerance, what, magnitudes[index])
    if CURRENT_TEST is not None:
        counts = JUDGED.setdefault(CURRENT_TEST, [0, 0])
        counts[0] += 1
        counts[1] += outcome.reference or outcome.cpu or outcome.evaluated
    return outcome


def term_magnitudes(op: Op, arrays: Sequence[np.ndarray], count: int) -> list[np.ndarray | None]:
    """Per output, the sum of the absolute terms of each value (for ``Tolerance.sum_eps``): the op's own
    ``term_magnitudes`` where it has one (a DFT sums ``|x| |twiddle|``, which the DFT of ``|x|`` is not), else
    the op evaluated in f64 on the absolute values of its floating-point inputs; None where not needed."""
    if not op.tolerance.sum_eps:
        return [None] * count
    own = getattr(op, "term_magnitudes", None)
    if own is not None:
        return [np.asarray(m, dtype=np.float64) for m in own(arrays)]
    wide = [np.abs(x.astype(np.float64)) if ElementType.from_numpy(x.dtype).is_real else x for x in arrays]
    with np.errstate(all="ignore"):
        return [np.asarray(m, dtype=np.float64) for m in op.evaluate(wide)]


def check_types(
    op: Op,
    input_types: Sequence[TensorType],
    build: BuildOv,
    values: Sequence[np.ndarray | None] | None = None,
) -> Outcome:
    """Partial-shape inference only: OpenVINO's node on Parameters of ``input_types`` vs irgraph's."""
    values = list(values) if values is not None else [None] * len(input_types)
    arguments = [ov_constant(v) if v is not None else ov_parameter(t) for t, v in zip(input_types, values, strict=True)]
    try:
        node = build(*arguments)
    except Exception as refusal:
        _assert_refused(op, input_types, values, None, str(refusal))
        return Outcome(refused=True)
    assert_types_equal(irgraph_types(op, input_types, values), ov_output_types(node), f"{op!r} on {input_types}")
    return Outcome()


def _assert_refused(
    op: Op, input_types: Sequence[TensorType], values: Sequence[np.ndarray | None],
    arrays: Sequence[np.ndarray] | None, refusal: str,
) -> None:
    try:
        irgraph_types(op, input_types, values)
        if arrays is not None:
            model, _ = irgraph_model(op, input_types, values)
            Interpreter(model).run({f"in{i}": x for i, x in enumerate(arrays) if values[i] is None})
    except IrError:
        return
    first_line = refusal.strip().splitlines()[-1] if refusal.strip() else refusal
    raise AssertionError(f"{ORACLE} refuses {op!r} on {list(map(str, input_types))} ({first_line}); irgraph accepts it")


__all__ = ["EXACT", "OP_EXAMPLES", "ORACLE", "Outcome", "assert_values_close", "check_op", "check_types", "ov_ops",
           "same_op"]
