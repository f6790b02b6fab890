"""Const (Constant-1): a tensor stored in the weights file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType, ElementTypeLike
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.op import Inputs, Op, attribute, check, checked
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits

_CONSTANT_ITEMS = (int, float, np.number, str, bytes)
"""What an object array given to Const.of may hold: numbers, or the strings of a string constant."""


@register
@dataclass(frozen=True, eq=False, repr=False)  # Op's repr, not compiled at every start-up
class Const(Op):
    """A constant tensor. Spec: Constant-1 (IR type ``Const``).

    ``value`` holds the data in its in-memory dtype (one element per byte for sub-byte types);
    the IR ``offset`` and ``size`` belong to the weights file, not to the op, except for one
    detail of an empty Const: OpenVINO writes the buffer its Constant holds, one 0x00 byte
    (``size="1"``) when the Constant allocated it, none (``size="0"``) when it wraps a zero-byte
    tensor (Consts the PyTorch frontend makes, ``torch.empty`` in If bodies). ``zero_byte_blob``
    keeps the latter, so such a file is re-written as it was.
    """

    type_name = "Const"
    introduced = 1
    # OpenVINO 2026.4 reads only the exact spelling: type="Constant" fails ("ptr is Null") and
    # type="const" is "not in opset1", so irgraph refuses them too.
    traits = OpTraits(exact_type_name=True, carries_tensor=True)
    inputs = Inputs.of()

    element_type: ElementType = attribute()
    shape: tuple[int, ...] = attribute()
    value: np.ndarray | None = field(default=None, repr=False)  # None: the weights were not loaded
    zero_byte_blob: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        check(not self.element_type.is_dynamic, "Const element_type must be a concrete type. Got: dynamic")
        if self.shape and min(self.shape) < 0:  # min: a C loop (a reader makes thousands of Consts)
            raise OpError(f"Const shape dims must be >= 0. Got: {list(self.shape)}")
        if self.value is None:
            return
        # Messages are built only on failure: formatting a dtype costs more than the checks (10^4 Consts per model).
        if tuple(self.value.shape) != tuple(self.shape):
            raise OpError(
                f"Const value has shape {list(self.value.shape)} but the declared shape is {list(self.shape)}"
            )
        if self.value.dtype != self.element_type.numpy_dtype:
            raise OpError(
                f"Const value has dtype {self.value.dtype} but element_type {self.element_type} needs "
                f"{self.element_type.numpy_dtype}"
            )

    @classmethod
    def of(cls, value: Any, element_type: ElementTypeLike | None = None) -> Const:
        """A Const holding ``value`` (Python ints become i64, floats f32 unless a type is given)."""
        if element_type is not None:
            element_type = ElementType.of(element_type)
        try:
            array = np.asarray(value)
        except ValueError as err:  # a ragged list: [[1], [1, 2]]
            raise OpError(f"a constant must be a rectangular array of numbers: {err}") from None
        if array.dtype.kind == "O" and not all(isinstance(item, _CONSTANT_ITEMS) for item in array.flat):
            # NumPy turns None into nan and keeps other objects; a constant holds numbers or strings only
            raise OpError(f"a constant must hold numbers or strings, not {array.flat[0]!r}" if array.size == 1 else
                          "a constant must hold numbers or strings: " + next(repr(item) for item in array.flat
                          if not isinstance(item, _CONSTANT_ITEMS)) + " is neither")
        if element_type is None:
            if array.dtype.kind in "US":
                element_type = ElementType.STRING
            elif isinstance(value, np.ndarray | np.generic):
                element_type = ElementType.from_numpy(array.dtype)
            elif array.dtype.kind in "iu":
                element_type = ElementType.I64
            elif array.dtype.kind == "f":
                element_type = ElementType.F32
            else:
                element_type = ElementType.from_numpy(array.dtype)
        source = array
        with np.errstate(over="ignore", invalid="ignore"):
            try:
                array = array.astype(element_type.numpy_dtype, copy=False)
            except OverflowError:  # Python ints of an object array: [2**65] as i64, [300] as u8
                low, high = element_type.integer_range if element_type.is_integral else (-(2**63), 2**64 - 1)
                big = next((item for item in array.flat if isinstance(item, int) and not low <= item <= high), None)
                raise OpError(f"the constant value {big!r} does not fit {element_type}" if big is not None else
                              f"a value of the constant does not fit {element_type}") from None
            except (TypeError, ValueError) as err:  # "ab" as i64
                raise OpError(f"a constant of {element_type} must hold numbers: {err}") from None
        _check_cast(source, array, element_type)
        return cls(element_type=element_type, shape=tuple(array.shape), value=array)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Const):
            return NotImplemented
        if (self.element_type, self.shape) != (other.element_type, other.shape):
            return False
        if self.value is None or other.value is None:
            return self.value is other.value
        if self.element_type is ElementType.STRING:
            return self.value.tolist() == other.value.tolist()
        return self.value.tobytes() == other.value.tobytes()

    def __hash__(self) -> int:
        return hash((self.element_type, self.shape))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The declared type and shape."""
        return [TensorType(self.element_type, Shape.static(self.shape))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The stored value."""
        return [checked(self.value, "Const has no value (its weights were not loaded)")]

    def __getstate__(self) -> dict[str, Any]:
        """The fields with the value made (a copy or pickle holds the value, not the reader's bytes)."""
        self.value  # noqa: B018 - reading it makes a value unpacked on first read
        return dict(self.__dict__)


class _UnpackedOnFirstRead:
    """``Const.value`` where the instance holds none: the value a reader left packed, made on first read.

    A non-data descriptor, so a Const holding its value (every Const but these) reads it from its own
    ``__dict__`` at no cost. The fast reader keeps sub-byte weights (u4, i4, nf4, ...) packed as OpenVINO
    does: ``_unpack`` makes the codes (1.5-2 ms of an 8-layer u4 LLM's 19 ms read), stored as ``value`` by
    the first reader. Two threads reading at once may both unpack; both get the one value stored first.
    """

    def __get__(self, op: Const | None, owner: type | None = None) -> np.ndarray | None:
        if op is None:
            return None  # the field's default, as the dataclass left it on the class
        state = op.__dict__
        unpack = state.get("_unpack")
        if unpack is None:  # none, or another thread stored the value first (before dropping _unpack)
            value: np.ndarray | None = state.get("value")
            return value
        value = state.setdefault("value", unpack())
        state.pop("_unpack", None)
        return value


Const.value = _UnpackedOnFirstRead()  # type: ignore[assignment] # the field's default (None) for Consts without


def const_unpacked_later(
    op_class: type[Const], element_type: ElementType, shape: tuple[int, ...], unpack: Callable[[], np.ndarray]
) -> Const:
    """A Const whose value ``unpack()`` makes on first read: it must return an array of ``element_type``'s
    dtype and of ``shape`` (the reader's own unpacking of bytes whose size it checked)."""
    op = object.__new__(op_class)
    state = op.__dict__
    state["element_type"] = element_type
    state["shape"] = shape
    state["zero_byte_blob"] = False
    state["_unpack"] = unpack
    return op


def holds_value(op: Const) -> bool:
    """Whether ``op`` has a value (loaded or still packed), without unpacking one."""
    return "_unpack" in op.__dict__ or op.__dict__.get("value") is not None


def _check_cast(source: np.ndarray, cast: np.ndarray, element_type: ElementType) -> None:
    """OpError when casting a number to ``element_type`` changed it past rounding: 300 as u8 is not 44, -1 as u32
    not 4294967295, 2.7 as i32 not 2, 16 as u4 not 0, 1e40 as f16 or bf16 not inf (NumPy's and ml_dtypes' astype
    wrap and truncate without a word)."""
    if source.dtype.kind not in "biuf" or source.dtype == cast.dtype:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        if element_type.is_integral or element_type is ElementType.NF4:
            # The range comes from the type's width, not its NumPy dtype: u3, u6 and nf4 codes are held in uint8.
            low, high = element_type.integer_range
            changed = (source < low) | (source > high)
            if source.dtype.kind == "f":
                changed |= ~(cast.astype(np.float64) == source)
        elif element_type.is_real:
            changed = np.isfinite(source.astype(np.float64)) & ~np.isfinite(cast.astype(np.float64))
        else:
            return
    if np.any(changed):
        first = np.asarray(source).reshape(-1)[int(np.argmax(np.asarray(changed).reshape(-1)))]
        raise OpError(f"the constant value {first.item()!r} does not fit {element_type}")

