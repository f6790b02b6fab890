"""What ir-diff reports: a layer reference, one difference, and the text helpers that show them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from irgraph.core.errors import bounded, printable
from irgraph.graph import Node

MAX_VALUE_CHARS = 120
"""Longest attribute or rt_info value shown whole in a difference (the JSON keeps it whole)."""

# The kinds of difference, in the order a layer's differences are listed.
ADDED, REMOVED, RENAMED, TYPE, PORTS, ATTRIBUTE, VALUE, CONNECTION = (
    "added", "removed", "renamed", "type", "ports", "attribute", "value", "connection")
PORT_TYPE, TENSOR_NAMES, OUTPUT_NAMES, RT_INFO, MODEL = "port_type", "tensor_names", "output_names", "rt_info", "model"
KINDS = (MODEL, ADDED, REMOVED, RENAMED, TYPE, PORTS, ATTRIBUTE, VALUE, CONNECTION, PORT_TYPE, TENSOR_NAMES,
         OUTPUT_NAMES, RT_INFO)
"""Every kind, in the order the summary counts them."""


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
            return f"~ model: {self.what} {shown(self.old)} -> {shown(self.new)}"
        if self.kind == ADDED:
            assert self.b is not None
            return f"+ layer {label(self.b)}"
        if self.kind == REMOVED:
            assert self.a is not None
            return f"- layer {label(self.a)}"
        assert self.a is not None
        head = f"~ layer {label(self.a)}: "
        if self.kind == RENAMED:
            return head + f"renamed to {quoted(self.new or '')}"
        if self.kind == VALUE:
            return head + f"values differ ({self.detail})"
        return head + f"{self.what} {shown(self.old)} -> {shown(self.new)}"

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


def escape(text: str) -> str:
    """``text`` shortened to MAX_VALUE_CHARS and made printable (names come from files)."""
    return printable(bounded(text, MAX_VALUE_CHARS))


def quoted(name: str) -> str:
    """``name`` escaped and in single quotes."""
    return f"'{escape(name)}'"


def label(layer: LayerRef) -> str:
    """A layer as a message names it: ``'conv1' (Convolution)``."""
    return f"{quoted(layer.name)} ({escape(layer.type)})"


def shown(text: str | None) -> str:
    """A value that may be absent or empty, escaped: ``(none)`` for absent, ``''`` for empty."""
    return "(none)" if text is None else escape(text) if text else "''"
