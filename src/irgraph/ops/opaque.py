"""OpaqueOp: a layer of a type irgraph cannot run, kept so the model still loads and round-trips.

It is a catalogued standard op irgraph does not implement yet, a custom (extension) op, or a type
the named opset does not contain: :func:`irgraph.ops.catalogue.classify` tells which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from irgraph.core.errors import EvaluationError
from irgraph.core.shapes import TensorType
from irgraph.ops.catalogue import SINK_TYPES, Kind, all_versions, classify, versions_of
from irgraph.ops.op import Inputs, Op
from irgraph.ops.traits import PLAIN, OpTraits

_SINK = OpTraits(is_sink=True)


def closest_type(op_type: str) -> str:
    """``; did you mean 'Concat'?`` for a type no opset has that is close to one (difflib), else empty."""
    if versions_of(op_type):
        return ""
    names = sorted({entry.ir_name for entry in all_versions()})
    import difflib  # here: only an unknown type pays for it
    close = difflib.get_close_matches(op_type, names, n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""


@dataclass(frozen=True, eq=False, repr=False)  # Op's eq, hash and repr, not compiled at every start-up
class OpaqueOp(Op):
    """An op of unknown ``type``/``version``: attributes kept as text, output types as declared."""

    op_type: str = ""
    op_version: str = ""
    attributes: Mapping[str, str] = field(default_factory=dict)
    declared_outputs: tuple[TensorType, ...] = ()

    inputs = Inputs.repeated("input", minimum=0)

    @property
    def version(self) -> str:
        """The ``version`` as read."""
        return self.op_version

    def to_attributes(self) -> dict[str, str]:
        """The attributes as read."""
        return dict(self.attributes)

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """As many outputs as the file declared."""
        return len(self.declared_outputs)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The declared output types (irgraph cannot check them)."""
        return list(self.declared_outputs)

    @property
    def cannot_run_reason(self) -> str:
        """Names the op, says what it is (a standard op not implemented yet, a type its opset lacks, a custom
        op) and, for a type no opset has, the closest one (a typo: ``Concatt``)."""
        head = f"op {self.op_type} (version {self.op_version}) has no NumPy implementation"
        found = classify(self.op_type, self.op_version)
        if found.kind is Kind.STANDARD and found.entry is not None:
            return f"{head}: {found.entry.title} is a standard OpenVINO op irgraph does not implement yet"
        what = (f"{found.message}; OpenVINO refuses it too" if found.kind is Kind.INVALID
                else "a custom op (an extension's: no OpenVINO opset 1-16 has this version)")
        return f"{head}: {what}{closest_type(self.op_type)}"

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Always fails with ``cannot_run_reason``."""
        raise EvaluationError(self.cannot_run_reason)

    @property
    def traits(self) -> OpTraits:  # type: ignore[override]  # per layer, not per class: an opaque Assign is a sink
        """A sink for an Assign layer (a root of the graph like a Result), else nothing special."""
        return _SINK if self.op_type.lower() in SINK_TYPES else PLAIN
