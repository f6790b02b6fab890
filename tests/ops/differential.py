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

import fnmatch
import math
import os
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
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

CHECK_FORMULATIONS = os.environ.get("IRGRAPH_CHECK_FORMULATIONS", "") not in ("", "0")
"""Compare every independent formulation (tests/ops/independent.py) with irgraph's values where another oracle
judged them too, to check the formulations against OpenVINO."""
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
ISA_DEPENDENT = frozenset({ElementType.F16, ElementType.BF16, ElementType.I8, ElementType.U8})
"""Types whose CPU plugin results depend on the instruction set (native f16/bf16 arithmetic, saturating u8/i8
products on AVX2 but not AVX-512): the CPU plugin is never the only judge of a configuration using them."""
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
_core: ov.Core | None = None

BuildOv = Callable[..., Any]
"""OpenVINO node outputs -> the node under test (e.g. ``lambda a, b: ov_ops.add(a, b)``)."""


ORACLES = ("reference", "evaluate", "reference-widened", "higher-precision", "port", "cpu", "cpu-widened", "empty",
           "refused-by-both", "unjudged-listed", "unjudged")
"""What judged a configuration: OpenVINO's constant folding; the node's ``evaluate``; either of them on
inputs carried in a wider type (``ov_widened``); an independent formulation computed in higher precision
(tests/ops/independent.py) or a test's port of OpenVINO's reference kernel (its C++ in Python); the CPU plugin
(only where its answer does not depend on the instruction set); nothing to judge (every output empty: the
dtypes and shapes are the answer); a refusal by both; listed in ``UNJUDGED_FILE`` with its reason; nothing (the
configuration fails)."""
TALLY: Counter[str] = Counter()
"""Configurations per oracle in this session (printed by tests/ops/conftest.py)."""
UNLISTED: list[str] = []
"""Keys of the configurations no oracle judged and ``UNJUDGED_FILE`` does not list (each failed its test)."""
UNJUDGED_FILE = Path(__file__).with_name("unjudged.txt")


def _read_allowed(path: Path) -> list[tuple[str, str]]:
    """``PATTERN | REASON`` lines (fnmatch patterns over ``configuration_key``); a line without a reason is an
    error."""
    allowed = []
    for number, line in enumerate(path.read_text().splitlines() if path.exists() else [], 1):
        if not line.strip() or line.startswith("#"):
            continue
        pattern, _, reason = (part.strip() for part in line.partition(" | "))
        if not reason:
            raise ValueError(f"{path}:{number}: an unjudged configuration needs its reason: PATTERN | REASON")
        allowed.append((pattern, reason))
    return allowed


ALLOWED = _read_allowed(UNJUDGED_FILE)


def configuration_key(op: Op, input_types: Sequence[TensorType], output_types: Sequence[TensorType],
                      label: str = "") -> str:
    """``Convolution-1 f64,f64 -> f64``: the op's title and the element types, then the test's ``label`` of the
    configuration (``(undefined in C++)``), the key of ``UNJUDGED_FILE``."""
    inputs = ",".join(str(t.element_type) for t in input_types)
    key = f"{op.title()} {inputs} -> {','.join(str(t.element_type) for t in output_types)}"
    return f"{key} ({label})" if label else key


def _judged(outcome: Outcome, op: Op, input_types: Sequence[TensorType],
            output_types: Sequence[TensorType], label: str = "") -> Outcome:
    """Count the configuration under its oracle; fail it when nothing judged it and ``UNJUDGED_FILE`` does not
    list it."""
    if outcome.refused:
        outcome.judge = "refused-by-both"
    if outcome.judge is None:
        key = configuration_key(op, input_types, output_types, label)
        if not any(fnmatch.fnmatchcase(key, pattern) for pattern, _ in ALLOWED):
            TALLY["unjudged"] += 1
            UNLISTED.append(f"{CURRENT_TEST or '?'}: {key}")
            raise AssertionError(
                f"no oracle judged {key} ({[str(t) for t in input_types]}): OpenVINO neither folds nor "
                "evaluates it (nor on wider types), tests/ops/independent.py has no formulation of it and the CPU "
                "plugin did not run or depends on the instruction set for these types; add an oracle, or list "
                f"the configuration with its reason in {UNJUDGED_FILE.name}")
        outcome.judge = "unjudged-listed"
    TALLY[outcome.judge] += 1
    log = os.environ.get("IRGRAPH_JUDGED_LOG")
    if log:  # one line per configuration: its oracle, key and shapes (to audit which oracle judged what)
        with open(log, "a") as out:
            out.write(f"{outcome.judge}\t{configuration_key(op, input_types, output_types, label)}\t"
                      f"{[str(t) for t in input_types]}\t{CURRENT_TEST}\n")
    return outcome


