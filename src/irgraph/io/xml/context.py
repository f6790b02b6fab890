"""What the pieces of the XML reader share: the reader's state as they see it, and what a read returns.

``layers``, ``sub_graphs`` and ``_fast`` are handed the reader (``reader._Reader``) as a
:class:`ReadContext`, so they depend on this module and never on ``reader`` itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from irgraph.core.records import MutableRecord

if TYPE_CHECKING:
    from lxml import etree

    from irgraph.core.diagnostics import Diagnostic
    from irgraph.core.errors import IrError, Location
    from irgraph.graph import Body, Model
    from irgraph.io.weights import WeightsFile
    from irgraph.io.xml.layers import LayerPorts, LayerReader, PortIndex
    from irgraph.io.xml.rt_info import RtInfoReader
    from irgraph.io.xml.security import XmlDocument


class ReadResult(MutableRecord):
    """A model and what the reader noticed but tolerated (for :func:`irgraph.validate_file`)."""

    __slots__ = ("model", "findings")

    model: Model
    findings: list[Diagnostic]

    def __init__(self, model: Model, findings: list[Diagnostic] | None = None) -> None:
        self.model = model
        self.findings = [] if findings is None else findings


class ReadContext(Protocol):
    """The reader of one document, as the layer, body and fast-path readers use it."""

    document: XmlDocument
    file: str
    findings: list[Diagnostic]
    element_limit: int
    weights_optional: bool
    body_depth: int
    """How many bodies deep the layers being read are (bounded by ``MAX_BODY_DEPTH``)."""
    detached: dict[etree._Element, etree._Element]
    """Bodies parsed apart from the document (nested too deep for one parse)."""
    rt_info: RtInfoReader
    """Reads every rt_info of the document within its bounds."""

    def here(self, element: etree._Element) -> Location:
        """The location of ``element`` (file and line)."""
        ...

    def note(self, code: str, message: str, location: Location) -> None:
        """Record something tolerated (a warning for validate_file)."""
        ...

    def weights(self) -> WeightsFile:
        """The weights file, opened on the first Const."""
        ...

    def without_data(self, err: IrError | None = None) -> None:
        """Note a Const left without its value (``weights_optional``)."""
        ...

    def read_bodies(self, layers: LayerReader, ports: LayerPorts, elements: list[etree._Element]) -> tuple[Body, ...]:
        """The bodies of a TensorIterator, Loop or If layer, read from its sub-graph children."""
        ...

    def connect_edges(self, model: Model, edges: etree._Element, ports: PortIndex) -> None:
        """Connect every ``<edge>`` of ``edges`` in ``model``."""
        ...
