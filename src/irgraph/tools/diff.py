"""diff_models(a, b): a structural diff of two IR models, layer by layer.

Layers are matched in three passes: by name (the k-th layer called N in one model with the k-th
called N in the other, in topological order); then, from every matched pair, an unmatched producer
of the same type at the same input (and output index) on both sides, and the only unmatched
consumer of a type at an input on both sides; then what is left by position in topological order
among the unmatched layers of the same type. Layers still unmatched are reported as added or
removed. Every pass is linear in the size of the models.

For each matched pair the diff compares the op type and version, the attributes (as the file
writes them, plus ``<data>`` attributes the op does not declare), the number of ports, where each
input comes from (the matched producer and its output index), the element type and partial shape
of each port (as declared in the file, else as inferred), the tensor names of each output (as a
set: OpenVINO keeps them as one), a Result's output names (falling back to its producer's names,
as OpenVINO does), the rt_info of the layer and of its ports, and a Const's decoded value
(element type, shape and bytes, so two ``.bin`` layouts of the same values are equal).

*Equivalent* means no difference at all, ignoring: layer ids and the document order of layers
(but not the order of Parameters and Results: that is the order of the model's inputs and
outputs), the offsets and sizes of Consts in the ``.bin``, the formatting of the XML, and the two
net-level rt_info entries OpenVINO stamps on every file it saves (``<info name="OpenVINO
Runtime">`` and ``<Runtime_version>``), so that a file OpenVINO writes and the file irgraph
writes for the same model are equivalent.

A type that differs at a layer after another difference (a changed Parameter shape, a changed
split length, a rewired input changes the types after it) is a *derived* difference: kept apart in
``ModelDiff.derived`` so that the main list names each change once, where it was made. A type edited
by hand after another change is therefore listed as derived too.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from irgraph.core.collector import paused_collector
from irgraph.core.errors import bounded, printable
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort, RtEntry
from irgraph.ops import Const, Result

__all__ = ["Difference", "LayerRef", "ModelDiff", "diff_models", "IGNORED_NET_RT_INFO"]

IGNORED_NET_RT_INFO = frozenset({"OpenVINO Runtime", "Runtime_version"})
"""Net-level rt_info keys the diff ignores: the version stamp OpenVINO writes into every file it saves."""

MAX_VALUE_CHARS = 120
"""Longest attribute or rt_info value shown whole in a difference (the JSON keeps it whole)."""

# The kinds of difference, in the order a layer's differences are listed.
ADDED, REMOVED, RENAMED, TYPE, PORTS, ATTRIBUTE, VALUE, CONNECTION = (
    "added", "removed", "renamed", "type", "ports", "attribute", "value", "connection")
PORT_TYPE, TENSOR_NAMES, OUTPUT_NAMES, RT_INFO, MODEL = "port_type", "tensor_names", "output_names", "rt_info", "model"


@dataclass(frozen=True, slots=True)
class LayerRef:
    """A layer of one of the two files: id, name, type and where it is (file and line when read from XML)."""

    id: int
    name: str
    type: str
    file: str | None = None
    line: int | None = None

    @classmethod
    def of(cls, node: Node) -> LayerRef:
        """The reference to ``node``."""
        return cls(node.id, node.name, node.type_name, node.location.file, node.location.line)

    def where(self) -> str:
        """``FILE:LINE`` (or less, when unknown)."""
        if self.file is None:
            return f"line {self.line}" if self.line else ""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"id": self.id, "name": self.name, "type": self.type, "file": self.file, "line": self.line}


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference: its kind, the layer in each file (None for the side it is missing from, or for
    model-level ones), what differs (an attribute name, ``input 0``, ``output 1 rt_info fused_names``)
    and the old and new values as text (None where absent)."""

    kind: str
    a: LayerRef | None
    b: LayerRef | None
    what: str = ""
    old: str | None = None
    new: str | None = None
    detail: str = ""
    derived: bool = False

    def describe(self) -> str:
        """One human-readable line, names escaped: ``~ layer 'conv1' (Convolution): attribute strides 1, 1 -> 2, 2``."""
        if self.kind == MODEL:
            return f"~ model: {self.what} {_shown(self.old)} -> {_shown(self.new)}"
        if self.kind == ADDED:
            assert self.b is not None
            return f"+ layer {_label(self.b)}"
        if self.kind == REMOVED:
            assert self.a is not None
            return f"- layer {_label(self.a)}"
        assert self.a is not None
        head = f"~ layer {_label(self.a)}: "
        if self.kind == RENAMED:
            return head + f"renamed to {_quoted(self.new or '')}"
        if self.kind == VALUE:
            return head + f"values differ ({self.detail})"
        return head + f"{self.what} {_shown(self.old)} -> {_shown(self.new)}"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields, with the human-readable line as ``text``."""
        return {
            "kind": self.kind,
            "what": self.what,
            "old": self.old,
            "new": self.new,
            "detail": self.detail,
            "derived": self.derived,
            "a": None if self.a is None else self.a.to_json(),
            "b": None if self.b is None else self.b.to_json(),
            "text": self.describe(),
        }


@dataclass
class ModelDiff:
    """The differences between two models, each change once (``differences``) and what follows from
    them (``derived``), with counts of how the layers were matched."""

    differences: list[Difference] = field(default_factory=list)
    derived: list[Difference] = field(default_factory=list)
    matched_by_name: int = 0
    matched_by_structure: int = 0
    matched_by_position: int = 0

    @property
    def equivalent(self) -> bool:
        """True when nothing differs (see the module docstring for what is ignored)."""
        return not self.differences and not self.derived

    @property
    def matched(self) -> int:
        """How many layers of A were matched with a layer of B."""
        return self.matched_by_name + self.matched_by_structure + self.matched_by_position

    @property
    def added(self) -> list[Difference]:
        """Layers only B has."""
        return [d for d in self.differences if d.kind == ADDED]

    @property
    def removed(self) -> list[Difference]:
        """Layers only A has."""
        return [d for d in self.differences if d.kind == REMOVED]

    def summary(self) -> str:
        """``equivalent (27 layers matched)`` or ``3 differences: 1 layer changed, 1 added, 1 removed (...)``."""
        matched = f"{self.matched} layers matched"
        if self.equivalent:
            return f"equivalent ({matched})"
        changed = len({(d.a.id if d.a else None) for d in self.differences if d.kind not in (ADDED, REMOVED, MODEL)})
        model_level = sum(1 for d in self.differences if d.kind == MODEL)
        parts = [f"{changed} {_plural(changed, 'layer')} changed", f"{len(self.added)} added",
                 f"{len(self.removed)} removed"]
        if model_level:
            parts.append(f"{model_level} model-level")
        text = f"{len(self.differences)} {_plural(len(self.differences), 'difference')}: {', '.join(parts)} ({matched})"
        if self.derived:
            text += f"; {len(self.derived)} more type {_plural(len(self.derived), 'difference')} follow from them"
        return text


def diff_models(a: Model, b: Model, *, on_layer: Callable[[Node], None] | None = None) -> ModelDiff:
    """Compare model ``a`` (the old one) with model ``b`` (the new one); see the module docstring.

    Ports whose type the file does not declare (models built in code) are compared by their
    inferred types: shapes are inferred first for such models (failures leave those types unknown).
    ``on_layer`` is called with each layer of ``a`` as it is compared (progress reporting).
    """
    with paused_collector():
        return _diff(a, b, on_layer)


def _diff(a: Model, b: Model, on_layer: Callable[[Node], None] | None = None) -> ModelDiff:
    for model in (a, b):
        _ensure_types(model)
    order_a, order_b = a.topological_order(), b.topological_order()
    matching = _Matching(a, b, order_a, order_b)
    result = ModelDiff(
        matched_by_name=matching.by_name, matched_by_structure=matching.by_structure,
        matched_by_position=matching.by_position,
    )
    out: list[Difference] = []
    out += _model_differences(a, b, matching)
    changed: set[int] = set()  # layers of A whose outputs may differ: what differs after them is derived
    for node in order_a:
        if on_layer is not None:
            on_layer(node)
        other_id = matching.a_to_b.get(node.id)
        if other_id is None:
            out.append(Difference(REMOVED, LayerRef.of(node), None))
            changed.add(node.id)
            continue
        comparison = _LayerComparison(a, b, node, b.node(other_id), matching, changed)
        out += comparison.differences()
        if comparison.outputs_may_differ:
            changed.add(node.id)
    out += [Difference(ADDED, None, LayerRef.of(node)) for node in order_b if node.id not in matching.b_to_a]
    for difference in out:
        (result.derived if difference.derived else result.differences).append(difference)
    return result


# ------------------------------------------------------------------------------------ matching
class _Matching:
    """Which layer of A is which layer of B: by name, then by structure, then by position."""

    def __init__(self, a: Model, b: Model, order_a: list[Node], order_b: list[Node]) -> None:
        self.a, self.b = a, b
        self.a_to_b: dict[int, int] = {}
        self.b_to_a: dict[int, int] = {}
        named: dict[str, list[Node]] = defaultdict(list)
        for node in reversed(order_b):
            named[node.name].append(node)  # reversed, so pop() takes the first in topological order
        for node in order_a:
            candidates = named.get(node.name)
            if candidates:
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
        return self.a.node(source_a.node_id).type_name == self.b.node(source_b.node_id).type_name

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
    def _free_consumers(model: Model, port: OutputPort, matched: dict[int, int]) -> dict[tuple[str, int], int | None]:
        """Unmatched consumers of ``port`` keyed by (type, input index); None where that key is not unique."""
        found: dict[tuple[str, int], int | None] = {}
        for target in model.consumers(port):
            if target.node_id in matched:
                continue
            key = (model.node(target.node_id).type_name, target.index)
            found[key] = None if key in found else target.node_id
        return found

    def _by_position(self, order_a: list[Node], order_b: list[Node]) -> None:
        """The k-th unmatched layer of a type in A with the k-th unmatched one of that type in B."""
        left: dict[str, list[Node]] = defaultdict(list)
        for node in reversed(order_b):
            if node.id not in self.b_to_a:
                left[node.type_name].append(node)
        for node in order_a:
            if node.id in self.a_to_b:
                continue
            candidates = left.get(node.type_name)
            if candidates:
                self._pair(node.id, candidates.pop().id)


# ------------------------------------------------------------------------------------ comparing
def _ensure_types(model: Model) -> None:
    """Infer shapes (keeping going past failures) when some port has no declared type and no inferred one."""
    if any(
        output.declared_type is None and output.type is None for node in model for output in node.outputs
    ):
        from irgraph.analysis.shape_inference import walk

        walk(model, on_error=lambda node, error: None)


def _output_type(node: Node, index: int) -> TensorType | None:
    """The type of an output as the file declares it, else as inferred."""
    if index >= len(node.outputs):
        return None
    output = node.outputs[index]
    return output.type if output.declared_type is None else output.declared_type


class _LayerComparison:
    """The differences between one layer of A and its match in B."""

    def __init__(self, a: Model, b: Model, node_a: Node, node_b: Node, matching: _Matching, changed: set[int]
                 ) -> None:
        self.a, self.b, self.node_a, self.node_b, self.matching = a, b, node_a, node_b, matching
        self.changed_upstream = changed
        self.outputs_may_differ = False
        self.refs: tuple[LayerRef, LayerRef] | None = None  # made for the first difference: most pairs have none
        self.found: list[Difference] = []

    def add(self, kind: str, what: str, old: str | None, new: str | None, detail: str = "", derived: bool = False
            ) -> None:
        if self.refs is None:
            self.refs = LayerRef.of(self.node_a), LayerRef.of(self.node_b)
        self.found.append(Difference(kind, *self.refs, what, old, new, detail, derived))

    def differences(self) -> list[Difference]:
        node_a, node_b = self.node_a, self.node_b
        if node_a.name != node_b.name:
            self.add(RENAMED, "name", node_a.name, node_b.name)
        op_changed = self._op()
        inputs_changed = self._inputs()
        types_changed = self._outputs(derived=op_changed or inputs_changed)
        self.outputs_may_differ = op_changed or inputs_changed or types_changed
        self._rt_info("rt_info", node_a.rt_info, node_b.rt_info)
        for direction, ports_a, ports_b in (("input", node_a.inputs, node_b.inputs),
                                            ("output", node_a.outputs, node_b.outputs)):
            for index in range(max(len(ports_a), len(ports_b))):
                self._rt_info(f"{direction} {index} rt_info", ports_a[index].rt_info if index < len(ports_a) else None,
                              ports_b[index].rt_info if index < len(ports_b) else None)
        return self.found

    def _op(self) -> bool:
        """Type, version, port counts, attributes and a Const's value; True when any of them differs."""
        node_a, node_b = self.node_a, self.node_b
        before = len(self.found)
        op_a, op_b = node_a.op, node_b.op
        if node_a.type_name != node_b.type_name or op_a.version != op_b.version:
            # Another op: its attributes, port counts and values differ as a matter of course; not listed.
            self.add(TYPE, "type", _op_title(node_a), _op_title(node_b))
            return True
        if node_a.num_inputs != node_b.num_inputs:
            self.add(PORTS, "inputs", str(node_a.num_inputs), str(node_b.num_inputs))
        if node_a.num_outputs != node_b.num_outputs:
            self.add(PORTS, "outputs", str(node_a.num_outputs), str(node_b.num_outputs))
        if op_a is op_b:
            return len(self.found) > before
        consts = isinstance(op_a, Const) and isinstance(op_b, Const)
        # Ops are frozen dataclasses: equal ops have equal attributes (a Const's value is compared apart).
        if consts:
            same = op_a.element_type == op_b.element_type and op_a.shape == op_b.shape  # type: ignore[attr-defined]
        else:
            same = op_a == op_b
        if not same or node_a.extra_attributes or node_b.extra_attributes:
            attributes_a = {**op_a.to_attributes(), **node_a.extra_attributes}
            attributes_b = {**op_b.to_attributes(), **node_b.extra_attributes}
            for key in _union(attributes_a, attributes_b):
                old, new = attributes_a.get(key), attributes_b.get(key)
                if old != new:
                    self.add(ATTRIBUTE, f"attribute {key}", old, new)
        if consts:
            detail = _value_difference(op_a, op_b)  # type: ignore[arg-type]
            if detail:
                self.add(VALUE, "values", None, None, detail)
        return len(self.found) > before

    def _inputs(self) -> bool:
        """Where each input comes from, and its declared type; True when a source, an input type, or
        anything before an input differs."""
        changed = False
        a, b, node_a, node_b = self.a, self.b, self.node_a, self.node_b
        sources_a, sources_b = a.input_sources(node_a), b.input_sources(node_b)
        for index in range(max(len(sources_a), len(sources_b))):
            source_a = sources_a[index] if index < len(sources_a) else None
            source_b = sources_b[index] if index < len(sources_b) else None
            same_source = (source_a is None) == (source_b is None) and (
                source_a is None
                or (self.matching.a_to_b.get(source_a.node_id) == source_b.node_id  # type: ignore[union-attr]
                    and source_a.index == source_b.index)  # type: ignore[union-attr]
            )
            if not same_source and index < len(sources_a) and index < len(sources_b):
                self.add(CONNECTION, f"input {index} from", _source_text(a, source_a), _source_text(b, source_b))
            type_a = _output_type(a.node(source_a.node_id), source_a.index) if source_a is not None else None
            type_b = _output_type(b.node(source_b.node_id), source_b.index) if source_b is not None else None
            upstream = source_a is not None and source_a.node_id in self.changed_upstream
            differs = not same_source or type_a != type_b or upstream
            changed = changed or differs
            declared_a = node_a.inputs[index].declared_type if index < len(node_a.inputs) else None
            declared_b = node_b.inputs[index].declared_type if index < len(node_b.inputs) else None
            # A model built in code declares no input types: only types both files declare are compared.
            if declared_a != declared_b and declared_a is not None and declared_b is not None:
                self.add(PORT_TYPE, f"input {index} type", _type_text(declared_a), _type_text(declared_b),
                         derived=differs)
        return changed

    def _outputs(self, derived: bool) -> bool:
        """Each output's type and tensor names; a Result's output names. True when an output type differs."""
        node_a, node_b = self.node_a, self.node_b
        types_differ = False
        for index in range(min(node_a.num_outputs, node_b.num_outputs)):
            type_a, type_b = _output_type(node_a, index), _output_type(node_b, index)
            if type_a != type_b:
                types_differ = True
                self.add(PORT_TYPE, f"output {index} type", _type_text(type_a), _type_text(type_b), derived=derived)
            names_a, names_b = node_a.outputs[index].tensor_names, node_b.outputs[index].tensor_names
            if names_a != names_b and set(names_a) != set(names_b):
                self.add(TENSOR_NAMES, f"output {index} tensor names", _names_text(names_a), _names_text(names_b))
        if isinstance(node_a.op, Result) and isinstance(node_b.op, Result):
            names_a, names_b = _result_names(self.a, node_a), _result_names(self.b, node_b)
            if set(names_a) != set(names_b):
                self.add(OUTPUT_NAMES, "output names", _names_text(names_a), _names_text(names_b))
        return types_differ

    def _rt_info(self, what: str, entries_a: tuple[RtEntry, ...] | None, entries_b: tuple[RtEntry, ...] | None
                 ) -> None:
        if (entries_a or ()) == (entries_b or ()):
            return
        for key, old, new in _rt_info_changes(entries_a or (), entries_b or ()):
            self.add(RT_INFO, f"{what} {key}", old, new)


