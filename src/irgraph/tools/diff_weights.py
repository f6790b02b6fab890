"""Compressed weights as the values they decompress to, for ``diff_models(..., weights_as_values=True)``.

OpenVINO's ``save_model(compress_to_fp16=True)`` stores a weight as ``Const(f16) -> Convert(f32)``; NNCF's
``compress_weights`` as ``Const(u8/i8/u4/i4/nf4/f4/f8) -> Convert -> [Subtract zero point] -> Multiply scale
-> [Reshape] -> [Convert f32]`` (docs/decompression.md; :mod:`irgraph.analysis.decompression_chains` finds them).
Each such constant sub-graph is replaced by one Const holding what it computes (f16 arithmetic widened to f32, as
OpenVINO's CPU plugin does), named as the layer the model reads it from, so that it matches the plain Const of an
uncompressed file. Each also keeps one *step* per element: how far the decompressed value moves when the stored
code moves to its neighbour (the lowest bit of the code flipped: one f16 ulp, one int8 level times the scale, the
next nf4 level). A change no larger than the
steps of both sides is the compression's rounding; a larger one is a changed weight.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from irgraph.analysis.decompression_chains import DecompressionChain, decompression_chains, neighbouring_codes
from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError
from irgraph.graph import Model, Node, Output, OutputPort
from irgraph.ops import Const
from irgraph.runtime.decompression import widen
from irgraph.tools.diff_matching import output_type
from irgraph.tools.diff_values import gaps, rt_key

COMPRESSION_RT_INFO = frozenset({"decompression", "DisablePrecisionConversion"})
"""rt_info entries OpenVINO's compression writes (the chain's mark, and the Consts it chose to keep as they were)."""

COMPRESSION_NET_RT_INFO = frozenset({"nncf"})
"""Net-level rt_info NNCF writes: its version and the settings of ``compress_weights``."""

_ROUNDING_SLACK = 1 + 2.0 ** -10
"""A change within the steps may still exceed them by the f32 rounding of ``(code - zero point) * scale``."""


@dataclass(frozen=True, slots=True)
class Decompressed:
    """A weight computed by a decompression chain: the stored type, how many layers the chain had, and the step
    of each element (the change one code makes)."""

    stored: ElementType
    layers: int
    step: np.ndarray


@dataclass(frozen=True, slots=True)
class WeightChange:
    """How far a weight's values moved between the two files when at least one side stores it compressed."""

    name: str
    stored_a: str
    stored_b: str
    max_abs: float
    largest: float
    beyond: int
    size: int

    @property
    def within_rounding(self) -> bool:
        """True when every element moved by no more than one step of the compression(s)."""
        return not self.beyond

    def to_json(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {"name": self.name, "stored_a": self.stored_a, "stored_b": self.stored_b, "max_abs": self.max_abs,
                "largest": self.largest, "beyond_rounding": self.beyond, "elements": self.size}

    def detail(self) -> str:
        """``stored f32 -> u8, max abs diff 0.25 (of values up to 0.15), 3 of 64 elements beyond the compression's
        rounding`` (the last part only when some are)."""
        text = f"stored {self.stored_a} -> {self.stored_b}, max abs diff {self.max_abs:.6g} " \
               f"(of values up to {self.largest:.6g})"
        if self.beyond:
            text += f", {self.beyond} of {self.size} elements beyond the compression's rounding"
        return text


def decompressed(model: Model) -> tuple[Model, dict[int, Decompressed]]:
    """``model`` with every decompression chain replaced by one Const (a new Model; ``model`` is left as it is;
    the layers it keeps are shared), and what each new Const was stored as, by layer id."""
    chains = decompression_chains(model)
    if not chains:
        return model, {}
    replaced: dict[int, Node] = {}
    weights: dict[int, Decompressed] = {}
    removed: set[int] = set()
    for chain in chains:
        found = _evaluate(model, chain)
        if found is None:
            continue
        replaced[chain.end], weights[chain.end] = found
        removed.update(chain.layers - {chain.end})
    # A Const read only by collapsed chains goes with them (a scale or zero point shared by several chains too); one
    # something else reads too stays, with its other readers.
    for node in model:
        if isinstance(node.op, Const) and node.id not in replaced:
            readers = model.consumers(OutputPort(node.id, 0))
            if readers and all(port.node_id in removed or port.node_id in replaced for port in readers):
                removed.add(node.id)
    result = Model(model.name, ir_version=model.ir_version)
    result.rt_info, result.legacy_sections = model.rt_info, model.legacy_sections
    result.source, result.source_line = model.source, model.source_line
    for node in model:
        if node.id not in removed:
            result.place(replaced.get(node.id, node))
    result.connect_all((source, target) for source, target in model.edges()
                       if source.node_id not in removed and target.node_id not in removed
                       and target.node_id not in replaced)
    return result, weights


def compare(a: Const, b: Const, name: str, weight_a: Decompressed | None, weight_b: Decompressed | None
            ) -> WeightChange | None:
    """The change between two Consts of one type and shape, one of them at least decompressed; None when their
    values cannot be compared as numbers."""
    value_a, value_b = a.value, b.value
    if value_a is None or value_b is None or value_a.dtype.kind not in "fiuV" or value_a.shape != value_b.shape:
        return None
    moved = gaps(value_a, value_b)
    moved[np.isnan(moved) & np.isnan(value_a.reshape(-1).astype(np.float64))
          & np.isnan(value_b.reshape(-1).astype(np.float64))] = 0  # NaN in both: no change
    step = np.zeros(moved.shape)
    for weight in (weight_a, weight_b):
        if weight is not None:
            step = step + weight.step.reshape(-1)
    beyond = int(np.count_nonzero(~(moved <= step * _ROUNDING_SLACK)))
    magnitude = np.abs(value_a.reshape(-1).astype(np.float64))
    return WeightChange(name, _stored(a, weight_a), _stored(b, weight_b),
                        float(np.max(moved)) if moved.size else 0.0,
                        float(np.nanmax(magnitude)) if magnitude.size else 0.0, beyond, moved.size)


def stored_counts(weights: dict[int, Decompressed]) -> Counter[str]:
    """How many weights each stored type holds (``{"f16": 7}``)."""
    return Counter(str(weight.stored) for weight in weights.values())


def _stored(const: Const, weight: Decompressed | None) -> str:
    return str(const.element_type if weight is None else weight.stored)


# ------------------------------------------------------------------------------------ evaluating the chains
def _evaluate(model: Model, chain: DecompressionChain) -> tuple[Node, Decompressed] | None:
    """The Const that replaces the chain and its steps; None when the chain cannot be computed here (a value not
    loaded, an op that refuses its inputs): it is then compared layer by layer, as without the option."""
    root = model.node(chain.end)
    root_type = output_type(root, 0)
    weight = model.node(chain.weight).op
    assert isinstance(weight, Const)
    if weight.value is None or root_type is None:
        return None
    dtype = root_type.element_type.numpy_dtype
    try:
        value = _run(model, root, {}).astype(dtype)
        moved = _run(model, root, {chain.weight: neighbouring_codes(weight.value)}).astype(dtype)
    except (IrError, ValueError, TypeError):
        return None
    if value.shape != tuple(moved.shape):
        return None
    step = gaps(value, moved).reshape(value.shape)
    step[np.isnan(step)] = 0  # a neighbour that is NaN (f8's top code) says nothing: no rounding allowed there
    const = Const(element_type=root_type.element_type, shape=tuple(value.shape), value=value)
    # OpenVINO's fp16 compression leaves the weight's tensor names on the compressed Const, not on its Convert.
    stored = model.node(chain.weight)
    names = list(dict.fromkeys([*root.outputs[0].tensor_names, *stored.outputs[0].tensor_names]))
    # NNCF keeps the weight's name on the compressed Const and names the chain after it (W/fq_weights_0/convert);
    # OpenVINO's fp16 compression keeps it on the Convert (W, reading W_compressed).
    name = stored.name if root.name.startswith(stored.name + "/") else root.name
    node = Node(root.id, name, const, [], [Output(root.id, 0, names, root_type, root_type, root.outputs[0].rt_info)],
                rt_info=tuple(entry for entry in root.rt_info if rt_key(entry) not in COMPRESSION_RT_INFO),
                location=root.location)
    return node, Decompressed(weight.element_type, len(chain.nodes), step)


def _run(model: Model, root: Node, replaced: dict[int, np.ndarray]) -> np.ndarray:
    """What ``root`` computes, its chain evaluated in topological order with f16 widened to f32."""
    values: dict[int, np.ndarray] = {}
    pending = [root.id]
    while pending:
        node_id = pending[-1]
        if node_id in values:
            pending.pop()
            continue
        node = model.node(node_id)
        if isinstance(node.op, Const):
            values[node_id] = replaced[node_id] if node_id in replaced else node.op.evaluate([])[0]
            pending.pop()
            continue
        sources = [source for source in model.input_sources(node) if source is not None]
        missing = [source.node_id for source in sources if source.node_id not in values]
        if missing:
            pending.extend(missing)
            continue
        op, arguments = widen(node.op, [values[source.node_id] for source in sources])
        values[node_id] = op.evaluate(arguments)[0]
        pending.pop()
    return values[root.id]