CURRENT_TEST: str | None = None
"""The running test's node id (set by tests/ops/conftest.py), to name unjudged configurations."""


@dataclass(frozen=True)
class Independent:
    """An oracle of the tests' own for configurations OpenVINO does not evaluate: ``compute(op, inputs,
    output_types)`` gives each output's exact values (wider floats are rounded to the output type), or None
    where it has no answer."""

    oracle: str
    """One of ``ORACLES`` (``higher-precision``, ``port``, ``reference``, ``cpu``, ...)."""
    compute: Callable[[Op, list[np.ndarray], list[TensorType]], list[np.ndarray] | None]
    in_output_type: bool = False
    """True when ``compute`` gives the values in the output type as OpenVINO computes them (a port of its
    kernel): compared within the op's tolerance, not ``higher_precision_tolerance``."""


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
    judge: str | None = None
    """The oracle that judged the values (one of ``ORACLES``); None when none did."""


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


WIDER = {np.dtype(np.int8): np.dtype(np.int32), np.dtype(np.int16): np.dtype(np.int32),
         np.dtype(np.uint8): np.dtype(np.int32), np.dtype(np.uint16): np.dtype(np.int32),
         np.dtype(np.uint32): np.dtype(np.int64), np.dtype(np.float16): np.dtype(np.float32),
         np.dtype(ml_dtypes.bfloat16): np.dtype(np.float32)}
"""Types OpenVINO 2026.4.1 compiles few reference kernels for, and the type that holds each of their values
exactly. Integer results wrap back (C++'s narrowing), float results round once as OpenVINO rounds (it computes
f16 and bf16 through f32 too)."""
BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
"""By element size: the unsigned integer a moved value's bits travel as (held in i32, or i64 for 8 bytes)."""


@dataclass(frozen=True)
class Carrier:
    """How a configuration's inputs travel in types OpenVINO computes, and how its outputs come back."""

    inputs: list[np.ndarray]
    decode: list[Callable[[np.ndarray], np.ndarray] | None]
    """Per output: from the carrier's values to the output type's (None: the output is not carried)."""
    types: list[np.dtype]
    """Per output: the carrier dtype OpenVINO must give."""


