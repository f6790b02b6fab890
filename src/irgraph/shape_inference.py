"""infer_shapes(model): a topological walk calling each op's pure shape rule."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irgraph.errors import GraphError, IrError, OpError, ShapeInferenceError
from irgraph.graph import Model, Node
from irgraph.shapes import TensorType

FOLD_LIMIT = 4096
"""Largest tensor (in elements) folded at inference time so shape inputs computed from Consts resolve."""


def infer_shapes(model: Model) -> None:
    """Infer every node's output types in place; raise ShapeInferenceError at the first failure."""
    walk(model, on_error=None)


def walk(model: Model, on_error: Callable[[Node, IrError], None] | None) -> None:
    """Infer every node; with ``on_error`` report failures and go on (dependents stay unknown)."""
    values: dict[tuple[int, int], np.ndarray] = {}
    for node in model.topological_order():
        try:
            _infer_node(model, node, values)
        except IrError as err:
            node.output_types = [None] * node.num_outputs
            if isinstance(err, _Skipped):
                continue
            if on_error is None:
                raise
            on_error(node, err)


def _infer_node(model: Model, node: Node, values: dict[tuple[int, int], np.ndarray]) -> None:
    op = node.op
    sources = model.input_sources(node)
    if not op.inputs.accepts(len(sources)):
        raise GraphError(
            f"{op.title()} takes {op.inputs.describe()} inputs; the layer has {len(sources)}", node.location
        )
    input_types: list[TensorType] = []
    input_values: list[np.ndarray | None] = []
    for index, source in enumerate(sources):
        if source is None:
            name = op.inputs.spec(index).name
            raise GraphError(f"input {index} ({name}) is not connected", node.location)
        tensor_type = model.output_type(source)
        if tensor_type is None:
            # The producer failed; its error is already reported.
            raise _Skipped()
        input_types.append(tensor_type)
        input_values.append(values.get((source.node_id, source.index), model.constant_value(source)))
    # Checked before inferring too: Split(num_splits=2**31) would build a list of 2**31 output types first.
    _check_output_count(node, op.output_count(input_values))
    try:
        output_types = op.infer(input_types, input_values)
    except OpError as err:
        raise ShapeInferenceError(err.message, node.location) from None
    _check_output_count(node, len(output_types))
    node.output_types = list(output_types)
    _fold(node, input_values, values)


def _check_output_count(node: Node, count: int | None) -> None:
    if count is not None and count != node.num_outputs:
        raise ShapeInferenceError(
            f"{node.op.title()} produces {count} outputs here but the layer declares {node.num_outputs}",
            node.location,
        )


def _fold(node: Node, input_values: list[np.ndarray | None], values: dict[tuple[int, int], np.ndarray]) -> None:
    """Evaluate small all-constant nodes so later shape inputs (axis, lengths) have values."""
    if not node.num_inputs or not node.op.can_run or any(v is None for v in input_values):
        return
    if sum(np.size(v) for v in input_values) > FOLD_LIMIT:  # type: ignore[arg-type]
        return
    try:
        outputs = node.op.evaluate(input_values)  # type: ignore[arg-type]
    except IrError:
        return
    for index, array in enumerate(outputs):
        values[(node.id, index)] = array


class _Skipped(ShapeInferenceError):
    """A node whose input types are unknown because an earlier node failed."""

    def __init__(self) -> None:
        super().__init__("an input's type is unknown because its producer failed")
