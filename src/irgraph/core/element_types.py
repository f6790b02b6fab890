"""ElementType: IR name <-> port precision <-> NumPy dtype <-> bit width.

Sub-byte types (u1, u2, u3, u4, u6, i4, nf4, f4e2m1) are held in memory one element per byte
(ml_dtypes where it has the type, else uint8 codes); ``irgraph.io.weights`` packs them for the .bin.

ml_dtypes is imported when a type it holds is first used (``numpy_dtype`` of bf16, f8, f4, i4, u1, u2, u4, or a
dtype NumPy alone does not have): creating its types costs milliseconds, and most models use none of them.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.errors import IrError, IrParseError


class ElementType(enum.Enum):
    """Every IR element type, with its spellings and in-memory NumPy dtype."""

    #          ir_name    precision      bits  numpy dtype (None: no data; a name: ml_dtypes' type of that name)
    DYNAMIC = ("dynamic", "UNSPECIFIED", 0, None)
    BOOLEAN = ("boolean", "BOOL", 8, np.dtype(np.bool_))
    BF16 = ("bf16", "BF16", 16, "bfloat16")
    F16 = ("f16", "FP16", 16, np.dtype(np.float16))
    F32 = ("f32", "FP32", 32, np.dtype(np.float32))
    F64 = ("f64", "FP64", 64, np.dtype(np.float64))
    F8E4M3 = ("f8e4m3", "F8E4M3", 8, "float8_e4m3fn")
    F8E5M2 = ("f8e5m2", "F8E5M2", 8, "float8_e5m2")
    F8E8M0 = ("f8e8m0", "F8E8M0", 8, "float8_e8m0fnu")
    F4E2M1 = ("f4e2m1", "F4E2M1", 4, "float4_e2m1fn")
    NF4 = ("nf4", "NF4", 4, np.dtype(np.uint8, metadata={"irgraph_element_type": "nf4"}))
    I4 = ("i4", "I4", 4, "int4")
    I8 = ("i8", "I8", 8, np.dtype(np.int8))
    I16 = ("i16", "I16", 16, np.dtype(np.int16))
    I32 = ("i32", "I32", 32, np.dtype(np.int32))
    I64 = ("i64", "I64", 64, np.dtype(np.int64))
    U1 = ("u1", "BIN", 1, "uint1")
    U2 = ("u2", "U2", 2, "uint2")
    U3 = ("u3", "U3", 3, np.dtype(np.uint8))
    U4 = ("u4", "U4", 4, "uint4")
    U6 = ("u6", "U6", 6, np.dtype(np.uint8))
    U8 = ("u8", "U8", 8, np.dtype(np.uint8))
    U16 = ("u16", "U16", 16, np.dtype(np.uint16))
    U32 = ("u32", "U32", 32, np.dtype(np.uint32))
    U64 = ("u64", "U64", 64, np.dtype(np.uint64))
    STRING = ("string", "STRING", 0, np.dtype(object))

    def __init__(self, ir_name: str, precision: str, bitwidth: int, numpy_dtype: np.dtype | str | None) -> None:
        self.ir_name = ir_name
        self.precision = precision
        self.bitwidth = bitwidth
        if isinstance(numpy_dtype, str):
            self._ml_dtypes_name = numpy_dtype  # numpy_dtype is set on first use (__getattr__)
        else:
            self.numpy_dtype: np.dtype | None = numpy_dtype

    if not TYPE_CHECKING:  # hidden from mypy, which would take any attribute name as valid

        def __getattr__(self, name: str) -> Any:
            # Only reached for an attribute __init__ did not set: the numpy_dtype of an ml_dtypes type, once.
            if name != "numpy_dtype" or "_ml_dtypes_name" not in self.__dict__:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            import ml_dtypes

            dtype = np.dtype(getattr(ml_dtypes, self._ml_dtypes_name))
            self.__dict__["numpy_dtype"] = dtype
            return dtype

    def __str__(self) -> str:
        return self.ir_name

    def __repr__(self) -> str:
        return f"ElementType.{self.name}"

    @property
    def dtype(self) -> np.dtype:
        """``numpy_dtype`` of a type that has values: every type but ``dynamic``, for which IrError."""
        if self.numpy_dtype is None:
            raise IrError(f"element type {self} has no values, hence no NumPy dtype")
        return self.numpy_dtype

    @property
    def is_dynamic(self) -> bool:
        """True for the ``dynamic`` (unspecified) type."""
        return self is ElementType.DYNAMIC

    @property
    def is_packed(self) -> bool:
        """True for types stored several to a byte in the .bin."""
        return 0 < self.bitwidth < 8

    @property
    def integer_range(self) -> tuple[int, int]:
        """Smallest and largest value of an integer type, or of the codes a sub-byte type holds (nf4: 0..15),
        from its bit width (u3 and u6 codes are held in uint8, whose range is wider)."""
        bits = self.bitwidth
        if self.ir_name.startswith("i"):
            return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return 0, (1 << bits) - 1

    @property
    def is_integral(self) -> bool:
        """True for integer types (signed or unsigned, any width); boolean is not integral."""
        return self.ir_name[0] in "iu"

    @property
    def is_real(self) -> bool:
        """True for floating-point types."""
        return self.ir_name.startswith(("f", "bf")) or self is ElementType.NF4

    def merge(self, other: ElementType) -> ElementType | None:
        """OpenVINO's element type merge: the non-dynamic of the two, or None if they differ."""
        if self.is_dynamic:
            return other
        if other.is_dynamic or other is self:
            return self
        return None

    @classmethod
    def from_ir_name(cls, text: str) -> ElementType:
        """Parse an ``element_type`` attribute (canonical names, any case; ``undefined`` too)."""
        found = _BY_IR_NAME.get(text.lower())
        if found is None:
            raise IrParseError(f"element type {text!r} is not an IR element type; known: {', '.join(_BY_IR_NAME)}")
        return found

    @classmethod
    def from_precision(cls, text: str) -> ElementType:
        """Parse a port ``precision`` (legacy upper-case like FP32, or a canonical name)."""
        found = _BY_PRECISION.get(text)
        if found is None:
            raise IrParseError(f"port precision {text!r} is not an IR precision (expected e.g. FP32, I64, f32)")
        return found

    @classmethod
    def of(cls, value: ElementTypeLike) -> ElementType:
        """An element type from what a user may write for one: an ElementType, an IR name (``"f32"``, any case)
        or a NumPy dtype or scalar type (``np.float32``, ``np.dtype("int64")``, ``"float32"``).

        IR names come first where the two spellings collide: ``"f16"`` and ``"i8"`` are IR's f16 and i8
        (NumPy reads them as float128 and int64). IrParseError for anything else.
        """
        if isinstance(value, ElementType):
            return value
        if isinstance(value, str):
            found = _BY_IR_NAME.get(value.lower())
            if found is not None:
                return found
        try:
            dtype = _numpy_dtype(value)
        except TypeError:
            raise IrParseError(
                f"{value!r} is not an element type (an IR name like 'f32', or a NumPy dtype like np.float32)"
            ) from None
        return cls.from_numpy(dtype)

    @classmethod
    def from_numpy(cls, dtype: np.dtype | type) -> ElementType:
        """The element type whose in-memory dtype is ``dtype`` (exact dtypes only, no casts)."""
        dtype = np.dtype(dtype)
        if dtype.kind in "US":
            return ElementType.STRING
        if dtype.metadata and dtype.metadata.get("irgraph_element_type") == "nf4":
            # nf4 codes are uint8 whose meaning is a table (0..15 -> 16 levels), not the integers: the tagged
            # dtype (equal to uint8 in every comparison NumPy makes) keeps Convert from reading them as u8.
            return ElementType.NF4
        found = _BY_DTYPE.get(dtype)
        if found is None and _ML_DTYPES_TYPES:
            _add_ml_dtypes()  # a dtype not NumPy's own may be one of ml_dtypes'
            found = _BY_DTYPE.get(dtype)
        if found is None:
            raise IrParseError(f"NumPy dtype {dtype} has no IR element type")
        return found