def carrier(arrays: Sequence[np.ndarray], types: Sequence[TensorType], moved: Collection[int] | None,
            held: int = 0) -> Carrier | None:
    """The inputs in wider types: with ``moved`` None, each input of a ``WIDER`` type in its wider type (the
    same numbers); else the ``moved`` inputs' bits as integers (``held`` 32: each bit pattern of up to 4 bytes
    as an i32 value, 8-byte patterns are refused; else i32 up to 2 bytes, i64 beyond). Outputs of a carried
    type are decoded back; None when no input needs carrying."""
    if moved is None:
        carried = {i for i, x in enumerate(arrays) if x.dtype in WIDER}
    else:
        carried = set(moved)
    if not carried or any(arrays[i].dtype.itemsize not in BITS or ElementType.from_numpy(arrays[i].dtype).is_packed
                          for i in carried):
        return None
    if moved is not None and any(arrays[i].dtype.itemsize == 8 for i in carried) and held == 32:
        return None
    data_types = {arrays[i].dtype for i in carried}

    def wide(dtype: np.dtype) -> np.dtype:
        if moved is None:
            return WIDER[dtype]
        if dtype.itemsize == 8:
            return np.dtype(np.int64)
        return np.dtype(np.int32) if dtype.itemsize < 4 or held == 32 else np.dtype(np.int64)

    inputs = []
    for index, array in enumerate(arrays):
        if index not in carried:
            inputs.append(array)
        elif moved is None:
            inputs.append(array.astype(wide(array.dtype)))
        else:
            bits = np.array(array, order="C").view(BITS[array.dtype.itemsize])  # (ascontiguousarray makes 0-d 1-d)
            inputs.append(bits.view(np.int64) if array.dtype.itemsize == 8 else bits.astype(wide(array.dtype)))
    decode: list[Callable[[np.ndarray], np.ndarray] | None] = []
    out_types = []
    for tensor_type in types:
        dtype = tensor_type.element_type.numpy_dtype
        if dtype not in data_types:
            decode.append(None)
            out_types.append(dtype)
            continue
        out_types.append(wide(dtype))
        if moved is not None:
            decode.append(lambda v, d=dtype: v.astype(BITS[d.itemsize]).view(d))
        elif dtype.kind in "iu":
            decode.append(lambda v, d=dtype: v.astype(d))  # C++'s narrowing: the low bits, as a narrow kernel wraps
        else:
            decode.append(lambda v, d=dtype: ov_convert(v, d))
    return Carrier(inputs, decode, out_types)


def ov_widened(build: BuildOv, arrays: Sequence[np.ndarray], types: Sequence[TensorType],
               moved: Collection[int] | None) -> list[np.ndarray] | None:
    """The configuration's values from OpenVINO's reference (folding, else evaluate; in a child process where
    ``folding_is_safe`` says so) on the ``carrier`` inputs, decoded to the output types; None when nothing
    was carried, OpenVINO gives other output types or shapes, or has no answer."""
    carried = carrier(arrays, types, moved)
    if carried is None:
        return None
    try:
        node = build(*[ov_constant(x) for x in carried.inputs])
        wide_types = ov_output_types(node)
        if [t.element_type.numpy_dtype for t in wide_types] != carried.types or [
                str(t.shape) for t in wide_types] != [str(t.shape) for t in types]:
            return None
        if folding_is_safe(carried.inputs):
            values = ov_reference(node)
            if values is None:
                values = ov_evaluate(node, carried.inputs, wide_types)
        else:
            values, _ = ov_isolated(node, wide_types)
    except Exception:  # OpenVINO refuses the wider types (an op defined for f16/bf16 only), or their values
        return None
    if values is None:
        return None
    return [v if f is None else f(v) for v, f in zip(values, carried.decode, strict=True)]


