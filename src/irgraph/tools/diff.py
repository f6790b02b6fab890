"""diff_models(a, b): a structural diff of two IR models, layer by layer.

Layers are matched in three passes (``irgraph.tools.diff_matching``): by name (the k-th layer called N in one model
with the k-th called N in the other, in topological order); then, from every matched pair, an unmatched producer
of the same kind at the same input (and output index) on both sides, and the only unmatched consumer of a kind at
an input on both sides; then what is left by position in topological order among the unmatched layers of the same
kind. A kind is the type and the output element types (and shapes where nothing else ties the pair): a rename is
reported only between layers that are the same thing. Layers still unmatched are reported as added or removed.
Every pass is linear in the size of the models.

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

Two options say what else a tool's rewrite may change. ``weights_as_values``: a compressed weight (fp16, int8,
int4, nf4 ... decompression chains, ``irgraph.tools.diff_weights``) is the Const it decompresses to, its values
compared with the other side's within the compression's rounding, and the compression's rt_info marks are
ignored; every such weight's largest change is kept in ``ModelDiff.weight_changes``. ``ignore_generated_names``:
names a tool made up (``Constant_123``, ``Const_1``) neither match layers by name nor count as renamed.

A type that differs at a layer after another difference (a changed Parameter shape, a changed
split length, a rewired input changes the types after it) is a *derived* difference: kept apart in
``ModelDiff.derived`` so that the main list names each change once, where it was made. A type edited
by hand after another change is therefore listed as derived too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from irgraph.core.collector import paused_collector
from irgraph.core.shapes import TensorType
from irgraph.core.text import counted, plural
from irgraph.graph import Model, Node, OutputPort, RtEntry
from irgraph.ops import Const, Result
from irgraph.tools import diff_weights
from irgraph.tools.diff_matching import Matching, is_generated_name, output_type
from irgraph.tools.diff_records import (
    ADDED,
    ATTRIBUTE,
    CONNECTION,
    KINDS,
    MODEL,
    OUTPUT_NAMES,
    PORT_TYPE,
    PORTS,
    REMOVED,
    RENAMED,
    RT_INFO,
    TENSOR_NAMES,
    TYPE,
    VALUE,
    Difference,
    LayerRef,
    quoted,
)
from irgraph.tools.diff_values import rt_info_changes, rt_key, union, value_difference, values_equal
from irgraph.tools.diff_weights import Decompressed, WeightChange

__all__ = ["Difference", "LayerRef", "ModelDiff", "WeightChange", "diff_models", "IGNORED_NET_RT_INFO"]

IGNORED_NET_RT_INFO = frozenset({"OpenVINO Runtime", "Runtime_version"})
"""Net-level rt_info keys the diff ignores: the version stamp OpenVINO writes into every file it saves."""


@dataclass
class ModelDiff:
    """The differences between two models, each change once (``differences``) and what follows from
    them (``derived``), with counts of how the layers were matched. With ``weights_as_values``, the weights
    stored compressed on each side (by stored type) and how far each moved (``weight_changes``)."""

    differences: list[Difference] = field(default_factory=list)
    derived: list[Difference] = field(default_factory=list)
    matched_by_name: int = 0
    matched_by_structure: int = 0
    matched_by_position: int = 0
    compressed_a: Counter[str] = field(default_factory=Counter)
    compressed_b: Counter[str] = field(default_factory=Counter)
    weight_changes: list[WeightChange] = field(default_factory=list)
    generated_renames: int = 0
    """Renames between two generated names, not listed (``ignore_generated_names``)."""

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

    def counts(self) -> dict[str, int]:
        """How many differences of each kind (derived ones apart), in the order of ``diff_records.KINDS``."""
        found = Counter(d.kind for d in self.differences)
        return {kind: found[kind] for kind in KINDS if found[kind]}

    def summary(self) -> str:
        """One line: ``equivalent (27 layers matched)`` or ``3 differences: 1 layer changed, 1 added, 1 removed
        (...); by kind: 1 attribute, 1 added, 1 removed``, then what the options set aside."""
        matched = f"{self.matched} layers matched"
        if self.equivalent:
            return "; ".join([f"equivalent ({matched})", *self._set_aside()])
        changed = len({(d.a.id if d.a else None) for d in self.differences if d.kind not in (ADDED, REMOVED, MODEL)})
        model_level = sum(1 for d in self.differences if d.kind == MODEL)
        parts = [f"{counted(changed, 'layer')} changed", f"{len(self.added)} added", f"{len(self.removed)} removed"]
        if model_level:
            parts.append(f"{model_level} model-level")
        text = f"{counted(len(self.differences), 'difference')}: {', '.join(parts)} ({matched})"
        if self.differences:
            text += "; by kind: " + ", ".join(f"{count} {kind}" for kind, count in self.counts().items())
        if self.derived:
            text += f"; {len(self.derived)} more type {plural(len(self.derived), 'difference')} follow from them"
        return "; ".join([text, *self._set_aside()])

    def _set_aside(self) -> list[str]:
        """What the options let pass: compressed weights compared as values, renames between generated names."""
        notes = []
        if self.compressed_a or self.compressed_b:
            sides = [f"{sum(counts.values())} in {side} ({', '.join(f'{n} {t}' for t, n in sorted(counts.items()))})"
                     for side, counts in (("A", self.compressed_a), ("B", self.compressed_b)) if counts]
            note = f"compressed weights compared as values: {' and '.join(sides)}"
            if self.weight_changes:
                largest = max(self.weight_changes, key=lambda change: change.max_abs)
                within = sum(1 for change in self.weight_changes if change.within_rounding)
                note += (f", largest change {largest.max_abs:.6g} at {quoted(largest.name)}; {within} of "
                         f"{len(self.weight_changes)} within the compression's rounding")
            notes.append(note)
        if self.generated_renames:
            notes.append(f"{counted(self.generated_renames, 'rename')} between generated names not listed")
        return notes


def diff_models(a: Model, b: Model, *, on_layer: Callable[[Node], None] | None = None,
                weights_as_values: bool = False, ignore_generated_names: bool = False) -> ModelDiff:
    """Compare model ``a`` (the old one) with model ``b`` (the new one); see the module docstring.

    Ports whose type the file does not declare (models built in code) are compared by their
    inferred types: shapes are inferred first for such models (failures leave those types unknown).
    ``on_layer`` is called with each layer of ``a`` as it is compared (progress reporting).
    ``weights_as_values`` compares compressed weights by the values they decompress to;
    ``ignore_generated_names`` neither matches by nor reports generated names (``Constant_12``).
    """
    with paused_collector():
        return _diff(a, b, on_layer, _Options(weights_as_values, ignore_generated_names))


@dataclass(frozen=True)
class _Options:
    weights_as_values: bool = False
    ignore_generated_names: bool = False
    weights_a: dict[int, Decompressed] = field(default_factory=dict)
    weights_b: dict[int, Decompressed] = field(default_factory=dict)

    @property
    def ignored_rt_info(self) -> frozenset[str]:
        return diff_weights.COMPRESSION_RT_INFO if self.weights_as_values else frozenset()

    @property
    def ignored_net_rt_info(self) -> frozenset[str]:
        if self.weights_as_values:
            return IGNORED_NET_RT_INFO | diff_weights.COMPRESSION_NET_RT_INFO
        return IGNORED_NET_RT_INFO


def _diff(a: Model, b: Model, on_layer: Callable[[Node], None] | None, options: _Options) -> ModelDiff:
    for model in (a, b):
        _ensure_types(model)
    if options.weights_as_values:
        a, weights_a = diff_weights.decompressed(a)
        b, weights_b = diff_weights.decompressed(b)
        options = _Options(True, options.ignore_generated_names, weights_a, weights_b)
    order_a, order_b = a.topological_order(), b.topological_order()
    matching = Matching(a, b, order_a, order_b, options.ignore_generated_names)
    result = ModelDiff(
        matched_by_name=matching.by_name, matched_by_structure=matching.by_structure,
        matched_by_position=matching.by_position, compressed_a=diff_weights.stored_counts(options.weights_a),
        compressed_b=diff_weights.stored_counts(options.weights_b),
    )
    out: list[Difference] = []
    out += _model_differences(a, b, matching, options.ignored_net_rt_info)
    changed: set[int] = set()  # layers of A whose outputs may differ: what differs after them is derived
    for node in order_a:
        if on_layer is not None:
            on_layer(node)
        other_id = matching.a_to_b.get(node.id)
        if other_id is None:
            out.append(Difference(REMOVED, LayerRef.of(node), None))
            changed.add(node.id)
            continue
        comparison = _LayerComparison(a, b, node, b.node(other_id), matching, changed, options)
        out += comparison.differences()
        if comparison.weight_change is not None:
            result.weight_changes.append(comparison.weight_change)
        result.generated_renames += comparison.generated_rename
        if comparison.outputs_may_differ:
            changed.add(node.id)
    out += [Difference(ADDED, None, LayerRef.of(node)) for node in order_b if node.id not in matching.b_to_a]
    for difference in out:
        (result.derived if difference.derived else result.differences).append(difference)
    return result


# ------------------------------------------------------------------------------------ comparing
def _ensure_types(model: Model) -> None:
    """Infer shapes (keeping going past failures) when some port has no declared type and no inferred one."""
    if any(
        output.declared_type is None and output.type is None for node in model for output in node.outputs
    ):
        from irgraph.analysis.shape_inference import walk

        walk(model, on_error=lambda node, error: None)


class _LayerComparison:
    """The differences between one layer of A and its match in B."""

    def __init__(self, a: Model, b: Model, node_a: Node, node_b: Node, matching: Matching, changed: set[int],
                 options: _Options) -> None:
        self.a, self.b, self.node_a, self.node_b, self.matching = a, b, node_a, node_b, matching
        self.changed_upstream = changed
        self.options = options
        self.outputs_may_differ = False
        self.weight_change: WeightChange | None = None
        self.generated_rename = 0
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
            if self.options.ignore_generated_names and is_generated_name(node_a.name) \
                    and is_generated_name(node_b.name):
                self.generated_rename = 1
            else:
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
        consts = (op_a, op_b) if isinstance(op_a, Const) and isinstance(op_b, Const) else None
        # Ops are frozen dataclasses: equal ops have equal attributes (a Const's value is compared apart).
        if consts is not None:
            same = consts[0].element_type == consts[1].element_type and consts[0].shape == consts[1].shape
        else:
            same = op_a == op_b
        if not same or node_a.extra_attributes or node_b.extra_attributes:
            attributes_a = {**op_a.to_attributes(), **node_a.extra_attributes}
            attributes_b = {**op_b.to_attributes(), **node_b.extra_attributes}
            for key in union(attributes_a, attributes_b):
                old, new = attributes_a.get(key), attributes_b.get(key)
                if old != new:
                    self.add(ATTRIBUTE, f"attribute {key}", old, new)
        if consts is not None:
            self._values(*consts)
        return len(self.found) > before

    def _values(self, op_a: Const, op_b: Const) -> None:
        """A Const's values: by their bits, or, for a weight stored compressed on either side, as numbers that may
        differ by the compression's rounding."""
        weight_a = self.options.weights_a.get(self.node_a.id)
        weight_b = self.options.weights_b.get(self.node_b.id)
        if (weight_a is None and weight_b is None) or op_a.element_type != op_b.element_type \
                or op_a.shape != op_b.shape:
            detail = value_difference(op_a, op_b)
            if detail:
                self.add(VALUE, "values", None, None, detail)
            return
        change = diff_weights.compare(op_a, op_b, self.node_a.name, weight_a, weight_b)
        if change is None:
            if not values_equal(op_a, op_b):
                self.add(VALUE, "values", None, None, value_difference(op_a, op_b))
        elif not change.within_rounding:
            self.add(VALUE, "values", None, None, change.detail())
        self.weight_change = change

    def _inputs(self) -> bool:
        """Where each input comes from, and its declared type; True when a source, an input type, or
        anything before an input differs."""
        changed = False
        a, b, node_a, node_b = self.a, self.b, self.node_a, self.node_b
        sources_a, sources_b = a.input_sources(node_a), b.input_sources(node_b)
        for index in range(max(len(sources_a), len(sources_b))):
            source_a = sources_a[index] if index < len(sources_a) else None
            source_b = sources_b[index] if index < len(sources_b) else None
            if source_a is None or source_b is None:
                same_source = source_a is source_b
            else:
                same_source = (self.matching.a_to_b.get(source_a.node_id) == source_b.node_id
                               and source_a.index == source_b.index)
            if not same_source and index < len(sources_a) and index < len(sources_b):
                self.add(CONNECTION, f"input {index} from", _source_text(a, source_a), _source_text(b, source_b))
            type_a = output_type(a.node(source_a.node_id), source_a.index) if source_a is not None else None
            type_b = output_type(b.node(source_b.node_id), source_b.index) if source_b is not None else None
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
            type_a, type_b = output_type(node_a, index), output_type(node_b, index)
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
        for key, old, new in rt_info_changes(entries_a or (), entries_b or (), self.options.ignored_rt_info):
            self.add(RT_INFO, f"{what} {key}", old, new)


def _model_differences(a: Model, b: Model, matching: Matching, ignored: frozenset[str]) -> list[Difference]:
    """Name, IR version, net-level rt_info, and the order of the model's inputs and outputs."""
    found = []
    if a.name != b.name:
        found.append(Difference(MODEL, None, None, "name", a.name, b.name))
    if a.ir_version != b.ir_version and a.ir_version is not None and b.ir_version is not None:  # None: built in code
        found.append(Difference(MODEL, None, None, "IR version", _str(a.ir_version), _str(b.ir_version)))
    for key, old, new in rt_info_changes(_net_rt_info(a, ignored), _net_rt_info(b, ignored)):
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


def _net_rt_info(model: Model, ignored: frozenset[str]) -> tuple[RtEntry, ...]:
    return tuple(entry for entry in model.rt_info or () if rt_key(entry) not in ignored)



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


def _str(value: object) -> str | None:
    return None if value is None else str(value)
