"""StringTensorUnpack-15: a string tensor as begins, ends and the concatenated UTF-8 bytes of its strings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check
from irgraph.ops.registry import register


def utf8(item: object) -> bytes:
    """A string element's bytes as OpenVINO holds them (``std::string``): UTF-8 text, or bytes as they are."""
    if isinstance(item, bytes | np.bytes_):
        return bytes(item)
    if not isinstance(item, str):
        raise OpError(f"A string tensor holds str elements. Got: {type(item).__name__}")
    return item.encode("utf-8")


@register
@dataclass(frozen=True)
class StringTensorUnpack(Op):
    """begins and ends (i32, the data's shape) and symbols (u8 ``[total bytes]``) of a string tensor.

    String ``i`` is ``symbols[begins[i]:ends[i]]``, the strings' UTF-8 bytes one after another in row-major
    order. Spec: StringTensorUnpack-15.
    """

    type_name = "StringTensorUnpack"
    introduced = 15
    inputs = Inputs.of(InputSpec("data"))

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """begins, ends and symbols."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """begins and ends of the data's shape; symbols ``[total bytes]`` when the strings are known."""
        data = inputs[0]
        check(data.element_type is ElementType.STRING,  # dynamic too: openvino 2026.4.1 refuses it
              f"StringTensorUnpack expects a tensor with string elements. Got: {data.element_type}")
        total = Dim.dynamic()
        if values and values[0] is not None:
            total = Dim.static(sum(len(utf8(item)) for item in np.asarray(values[0], object).reshape(-1).tolist()))
        elif data.shape.is_static and data.shape.to_tuple().count(0):
            total = Dim.static(0)  # no strings, no bytes
        return [TensorType(ElementType.I32, data.shape), TensorType(ElementType.I32, data.shape),
                TensorType(ElementType.U8, Shape((total,)))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The data's shape twice and the bytes' count."""
        data = np.asarray(inputs[0], object)
        return [data.shape, data.shape, (sum(len(utf8(item)) for item in data.reshape(-1).tolist()),)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each string's bytes appended to symbols, its span recorded in begins and ends."""
        data = np.asarray(inputs[0])
        check(data.dtype.kind in "OUS", f"StringTensorUnpack expects a tensor with string elements. Got: {data.dtype}")
        encoded = [utf8(item) for item in data.astype(object).reshape(-1).tolist()]
        lengths = np.array([len(item) for item in encoded], np.int64)
        ends = np.cumsum(lengths)
        check(ends.size == 0 or int(ends[-1]) < 2**31, "StringTensorUnpack's i32 ends cannot hold "
              f"{int(ends[-1]) if ends.size else 0} bytes of text")
        begins = ends - lengths
        symbols = np.frombuffer(b"".join(encoded), np.uint8).copy()
        return [begins.astype(np.int32).reshape(data.shape), ends.astype(np.int32).reshape(data.shape), symbols]