ElementTypeLike = ElementType | str | np.dtype[Any] | type[np.generic]
"""What a builder takes for an element type (:meth:`ElementType.of`): ``"f32"``, ``np.float32``, ``np.dtype("f4")``."""

_BY_IR_NAME: dict[str, ElementType] = {t.ir_name: t for t in ElementType}
_BY_IR_NAME["undefined"] = ElementType.DYNAMIC

_BY_PRECISION: dict[str, ElementType] = {}
for _type in ElementType:
    _BY_PRECISION[_type.precision] = _type
    _BY_PRECISION[_type.ir_name] = _type
_BY_PRECISION.update(
    {"bin": ElementType.U1, "U1": ElementType.U1, "undefined": ElementType.DYNAMIC, "BOOLEAN": ElementType.BOOLEAN}
)

_ML_DTYPES_TYPES = [t for t in ElementType if "_ml_dtypes_name" in t.__dict__]
"""The types whose dtype is ml_dtypes', not yet in _BY_DTYPE (emptied when they are added)."""

# The first type listed for a dtype wins: uint8 means u8, not the nf4/u3/u6 codes.
_BY_DTYPE: dict[np.dtype, ElementType] = {}
for _type in (
    ElementType.U8,
    *[t for t in ElementType if t not in _ML_DTYPES_TYPES and t.numpy_dtype is not None and t is not ElementType.STRING]
):
    if _type.numpy_dtype is not None:  # U8's is set; the check narrows the type
        _BY_DTYPE.setdefault(_type.numpy_dtype, _type)


def _numpy_dtype(value: str | np.dtype[Any] | type[np.generic]) -> np.dtype:
    """``np.dtype(value)``; a name NumPy does not know yet may be one ml_dtypes registers (``"bfloat16"``)."""
    try:
        return np.dtype(value)
    except TypeError:
        if not isinstance(value, str) or not _ML_DTYPES_TYPES:
            raise
    _add_ml_dtypes()
    return np.dtype(value)


def _add_ml_dtypes() -> None:
    """Add ml_dtypes' types to _BY_DTYPE (importing ml_dtypes): none of their dtypes is one of NumPy's own."""
    for element_type in _ML_DTYPES_TYPES:
        _BY_DTYPE.setdefault(element_type.dtype, element_type)
    _ML_DTYPES_TYPES.clear()