def _model_differences(a: Model, b: Model, matching: _Matching) -> list[Difference]:
    """Name, IR version, net-level rt_info, and the order of the model's inputs and outputs."""
    found = []
    if a.name != b.name:
        found.append(Difference(MODEL, None, None, "name", a.name, b.name))
    if a.ir_version != b.ir_version and a.ir_version is not None and b.ir_version is not None:  # None: built in code
        found.append(Difference(MODEL, None, None, "IR version", _str(a.ir_version), _str(b.ir_version)))
    for key, old, new in _rt_info_changes(_net_rt_info(a), _net_rt_info(b)):
        found.append(Difference(MODEL, None, None, f"rt_info {key}", old, new))
    for what, nodes_a, nodes_b in (("inputs", a.parameters, b.parameters), ("outputs", a.results, b.results)):
        in_a = [matching.a_to_b[node.id] for node in nodes_a if node.id in matching.a_to_b]
        both = set(in_a)
        in_b = [node.id for node in nodes_b if node.id in both]
        if in_a != in_b:
            names = {node.id: node.name for node in nodes_b}
            found.append(Difference(MODEL, None, None, f"order of {what}", ", ".join(names[i] for i in in_a),
                                    ", ".join(names[i] for i in in_b)))
    return found


def _net_rt_info(model: Model) -> tuple[RtEntry, ...]:
    return tuple(entry for entry in model.rt_info or () if _rt_key(entry) not in IGNORED_NET_RT_INFO)


