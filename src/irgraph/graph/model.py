"""Model: the whole graph (one IR file), with a networkx.MultiDiGraph view built on demand.

Glossary: a *Model* is the graph; a *Node* is an op placed in it (an IR layer); an *Op* is the op
type with its attribute values; *OutputPort*/*InputPort* are (node id, index) handles; a node's
``outputs``/``inputs`` are *Output*/*Input* records, ports that carry their names, types and rt_info; a
*TensorType* is an element type plus a partial shape. Edges are keyed by
``(source output index, target input index)``: parallel edges (``Concat(x, x)``) are normal.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType, ElementTypeLike
from irgraph.core.errors import GraphError, IrError, Location
from irgraph.core.shapes import Shape, TensorType
from irgraph.graph.node import Node, RtEntry
from irgraph.graph.ports import InputPort, OutputPort
from irgraph.ops import Const, Op, Parameter, Result, VariadicSplit

if TYPE_CHECKING:
    import networkx as nx


MAX_DERIVED_OUTPUTS = 65_536
"""Most outputs ``add_node`` gives a layer from its op's attributes (Split's ``num_splits``, a builder's or
``Model.split``'s): real layers have a few, and a file's layer declares its own ports."""


class Model:
    """An IR model: nodes keyed by integer id, edges between ports, inputs and outputs in order."""

    def __init__(self, name: str = "model", *, ir_version: int | None = None) -> None:
        self.name = name
        self.ir_version = ir_version
        self.rt_info: tuple[RtEntry, ...] | None = None
        """Net-level rt_info kept verbatim (None when the file had no ``<rt_info>``)."""
        self.legacy_sections: tuple[RtEntry, ...] = ()
        """The legacy ``<meta_data>`` / ``<quantization_parameters>`` sections of older IR, kept verbatim:
        OpenVINO reads them as rt_info when the file has no ``<rt_info>`` (io.xml.rt_info.openvino_rt_info)."""
        self.source: str | None = None
        self.source_line: int | None = None
        """The line of ``<net>`` in the file read (where model-level findings point)."""
        # The structure lives in these maps (every query reads them); the networkx graph is derived
        # from them on first use of `graph` and dropped on every change. Keeping it in step on each
        # insertion cost a 20,000-layer read ~50 ms, and importing networkx ~80 ms of every start.
        self._graph: nx.MultiDiGraph | None = None
        self._nodes: dict[int, Node] = {}
        self._producers: dict[tuple[int, int], OutputPort] = {}
        self._consumers: dict[tuple[int, int], list[InputPort]] = {}
        self._next_id = 0
        # Bumped by every structural change (add_node, connect, remove_node): shape inference
        # compares it with the revision it last inferred to tell whether output types are stale.
        self._revision = 0

    # ------------------------------------------------------------------------------ structure
    def add_node(
        self,
        op: Op,
        name: str | None = None,
        inputs: Sequence[OutputPort] = (),
        *,
        node_id: int | None = None,
        num_inputs: int | None = None,
        num_outputs: int | None = None,
        location: Location | None = None,
    ) -> Node:
        """Place ``op`` in the model and connect ``inputs`` to its input ports 0, 1, ..."""
        if node_id is None:
            node_id = self._next_id
        if node_id in self._nodes:
            raise GraphError(f"layer id {node_id} is used twice", location)
        if num_outputs is None:
            num_outputs = op.output_count([self.constant_value(port) for port in inputs])
            if num_outputs is None:
                raise GraphError(f"the number of outputs of {op.title()} is unknown; pass num_outputs", location)
            if num_outputs > MAX_DERIVED_OUTPUTS:  # each output costs a port record: 2**62 is a MemoryError
                raise GraphError(f"{op.title()} asks for {num_outputs} outputs, more than the {MAX_DERIVED_OUTPUTS} "
                                 "a layer may take from its attributes; pass num_outputs", location)
        num_inputs = len(inputs) if num_inputs is None else num_inputs
        if name is None:
            name = f"{op.type_name}_{node_id}"
        node = Node(node_id, name, op, num_inputs, num_outputs, location=location)
        self._nodes[node_id] = node
        self._graph = None
        self._revision += 1
        if node_id >= self._next_id:
            self._next_id = node_id + 1
        try:
            for index, source in enumerate(inputs):
                self.connect(source, InputPort(node_id, index))
        except IrError:
            self.remove_node(node_id)  # a refused input leaves the model as it was
            raise
        return node

    def place(self, node: Node) -> Node:
        """Place a node built whole (a reader's: id, ports, types and location set); GraphError if its id is taken.

        ``add_node`` builds the node itself with empty per-port lists a reader would replace at once.
        """
        node_id = node.id
        if node_id in self._nodes:
            raise GraphError(f"layer id {node_id} is used twice", node.location)
        self._nodes[node_id] = node
        self._graph = None
        self._revision += 1
        if node_id >= self._next_id:
            self._next_id = node_id + 1
        return node

    def place_all(self, nodes: Sequence[Node]) -> None:
        """``place`` every node of ``nodes`` in turn (a reader's layers, in document order), at once when no id is
        taken twice; else one by one, so that the first repeated id raises GraphError as ``place`` says."""
        table = self._nodes
        placed = {node.id: node for node in nodes}
        if len(placed) != len(nodes) or not table.keys().isdisjoint(placed):
            for node in nodes:
                self.place(node)
            return
        if not placed:
            return
        table.update(placed)
        self._graph = None
        self._revision += len(placed)
        self._next_id = max(self._next_id, max(placed) + 1)

    def connect(self, source: OutputPort, target: InputPort) -> None:
        """Add the edge ``source -> target``; an input port has at most one producer."""
        if source.model is not None or type(source) is not OutputPort:
            if source.model is not None and source.model is not self:
                raise GraphError(f"{source} belongs to another model: connect ports of one model")
            # The model keeps plain handles: none refers back to it, none is a node's Output record.
            source = OutputPort(source.node_id, source.index)
        producer_node, consumer_node = self.node(source.node_id), self.node(target.node_id)
        if not 0 <= source.index < producer_node.num_outputs:
            raise GraphError(
                f"layer {source.node_id} has no output port {source.index} (it has {producer_node.num_outputs})",
                consumer_node.location,
            )
        if not 0 <= target.index < consumer_node.num_inputs:
            raise GraphError(
                f"layer {target.node_id} has no input port {target.index} (it has {consumer_node.num_inputs})",
                consumer_node.location,
            )
        key = (target.node_id, target.index)
        if key in self._producers:
            raise GraphError(
                f"input {target.index} of layer {target.node_id} has two producers: "
                f"{self._producers[key]} and {source}",
                consumer_node.location,
            )
        self._producers[key] = source
        consumers = self._consumers.get((source.node_id, source.index))
        if consumers is None:
            self._consumers[(source.node_id, source.index)] = [target]
        else:
            consumers.append(target)
        self._graph = None
        self._revision += 1

    def connect_all(self, edges: Iterable[tuple[OutputPort, InputPort]]) -> None:
        """``connect`` every ``(source, target)`` in turn, with its checks, in one call (a reader's edges)."""
        nodes, producers, consumers = self._nodes, self._producers, self._consumers
        connected = 0
        try:
            for source, target in edges:
                producer, consumer = nodes.get(source.node_id), nodes.get(target.node_id)
                key = (target.node_id, target.index)
                if (
                    producer is None or consumer is None or not 0 <= source.index < len(producer.outputs)
                    or not 0 <= target.index < len(consumer.inputs) or key in producers
                ):
                    self.connect(source, target)  # raises GraphError saying what is wrong
                    continue
                if source.model is not None or type(source) is not OutputPort:  # as connect keeps them
                    source = OutputPort(source.node_id, source.index)
                producers[key] = source
                outputs = consumers.get((source.node_id, source.index))
                if outputs is None:
                    consumers[(source.node_id, source.index)] = [target]
                else:
                    outputs.append(target)
                connected += 1
        finally:
            self._graph = None
            self._revision += connected

    def connect_placed(self, sources: Sequence[OutputPort], targets: Sequence[InputPort]) -> None:
        """``connect_all`` of a reader's edges, whose ports it made from the placed nodes' own port lists (plain
        handles of existing nodes and ports): the rule that an input has one producer is all that is left to
        check, at once for all of them; when it fails, ``connect_all`` connects them and says where."""
        producers, consumers = self._producers, self._consumers
        added = {(target.node_id, target.index): source for source, target in zip(sources, targets, strict=True)}
        if len(added) != len(targets) or not producers.keys().isdisjoint(added):
            self.connect_all(zip(sources, targets, strict=True))
            return
        producers.update(added)
        for source, target in zip(sources, targets, strict=True):
            key = (source.node_id, source.index)
            found = consumers.get(key)
            if found is None:
                consumers[key] = [target]
            else:
                found.append(target)
        self._graph = None
        self._revision += len(targets)

    def remove_node(self, node_id: int) -> None:
        """Remove a node and every edge touching it."""
        node = self.node(node_id)
        self._revision += 1
        for index in range(node.num_inputs):
            source = self._producers.pop((node_id, index), None)
            if source is not None:
                self._consumers[(source.node_id, source.index)].remove(InputPort(node_id, index))
        for index in range(node.num_outputs):
            for target in self._consumers.pop((node_id, index), []):
                del self._producers[(target.node_id, target.index)]
        del self._nodes[node_id]
        self._graph = None

    def node(self, node_id: int) -> Node:
        """The node with id ``node_id``."""
        try:
            return self._nodes[node_id]
        except KeyError:
            raise GraphError(f"there is no layer with id {node_id}") from None

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[Node]:
        """Nodes in insertion order (document order for a model read from XML)."""
        return iter(self._nodes.values())

    @property
    def nodes(self) -> list[Node]:
        """Every node in insertion order."""
        return list(self)

    def producer(self, port: InputPort) -> OutputPort | None:
        """The output feeding ``port`` (None when unconnected)."""
        return self._producers.get((port.node_id, port.index))

    def consumers(self, port: OutputPort) -> list[InputPort]:
        """The inputs fed by ``port``."""
        return list(self._consumers.get((port.node_id, port.index), ()))

    def output_type(self, port: OutputPort) -> TensorType | None:
        """The inferred type at ``port`` (None until inferred, or when inference failed there)."""
        return self._nodes[port.node_id].outputs[port.index].type

    def input_sources(self, node: Node) -> list[OutputPort | None]:
        """The producer of each input of ``node``, in input order."""
        return [self._producers.get((node.id, index)) for index in range(len(node.inputs))]

    def edges(self) -> list[tuple[OutputPort, InputPort]]:
        """Every edge as (source, target)."""
        return [(source, InputPort(*key)) for key, source in self._producers.items()]

    @property
    def parameters(self) -> list[Node]:
        """The model inputs: Parameter nodes in insertion (document) order."""
        return [node for node in self if isinstance(node.op, Parameter)]

    @property
    def results(self) -> list[Node]:
        """The model outputs: Result nodes in insertion (document) order."""
        return [node for node in self if isinstance(node.op, Result)]

    def constant_value(self, port: OutputPort | None) -> np.ndarray | None:
        """The value at ``port`` when a Const produces it directly, else None."""
        node = None if port is None else self._nodes.get(port.node_id)
        if node is None:
            return None
        op = node.op
        return op.value if isinstance(op, Const) else None

    def topological_order(self) -> list[Node]:
        """Every node, producers before consumers; ties broken by insertion order. No recursion.

        Raises GraphError naming a cycle when there is one.
        """
        position = {node_id: i for i, node_id in enumerate(self._nodes)}
        # Insertion order that is already topological (always, for a file OpenVINO wrote) is what
        # the sort below returns, as the ready node inserted first always goes first: skip the sort.
        if all(position[source.node_id] < position[target_id] for (target_id, _), source in self._producers.items()):
            return list(self._nodes.values())
        import heapq  # here: a model read from a file (a start-up) is already in order, and never sorts

        waiting = {node_id: 0 for node_id in self._nodes}
        for target_id, _ in self._producers:
            waiting[target_id] += 1
        ready = [(position[n], n) for n, count in waiting.items() if count == 0]
        heapq.heapify(ready)
        order: list[Node] = []
        nodes = self._nodes
        while ready:
            _, node_id = heapq.heappop(ready)
            node = nodes[node_id]
            order.append(node)
            for index in range(len(node.outputs)):
                for target in self._consumers.get((node_id, index), ()):
                    waiting[target.node_id] -= 1
                    if waiting[target.node_id] == 0:
                        heapq.heappush(ready, (position[target.node_id], target.node_id))
        if len(order) != len(waiting):
            raise self._cycle_error({n for n, count in waiting.items() if count > 0})
        return order

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The model as a read-only networkx MultiDiGraph, for graph algorithms.

        One networkx node per layer id (node data ``node``: the :class:`Node`), one edge per
        connection keyed ``(source output index, target input index)``. Built on first use and
        after every change to the model; frozen, so edit the Model, not the view.
        """
        if self._graph is None:
            import networkx as nx  # only here: most uses of a Model never need it

            graph = nx.MultiDiGraph()
            graph.add_nodes_from((node_id, {"node": node}) for node_id, node in self._nodes.items())
            graph.add_edges_from(
                (source.node_id, target_id, (source.index, index), {})
                for (target_id, index), source in self._producers.items()
            )
            self._graph = nx.freeze(graph)
        return self._graph

    def _cycle_error(self, stuck: set[int]) -> GraphError:
        import networkx as nx

        cycle = nx.find_cycle(self.graph.subgraph(stuck))
        path = " -> ".join(str(edge[0]) for edge in cycle) + f" -> {cycle[0][0]}"
        first = self.node(cycle[0][0])
        return GraphError(f"the graph has a cycle through layers {path}", first.location)

    def reachable_from_results(self, stop_at: Container[int] = frozenset()) -> set[int]:
        """Ids of nodes some Result or sink (Assign) depends on (iteratively, no recursion), not looking past the
        nodes of ``stop_at`` (their inputs are not followed)."""
        seen: set[int] = set()
        stack = [node.id for node in self.results] + [node.id for node in self if node.op.traits.is_sink]
        while stack:
            node_id = stack.pop()
            if node_id in seen:
                continue
            seen.add(node_id)
            if node_id not in stop_at:
                stack.extend(source.node_id for source in self.input_sources(self.node(node_id)) if source)
        return seen

    # ------------------------------------------------------------------------------ names
    def output_key(self, result: Node) -> str:
        """The key of one model output (see :meth:`output_keys`; looping over every output, call that once)."""
        return self.output_keys()[result.id]

    def output_keys(self) -> dict[int, str]:
        """Result id -> the key of that output, distinct for every output, in Result order (DESIGN.md section 6).

        An output's key is the first of Result ``output_names``, else the producer port's first tensor name,
        else the Result layer name. Keys must never collide (an ``.npz`` would keep one of two outputs), so
        when earlier Results already have that key, the Result layer name is the key, then ``NAME#2``,
        ``NAME#3``... until it is free.
        """
        results = self.results
        keys: dict[int, str] = {}
        taken: set[str] = set()
        clashing: list[Node] = []
        for result in results:
            key = self.named_output_key(result)
            if key in taken:
                clashing.append(result)
            else:
                keys[result.id] = key
                taken.add(key)
        if clashing:  # after every first claim: a fallback never takes the name of a later output
            for result in clashing:
                key, suffix = result.name, 1
                while key in taken:
                    suffix += 1
                    key = f"{result.name}#{suffix}"
                keys[result.id] = key
                taken.add(key)
        return {result.id: keys[result.id] for result in results}

    def named_output_key(self, result: Node) -> str:
        """The key one output would have on its own: Result ``output_names``, else producer port name, else
        Result name (:meth:`output_keys` makes keys that clash distinct)."""
        if result.result_names:
            return result.result_names[0]
        source = self.producer(InputPort(result.id, 0))
        if source is not None:
            names = self.node(source.node_id).outputs[source.index].tensor_names
            if names:
                return names[0]
        return result.name

    def input_index(self) -> dict[str, Node]:
        """Every name an input answers to (Parameter name, tensor names) -> its Parameter; the first wins."""
        index: dict[str, Node] = {}
        for parameter in self.parameters:
            for name in self.input_names(parameter):
                index.setdefault(name, parameter)
        return index

    def input_names(self, parameter: Node) -> list[str]:
        """Every name a Parameter answers to: its layer name and its port's tensor names."""
        return [parameter.name, *(n for n in parameter.outputs[0].tensor_names if n != parameter.name)]

    # ------------------------------------------------------------------------------ builder
    def parameter(self, name: str, shape: Any, element_type: ElementTypeLike = "f32") -> OutputPort:
        """Add a model input of partial ``shape`` (``-1``/``?``/``"1..8"`` dims allowed); ``element_type`` is an IR
        name or a NumPy dtype (``"f32"``, ``np.float32``)."""
        op = Parameter(shape=Shape.of(shape), element_type=_element_type(element_type))
        node = self.add_node(op, name)
        node.outputs[0].tensor_names = [name]
        return OutputPort(node.id, 0, self)

    def const(self, value: Any, element_type: ElementTypeLike | None = None, name: str | None = None) -> OutputPort:
        """Add a constant (Python ints become i64, floats f32, unless ``element_type`` says otherwise)."""
        return OutputPort(self.add_node(Const.of(value, element_type), name).id, 0, self)

    def split(
        self, data: OutputPort, axis: int | OutputPort, num_splits: int, name: str | None = None
    ) -> tuple[OutputPort, ...]:
        """Split-1: ``num_splits`` equal parts along ``axis`` (an int becomes an i64 scalar Const)."""
        with self._nothing_added_on_error():
            axis_port = axis if isinstance(axis, OutputPort) else self.const(np.int64(axis))
            from irgraph.ops.movement.split import Split  # its class is created when first used

            node = self.add_node(Split(num_splits=num_splits), name, [data, axis_port])
        return tuple(OutputPort(node.id, i, self) for i in range(node.num_outputs))

    def variadic_split(
        self,
        data: OutputPort,
        axis: int | OutputPort,
        lengths: Sequence[int] | OutputPort,
        name: str | None = None,
    ) -> tuple[OutputPort, ...]:
        """VariadicSplit-1: parts of ``lengths`` along ``axis`` (one length may be -1)."""
        with self._nothing_added_on_error():
            axis_port = axis if isinstance(axis, OutputPort) else self.const(np.int64(axis))
            lengths_port = lengths if isinstance(lengths, OutputPort) else self.const(lengths, ElementType.I64)
            node = self.add_node(VariadicSplit(), name, [data, axis_port, lengths_port])
        return tuple(OutputPort(node.id, i, self) for i in range(node.num_outputs))

    def concat(self, values: Sequence[OutputPort], axis: int, name: str | None = None) -> OutputPort:
        """Concat-1: join ``values`` along ``axis``."""
        from irgraph.ops.movement.concat import Concat  # its class is created when first used

        return OutputPort(self.add_node(Concat(axis=axis), name, list(values)).id, 0, self)

    def result(self, value: OutputPort, name: str | None = None) -> Node:
        """Add a model output; it is keyed by ``name`` (also given to an unnamed producer port)."""
        node = self.add_node(Result(), name, [value])
        producer_names = self.node(value.node_id).outputs[value.index].tensor_names
        if name is not None and not producer_names:
            producer_names.append(name)
        elif name is not None and producer_names[0] != name:
            node.result_names = [name]
        return node

    @contextmanager
    def _nothing_added_on_error(self) -> Iterator[None]:
        """Remove the nodes a builder call added when it fails part-way (an axis Const before a refused Split)."""
        first_new_id = self._next_id
        try:
            yield
        except IrError:
            for node_id in range(first_new_id, self._next_id):
                if node_id in self._nodes:
                    self.remove_node(node_id)
            raise

    def __repr__(self) -> str:
        return f"Model({self.name!r}, {len(self)} nodes)"


def _element_type(value: ElementTypeLike) -> ElementType:
    return ElementType.of(value)
