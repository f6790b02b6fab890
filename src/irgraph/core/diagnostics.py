"""Diagnostic and Severity: what validation and the reader report (a finding is data, not an exception).

Here, below every layer, so the reader can report what it tolerated without loading validation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from irgraph.core.errors import Location, bounded, printable

CODES = {
    "schema": "the XML breaks the IR schema (XSD)",
    "read": "the reader stopped: the file cannot be read as a model",
    "io": "a file cannot be read",
    "no-results": "the model has no Result layers",
    "cycle": "the graph has a cycle",
    "graph": "broken structure (ports, edges, producers)",
    "op": "an op's rules are broken (attributes, input types, shapes)",
    "invalid-op": "a type the named opset does not contain (OpenVINO refuses the model)",
    "unchecked-op": "standard ops irgraph does not check yet (a summary)",
    "custom-op": "ops outside OpenVINO's opsets, from an extension (a summary)",
    "unreachable": "a layer no Result or sink depends on",
    "variable": "ReadValue/Assign that do not pair up or disagree on a variable's type",
    "duplicate-name": "several layers share a name",
    "name-collision": "an IR v10 input or output layer's name is another tensor's name (OpenVINO refuses the model)",
    "unknown-attribute": "an attribute the op does not have",
    "dynamic-input-type": "an input of dynamic element type (the model reads but cannot run)",
    "undeclared-outputs": "an op produces more outputs than the layer declares",
    "declared-type": "a declared precision contradicts inference",
    "declared-shape": "declared dims contradict inference",
    "const-size": "a Const's size is larger than its data",
    "weights": "a Const's bytes are not in the weights file (or there is none)",
    "parse": "the XML, an attribute text or the weights cannot be read",
    "resource-limit": "a declared size beyond irgraph's limits",
    "error": "any other error that stopped the reader",
    "ignored": "something OpenVINO ignores (unknown elements, what IR v10 cannot hold)",
}
"""Every diagnostic code irgraph emits, with what it means (``ir-validate --select/--ignore`` take these)."""

class Severity(enum.Enum):
    """How bad a diagnostic is: errors make a model invalid; warnings are suspicious; notes inform.

    ``--strict`` makes warnings errors, never notes.
    """

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, a severity, a message and where it applies."""

    code: str
    severity: Severity
    message: str
    location: Location = Location()
    counts: tuple[tuple[str, int], ...] = ()
    """For a summary: what it counts, most frequent first (``("Convert", 108)``: op type -> layers)."""

    def __post_init__(self) -> None:
        # One line and bounded, as IrError messages are, whatever names or values a finding quotes.
        object.__setattr__(self, "message", printable(bounded(self.message)))

    @property
    def is_error(self) -> bool:
        """True for errors."""
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        where = self.location.prefix() or "<model>"
        layer = self.location.layer()
        text = f"{layer}: {self.message}" if layer else self.message
        return f"{where}: {self.severity.value}: [{self.code}] {text}"
