"""infer_shapes(model): a topological walk calling each op's pure shape rule.

Integer tensors computed from shapes (``ShapeOf -> Gather -> Concat -> Reshape`` in dynamic
exports) are followed as values where every element is known and as lower/upper bounds
(:class:`~irgraph.core.shapes.PartialValue`) where not, as OpenVINO's ``evaluate_lower``/``evaluate_upper``
do: an op input declared ``InputSpec(bounds=True)`` (Reshape's target shape) receives the bounds
when the exact value is unknown, so the output gets static or interval dims instead of ``?``.
Not followed: OpenVINO's dimension symbols (equal unknown dims recognised as equal), and bounds
through ops that do not define them (see ``Op.bounds``).

Ops are immutable and ``infer`` is a pure function of the op, the input types and the constant
input values, so one walk computes each distinct (op, input types, input values) once: equal
results are shared as one TensorType object, and a node whose op and inputs are the very objects
an earlier node had reuses that node's output types (a repeated block of layers is inferred once).
"""

from __future__ import annotations

import math
import operator
import weakref
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from irgraph.core.errors import GraphError, IrError, OpError, ShapeInferenceError
from irgraph.core.shapes import PartialValue, TensorType
from irgraph.graph import Model, Node
from irgraph.ops import Op

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
    counts, and (3) every output's ``type`` is still the object inference stored. As ops are
    immutable and their ``infer`` is pure, a new walk would then compute the same types and raise
    nothing. A walk that failed or reported a problem leaves nothing fresh. Not seen: writing
    into a Const's NumPy array in place (treated as immutable).
    """
    if not _is_fresh(model):
        walk(model, on_error=None)


def walk(
    model: Model,
    on_error: Callable[[Node, IrError], None] | None,
    parameter_types: dict[int, TensorType] | None = None,
) -> None:
    """Infer every node; with ``on_error`` report failures and go on (dependents stay unknown).

    ``parameter_types``: node id -> type for Parameters whose type comes from outside (a body's
    Parameters take the types of the outer layer's inputs, whatever the body declares).
    """
    _inferred.pop(model, None)
    values: dict[tuple[int, int], np.ndarray] = {}
    partials: dict[tuple[int, int], PartialValue] = {}
    memo: dict[tuple[int, ...], _Inferred] = {}
    shared: dict[TensorType, TensorType] = {}
    clean = True
    for node in model.topological_order():
        if parameter_types and node.id in parameter_types:
            node.outputs[0].type = parameter_types[node.id]
            continue
        try:
            _infer_node(model, node, values, partials, memo, shared)
        except IrError as err:
            for output in node.outputs:
                output.type = None
            clean = False
            if isinstance(err, _Skipped):
                continue
            if on_error is None:
                raise
            on_error(node, err)
    if clean:
        _inferred[model] = _Stamp.of(model)


def infer_added_node(
    model: Model,
    node: Node,
    values: dict[tuple[int, int], np.ndarray],
    partials: dict[tuple[int, int], PartialValue],
) -> None:
    """Infer one node whose producers are all inferred (an op builder's new node): its one shape rule, at once.

    ``values`` and ``partials`` hold what earlier calls folded (keyed ``(node id, output index)``): the
    caller keeps them between calls, so a shape sub-graph built node by node resolves as a whole walk
    resolves it. Raises ShapeInferenceError or GraphError located at the node.
    """
    _infer_node(model, node, values, partials, {}, {})


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
    partials: dict[tuple[int, int], PartialValue],
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
    input_partials: list[PartialValue | None] = []
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
        partial = partials.get((source.node_id, source.index)) if value is None else None
        if value is None:
            all_constant = False
        input_partials.append(partial)
        # A `bounds` input gets its PartialValue where the value is unknown: the op's InputSpec asked for it. The
        # list keeps Op.infer's base type (arrays or None): only the ops that declare a bounds input receive a
        # PartialValue, and their infer says so; widening the base would make every other op's infer accept one.
        given = partial if partial is not None and op.inputs.spec(index).bounds else value
        input_values.append(given)  # type: ignore[arg-type]  # a PartialValue for a bounds input (see above)
    # Checked before inferring too: Split(num_splits=2**31) would build a list of 2**31 output types first.
    _check_output_count(node, op.output_count(input_values))
    key = (id(op), *map(id, input_types), *map(id, input_values))
    known = None if node.bodies else memo.get(key)  # the bodies are part of the op: never share them
    if known is not None:
        output_types = known.output_types
    else:
        try:
            inferred = op.infer_layer(node, input_types, input_values, _walk_body)
            output_types = [shared.setdefault(t, t) for t in inferred]
        except OpError as err:
            raise ShapeInferenceError(err.message, node.location) from None
        memo[key] = _Inferred(op, input_types, input_values, output_types)
    _check_output_count(node, len(output_types))
    node.set_output_types(output_types)
    if all_constant and sources:
        _fold(node, [value for value in input_values if value is not None], values)  # all are, here
    elif op.bound_inputs != () or type(op).bounds is not Op.bounds:
        _propagate_bounds(node, output_types, input_types, input_values, input_partials, values, partials)


def _walk_body(body: Model, parameter_types: dict[int, TensorType]) -> None:
    walk(body, None, parameter_types)


MAX_UNCONNECTED_OUTPUTS = 65_536
"""OpenVINO builds every output of a VariadicSplit whatever the layer declares; irgraph does up to this
many, and refuses a layer past it instead of building a million output types nobody reads."""


def _check_output_count(node: Node, count: int | None) -> None:
    if count is None or count == node.num_outputs:
        return
    if node.num_outputs < count <= MAX_UNCONNECTED_OUTPUTS and node.op.traits.unconnected_extra_outputs:
        return  # the extra outputs are computed and dropped; validation warns
    raise ShapeInferenceError(
        f"{node.op.title()} produces {count} outputs here but the layer declares {node.num_outputs}", node.location
    )


def _fold(node: Node, input_values: list[np.ndarray], values: dict[tuple[int, int], np.ndarray]) -> None:
    """Evaluate small all-constant nodes so later shape inputs (axis, lengths) have values."""
    if not node.op.can_run or node.op.traits.keeps_run_state or sum(np.size(v) for v in input_values) > FOLD_LIMIT:
        return
    for output in node.outputs:  # small inputs can make huge outputs (Eye, OneHot): never fold those
        output_type = output.type
        if output_type is None:  # not after _infer_node, which sets them all
            return
        bound = output_type.shape.element_count_bound()
        if bound is None or bound > FOLD_LIMIT:
            return
    try:
        # Small inputs can ask for a huge output (Tile, Broadcast, Range): sized before anything is allocated. The
        # default output_shapes is infer again, whose bounds were checked above.
        if node.op.shapes_read_values():
            shapes = node.op.output_shapes(input_values)
            if shapes is not None and any(math.prod(shape) > FOLD_LIMIT for shape in shapes):
                return
        outputs = node.op.evaluate(input_values)
    except IrError:
        return
    for index, array in enumerate(outputs):
        values[(node.id, index)] = array


def _propagate_bounds(
    node: Node,
    output_types: list[TensorType],
    input_types: list[TensorType],
    input_values: Sequence[np.ndarray | PartialValue | None],
    input_partials: list[PartialValue | None],
    values: dict[tuple[int, int], np.ndarray],
    partials: dict[tuple[int, int], PartialValue],
) -> None:
    """Bounds of a node's integer outputs from its inputs' values and bounds; outputs whose bounds
    meet are stored as values (so later nodes fold), the others as bounds."""
    known: list[PartialValue | None] = []
    size = 0
    for value, partial in zip(input_values, input_partials, strict=True):
        if partial is None and isinstance(value, np.ndarray):
            partial = PartialValue.exact(value)
        size += 0 if partial is None else partial.lower.size
        known.append(partial)
    if size > FOLD_LIMIT:
        return
    try:
        found = node.op.bounds(input_types, known)
    except IrError:
        return
    if not found:
        return
    for index, (bound, tensor_type) in enumerate(zip(found, output_types, strict=False)):
        if bound is None or bound.lower.dtype.kind not in "iu" or not tensor_type.element_type.is_integral:
            continue
        if bound.is_exact:
            values[(node.id, index)] = bound.lower
        else:
            partials[(node.id, index)] = bound


class _Skipped(ShapeInferenceError):
    """A node whose input types are unknown because an earlier node failed."""

    def __init__(self) -> None:
        super().__init__("an input's type is unknown because its producer failed")


# ------------------------------------------------------------------------------------ freshness
_op_of = operator.attrgetter("op")
_inputs_of = operator.attrgetter("inputs")
_outputs_of = operator.attrgetter("outputs")


class _Stamp(NamedTuple):
    """What a clean walk left: the revision, and per node the op, its outputs' types and port counts.

    The ops and types are kept, so comparing them by identity later is safe (no id is reused); an
    op replaced since is therefore freed only at the next inference (or with the model).
    """

    revision: int
    ops: list[Op]
    output_types: list[TensorType | None]
    """Every node's outputs' types in turn (``num_outputs`` says where one node's end)."""
    num_inputs: list[int]
    num_outputs: list[int]

    @classmethod
    def of(cls, model: Model) -> _Stamp:
        nodes = list(model)
        return cls(
            model._revision,
            list(map(_op_of, nodes)),
            [output.type for node in nodes for output in node.outputs],
            list(map(len, map(_inputs_of, nodes))),
            list(map(len, map(_outputs_of, nodes))),
        )

    def matches(self, model: Model) -> bool:
        """True when ``model`` still has this revision, these ops, output types and port counts."""
        if model._revision != self.revision or len(model) != len(self.ops):
            return False
        nodes = list(model)
        return (
            all(map(operator.is_, map(_op_of, nodes), self.ops))
            and list(map(len, map(_inputs_of, nodes))) == self.num_inputs
            and list(map(len, map(_outputs_of, nodes))) == self.num_outputs
            and all(map(operator.is_, [output.type for node in nodes for output in node.outputs], self.output_types))
        )


# The stamp of each model's last clean walk; weak, so a model's stamp goes with it (a copied model has none).
_inferred: weakref.WeakKeyDictionary[Model, _Stamp] = weakref.WeakKeyDictionary()


def _is_fresh(model: Model) -> bool:
    """The model's last clean walk still holds, and so do its bodies' (an edit inside a body counts too)."""
    stamp = _inferred.get(model)
    if stamp is None or not stamp.matches(model):
        return False
    return all(_is_fresh(body.model) for node in model if node.bodies for body in node.bodies)