# ------------------------------------------------------------------------------------ rt_info
def _rt_key(entry: RtEntry) -> str:
    """``fused_names`` for ``<attribute name="fused_names" .../>``; the tag for ``<Runtime_version .../>``."""
    for key, value in entry.attributes:
        if key == "name":
            return value
    return entry.tag


def _rt_value(entry: RtEntry) -> str:
    """The value an entry holds: its ``value`` attribute alone, else every attribute but ``name`` as k=v."""
    attributes = [(k, v) for k, v in entry.attributes if k != "name"]
    if len(attributes) == 1 and attributes[0][0] == "value":
        return attributes[0][1]
    return " ".join(f"{k}={v}" for k, v in attributes)


def _flatten(entries: Iterable[RtEntry]) -> dict[str, str]:
    """Every entry by its path (``conversion_parameters/input_model``); repeated keys get ``#2``, ``#3``."""
    flat: dict[str, str] = {}
    stack: list[tuple[str, RtEntry]] = [("", entry) for entry in reversed(tuple(entries))]
    while stack:
        prefix, entry = stack.pop()
        key = prefix + _rt_key(entry)
        unique, count = key, 1
        while unique in flat:
            count += 1
            unique = f"{key}#{count}"
        if entry.children:
            if entry.attributes:
                flat[unique] = _rt_value(entry)
            stack.extend((unique + "/", child) for child in reversed(entry.children))
        else:
            flat[unique] = _rt_value(entry)
    return flat


