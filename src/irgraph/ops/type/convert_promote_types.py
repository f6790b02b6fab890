"""ConvertPromoteTypes-14: both inputs converted to one common element type (PyTorch/NumPy-like promotion)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.type.convert import convert_values

E = ElementType
SUPPORTED = frozenset({E.DYNAMIC, E.BOOLEAN, E.F16, E.F32, E.F64, E.I4, E.I8, E.I16, E.I32, E.I64, E.U1, E.U4,
                       E.U8, E.U16, E.U32, E.U64, E.F8E4M3, E.F8E5M2, E.BF16})
"""The element types OpenVINO 2026.4.1's ConvertPromoteTypes takes."""
_SIGNED_INTEGERS = {4: E.I4, 8: E.I8, 16: E.I16, 32: E.I32, 64: E.I64}
_UNSUPPORTED = "Unsupported input element types for ConvertPromoteTypes with given attributes."


def _signed(element_type: ElementType) -> bool:
    """OpenVINO's ``is_signed``: floats and signed integers."""
    return element_type.is_real or element_type.ir_name.startswith("i")


def common_type(first: TensorType, second: TensorType, promote_unsafe: bool, pytorch_scalar_promotion: bool,
                u64_target: ElementType) -> ElementType:
    """OpenVINO's ``evaluate_common_type``, rule by rule, with its messages."""
    a, b = first.element_type, second.element_type
    check(a in SUPPORTED and b in SUPPORTED, f"ConvertPromoteTypes does not take {a if a not in SUPPORTED else b}")
    if a.is_dynamic or b.is_dynamic:
        return E.DYNAMIC
    if a is b:
        return a
    if a is E.BOOLEAN:
        return b
    if b is E.BOOLEAN:
        return a
    if a.is_real != b.is_real:  # a float and an integer: the float, wide enough unless unsafe
        real, integer = (a, b) if a.is_real else (b, a)
        check(promote_unsafe or real.bitwidth >= 2 * integer.bitwidth,
              f"Integer input cannot be safely promoted to floating-point. Got: {a} and {b}")
        return real
    scalar_a, scalar_b = (t.shape.is_static and not t.shape.rank_is_dynamic and t.shape.rank == 0
                          for t in (first, second))
    if pytorch_scalar_promotion and scalar_a != scalar_b:  # the tensor's type, if it can hold the scalar's
        target, scalar = (b, a) if scalar_a else (a, b)
        if not promote_unsafe:
            same_sign = _signed(target) == _signed(scalar) and target.bitwidth >= scalar.bitwidth
            check(same_sign or (_signed(target) and not _signed(scalar) and 2 * target.bitwidth >= scalar.bitwidth),
                  f"Scalar input cannot be PyTorch-like aligned using safe promotion rules. Got: {a} and {b}")
        return target
    if _signed(a) != _signed(b):  # signed and unsigned integers: a signed one twice the unsigned's width
        unsigned, signed = (b, a) if _signed(a) else (a, b)
        if unsigned.bitwidth <= 32 and (promote_unsafe or 2 * unsigned.bitwidth <= signed.bitwidth):
            return _SIGNED_INTEGERS[max(2 * unsigned.bitwidth, signed.bitwidth)]
        check(promote_unsafe, "Unsigned integer input cannot be safely promoted into any supported signed integer. "
              f"Got: {a} and {b}")
        return u64_target
    if a.bitwidth != b.bitwidth:
        return a if a.bitwidth >= b.bitwidth else b
    if promote_unsafe and {a, b} == {E.F8E4M3, E.F8E5M2}:
        return E.F16
    if promote_unsafe and {a, b} == {E.F16, E.BF16}:
        return E.F32
    check(False, f"{_UNSUPPORTED} Got: {a} and {b}")
    raise AssertionError  # unreachable: check raised


@register
@dataclass(frozen=True)
class ConvertPromoteTypes(Op):
    """Both inputs converted (as Convert-1) to their common type: a float beats an integer (twice the integer's
    width unless ``promote_unsafe``), signed and unsigned integers meet in a signed one twice the unsigned's
    width (u64's ``u64_integer_promotion_target`` when unsafe), otherwise the wider type; with
    ``pytorch_scalar_promotion`` a scalar of the same kind takes the tensor's type. Spec: ConvertPromoteTypes-14.
    """

    type_name = "ConvertPromoteTypes"
    introduced = 14
    inputs = Inputs.of(InputSpec("input_0"), InputSpec("input_1"))

    promote_unsafe: bool = attribute(False)
    pytorch_scalar_promotion: bool = attribute(False)
    u64_integer_promotion_target: ElementType = attribute(E.F32)

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Two: the inputs, converted."""
        return 2

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Each input's shape with the common type."""
        target = common_type(inputs[0], inputs[1], self.promote_unsafe, self.pytorch_scalar_promotion,
                             self.u64_integer_promotion_target)
        return [TensorType(target, inputs[0].shape), TensorType(target, inputs[1].shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Convert-1 of each input to the common type."""
        types = [TensorType(ElementType.from_numpy(np.asarray(x).dtype), Shape.static(np.shape(x))) for x in inputs]
        target = common_type(types[0], types[1], self.promote_unsafe, self.pytorch_scalar_promotion,
                             self.u64_integer_promotion_target)
        return [convert_values(np.asarray(x), target) for x in inputs]
