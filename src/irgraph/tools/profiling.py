"""Where a run's time goes: the time of every layer irgraph runs, by op type, beside OpenVINO's counters.

A :class:`Profile` attaches to an Interpreter's ``on_step_time`` hook (the interpreter reads no clock
while the hook is None, so a run without a profile pays nothing) and adds up the seconds of each
layer of the plan over every run. Consts and constant sub-graphs are computed once when the
Interpreter is built and take no time in a run; a TensorIterator, Loop or If counts its bodies; a
Concat whose copy is deferred counts only the bookkeeping (the copy is timed where its output is
first read). With :meth:`Profile.add_counters`, OpenVINO's performance counters (``PERF_COUNT``, what
benchmark_app ``-pc`` prints) are matched to the layers by name: the CPU plugin fuses layers (their
counters say ``NOT_RUN``) and makes nodes of its own, which are listed apart.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from irgraph.core.errors import printable
from irgraph.core.text import counted, plural
from irgraph.graph import Node
from irgraph.runtime.interpreter import Interpreter
from irgraph.tools.backends import PerfCounter
from irgraph.tools.stats import format_columns

__all__ = ["LayerTime", "Profile", "TypeTime"]

_STATUS_TEXT = {"NOT_RUN": "fused", "OPTIMIZED_OUT": "optimized out"}
"""How a counter of a layer OpenVINO did not execute is shown in place of its time."""
SHOWN_UNMATCHED = 8
"""OpenVINO's own nodes named in the text before "and N more"."""


@dataclass
class LayerTime:
    """One layer of the plan: its position in the run (1 = first), the seconds of all its runs, how many runs,
    and OpenVINO's counter of the layer of the same name (None: none)."""

    node: Node
    step: int
    seconds: float = 0.0
    runs: int = 0
    counter: PerfCounter | None = None


@dataclass
class TypeTime:
    """The layers of one op type together: how many, their seconds, their share of the total, and the seconds
    of OpenVINO's counters matched to them."""

    type: str
    layers: int
    seconds: float
    share: float
    reference_seconds: float | None = None