def _rt_info_changes(a: tuple[RtEntry, ...], b: tuple[RtEntry, ...]) -> Iterator[tuple[str, str | None, str | None]]:
    if a == b:
        return
    flat_a, flat_b = _flatten(a), _flatten(b)
    for key in _union(flat_a, flat_b):
        old, new = flat_a.get(key), flat_b.get(key)
        if old != new:
            yield key, old, new


# ------------------------------------------------------------------------------------ values
def _value_bytes(value: np.ndarray) -> np.ndarray:
    """The value's bytes as a flat uint8 array (a view, no copy); strings UTF-8 encoded and joined by NUL."""
    if value.dtype.kind == "O":
        text = "\0".join(str(item) for item in value.reshape(-1).tolist()).encode("utf-8", "surrogatepass")
        return np.frombuffer(text, np.uint8)
    return np.ascontiguousarray(value).reshape(-1).view(np.uint8)


def value_digest(value: np.ndarray | None) -> str:
    """The sha256 of a Const's decoded value (its bytes; strings joined by NUL), as hex."""
    if value is None:
        return "(not loaded)"
    return hashlib.sha256(_value_bytes(value).data).hexdigest()


def _value_difference(a: Const, b: Const) -> str:
    """Empty when the values are equal (or their types/shapes differ: the attributes say so), else a description."""
    if a.element_type != b.element_type or a.shape != b.shape:
        return ""
    value_a, value_b = a.value, b.value
    if value_a is value_b:
        return ""
    if value_a is not None and value_b is not None and np.array_equal(_value_bytes(value_a), _value_bytes(value_b)):
        return ""
    detail = f"sha256 {value_digest(value_a)[:12]}.. -> {value_digest(value_b)[:12]}.."
    if value_a is not None and value_b is not None:
        differing = _differing(value_a, value_b)
        if value_a.dtype.kind not in "Ob" and differing.size:
            with np.errstate(all="ignore"):  # only the differing elements: a 200 MB weight stays cheap
                gaps = np.abs(value_a.reshape(-1)[differing].astype(np.float64)
                              - value_b.reshape(-1)[differing].astype(np.float64))
            detail += f"; max abs diff {float(np.max(gaps)):.6g}"
        detail += f"; {differing.size} of {value_a.size} {_plural(value_a.size, 'element')} differ"
    return detail