def cpu_widened(build: BuildOv, arrays: Sequence[np.ndarray], types: Sequence[TensorType],
                moved: Collection[int] | None, constant: Collection[int]) -> list[np.ndarray] | None:
    """The CPU plugin's values on the ``carrier`` inputs where every carried type is i32 or f32 (computed in
    their own width on every instruction set), decoded; i64 inputs travel as i32 when their values fit (else
    no answer). None when the plugin cannot run them."""
    wide_moved = [i for i in moved or () if arrays[i].dtype.itemsize > 2]
    if wide_moved:
        # The plugin moves some i32 data through f32 (ReverseSequence turns 47830817 into 47830816) and runs i64
        # as i32: values of more than 2 bytes travel as 16-bit chunks, one run each, exact in f32 too.
        sizes = {arrays[i].dtype.itemsize for i in wide_moved}
        moved_types = {arrays[i].dtype for i in wide_moved}
        if len(sizes) != 1 or len(moved_types) != 1 or len(wide_moved) != len(list(moved or ())):
            return None
        size, (dtype,) = sizes.pop(), moved_types
        part_types = [TensorType(ElementType.U16, t.shape) if t.element_type.numpy_dtype == dtype else t
                      for t in types]
        chunks = []
        for shift in range(0, 8 * size, 16):
            parts = [((x.view(BITS[size]).astype(np.uint64) >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(
                np.uint16) if i in wide_moved else x for i, x in enumerate(arrays)]
            chunk = cpu_widened(build, parts, part_types, moved, constant)
            if chunk is None:
                return None
            chunks.append(chunk)
        joined = []
        for index, (part, t) in enumerate(zip(part_types, types, strict=True)):
            if part is t:
                joined.append(chunks[0][index])
                continue
            bits = np.zeros(t.shape.to_tuple(), np.uint64)
            for number, chunk in enumerate(chunks):
                bits |= chunk[index].astype(np.uint64) << np.uint64(16 * number)
            joined.append(bits.astype(BITS[size]).view(dtype))
        return joined
    carried = carrier(arrays, types, moved, held=32)
    if carried is None and moved is None:  # nothing to widen: the i64 inputs may still travel as i32
        carried = Carrier(list(arrays), [None] * len(types), [t.element_type.numpy_dtype for t in types])
    if carried is None or any(t not in (np.dtype(np.int32), np.dtype(np.float32), np.dtype(np.bool_))
                              for t, f in zip(carried.types, carried.decode, strict=True) if f is not None):
        return None
    carried_indices = {i for i, (x, y) in enumerate(zip(arrays, carried.inputs, strict=True)) if x is not y}
    inputs = []
    for array in carried.inputs:
        if array.dtype == np.int64:  # Constants too: the plugin narrows them (extremes crash it: SIGFPE)
            if array.size and (array.min() < -(2**31) or array.max() >= 2**31):
                return None
            array = array.astype(np.int32)
        inputs.append(array)
    if not all(ElementType.from_numpy(x.dtype) in CPU_TYPES - ISA_DEPENDENT for i, x in enumerate(inputs)
               if i not in constant):
        return None
    try:
        node = build(*[ov_constant(x) for x in inputs])
        wide_types = ov_output_types(node)
    except Exception:
        return None
    if [str(t.shape) for t in wide_types] != [str(t.shape) for t in types]:
        return None
    if [t.element_type.numpy_dtype for t in wide_types] != [
            c if f is not None else t.element_type.numpy_dtype
            for c, f, t in zip(carried.types, carried.decode, types, strict=True)]:
        return None
    if not all(t.element_type in CPU_TYPES - ISA_DEPENDENT for t in wide_types):
        return None
    values = ov_cpu(build, inputs, constant)
    if values is None:  # the plugin refuses some index Parameters (a 0-d Roll shift): they may be Constants
        indices = {i for i, x in enumerate(inputs) if x.dtype == np.int32 and i not in carried_indices}
        values = ov_cpu(build, inputs, {*constant, *indices}) if indices - set(constant) else None
    if values is None:
        return None
    shapes = [t.shape.to_tuple() for t in types]
    if [v.shape for v in values] != shapes:
        if any(v.size != math.prod(shape) for v, shape in zip(values, shapes, strict=True)):
            return None  # the plugin contradicts OpenVINO's shape inference (a plugin bug): no answer
        values = [v.reshape(shape) for v, shape in zip(values, shapes, strict=True)]  # a 0-d output comes as [1]
    return [v if f is None else f(v) for v, f in zip(values, carried.decode, strict=True)]


def ov_convert(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """f32 ``values`` rounded to f16 or bf16 by OpenVINO's Convert (its bf16 rounding is not round to nearest
    even: it truncates when the kept last bit is even), as OpenVINO rounds a result computed through float."""
    node = ov_ops.convert(ov_constant(np.asarray(values, np.float32)), ov_type(ElementType.from_numpy(dtype)))
    (rounded,) = ov_reference(node)  # type: ignore[misc]
    return rounded


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
    return tolerance.replace(ulp=max(tolerance.ulp, 2), eps=max(tolerance.eps, 1.0))


def beyond_f32(arrays: Sequence[np.ndarray]) -> bool:
    """True when an integer input holds a value f32 does not hold exactly (beyond 2^24): the CPU plugin computes
    many integer ops through f32 (PReLU of i32 2147483647 gives -2147483648), so it does not judge them."""
    return any(x.dtype.kind in "iu" and x.size and int(np.abs(x.astype(np.float64)).max()) > 2**24 for x in arrays)


def ov_isolated(node: Any, types: Sequence[TensorType]) -> tuple[list[np.ndarray] | None, str]:
    """OpenVINO's reference (folding, else the node's evaluate) on a configuration ``folding_is_safe`` refuses,
    in a forked child process (tests/ops/isolated.py): (values or None, "reference" or "evaluate")."""
    from tests.ops.isolated import reference_in_child

    model = ov.Model([ov_ops.result(node.output(i)) for i in range(node.get_output_size())], [], "isolated")
    shapes = [list(t.shape.to_tuple()) for t in types] if all(t.shape.is_static for t in types) else None
    return reference_in_child(model, shapes)


def folding_is_safe(arrays: Sequence[np.ndarray]) -> bool:
    """False for empty inputs broadcast against others: OpenVINO 2026.4.1's reference corrupts its heap on
    them (i64 [1,2] - [0,3,1] folds to a [0,0,2] tensor, then free() aborts). The CPU plugin is the oracle."""
    shapes = {x.shape for x in arrays}
    return len(shapes) == 1 or all(x.size for x in arrays)


def ov_cpu(build: BuildOv, inputs: Sequence[np.ndarray], constant: Collection[int]) -> list[np.ndarray] | None:
    """Values from the CPU plugin (Parameters except the ``constant`` inputs); None when it fails."""
    return ov_cpu_or_refusal(build, inputs, constant)[0]


def ov_cpu_or_refusal(build: BuildOv, inputs: Sequence[np.ndarray], constant: Collection[int]
                      ) -> tuple[list[np.ndarray] | None, str | None]:
    """The CPU plugin's values, or its error message when it fails."""
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
    except RuntimeError as refusal:
        return None, str(refusal)
    return [from_tensor(request.get_output_tensor(i)) for i in range(node.get_output_size())], None


def port(compute: Callable[[Op, list[np.ndarray], list[TensorType]], list[np.ndarray] | None]) -> Independent:
    """A test's port of OpenVINO's reference kernel as the oracle (``check_op(independent=port(...))``): its values
    in the output type, held to the op's tolerance."""
    return Independent("port", compute, in_output_type=True)


def cpu_judge(build: BuildOv, read: Callable[[list[np.ndarray] | None, str | None, list[np.ndarray],
                                                list[TensorType]], list[np.ndarray] | None],
              constant: Collection[int] = ()) -> Independent:
    """The CPU plugin as the oracle of an op whose plugin answer needs reading (``check_op(independent=...)``):
    ``read(values, refusal, inputs, output types)`` gives the expected outputs from the plugin's values or its
    refusal (MatrixNms refuses when it keeps no box), or None when they say nothing."""
    def compute(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
        values, refusal = ov_cpu_or_refusal(build, arrays, constant)
        return read(values, refusal, arrays, types)

    return Independent("cpu", compute, in_output_type=True)


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
    return [output.type for output in node.outputs]


# ------------------------------------------------------------------------------------ comparison
def assert_types_equal(actual: Sequence[TensorType], expected: Sequence[TensorType], what: str) -> None:
    """Element types and partial shapes equal, output by output."""
    assert [str(t) for t in actual] == [str(t) for t in expected], f"{what}: irgraph {actual} vs {ORACLE} {expected}"


SHAPES_FROM_DATA = frozenset({"NonZero", "Unique", "NonMaxSuppression", "NMSRotated", "MulticlassNms", "MatrixNms",
                              "GenerateProposals"})
"""Ops whose output shapes depend on the data values themselves (how many are non-zero, unique, kept):
``output_shapes`` says nothing before they run; the interpreter checks the arrays they produce."""


def assert_output_shapes(op: Op, arrays: Sequence[np.ndarray], actual: Sequence[np.ndarray]) -> None:
    """``op.output_shapes`` (what the interpreter checks before the op allocates) says the shapes ``evaluate``
    produced; it says nothing only for the ops :data:`SHAPES_FROM_DATA` names."""
    shapes = op.output_shapes(arrays)
    if shapes is None:
        assert op.type_name in SHAPES_FROM_DATA, f"{op!r}: output_shapes says nothing; inputs {describe(arrays)}"
        return
    assert len(shapes) >= len(actual), f"{op!r}: output_shapes gives {len(shapes)} shapes for {len(actual)} outputs"
    assert [tuple(s) for s in shapes[: len(actual)]] == [a.shape for a in actual], (
        f"{op!r}: output_shapes {shapes} vs evaluate {[a.shape for a in actual]}; inputs {describe(arrays)}")


def _ordered(array: np.ndarray) -> np.ndarray:
    """Floats as integers whose order is the floats' order (so a difference counts ULPs)."""
    width = array.dtype.itemsize * 8
    bits = np.array(array, order="C").view(f"<i{array.dtype.itemsize}").astype(object if width == 64 else np.int64)
    low = -(2 ** (width - 1))
    return np.where(bits < 0, low - bits, bits).reshape(array.shape)  # ascontiguousarray makes scalars 1-D


def assert_values_close(
    actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance, what: str, magnitude: np.ndarray | None = None,
    oracle: str = ORACLE,
) -> None:
    """Equal dtype and shape; values bit for bit (any NaN equals any NaN) or within ``tolerance``.

    ``magnitude`` (same shape, f64) is the sum of the absolute terms of each value, for ``sum_eps``.
    """
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} vs {oracle} {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} vs {oracle} {expected.shape}"
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
                with np.errstate(invalid="ignore"):  # inf - inf where not finite (masked out)
                    close |= finite & (np.abs(wide_a - wide_e) <= tolerance.sum_eps * eps * magnitude)
            bad &= ~close
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0]) if actual.ndim else ()
        examples = [(actual[i], expected[i]) for i in map(tuple, np.argwhere(bad)[:4])] if actual.ndim else []
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {actual.size} values differ (tolerance {tolerance.describe()}); first at "
            f"{list(where)}: irgraph {actual[where]!r} vs {oracle} {expected[where]!r}; (irgraph, {oracle}) at the "
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
    moved: Collection[int] = (),
    widen: bool = True,
    independent: Independent | None = None,
    label: str = "",
) -> Outcome:
    """Run one configuration through OpenVINO (reference and CPU) and irgraph; fail on any disagreement,
    and fail a configuration no oracle judged (unless ``tests/ops/unjudged.txt`` lists it with a reason).

    ``inputs`` are arrays in irgraph's in-memory dtypes; ``constant`` the input indices that are
    Constants in the CPU model and Consts in irgraph's (shape inference needs their values). The
    oracles, the first that answers judges: OpenVINO's constant folding, the node's ``evaluate`` (in a
    child process where folding may crash), nothing to judge (every output empty), the reference on
    inputs of a wider type (``widen``: i8/i16/u8/u16 as i32, u32 as i64, f16/bf16 as f32, the outputs
    rounded back; ``moved``: the inputs whose values the op only moves, any type carried as integer
    bits), the CPU plugin where its answer does not depend on the instruction set, the op's independent
    formulation (``independent``, the test's own oracle, compared even where another judged; else
    ``tests.ops.independent.FORMULATIONS``), then the CPU plugin on the wider inputs. ``label`` names the
    configuration in its key (``configuration_key``).
    """
    arrays = [np.asarray(x) for x in inputs]
    input_types = [TensorType(ElementType.from_numpy(x.dtype), Shape.static(x.shape)) for x in arrays]
    _log(f"{op!r} {describe(arrays)}")
    values = [x if i in constant else None for i, x in enumerate(arrays)]
    try:
        node = build(*[ov_constant(x) for x in arrays])
    except Exception as refusal:  # OpenVINO raises NodeValidationFailure (a RuntimeError) and others
        _raise_test_bug(refusal)
        _assert_refused(op, input_types, values, arrays, str(refusal))
        return _judged(Outcome(refused=True), op, input_types, [], label)
    expected_types = ov_output_types(node)
    actual_types = irgraph_types(op, input_types, values)
    assert_types_equal(actual_types, expected_types, f"{op!r} on {input_types}")
    assert_attribute_order(op, node)
    try:
        reference = ov_reference(node) if folding_is_safe(arrays) else None
    except Exception as refusal:  # the reference refuses the values ("integer division by zero")
        _assert_refused(op, input_types, values, arrays, f"at evaluation: {refusal}")
        return _judged(Outcome(refused=True), op, input_types, expected_types, label)
    model, _ = irgraph_model(op, input_types, values)
    feeds = {f"in{i}": x for i, x in enumerate(arrays) if i not in constant}
    got = Interpreter(model).run(feeds)
    actual = [got[f"out{i}"] for i in range(len(expected_types))]
    assert_output_shapes(op, arrays, actual)
    outcome = Outcome()
    magnitudes = term_magnitudes(op, arrays, len(actual))

    def compare(oracle: str, expected: Sequence[np.ndarray], tolerance: Callable[[np.ndarray], Tolerance]) -> None:
        outcome.judge = outcome.judge or oracle
        source = ORACLE if oracle in ("reference", "evaluate", "reference-widened") else (
            f"{ORACLE} CPU" if oracle.startswith("cpu") else oracle)
        for index, (mine, theirs) in enumerate(zip(actual, expected, strict=True)):
            what = f"{op!r} output {index} vs {oracle}, inputs {describe(arrays)}"
            assert_values_close(mine, theirs, tolerance(mine), what, magnitudes[index], source)

    def own(_: np.ndarray) -> Tolerance:
        return op.tolerance

    if reference is not None:
        outcome.reference = True
        compare("reference", reference, own)
    if outcome.judge is None and folding_is_safe(arrays):  # nothing judged the values yet: the op's own evaluate
        evaluated = ov_evaluate(node, arrays, expected_types)
        if evaluated is not None:
            outcome.evaluated = True
            compare("evaluate", evaluated, own)
    if outcome.judge is None and not folding_is_safe(arrays):
        isolated, how = ov_isolated(node, expected_types)
        if isolated is not None:
            outcome.reference, outcome.evaluated = how == "reference", how == "evaluate"
            compare(how, isolated, own)
    if outcome.judge is None and expected_types and all(
            t.shape.is_static and 0 in t.shape.to_tuple() for t in expected_types):
        # no values: OpenVINO's element types and shapes, compared above and here with the arrays, are the answer
        compare("empty", [np.empty(t.shape.to_tuple(), t.element_type.numpy_dtype) for t in expected_types],
                lambda _: EXACT)
    carriers = ([moved] if moved else []) + ([None] if widen else [])
    for carried in carriers if outcome.judge is None else ():
        wide = ov_widened(build, arrays, expected_types, carried)
        if wide is not None:
            compare("reference-widened", wide, own)
            break
    if cpu and all(ElementType.from_numpy(x.dtype) in CPU_TYPES for x in arrays) and all(
        t.element_type in CPU_TYPES for t in expected_types
    ):
        # The plugin judges (a difference fails) unless its answer depends on the instruction set, or OpenVINO's
        # reference judged already (the plugin saturates narrow integer sums the reference wraps: noted)
        types_used = [t.element_type for t in (*input_types, *expected_types)]
        plugin_judges = outcome.judge not in ("reference", "evaluate", "reference-widened") and not any(
            t in ISA_DEPENDENT for t in types_used) and not any(arrays[i].dtype.kind in "iu" for i in moved) and (
            not any(a.dtype.kind in "iu" for a in actual) or not beyond_f32(arrays))
        on_cpu = ov_cpu(build, arrays, constant)
        if on_cpu is not None:
            outcome.cpu = True
            for index, (mine, theirs) in enumerate(zip(actual, on_cpu, strict=True)):
                what = f"{op!r} output {index} vs CPU plugin, inputs {describe(arrays)}"
                if theirs.shape == (1,) and mine.shape == () == expected_types[index].shape.to_tuple():
                    theirs = theirs.reshape(())  # the plugin's outputs have rank 1 at least
                if theirs.shape != mine.shape and mine.shape == expected_types[index].shape.to_tuple():
                    # The plugin's output contradicts OpenVINO's own shape inference (pdpd [0,1] / [0] gives
                    # [0,0]): a plugin bug, noted; the configuration is not judged by the plugin.
                    outcome.cpu_deviation = f"{what}: shape {theirs.shape}, inferred {mine.shape}"
                    plugin_judges = False
                    continue
                try:
                    assert_values_close(mine, theirs, cpu_tolerance or cpu_default(op.tolerance), what,
                                        magnitudes[index])
                except AssertionError as deviation:
                    if plugin_judges:
                        raise
                    outcome.cpu_deviation = str(deviation)
            if plugin_judges:
                outcome.judge = outcome.judge or "cpu"
    from tests.ops.independent import formulation_of  # the formulations import this module

    formulation = independent or formulation_of(op)  # a test's own oracle is always compared
    if formulation is not None and (outcome.judge is None or CHECK_FORMULATIONS or independent is not None):
        expected = formulation.compute(op, arrays, expected_types)
        if expected is not None:
            compare(formulation.oracle, [_rounded(e, a.dtype) for e, a in zip(expected, actual, strict=True)],
                    own if formulation.in_output_type else
                    lambda mine: higher_precision_tolerance(op.tolerance, mine.dtype))
    for carried in carriers if outcome.judge is None and cpu else ():
        wide = cpu_widened(build, arrays, expected_types, carried, constant)
        if wide is not None:
            compare("cpu-widened", wide, lambda _: cpu_tolerance or cpu_default(op.tolerance))
            break
    return _judged(outcome, op, input_types, expected_types, label)