@dataclass
class Profile:
    """The time of every layer an Interpreter runs, summed over the runs made while attached."""

    layers: list[LayerTime]
    run_seconds: float | None = None
    """The wall time of the runs, when the caller measured it (binding and writing outputs included)."""
    reference: str | None = None
    """The runtime whose counters were added (``openvino 2026.4.1 (CPU, f32)``), else None."""
    unmatched: list[PerfCounter] = field(default_factory=list)
    """OpenVINO's counters of nodes no layer is named after (nodes its transformations made)."""
    counters: int = 0
    """How many counters OpenVINO gave."""

    @classmethod
    def of(cls, interpreter: Interpreter) -> Profile:
        """An empty profile of the layers ``interpreter`` runs, in the order it runs them."""
        return cls([LayerTime(node, step) for step, node in enumerate(interpreter.planned_layers, 1)])

    @contextlib.contextmanager
    def attached(self, interpreter: Interpreter) -> Iterator[Profile]:
        """Time every layer of ``interpreter``'s runs inside the block (its earlier hook is restored after)."""
        by_id = {layer.node.id: layer for layer in self.layers}

        def record(node: Node, seconds: float) -> None:
            layer = by_id[node.id]
            layer.seconds += seconds
            layer.runs += 1

        previous = interpreter.on_step_time
        interpreter.on_step_time = record
        try:
            yield self
        finally:
            interpreter.on_step_time = previous

    @property
    def seconds(self) -> float:
        """The seconds of every layer together."""
        return sum(layer.seconds for layer in self.layers)

    @property
    def runs(self) -> int:
        """How many runs were timed."""
        return max((layer.runs for layer in self.layers), default=0)

    def add_counters(self, counters: Sequence[PerfCounter], reference: str) -> None:
        """Match OpenVINO's counters to the layers by name (the first counter of a name); keep the others apart."""
        by_name: dict[str, PerfCounter] = {}
        for counter in counters:
            by_name.setdefault(counter.name, counter)
        names = {layer.node.name for layer in self.layers}
        for layer in self.layers:
            layer.counter = by_name.get(layer.node.name)
        self.unmatched = [counter for counter in counters if counter.name not in names]
        self.reference = reference
        self.counters = len(counters)

    @property
    def reference_seconds(self) -> float:
        """The seconds of every OpenVINO counter."""
        return sum(counter.seconds for counter in self._all_counters())

    def _all_counters(self) -> list[PerfCounter]:
        return [layer.counter for layer in self.layers if layer.counter is not None] + self.unmatched

    def by_type(self) -> list[TypeTime]:
        """Per op type (irgraph's layer types): count, seconds, share; the most time first."""
        total = self.seconds
        groups: dict[str, list[LayerTime]] = {}
        for layer in self.layers:
            groups.setdefault(layer.node.type_name, []).append(layer)
        found = []
        for type_name, layers in groups.items():
            seconds = sum(layer.seconds for layer in layers)
            matched = [layer.counter.seconds for layer in layers if layer.counter is not None]
            found.append(TypeTime(type_name, len(layers), seconds, seconds / total if total else 0.0,
                                  sum(matched) if self.reference is not None else None))
        return sorted(found, key=lambda item: (-item.seconds, item.type))

    def to_json(self) -> dict[str, object]:
        """The profile as JSON: seconds, every layer in run order, the op types by time, OpenVINO's side."""
        total = self.seconds
        report: dict[str, object] = {
            "runs": self.runs, "layers_run": len(self.layers), "seconds": total, "run_seconds": self.run_seconds,
            "layers": [{
                "step": layer.step, "layer": layer.node.name, "id": layer.node.id, "type": layer.node.type_name,
                "file": layer.node.location.file, "line": layer.node.location.line, "seconds": layer.seconds,
                "share": layer.seconds / total if total else 0.0,
                "openvino": _counter_json(layer.counter) if layer.counter is not None else None,
            } for layer in self.layers],
            "by_type": [{"type": item.type, "layers": item.layers, "seconds": item.seconds, "share": item.share,
                         "openvino_seconds": item.reference_seconds} for item in self.by_type()],
            "openvino": None,
        }
        if self.reference is not None:
            report["openvino"] = {
                "reference": self.reference, "seconds": self.reference_seconds, "counters": self.counters,
                "matched": sum(1 for layer in self.layers if layer.counter is not None),
                "unmatched": [_counter_json(counter) for counter in self.unmatched],
            }
        return report

    def format(self) -> list[str]:
        """The text: a head line, every layer (the most time first), the op types, OpenVINO's own nodes."""
        total, runs = self.seconds, self.runs
        head = (f"profile: {len(self.layers)} layers took {_ms(total)} ms in {counted(runs, 'run')} "
                "of irgraph")
        if self.run_seconds is not None:
            head += f" (the {plural(runs, 'run')}: {_ms(self.run_seconds)} ms, inputs and outputs included)"
        if self.reference is not None:
            matched = sum(1 for layer in self.layers if layer.counter is not None)
            head += (f"; {printable(self.reference)}: {_ms(self.reference_seconds)} ms ({self.counters} counters, "
                     f"{matched} matched by layer name)")
        with_reference = self.reference is not None
        header = ("irgraph ms", "share", *(("openvino ms", "kernel") if with_reference else ()), "step", "type",
                  "layer")
        rows = [header]
        for layer in sorted(self.layers, key=lambda item: (-item.seconds, item.step)):
            reference: tuple[str, ...] = ()
            if with_reference:
                counter = layer.counter
                reference = ("-", "") if counter is None else (_counter_time(counter), counter.exec_type)
            rows.append((_ms(layer.seconds), _share(layer.seconds, total), *reference, str(layer.step),
                         layer.node.type_name, layer.node.name))
        lines = [head, *_columns(rows), "", "by op type:"]
        type_rows = [("type", "layers", "irgraph ms", "share", *(("openvino ms",) if with_reference else ()))]
        for item in self.by_type():
            type_rows.append((item.type, str(item.layers), _ms(item.seconds), _share(item.seconds, total),
                              *((_ms(item.reference_seconds or 0.0),) if with_reference else ())))
        lines += _columns(type_rows)
        if self.unmatched:
            executed = [counter for counter in self.unmatched if counter.status not in _STATUS_TEXT]
            names = ", ".join(f"{counter.name} ({counter.type})" for counter in executed[:SHOWN_UNMATCHED])
            more = f" and {len(executed) - SHOWN_UNMATCHED} more" if len(executed) > SHOWN_UNMATCHED else ""
            lines.append(f"openvino's own nodes (named after no layer): {len(self.unmatched)}, "
                         f"{_ms(sum(counter.seconds for counter in self.unmatched))} ms"
                         + (f"; executed: {printable(names)}{more}" if executed else ""))
        return lines


def _counter_json(counter: PerfCounter) -> dict[str, object]:
    return {"name": counter.name, "type": counter.type, "exec_type": counter.exec_type, "status": counter.status,
            "seconds": counter.seconds}


def _counter_time(counter: PerfCounter) -> str:
    return _STATUS_TEXT.get(counter.status, _ms(counter.seconds))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f}"


def _share(seconds: float, total: float) -> str:
    return f"{100 * seconds / total:.1f}%" if total else "-"


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    return format_columns([tuple(printable(cell) for cell in row) for row in rows], indent="  ")
