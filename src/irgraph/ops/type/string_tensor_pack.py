"""StringTensorPack-15: a string tensor from begins, ends and UTF-8 bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.op import UNSETTLED, Inputs, InputSpec, Op, check, checked
from irgraph.ops.registry import register

_INDEX_TYPES = (ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class StringTensorPack(Op):
    """Strings of the shape of ``begins``: string ``i`` is ``symbols[begins[i]:ends[i]]`` decoded as UTF-8.

    begins and ends (i32 or i64, shapes that merge) index the u8 ``symbols``. irgraph holds strings as Python
    ``str``, so a span that is not UTF-8 is refused, as are spans outside the symbols or ending before they begin
    (OpenVINO's reference reads out of bounds there). Spec: StringTensorPack-15.
    """

    type_name = "StringTensorPack"
    introduced = 15
    inputs = Inputs.of(InputSpec("begins"), InputSpec("ends"), InputSpec("symbols"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Strings of the begins' and ends' shapes merged."""
        begins, ends, symbols = inputs
        kinds = (begins.element_type, ends.element_type)
        # A dynamic element type is refused too, as openvino 2026.4.1 refuses it (for symbols as well).
        check(kinds[0] in _INDEX_TYPES and kinds[0] is kinds[1],
              f"The element types of the begins and ends input tensors must match and be of i32 or i64 type. Got: "
              f"{kinds[0]} and {kinds[1]}")
        check(symbols.element_type is ElementType.U8,
              f"StringTensorPack expects a tensor with ov::element::u8 elements. Got: {symbols.element_type}")
        check(symbols.shape.rank_is_dynamic or symbols.shape.rank == 1, "Symbols input must be 1D.")
        merged = begins.shape.merge(ends.shape)
        merged = checked(merged, "The shapes of begins and ends have to be compatible.")
        return [TensorType(ElementType.STRING, merged)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each span of symbols decoded to a ``str``."""
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        begins = np.asarray(inputs[0]).reshape(-1).tolist()
        ends = np.asarray(inputs[1]).reshape(-1).tolist()
        symbols = np.asarray(inputs[2])
        check(symbols.ndim == 1, "Symbols input must be 1D.")
        text = symbols.astype(np.uint8, copy=False).tobytes()
        strings = []
        for index, (begin, end) in enumerate(zip(begins, ends, strict=True)):
            check(0 <= begin <= end <= len(text), f"String {index} spans symbols [{begin}, {end}), which must lie "
                  f"within the {len(text)} symbols and not end before it begins")
            try:
                strings.append(text[begin:end].decode("utf-8"))
            except UnicodeDecodeError as error:
                check(False, f"String {index} (symbols [{begin}, {end})) is not UTF-8: {error.reason} at byte "
                      f"{begin + error.start}")
        result = np.empty(len(strings), object)
        result[:] = strings
        return [result.reshape(shape)]
