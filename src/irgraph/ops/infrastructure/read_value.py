"""ReadValue-3 and ReadValue-6: read a variable kept between runs (stateful models, the KV cache).

A ReadValue outputs its variable's value: the value the model's Assign of the same
``variable_id`` wrote at the end of the previous run, or, while the variable has none (the first
run, after ``reset_state``), the initial value: its input, or zeros of the declared type and
shape when ReadValue-6 has no input. Only an :class:`~irgraph.runtime.interpreter.Interpreter` keeps
variables, so ``evaluate`` refuses (and constant folding never folds a ReadValue, as in OpenVINO);
the interpreter runs it through :mod:`irgraph.runtime.state`.

The variable's type is the ReadValue's output type: ReadValue-3 declares its input's type;
ReadValue-6 its ``variable_type`` and ``variable_shape`` attributes, which must *relax* the initial
value's type (equal, or dynamic) and shape (each dim's interval contains the input's), as
OpenVINO's ``ReadValue::validate_and_infer_types`` checks. One exception, as OpenVINO: a
ReadValue-6 whose variable has a dynamic type *and* a dynamic rank (IR files of older OpenVINO)
declares its input's type instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register


def relaxes(wide: Shape, narrow: Shape) -> bool:
    """True when every tensor ``narrow`` allows, ``wide`` allows too (OpenVINO's ``PartialShape::relaxes``)."""
    if wide.dims is None:
        return True
    if narrow.dims is None or len(wide.dims) != len(narrow.dims):
        return False
    return all(_dim_relaxes(a, b) for a, b in zip(wide.dims, narrow.dims, strict=True))


def _dim_relaxes(wide: Dim, narrow: Dim) -> bool:
    return wide.min <= narrow.min and (wide.max is None or (narrow.max is not None and narrow.max <= wide.max))


@dataclass(frozen=True)
class VariableOp(Op):
    """What ReadValue and Assign share: the ``variable_id`` of the variable they read or write."""

    variable_id: str = attribute()

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Refused: a variable lives in an Interpreter, which runs this op through irgraph.runtime.state."""
        raise OpError(f"{self.title()} reads or writes variable {self.variable_id!r}, which only an Interpreter keeps")


@dataclass(frozen=True)
class ReadValueBase(VariableOp):
    """The shared part of ReadValue-3 and ReadValue-6."""

    type_name = "ReadValue"

    def initial_value(self, variable: TensorType) -> np.ndarray:
        """The value of a variable nothing set yet when the ReadValue has no input: zeros of ``variable``,
        each dynamic dim at its lower bound (``?`` is 0: a KV cache starts empty, as OpenVINO 2026.4.1's CPU
        plugin starts the ``[1, heads, ?, size]`` variables that make_stateful leaves without an input)."""
        element_type, shape = variable.element_type, variable.shape
        check(
            not element_type.is_dynamic and not shape.rank_is_dynamic,
            f"{self.title()} has no initial value input, so variable {self.variable_id!r} starts as zeros of its "
            f"declared type, which needs an element type and a rank; it is {element_type}{shape}: set the "
            "variable's value before the first run (Interpreter.set_state)",
        )
        sizes = tuple(dim.min for dim in shape)
        dtype = element_type.numpy_dtype
        if element_type is ElementType.STRING:
            return np.full(sizes, "", dtype=object)
        return np.zeros(sizes, dtype=dtype)


@register
@dataclass(frozen=True)
class ReadValue3(ReadValueBase):
    """ReadValue-3: the variable's value, initially its input; the variable has the input's type."""

    introduced = 3
    inputs = Inputs.of(InputSpec("init_value"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input's type."""
        return [inputs[0]]


@register
@dataclass(frozen=True)
class ReadValue6(ReadValueBase):
    """ReadValue-6: a variable of ``variable_type`` and ``variable_shape``, initially its input or zeros.

    The input is optional: without it the variable starts as zeros of the declared type and shape.
    """

    introduced = 6
    inputs = Inputs.optional(0, InputSpec("init_value"))

    # OpenVINO's reader leaves a missing variable_type / variable_shape dynamic; its writer writes both.
    variable_type: ElementType = attribute(ElementType.DYNAMIC)
    variable_shape: Shape = attribute(DYNAMIC_RANK)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``variable_type`` and ``variable_shape``, which must relax the initial value's type and shape."""
        declared = TensorType(self.variable_type, self.variable_shape)
        if not inputs:
            return [declared]
        initial = inputs[0]
        check(
            relaxes(self.variable_shape, initial.shape),
            "The shape specified in the Variable has to extend (relax) the shape inferred from the initializing "
            f"subgraph. Variable shape: {self.variable_shape} Initialization shape: {initial.shape}",
        )
        check(
            self.variable_type.is_dynamic or initial.element_type == self.variable_type,
            "The type specified in the Variable has to extend (relax) the type inferred from the initializing "
            f"subgraph. Variable type: {self.variable_type} Initialization type: {initial.element_type}",
        )
        if self.variable_shape.rank_is_dynamic and self.variable_type.is_dynamic:
            return [initial]  # OpenVINO's workaround for IR files of older versions
        return [declared]
