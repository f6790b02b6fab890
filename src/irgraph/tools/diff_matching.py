"""Which layer of model A is which layer of model B: by name, then by structure, then by position.

A pair matched by structure or position and named differently is reported as a rename, so such a pair must agree
on what the layer is: its type and its output element types, and its output shapes where the layer has no inputs
(a Const or a Parameter is nothing but its type and shape) or where only its position ties it to the other. A
Const ``bias`` of shape [8] is never "renamed" to a compressed weight of shape [8, 3, 3, 3] (it once was).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable

from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort

_GENERATED_NAME = re.compile(r"[A-Z][A-Za-z0-9]*_[0-9]+(_compressed)?")
"""An op type and a number: OpenVINO's ``Constant_123``/``Multiply_45``, irgraph's ``Const_1``, ONNX exporters'
``Conv_0``; ``_compressed`` is what OpenVINO's fp16 compression appends to the name of the weight it compresses."""


def is_generated_name(name: str) -> bool:
    """True for a name a tool made up from an op type and a counter: ``Constant_2``, ``Reshape_2713_compressed``,
    one in a scope (``__module.fc/aten::transpose/Constant_3``: the last part), or one NNCF derived from such a
    weight's name (``Constant_79/fq_weights_0/convert``: the first part)."""
    parts = name.split("/")
    return _GENERATED_NAME.fullmatch(parts[-1]) is not None or _GENERATED_NAME.fullmatch(parts[0]) is not None


def output_type(node: Node, index: int) -> TensorType | None:
    """The type of an output as the file declares it, else as inferred."""
    if index >= len(node.outputs):
        return None
    output = node.outputs[index]
    return output.type if output.declared_type is None else output.declared_type


def _kind(node: Node, with_shapes: bool) -> Hashable:
    """What a pair must agree on: the type, each output's element type, and its shape (or, for a layer with
    inputs matched by structure, its rank: a changed shape before it may change its dims)."""
    outputs: list[Hashable] = []
    for index in range(node.num_outputs):
        tensor_type = output_type(node, index)
        if tensor_type is None:
            outputs.append(None)
        elif with_shapes or not node.num_inputs:
            outputs.append((tensor_type.element_type, str(tensor_type.shape)))
        else:
            outputs.append((tensor_type.element_type, tensor_type.shape.rank))
    return node.type_name, tuple(outputs)


class Matching:
    """Which layer of A is which layer of B: by name, then by structure, then by position.

    With ``ignore_generated_names``, layers whose names are generated (``is_generated_name``) take no part in
    the match by name: two files numbering their layers differently would otherwise pair unrelated layers.
    """

    def __init__(self, a: Model, b: Model, order_a: list[Node], order_b: list[Node],
                 ignore_generated_names: bool = False) -> None:
        self.a, self.b = a, b
        self.a_to_b: dict[int, int] = {}
        self.b_to_a: dict[int, int] = {}
        named: dict[str, list[Node]] = defaultdict(list)
        for node in reversed(order_b):
            if not (ignore_generated_names and is_generated_name(node.name)):
                named[node.name].append(node)  # reversed, so pop() takes the first in topological order
        for node in order_a:
            candidates = named.get(node.name)
            if candidates and not (ignore_generated_names and is_generated_name(node.name)):
                self._pair(node.id, candidates.pop().id)
        self.by_name = len(self.a_to_b)
        if len(self.a_to_b) == len(a) == len(b):  # every layer matched by name: nothing left to match
            self.by_structure = self.by_position = 0
            return
        self._by_structure()
        self.by_structure = len(self.a_to_b) - self.by_name
        self._by_position(order_a, order_b)
        self.by_position = len(self.a_to_b) - self.by_name - self.by_structure

    def _pair(self, a_id: int, b_id: int) -> None:
        self.a_to_b[a_id] = b_id
        self.b_to_a[b_id] = a_id

    def _free_pair(self, source_a: OutputPort | None, source_b: OutputPort | None) -> bool:
        if source_a is None or source_b is None or source_a.index != source_b.index:
            return False
        if source_a.node_id in self.a_to_b or source_b.node_id in self.b_to_a:
            return False
        return _kind(self.a.node(source_a.node_id), False) == _kind(self.b.node(source_b.node_id), False)

    def _by_structure(self) -> None:
        """Spread out from every matched pair over unmatched producers and consumers (a worklist: linear)."""
        a, b = self.a, self.b
        # Only pairs next to an unmatched layer of A can match anything: start from those (linear in what is left).
        seeds: set[int] = set()
        for node in a:
            if node.id in self.a_to_b:
                continue
            seeds.update(source.node_id for source in a.input_sources(node) if source is not None)
            for index in range(node.num_outputs):
                seeds.update(target.node_id for target in a.consumers(OutputPort(node.id, index)))
        work = [(a_id, self.a_to_b[a_id]) for a_id in seeds if a_id in self.a_to_b]
        while work:
            a_id, b_id = work.pop()
            node_a, node_b = a.node(a_id), b.node(b_id)
            for source_a, source_b in zip(a.input_sources(node_a), b.input_sources(node_b), strict=False):
                if self._free_pair(source_a, source_b):
                    assert source_a is not None and source_b is not None
                    self._pair(source_a.node_id, source_b.node_id)
                    work.append((source_a.node_id, source_b.node_id))
            for index in range(min(node_a.num_outputs, node_b.num_outputs)):
                free_a = self._free_consumers(a, OutputPort(a_id, index), self.a_to_b)
                if not free_a:
                    continue
                free_b = self._free_consumers(b, OutputPort(b_id, index), self.b_to_a)
                for key, consumer_a in free_a.items():
                    consumer_b = free_b.get(key)
                    if consumer_a is not None and consumer_b is not None:
                        self._pair(consumer_a, consumer_b)
                        work.append((consumer_a, consumer_b))

    @staticmethod
    def _free_consumers(model: Model, port: OutputPort, matched: dict[int, int]
                        ) -> dict[tuple[Hashable, int], int | None]:
        """Unmatched consumers of ``port`` keyed by (kind, input index); None where that key is not unique."""
        found: dict[tuple[Hashable, int], int | None] = {}
        for target in model.consumers(port):
            if target.node_id in matched:
                continue
            key = (_kind(model.node(target.node_id), False), target.index)
            found[key] = None if key in found else target.node_id
        return found

    def _by_position(self, order_a: list[Node], order_b: list[Node]) -> None:
        """The k-th unmatched layer of a kind in A with the k-th unmatched one of that kind in B."""
        left: dict[Hashable, list[Node]] = defaultdict(list)
        for node in reversed(order_b):
            if node.id not in self.b_to_a:
                left[_kind(node, True)].append(node)
        for node in order_a:
            if node.id in self.a_to_b:
                continue
            candidates = left.get(_kind(node, True))
            if candidates:
                self._pair(node.id, candidates.pop().id)
