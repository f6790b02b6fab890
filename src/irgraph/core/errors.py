"""IrError tree and Location: every error the product raises, with where it applies."""

from __future__ import annotations

from irgraph.core.records import Record

MAX_MESSAGE_CHARS = 2000
"""Longest message kept whole; longer ones (a 10 MB attribute quoted back) keep their start and end."""
MAX_NAME_CHARS = 200
"""Longest layer name or type shown whole in a location."""


class _Escapes(dict):
    """``str.translate`` table: every character Python's ``repr`` would escape, as ``repr`` escapes it."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if char.isprintable():
            raise KeyError(code)  # str.translate keeps the character as it is
        return repr(char)[1:-1]  # not stored: a hostile text may hold every code point once


_ESCAPES = _Escapes()


def printable(text: str) -> str:
    """``text`` safe to print on a terminal, on one line: every character ``str.isprintable`` refuses is escaped.

    That is C0 controls (``\\n`` and ``\\t`` too), DEL, C1 controls (``\\x9b`` starts an escape
    sequence on some terminals), bidi overrides, isolates and marks (``\\u202e``, ``\\u2066``,
    ``\\u200f``, ``\\u061c``), other format characters, separators but the space, unassigned
    code points. Escapes are written as Python's ``repr`` writes them (``\\x1b``, ``\\u202e``).
    The one escaping function of every name, path and message irgraph prints.
    """
    if text.isprintable():
        return text
    return text.translate(_ESCAPES)


def bounded(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text``, or its start and end around a note saying how much was left out."""
    if len(text) <= limit:
        return text
    head, tail = limit * 3 // 4, limit // 4
    return f"{text[:head]} ... [{len(text) - head - tail} characters omitted] ... {text[-tail:]}"


class Location(Record):
    """Where a problem is: file and line in the XML, and the layer (id, name, type). A Record (copied with
    ``location.replace(line=...)``), not a dataclass: every start-up imports it (see irgraph.core.records)."""

    __slots__ = ("file", "line", "layer_id", "layer_name", "layer_type")

    file: str | None
    line: int | None
    layer_id: int | None
    layer_name: str | None
    layer_type: str | None

    def __init__(self, file: str | None = None, line: int | None = None, layer_id: int | None = None,
                 layer_name: str | None = None, layer_type: str | None = None) -> None:
        set_field = object.__setattr__
        set_field(self, "file", file)
        set_field(self, "line", line)
        set_field(self, "layer_id", layer_id)
        set_field(self, "layer_name", layer_name)
        set_field(self, "layer_type", layer_type)

    def with_file(self, file: str | None) -> Location:
        """Return a copy that names ``file`` (kept when already set)."""
        return self if self.file or not file else self.replace(file=file)

    def prefix(self) -> str:
        """``FILE:LINE`` (or just FILE); empty when no file is known. The path is printed escaped."""
        if not self.file:
            return ""
        file = printable(self.file)
        return f"{file}:{self.line}" if self.line else file

    def layer(self) -> str:
        """``layer 7 'concat_1' (Concat)``; empty when no layer is known."""
        parts = []
        if self.layer_id is not None:
            parts.append(f"layer {self.layer_id}")
        if self.layer_name is not None:
            parts.append(f"'{printable(bounded(self.layer_name, MAX_NAME_CHARS))}'")
        if self.layer_type:
            parts.append(f"({printable(bounded(self.layer_type, MAX_NAME_CHARS))})")
        return " ".join(parts)

    def __str__(self) -> str:
        return ": ".join(part for part in (self.prefix(), self.layer()) if part)


class IrError(Exception):
    """Root of every error irgraph raises on bad models, inputs or files."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        message = printable(bounded(message))  # one line, whatever names or values it quotes
        super().__init__(message)
        self.message = message
        self.location = location or Location()

    def locate(self, location: Location) -> IrError:
        """Fill the gaps of this error's location from ``location``; return the error itself."""
        mine = self.location
        self.location = Location(
            file=mine.file or location.file,
            line=mine.line or location.line,
            layer_id=mine.layer_id if mine.layer_id is not None else location.layer_id,
            layer_name=mine.layer_name if mine.layer_name is not None else location.layer_name,
            layer_type=mine.layer_type or location.layer_type,
        )
        return self

    def __str__(self) -> str:
        where = str(self.location)
        return f"{where}: {self.message}" if where else self.message


class IrParseError(IrError, ValueError):
    """The XML, the weights or an attribute text cannot be read."""


class WeightsError(IrParseError):
    """A Const's bytes are missing from, or inconsistent with, the weights file."""


class IrIOError(IrError, OSError):
    """A file cannot be opened, read or written (missing, a directory, no permission, disk full).

    Kept apart from the model errors so command-line tools can tell usage/I-O failures from bad models.
    """


class GraphError(IrError):
    """The graph's structure is wrong: dangling edges, cycles, duplicate ids, missing Results."""


class ExtractError(GraphError):
    """A tensor name that names nothing, or a requested cut that is not possible (a missing input, an overlap)."""


class OpError(IrError, ValueError):
    """An op's attributes or inputs break the op's rules (raised by ops, located by callers)."""


class ShapeInferenceError(IrError):
    """Shape inference failed for a node; carries the node's location."""


class EvaluationError(IrError):
    """Running a node failed, or the op cannot run."""


class InputError(IrError, ValueError):
    """Feeds given to a run do not match the model's inputs."""


class FeedError(IrError, ValueError):
    """Input data that was asked for cannot be made: a malformed spec, an unknown name in it, a missing shape."""


class ResourceLimitError(IrError):
    """A declared size exceeds the configured budget; nothing was allocated."""


class MissingDependencyError(IrError):
    """An optional package a feature needs (onnx, openvino, onnxruntime) is not installed: a matter of the
    environment, not of the model, so the tools exit 2 as for a usage error."""


class ConversionError(IrError):
    """An ONNX model (or an IR model for export) cannot be converted."""


class BackendUnavailableError(MissingDependencyError):
    """The reference runtime (openvino, onnxruntime) is not installed."""


class BackendError(IrError):
    """The reference runtime refused the model or failed to run it."""
