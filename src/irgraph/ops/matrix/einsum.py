"""Einsum-7: Einstein summation over any number of inputs, with ellipses, diagonals and implicit output."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.families.elementwise import broadcast_shapes, merge_element_types
from irgraph.ops.op import Inputs, Op, Tolerance, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits

ELLIPSIS = "..."
_TOKENS = re.compile(r"\.\.\.|[a-zA-Z]")
_SUBSCRIPT = re.compile(r"^(?:[a-zA-Z]|\.\.\.)*$")


@dataclass(frozen=True)
class Equation:
    """A parsed equation: the label tokens of each input and of the output (``...`` is one token)."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Equation:
        """Parse ``ab,bc->ac``; without ``->`` the output is the ellipsis (if any input has one) then the
        labels that occur once, in alphabetical (ASCII) order, as OpenVINO and NumPy build it (a label
        repeated inside the one input holding it is refused there: OpenVINO and NumPy disagree on it)."""
        equation = text.replace(" ", "")
        left, arrow, right = equation.partition("->")
        subscripts = left.split(",")
        for subscript in [*subscripts, *([right] if arrow else [])]:
            check(bool(_SUBSCRIPT.match(subscript)) and subscript.count(ELLIPSIS) <= 1
                  and "." not in subscript.replace(ELLIPSIS, ""),
                  f"Input subscript of Einsum equation must consist of either only alphabetic letters or "
                  f"alphabetic letters with one ellipsis. Got: {text!r}")
        inputs = tuple(tuple(_TOKENS.findall(s)) for s in subscripts)
        if arrow:
            output = tuple(_TOKENS.findall(right))
            check(len(set(output)) == len(output), f"Output subscript of Einsum equation must contain each label "
                  f"at most once. Got: {text!r}")
            known = {t for s in inputs for t in s}
            for token in output:
                check(token in known, f"Output subscript of Einsum equation must contain only labels present in "
                      f"the input subscripts. Got: {text!r}")
        else:
            holders = Counter(t for s in inputs for t in set(s) if t != ELLIPSIS)
            for tokens in inputs:
                named = [t for t in tokens if t != ELLIPSIS]
                repeated_alone = [t for t, n in Counter(named).items() if n > 1 and holders[t] == 1]
                check(not repeated_alone,
                      f"Einsum: an implicit output with a label repeated in one input subscript is refused "
                      f"(openvino 2026.4.1 infers 'ii' as [n,n] where NumPy sums the diagonal, and its CPU plugin "
                      f"cannot run it); write the output subscript. Got: {text!r}")
            counts = Counter(t for s in inputs for t in s if t != ELLIPSIS)
            ellipsis = (ELLIPSIS,) if any(ELLIPSIS in s for s in inputs) else ()
            output = ellipsis + tuple(sorted(label for label, n in counts.items() if n == 1))
        return cls(inputs, output)

    def numpy(self) -> str:
        """The explicit equation for np.einsum."""
        return ",".join("".join(s) for s in self.inputs) + "->" + "".join(self.output)


@register
@dataclass(frozen=True)
class Einsum(Op):
    """np.einsum of the inputs with the equation made explicit; floats summed in f64 and rounded once
    (OpenVINO's reference sums in the input type: a tolerance row covers the difference), integers
    in their own type (wrapping). Label dims must agree; ellipsis dims broadcast. Spec: Einsum-7."""

    traits = OpTraits(calls_blas=True)

    type_name = "Einsum"
    introduced = 7
    inputs = Inputs.repeated("inputs", minimum=1)
    tolerance = Tolerance(ulp=4, eps=16)

    equation: str = attribute()

    def __post_init__(self) -> None:
        Equation.parse(self.equation)

    def _parsed(self, count: int) -> Equation:
        parsed = Equation.parse(self.equation)
        check(len(parsed.inputs) == count, f"Equation must contain a number of subscripts equal to the number of "
              f"Einsum inputs. Got {len(parsed.inputs)} subscripts and {count} inputs")
        return parsed

    def _output_shape(self, shapes: Sequence[Shape]) -> Shape:
        parsed = self._parsed(len(shapes))
        labels: dict[str, Dim] = {}
        ellipsis = Shape(())
        for subscript, shape in zip(parsed.inputs, shapes, strict=True):
            if shape.dims is None:  # the rank is dynamic
                if ELLIPSIS in parsed.output:
                    return Shape(None)
                continue
            named = [t for t in subscript if t != ELLIPSIS]
            if ELLIPSIS in subscript:
                check(shape.rank >= len(named), f"Input rank must be greater or equal to a number of labels in the "
                      f"corresponding input subscript. Got rank {shape.rank} for {''.join(subscript)!r}")
                at = subscript.index(ELLIPSIS)
                extra = shape.rank - len(named)
                ellipsis = broadcast_shapes(ellipsis, Shape(shape.dims[at:at + extra]), "numpy")
                dims = list(shape.dims[:at]) + list(shape.dims[at + extra:])
            else:
                check(shape.rank == len(named), f"Input rank must be equal to a number of labels in the "
                      f"corresponding input subscript. Got rank {shape.rank} for {''.join(subscript)!r}")
                dims = list(shape.dims)
            for label, dim in zip(named, dims, strict=True):
                known = labels.get(label)
                merged = dim if known is None else known.merge(dim)
                if merged is None:
                    raise OpError(f"Different input dimensions indicated by the same labels for Einsum must be "
                                  f"compatible. Got {known} and {dim} for label {label!r}")
                labels[label] = merged
        out: list[Dim] = []
        for token in parsed.output:
            if token == ELLIPSIS:
                if ellipsis.dims is None:  # the rank is dynamic
                    return Shape(None)
                out.extend(ellipsis.dims)
            else:
                out.append(labels.get(token, Dim.dynamic()))
        return Shape(tuple(out))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """One element type for all inputs; the output dims from the labels and the broadcast ellipsis."""
        element_type = merge_element_types([t.element_type for t in inputs])
        check(element_type is not ElementType.BOOLEAN, "Einsum inputs must be numeric. Got: boolean")
        return [TensorType(element_type, self._output_shape([t.shape for t in inputs]))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """np.einsum with the explicit equation."""
        dtype = inputs[0].dtype
        check(all(x.dtype == dtype for x in inputs), "Einsum inputs must have one element type")
        self.output_shapes(inputs)
        parsed = self._parsed(len(inputs))
        operands = [x.astype(np.float64) for x in inputs] if dtype.kind in "fV" else list(inputs)
        result = np.einsum(parsed.numpy(), *operands)
        return [np.asarray(result).astype(dtype, copy=False)]
