"""OpTraits: the few yes/no facts about an op that one reader each (the interpreter, the XML reader, the
graph walk) asks, gathered in one object so ``Op`` does not carry a flag per special case."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from irgraph.core.records import Record


class OpTraits(Record):
    """What is special about an op; the defaults describe a plain op (most of them)."""

    __slots__ = ("slices_data", "joins_inputs", "writes_in_place", "keeps_run_state", "is_sink", "carries_tensor",
                 "exact_type_name", "unconnected_extra_outputs",
                 "calls_blas")

    slices_data: bool
    """``evaluate`` only slices input 0 (Split): the interpreter may pass a deferred join there."""
    joins_inputs: bool
    """The op joins its inputs along one axis (Concat): the interpreter may defer the copy, calling
    ``check_inputs(inputs) -> axis`` instead of ``evaluate``."""
    writes_in_place: bool
    """The op has ``evaluate_into(inputs, target)``, which may write its one output into ``target`` (input 0,
    which the interpreter offers when nothing else can see it)."""
    keeps_run_state: bool
    """The outputs change from run to run (RandomUniform's Philox offset, which an OpenVINO compiled model
    keeps): never folded, neither by shape inference nor when an Interpreter is built; the Interpreter calls
    ``evaluate_with_state`` and keeps the state it returns for its next run."""
    is_sink: bool
    """A sink (Assign): a root of the graph like a Result, though it has no output."""
    carries_tensor: bool
    """The op's data lives in the weights file (Const)."""
    exact_type_name: bool
    """OpenVINO accepts only the exact spelling of ``type_name`` (Const); else any case."""
    unconnected_extra_outputs: bool
    """A layer may declare fewer output ports than the op produces: OpenVINO builds the extra outputs and
    leaves them unconnected (VariadicSplit), so irgraph computes and drops them."""
    calls_blas: bool
    """``evaluate`` multiplies matrices through NumPy's BLAS (matmul, einsum, linalg): a run holding such a step
    sets BLAS's thread count (``irgraph.runtime._threads``); a run without one leaves the library alone and never
    loads threadpoolctl."""

    def __init__(self, slices_data: bool = False, joins_inputs: bool = False, writes_in_place: bool = False,
                 keeps_run_state: bool = False, is_sink: bool = False, carries_tensor: bool = False,
                 exact_type_name: bool = False, unconnected_extra_outputs: bool = False,
                 calls_blas: bool = False) -> None:
        object.__setattr__(self, "slices_data", slices_data)
        object.__setattr__(self, "joins_inputs", joins_inputs)
        object.__setattr__(self, "writes_in_place", writes_in_place)
        object.__setattr__(self, "keeps_run_state", keeps_run_state)
        object.__setattr__(self, "is_sink", is_sink)
        object.__setattr__(self, "carries_tensor", carries_tensor)
        object.__setattr__(self, "exact_type_name", exact_type_name)
        object.__setattr__(self, "unconnected_extra_outputs", unconnected_extra_outputs)
        object.__setattr__(self, "calls_blas", calls_blas)


class UfuncCall(NamedTuple):
    """A step computed by one NumPy ufunc call: its one output is ``ufunc(*leading, *inputs)``, bit for bit what
    ``evaluate`` gives, for inputs of the static types the op was asked about (see ``PlanStep.ufunc_call``)."""

    ufunc: np.ufunc
    leading: tuple[Any, ...] = ()
    """Operands before the inputs (Relu's 0 in ``maximum(0, x)``)."""


PLAIN = OpTraits()
"""The traits of an op with nothing special."""


class WritesInPlace(Protocol):
    """An op whose traits say ``writes_in_place`` (the element-wise families): it has ``evaluate_into``."""

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    def evaluate_into(self, inputs: Sequence[np.ndarray], target: np.ndarray) -> list[np.ndarray]:
        """``evaluate``, its one output written into ``target`` when it has the output's shape and dtype and the
        computation can write there (else a new array, as ``evaluate`` gives); the values are ``evaluate``'s."""
        ...
