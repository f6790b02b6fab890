"""infer_shapes(model): a topological walk calling each op's pure shape rule.

Ops are immutable and ``infer`` is a pure function of the op, the input types and the constant
input values, so one walk computes each distinct (op, input types, input values) once: equal
results are shared as one TensorType object, and a node whose op and inputs are the very objects
an earlier node had reuses that node's output types (a repeated block of layers is inferred once).
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from irgraph.errors import GraphError, IrError, OpError, ShapeInferenceError
from irgraph.graph import Model, Node
from irgraph.ops import Op
from irgraph.shapes import TensorType

FOLD_LIMIT = 4096
"""Largest tensor (in elements) folded at inference time so shape inputs computed from Consts resolve."""


def infer_shapes(model: Model) -> None:
    """Infer every node's output types in place; raise ShapeInferenceError at the first failure."""
    walk(model, on_error=None)


def ensure_shapes(model: Model) -> None:
    """Infer the output types unless they are still those the last clean inference stored.

    They are fresh when, since that inference, (1) the structure is unchanged: no ``add_node``,
    ``connect`` or ``remove_node`` (the model's revision counter), (2) every node holds the same
    op object (``node.op`` is replaceable; ops are compared by identity) with the same port
    counts, and (3) every node's ``output_types`` is still the list inference stored. As ops are
    immutable and their ``infer`` is pure, a new walk would then compute the same types and raise
    nothing. A walk that failed or reported a problem leaves nothing fresh. Not seen: assigning
    into an ``output_types`` list or into a Const's NumPy array in place (both are treated as
    immutable).
    """
    if not _is_fresh(model):
        walk(model, on_error=None)


def walk(model: Model, on_error: Callable[[Node, IrError], None] | None) -> None:
    """Infer every node; with ``on_error`` report failures and go on (dependents stay unknown)."""
    _inferred.pop(model, None)
    values: dict[tuple[int, int], np.ndarray] = {}
    memo: dict[tuple[int, ...], _Inferred] = {}
    shared: dict[TensorType, TensorType] = {}
    clean = True
    for node in model.topological_order():
        try:
            _infer_node(model, node, values, memo, shared)
        except IrError as err:
            node.output_types = [None] * node.num_outputs
            clean = False
            if isinstance(err, _Skipped):
                continue
            if on_error is None:
                raise
            on_error(node, err)
    if clean:
        _inferred[model] = _Stamp.of(model)


class _Inferred(NamedTuple):
    """One op's inference, keyed by the ids of these objects (kept here so the ids stay theirs)."""

    op: Op
    input_types: list[TensorType]
    input_values: list[np.ndarray | None]
    output_types: list[TensorType]


def _infer_node(
    model: Model,
    node: Node,
    values: dict[tuple[int, int], np.ndarray],
    memo: dict[tuple[int, ...], _Inferred],
    shared: dict[TensorType, TensorType],
) -> None:
    op = node.op
    sources = model.input_sources(node)
    if not op.inputs.accepts(len(sources)):
        raise GraphError(
            f"{op.title()} takes {op.inputs.describe()} inputs; the layer has {len(sources)}", node.location
        )
    input_types: list[TensorType] = []
    input_values: list[np.ndarray | None] = []
    all_constant = True
    for index, source in enumerate(sources):
        if source is None:
            name = op.inputs.spec(index).name
            raise GraphError(f"input {index} ({name}) is not connected", node.location)
        tensor_type = model.output_type(source)
        if tensor_type is None:
            # The producer failed; its error is already reported.
            raise _Skipped()
        input_types.append(tensor_type)
        value = values.get((source.node_id, source.index))
        if value is None:
            value = model.constant_value(source)
            if value is None:
                all_constant = False
        input_values.append(value)
    # Checked before inferring too: Split(num_splits=2**31) would build a list of 2**31 output types first.
    _check_output_count(node, op.output_count(input_values))
    key = (id(op), *map(id, input_types), *map(id, input_values))
    known = memo.get(key)
    if known is not None:
        output_types = known.output_types
    else:
        try:
            output_types = [shared.setdefault(t, t) for t in op.infer(input_types, input_values)]
        except OpError as err:
            raise ShapeInferenceError(err.message, node.location) from None
        memo[key] = _Inferred(op, input_types, input_values, output_types)
    _check_output_count(node, len(output_types))
    node.output_types = list(output_types)
    if all_constant and sources:
        _fold(node, input_values, values)


def _check_output_count(node: Node, count: int | None) -> None:
    if count is not None and count != node.num_outputs:
        raise ShapeInferenceError(
            f"{node.op.title()} produces {count} outputs here but the layer declares {node.num_outputs}",
            node.location,
        )


def _fold(node: Node, input_values: list[np.ndarray], values: dict[tuple[int, int], np.ndarray]) -> None:
    """Evaluate small all-constant nodes so later shape inputs (axis, lengths) have values."""
    if not node.op.can_run or sum(np.size(v) for v in input_values) > FOLD_LIMIT:
        return
    for output_type in node.output_types:  # small inputs can make huge outputs (Eye, OneHot): never fold those
        bound = output_type.shape.element_count_bound()
        if bound is None or bound > FOLD_LIMIT:
            return
    try:
        outputs = node.op.evaluate(input_values)
    except IrError:
        return
    for index, array in enumerate(outputs):
        values[(node.id, index)] = array


class _Skipped(ShapeInferenceError):
    """A node whose input types are unknown because an earlier node failed."""

    def __init__(self) -> None:
        super().__init__("an input's type is unknown because its producer failed")


# ------------------------------------------------------------------------------------ freshness
_op_of = operator.attrgetter("op")
_types_of = operator.attrgetter("output_types")
_inputs_of = operator.attrgetter("num_inputs")
_outputs_of = operator.attrgetter("num_outputs")


class _Stamp(NamedTuple):
    """What a clean walk left: the revision, and per node the op, the output types list and port counts.

    The ops and lists are kept, so comparing them by identity later is safe (no id is reused); an
    op replaced since is therefore freed only at the next inference (or with the model).
    """

    revision: int
    ops: list[Op]
    output_types: list[list[TensorType | None]]
    num_inputs: list[int]
    num_outputs: list[int]

    @classmethod
    def of(cls, model: Model) -> _Stamp:
        nodes = list(model)
        return cls(
            model._revision,
            list(map(_op_of, nodes)),
            list(map(_types_of, nodes)),
            list(map(_inputs_of, nodes)),
            list(map(_outputs_of, nodes)),
        )

    def matches(self, model: Model) -> bool:
        """True when ``model`` still has this revision, these ops, output type lists and port counts."""
        if model._revision != self.revision or len(model) != len(self.ops):
            return False
        nodes = list(model)
        return (
            all(map(operator.is_, map(_op_of, nodes), self.ops))
            and all(map(operator.is_, map(_types_of, nodes), self.output_types))
            and list(map(_inputs_of, nodes)) == self.num_inputs
            and list(map(_outputs_of, nodes)) == self.num_outputs
        )


# The stamp of each model's last clean walk; weak, so a model's stamp goes with it (a copied model has none).
_inferred: weakref.WeakKeyDictionary[Model, _Stamp] = weakref.WeakKeyDictionary()


def _is_fresh(model: Model) -> bool:
    stamp = _inferred.get(model)
    return stamp is not None and stamp.matches(model)