def _rounded(expected: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """An independent formulation's values (computed wider) in irgraph's output dtype, rounded once to f32 and
    from there as OpenVINO rounds (``ov_convert``)."""
    expected = np.asarray(expected)
    if expected.dtype == dtype:
        return expected
    if np.dtype(dtype).kind in "iub":
        if expected.dtype.kind == "f":
            raise AssertionError(f"an independent formulation gave {expected.dtype} for a {dtype} output")
        return expected.astype(dtype)
    with np.errstate(all="ignore"):
        if dtype in (np.float16, ml_dtypes.bfloat16):
            return ov_convert(expected.astype(np.float32), dtype)
        return expected.astype(dtype)


def higher_precision_tolerance(tolerance: Tolerance, dtype: np.dtype) -> Tolerance:
    """The op's tolerance against an exact result rounded to ``dtype``. f16 and bf16 compute in f32 and round
    once: a sum may be off by f32's rounding (``sum_eps`` counts f32 eps, 2^-13 or 2^-16 of the output's) and
    the result may round to the neighbour of the exact result's rounding (1 ULP, for ops that are not exact)."""
    if dtype not in (np.float16, ml_dtypes.bfloat16) or tolerance.is_exact:
        return tolerance
    scale = float(np.finfo(np.float32).eps) / float(ml_dtypes.finfo(dtype).eps)
    return tolerance.replace(ulp=max(tolerance.ulp, 1), sum_eps=tolerance.sum_eps * scale)


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


def _raise_test_bug(error: Exception) -> None:
    """Re-raise what a ``build`` callable raised when it is a bug of the test, not OpenVINO refusing the node: a
    misspelt name or attribute, a wrong argument count (a TypeError that pybind11's "incompatible function
    arguments" is not). Counted as a refusal, such a typo let a test compare nothing while irgraph refused too."""
    if isinstance(error, (NameError, AttributeError, ImportError, KeyError, IndexError, AssertionError)):
        raise error
    if type(error) is TypeError and "incompatible" not in str(error):
        raise error


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
        _raise_test_bug(refusal)
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