def _differing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The flat indices of the elements whose bits (or strings) differ."""
    if a.dtype.kind == "O":
        return np.flatnonzero(np.array([x != y for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist(),
                                                                 strict=True)], dtype=bool))
    width = a.dtype.itemsize
    if width in (1, 2, 4, 8):  # one unsigned integer per element: compares bits, so NaN equals itself
        unsigned = np.dtype(f"u{width}")
        return np.flatnonzero(np.ascontiguousarray(a).reshape(-1).view(unsigned)
                              != np.ascontiguousarray(b).reshape(-1).view(unsigned))
    bytes_a, bytes_b = _value_bytes(a).reshape(-1, width), _value_bytes(b).reshape(-1, width)
    return np.flatnonzero(np.any(bytes_a != bytes_b, axis=1))


# ------------------------------------------------------------------------------------ text
def _op_title(node: Node) -> str:
    return f"{node.type_name} {node.op.version}".rstrip()


def _result_names(model: Model, node: Node) -> list[str]:
    """A Result's output names; without any, its producer's tensor names (what OpenVINO writes back)."""
    if node.result_names:
        return node.result_names
    source = model.input_sources(node)[0] if node.num_inputs else None
    return model.node(source.node_id).outputs[source.index].tensor_names if source is not None else []


def _source_text(model: Model, source: OutputPort | None) -> str | None:
    if source is None:
        return None
    return f"'{model.node(source.node_id).name}':{source.index}"


def _type_text(tensor_type: TensorType | None) -> str | None:
    return None if tensor_type is None else str(tensor_type)


def _names_text(names: list[str]) -> str | None:
    return ",".join(sorted(set(names))) if names else None


def _union(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """Keys of both, in first's order then second's."""
    return list(dict.fromkeys([*first, *second]))


def _escape(text: str) -> str:
    return printable(bounded(text, MAX_VALUE_CHARS))


def _quoted(name: str) -> str:
    return f"'{_escape(name)}'"


def _label(layer: LayerRef) -> str:
    return f"{_quoted(layer.name)} ({_escape(layer.type)})"


def _shown(text: str | None) -> str:
    return "(none)" if text is None else _escape(text) if text else "''"


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
