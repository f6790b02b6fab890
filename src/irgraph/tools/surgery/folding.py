"""Constant folding and weight decompression: layers computed from constants become Consts.

``fold_constants`` evaluates, with irgraph's own ops, every layer whose inputs are all constant (and every layer
that reads only its inputs' shapes, ShapeOf, when those shapes are static) and puts one Const in its place. Weight
decompression sub-graphs stay as they are, as OpenVINO keeps them (its ``decompression`` rt_info mark,
``keep_const_precision``, and NNCF's chains that carry no mark): a plugin reads the compressed weight and
decompresses it in its kernel, so folding them would only make the file larger (they are recognised in
:mod:`irgraph.analysis.decompression_chains`). ``decompress_weights`` folds exactly those sub-graphs: an f16
Const -> Convert becomes an f32 Const, an int8/int4/nf4 chain becomes the weight it computes, in f32 where the chain
closes with a Convert to f32, as OpenVINO's CPU plugin and its ConstantFolding pass compute it
(docs/decompression.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from irgraph.analysis.decompression_chains import DecompressionChain, decompression_chains, decompression_starts
from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.errors import IrError, Location
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.graph import InputPort, Model, Node, OutputPort
from irgraph.ops import Const, Parameter, Result
from irgraph.runtime.decompression import widen, widened_nodes


@dataclass(frozen=True)
class FoldReport:
    """What a fold did: layers replaced, Consts made in their place, and decompression layers left alone."""

    folded: int
    constants: int
    kept: int = 0


def fold_constants(model: Model, *, decompress_weights: bool = False,
                   element_limit: int = DEFAULT_ELEMENT_LIMIT) -> FoldReport:
    """Replace every layer computed from constants by a Const (in place), in sub-graph bodies too.

    Weight decompression sub-graphs are kept unless ``decompress_weights``. A layer irgraph cannot run, one whose
    outputs change from run to run (RandomUniform), a variable (ReadValue/Assign), a layer with bodies and a
    layer whose output would exceed ``element_limit`` elements stay as they are.
    """
    ensure_shapes(model)
    folded = constants = kept = 0
    for current in _models(model):
        if decompress_weights:
            report = _fold(current, lambda node, region: True, _widened(current), element_limit)
        else:
            chains = decompression_chains(current)
            starts = decompression_starts(current, chains)

            def outside_chains(node: Node, region: set[int], starts: frozenset[int] = starts) -> bool:
                return node.id not in starts

            report = _fold(current, outside_chains, frozenset(), element_limit)
            kept += _sub_graphs(starts, chains)
        folded, constants = folded + report.folded, constants + report.constants
    return FoldReport(folded, constants, kept)


def decompress_weights(model: Model, *, element_limit: int = DEFAULT_ELEMENT_LIMIT) -> FoldReport:
    """Fold only the weight decompression sub-graphs (in place), in bodies too: each becomes the f32 (or f16)
    Const it computes."""
    ensure_shapes(model)
    folded = constants = 0
    for current in _models(model):
        starts = decompression_starts(current)

        def in_a_chain(node: Node, region: set[int], current: Model = current, starts: frozenset[int] = starts) -> bool:
            return node.id in starts or any(s is not None and s.node_id in region for s in current.input_sources(node))

        report = _fold(current, in_a_chain, _widened(current), element_limit)
        folded, constants = folded + report.folded, constants + report.constants
    return FoldReport(folded, constants)


def _models(model: Model) -> list[Model]:
    """``model`` and every body Model nested in it, outermost first (a work list: bodies nest to any depth)."""
    found: list[Model] = []
    pending = [model]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(body.model for node in current for body in node.bodies)
    return found


def _widened(model: Model) -> frozenset[int]:
    """The layers of decompression chains the CPU plugin computes in f32 (``widened_nodes``); none for a body whose
    declared Parameter types alone do not infer (its chains then follow the IR's types)."""
    try:
        return widened_nodes(model)
    except IrError:
        return frozenset()


def _sub_graphs(starts: frozenset[int], chains: list[DecompressionChain]) -> int:
    """How many decompression sub-graphs ``starts`` begin: NNCF's chain once (an asymmetric one starts at its
    weight's and its zero point's Converts), each other start (a marked Convert of an fp16 weight) once."""
    found = [chain for chain in chains if chain.starts]
    return len(found) + len(starts - {start for chain in found for start in chain.starts})


def _fold(model: Model, foldable: Callable[[Node, set[int]], bool], widened: frozenset[int],
          element_limit: int) -> FoldReport:
    values: dict[tuple[int, int], np.ndarray] = {}
    folded: list[Node] = []
    region: set[int] = set()
    # A layer no output reaches stays as it is: validation reports it, and folding must not drop it unseen.
    needed = model.reachable_from_results()
    for node in model.topological_order():
        op = node.op
        if isinstance(op, Const):
            if op.value is not None:
                values[(node.id, 0)] = op.value
            continue
        if isinstance(op, Parameter | Result) or op.traits.is_sink or op.traits.keeps_run_state or node.bodies \
                or not op.can_run or node.id not in needed or not foldable(node, region):
            continue
        arguments = _arguments(model, node, values)
        if arguments is None:
            continue
        produced = _evaluate(node, arguments, node.id in widened, element_limit)
        if produced is None:
            continue
        for index in range(node.num_outputs):
            values[(node.id, index)] = produced[index]
        folded.append(node)
        region.add(node.id)
    if not folded:
        return FoldReport(0, 0)
    return FoldReport(len(folded), _replace(model, folded, values))


def _arguments(model: Model, node: Node, values: dict[tuple[int, int], np.ndarray]) -> list[np.ndarray] | None:
    """The node's input values when all are known; an op that reads only shapes gets placeholders of static ones."""
    arguments: list[np.ndarray] = []
    for source in model.input_sources(node):
        if source is None:
            return None
        value = values.get((source.node_id, source.index))
        if value is None:
            tensor_type = model.output_type(source)
            if node.op.reads_values or tensor_type is None or not tensor_type.shape.is_static \
                    or tensor_type.element_type.numpy_dtype is None:
                return None
            # ShapeOf reads no element: a zero-strided view of the static shape costs no memory. NumPy refuses a
            # view of 2**63 bytes or more (a --reshape to [2**62,2]): such a layer stays as it is.
            try:
                value = np.broadcast_to(np.zeros((), tensor_type.element_type.numpy_dtype),
                                        tuple(d.min for d in tensor_type.shape))
            except ValueError:
                return None
        arguments.append(value)
    return arguments


def _evaluate(node: Node, arguments: list[np.ndarray], widen_f16: bool, element_limit: int) -> list[np.ndarray] | None:
    """The node's outputs, or None when it fails or makes a tensor above ``element_limit`` (it then stays a layer)."""
    op = node.op
    if widen_f16:
        op, arguments = widen(op, arguments)
    try:
        shapes = op.output_shapes(arguments)
        if shapes is not None and any(math.prod(shape) > element_limit for shape in shapes):
            return None
        produced = op.evaluate(arguments)
    except IrError:
        return None
    if len(produced) < node.num_outputs or any(np.size(value) > element_limit for value in produced):
        return None
    return produced


def _replace(model: Model, folded: list[Node], values: dict[tuple[int, int], np.ndarray]) -> int:
    """Remove the folded layers, put a Const on each of their outputs something else reads; how many Consts."""
    gone = {node.id for node in folded}
    replacements: list[tuple[Node, int, list[InputPort]]] = []
    inputs: set[int] = set()
    for node in folded:
        inputs.update(s.node_id for s in model.input_sources(node) if s is not None and s.node_id not in gone)
        for index in range(node.num_outputs):
            readers = [port for port in model.consumers(OutputPort(node.id, index)) if port.node_id not in gone]
            if readers:
                replacements.append((node, index, readers))
    for node in folded:
        model.remove_node(node.id)
    for node_id in sorted(inputs):  # Consts only the folded layers read are gone with them
        node = model.node(node_id)
        if isinstance(node.op, Const) and not any(model.consumers(OutputPort(node_id, 0))):
            model.remove_node(node_id)
    for node, index, readers in replacements:
        tensor_type = node.outputs[index].type
        assert tensor_type is not None  # inference typed every layer before folding
        dtype = tensor_type.element_type.numpy_dtype
        # Not np.ascontiguousarray: it makes a scalar one-dimensional.
        value = np.asarray(values[(node.id, index)]).astype(dtype, order="C", copy=False)
        const = Const(element_type=tensor_type.element_type, shape=tuple(value.shape), value=value)
        # OpenVINO's ConstantFolding names the Const after the layer, "NAME.I" for an output of several.
        single = node.num_outputs == 1
        made = model.add_node(const, node.name if single else f"{node.name}.{index}",
                              node_id=node.id if single else None,
                              location=Location(node.location.file, node.location.line))
        made.outputs[0].tensor_names = list(node.outputs[index].tensor_names)
        for reader in readers:
            model.connect(OutputPort(made.id, 0), reader)
    return len(replacements)
