"""Hardened loading of an IR ``.xml`` file: size bounds, UTF-8 only, no DOCTYPE, no entities, no network.

Every model file is untrusted (DESIGN.md section 7). The bytes are checked before lxml sees them,
lxml runs with entity resolution, DTD loading and network access off and ``huge_tree`` off, and
every failure becomes an :class:`IrParseError` (or :class:`IrIOError` for the file system) with
the file and, where known, the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

import numpy as np

from irgraph.core.errors import IrIOError, IrParseError, Location, ResourceLimitError
from irgraph.core.lazy import lazy_pattern
from irgraph.core.records import MutableRecord
from irgraph.io.regular_file import NotARegularFileError, open_regular
from irgraph.io.xml.lazy_etree import etree

MAX_XML_BYTES = 2**31
"""Largest ``.xml`` accepted (2 GiB), checked before reading."""

MAX_XML_ELEMENTS = 20_000_000
"""Most elements accepted in one ``.xml`` (each costs lxml a few hundred bytes), checked before parsing."""

MAX_LAYERS = 1_000_000
"""Most ``<layer>`` elements accepted, bodies' included (real models have up to a few 10^5). Files laid out
as OpenVINO and irgraph write them are read without an lxml tree: measured on a 2-core machine, 200,000
layers read in 11 s at 0.8 GiB peak, 1,000,000 in 60 s at 3.7 GiB (validating and running each cost about
as much again, in no more memory). Other files need the tree, which :data:`MAX_PARSE_BYTES` bounds."""

MAX_PARSE_BYTES = 2**30
"""Most memory the parsed tree may need, estimated before parsing at 256 bytes per element and per attribute
(measured with libxml2: ~122 bytes per element or text node, ~230 per attribute). A 200,000-layer file
needs about 1.7 GiB by this estimate (2.1 GiB peak measured), so only the tree-free path reads it."""

_LXML_LINE_CAP = 65535  # libxml2 stores element lines in 16 bits unless XML_PARSE_BIG_LINES, which lxml never sets
_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']""")
_UTF8 = ("utf-8", "utf8")
_LATE_DECLARATION = re.compile(rb"[ \t\r\n]+(<\?xml[ \t\r\n][^>]*\?>)")
_CONTROL_REF = lazy_pattern(
    rb"&#(?:0*([1-8]|1[124-9]|2[0-9]|3[01])|[xX]0*([1-8bBcCeEfF]|1[0-9a-fA-F]));"
)  # references to characters XML 1.0 forbids (every control character but tab, newline, carriage return)
_STAND_IN = 0x10FF00
_STAND_IN_PREFIX = chr(_STAND_IN).encode("utf-8")[:3]
_RESTORE = {_STAND_IN + code: code for code in range(32)}
_FOREIGN_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff", b"\x00\x00\x00<", b"<\x00", b"\x00<")


class XmlDocument(MutableRecord):
    """A checked IR file: its bytes, its root element (parsed on first use) and exact lines."""

    __slots__ = ("path", "data", "controls", "_shielded", "_root", "_lines")
    _unprinted = frozenset({"data", "_shielded", "_root", "_lines"})

    path: str
    data: bytes
    """The file's bytes as read (before :func:`shield_controls`)."""
    controls: bool
    """True when control-character references were shielded (see :func:`shield_controls`)."""
    _shielded: bytes
    _root: etree._Element | None
    _lines: dict[str, tuple[list, dict[int, int]]]

    def __init__(self, path: str, data: bytes, controls: bool = False, _shielded: bytes = b"",
                 _root: etree._Element | None = None,
                 _lines: dict[str, tuple[list, dict[int, int]]] | None = None) -> None:
        self.path = path
        self.data = data
        self.controls = controls
        self._shielded = _shielded
        self._root = _root
        self._lines = {} if _lines is None else _lines

    @property
    def parsed(self) -> bool:
        """True once the lxml tree exists."""
        return self._root is not None

    @property
    def root(self) -> etree._Element:
        """The root element; parsing happens here, once (IrParseError when the XML is not well-formed,
        ResourceLimitError when the tree would need more than :data:`MAX_PARSE_BYTES`)."""
        if self._root is None:
            check_parse_size(self.data, Location(file=self.path))
            self._root = parse_bytes(self._shielded, Location(file=self.path))
            self._shielded = b""
        return self._root

    def line(self, element: etree._Element) -> int | None:
        """The 1-based line of ``element``'s start tag (exact also past line 65535)."""
        line = element.sourceline
        if line is None or line < _LXML_LINE_CAP:
            return line
        return self._index(element.tag).get(id(element), line)

    def lines_of(self, elements: list[etree._Element]) -> Sequence[int | None]:
        """Lines of many elements of one tag, in document order (fast for every layer of a large file)."""
        lines = [e.sourceline for e in elements]
        if not elements or lines[-1] is None or lines[-1] < _LXML_LINE_CAP:
            return lines
        starts = _start_tags(self.data, elements[0].tag)
        if len(starts) == len(elements):  # these are all such elements: map them directly
            return _lines_at(self.data, starts)
        exact = self._index(elements[0].tag)
        return [exact.get(id(e), line) for e, line in zip(elements, lines, strict=True)]

    def _index(self, tag: str) -> dict[int, int]:
        """id(element) -> exact line for every ``<tag>`` element, from the raw bytes.

        Only needed past libxml2's 16-bit line counter. If the start tags found in the bytes do not
        match lxml's elements one to one, the capped lines are kept rather than guessed. The
        elements are held so their ids stay valid.
        """
        cached = self._lines.get(tag)
        if cached is None:
            elements = list(self.root.iter(tag))
            starts = _start_tags(self.data, tag)
            exact: dict[int, int] = {}
            if len(starts) == len(elements):
                exact = dict(zip(map(id, elements), _lines_at(self.data, starts), strict=True))
            cached = self._lines[tag] = (elements, exact)
        return cached[1]


def _start_tags(data: bytes, tag: str) -> list[int]:
    """Byte offsets of every ``<tag`` start tag in document order (comments, CDATA and PIs skipped)."""
    pattern = re.compile(
        rb"<(?:(!--.*?-->|!\[CDATA\[.*?\]\]>|\?.*?\?>)|" + re.escape(tag.encode("utf-8")) + rb"[\s/>])", re.DOTALL
    )
    return [match.start() for match in pattern.finditer(data) if match.group(1) is None]


def _lines_at(data: bytes, offsets: list[int]) -> list[int]:
    """1-based line numbers of byte offsets."""
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    return (np.searchsorted(newlines, offsets) + 1).tolist()


def load_xml(path: str | os.PathLike[str], *, parse: bool = True) -> XmlDocument:
    """Read, check and parse an IR ``.xml`` safely; IrIOError for file-system problems, IrParseError otherwise.

    ``parse=False`` leaves parsing to the first use of :attr:`XmlDocument.root` (the reader's fast
    path may not need the tree at all).
    """
    name = os.fspath(path)
    where = Location(file=name)
    try:
        # Opened without blocking and checked on the descriptor: a FIFO, socket or device is refused,
        # and a procfs file (size 0, yet with content) reads as the empty file it claims to be.
        descriptor, size = open_regular(name)
        with open(descriptor, "rb") as file:
            if size > MAX_XML_BYTES:
                raise IrParseError(
                    f"the file is {size} bytes; irgraph reads IR .xml files of at most {MAX_XML_BYTES} bytes", where
                )
            data = file.read(size)  # never past the size fstat reported
    except IsADirectoryError as exc:
        raise IrIOError("is a directory, not an IR .xml file", where) from exc
    except NotARegularFileError as exc:
        raise IrIOError(f"is {exc.strerror}", where) from exc
    except OSError as exc:
        raise IrIOError(f"cannot read the file: {exc.strerror or exc}", where) from exc
    check_bytes(data, where)
    shielded, controls = shield_controls(data, where)
    shielded = blank_late_declaration(shielded)
    document = XmlDocument(name, data, controls=controls, _shielded=shielded)
    if parse:
        document.root  # noqa: B018 - parse now: the caller wants parse errors here
    return document


def blank_late_declaration(data: bytes) -> bytes:
    """Blank out an XML declaration that follows white space (pugixml, OpenVINO's parser, accepts a
    newline before ``<?xml ...?>``; libxml2 refuses it). Spaces take its place, so lines stay exact;
    check_bytes has already required a UTF-8 encoding."""
    match = _LATE_DECLARATION.match(data)
    if match is None:
        return data
    start, end = match.span(1)
    blanked = re.sub(rb"[^\n]", b" ", data[start:end])
    return data[:start] + blanked + data[end:]


def shield_controls(data: bytes, where: Location) -> tuple[bytes, bool]:
    """Swap character references to control characters for private-use stand-ins; True if any.

    pugixml (OpenVINO's writer) escapes every control character as ``&#NN;``, but XML 1.0 allows
    only tab, newline and carriage return, so libxml2 refuses e.g. ``&#01;`` in a tensor name.
    The stand-ins are U+10FF01..U+10FF1F; :func:`restore_controls` maps them back after parsing.
    """
    if b"&" not in data or b"&#" not in data or _CONTROL_REF.search(data) is None:  # '&' alone: a fast scan
        return data, False
    if _STAND_IN_PREFIX in data:
        raise IrParseError("the file contains characters U+10FF00..U+10FF1F, which irgraph cannot read", where)
    return _CONTROL_REF.sub(_stand_in, data), True


def restore_controls(text: str) -> str:
    """Undo :func:`shield_controls` in a string read from the document."""
    return text.translate(_RESTORE)


def _stand_in(match: re.Match[bytes]) -> bytes:
    decimal, hexadecimal = match.groups()
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    return b"&#x%X;" % (_STAND_IN + code)


def check_bytes(data: bytes, where: Location) -> None:
    """Refuse what must never be read: empty, too big, not UTF-8, DOCTYPE, too many elements or layers.

    The memory an lxml tree would take is checked apart (:func:`check_parse_size`), when one is built.
    """
    if len(data) > MAX_XML_BYTES:
        raise IrParseError(f"the file is larger than {MAX_XML_BYTES} bytes", where)
    if not data or data.isspace():  # strip() would copy the whole file
        raise IrParseError("the file is empty; an IR .xml file starts with <net>", where)
    if data.startswith(_FOREIGN_BOMS):
        raise IrParseError("the file is not UTF-8 (it looks like UTF-16 or UTF-32); IR files are UTF-8", where)
    declared = _ENCODING.match(data[:512].removeprefix(b"\xef\xbb\xbf"))
    if declared and declared.group(1).decode("ascii", "replace").lower() not in _UTF8:
        raise IrParseError(
            f"the XML declaration says encoding {declared.group(1).decode('ascii', 'replace')!r}; "
            "irgraph reads UTF-8 IR files only",
            where,
        )
    # Each scan below starts with one for a single byte the needles need ('!', 'X'): memchr finds
    # it or its absence fast, where searching the needle itself costs a real network ~1 ms each.
    if b"!" in data and (b"<!DOCTYPE" in data or b"<!ENTITY" in data):
        raise IrParseError(
            "the file has a DOCTYPE or entity declaration; IR files have none and irgraph refuses them "
            "(they can expand entities or reach other files)",
            _line_of(data, (b"<!DOCTYPE", b"<!ENTITY"), where),
        )
    if b"X" in data and (b"www.w3.org/2001/XInclude" in data or b"www.w3.org/2003/XInclude" in data):
        raise IrParseError(
            "the file uses XInclude; IR files never do and irgraph refuses them (they pull in other files)",
            _line_of(data, (b"www.w3.org/2001/XInclude", b"www.w3.org/2003/XInclude"), where),
        )
    # Each count below starts from a one-byte upper bound (a fast scan) and is refined only when
    # the bound is over its limit: a 10 MB file costs ~10 ms of counting instead of ~35. A file too
    # small to reach a limit (every counted piece takes at least one byte) is not counted at all.
    if len(data) <= MAX_XML_ELEMENTS and len(data) // len(b"<layer") <= MAX_LAYERS:
        return
    elements = data.count(b"<")
    if elements > MAX_XML_ELEMENTS:
        elements -= data.count(b"</")
        if elements > MAX_XML_ELEMENTS:
            raise IrParseError(
                f"the file has about {elements} elements; irgraph reads at most {MAX_XML_ELEMENTS}", where
            )
    layers = data.count(b"<layer")
    if layers > MAX_LAYERS:
        layers -= data.count(b"<layers")
        if layers > MAX_LAYERS:
            raise ResourceLimitError(f"the file has about {layers} layers; irgraph reads at most {MAX_LAYERS}", where)


def parse_size(data: bytes) -> tuple[int, int, int]:
    """(elements, attributes, bytes) an lxml tree of ``data`` would take, estimated from byte counts."""
    if 256 * 2 * len(data) <= MAX_PARSE_BYTES:  # every element and attribute takes at least 2 bytes
        return 0, 0, 0
    elements, attributes = data.count(b"<"), data.count(b"=")
    if 256 * (elements + attributes) > MAX_PARSE_BYTES:
        elements -= data.count(b"</")
        attributes = data.count(b'="') + data.count(b"='")
    return elements, attributes, 256 * (elements + attributes)


def check_parse_size(data: bytes, where: Location) -> None:
    """ResourceLimitError when an lxml tree of ``data`` would need more than :data:`MAX_PARSE_BYTES`."""
    elements, attributes, needed = parse_size(data)
    if needed > MAX_PARSE_BYTES:
        raise ResourceLimitError(
            f"the file has about {elements} elements and {attributes} attributes; parsing them would take about "
            f"{needed >> 20} MiB, more than irgraph's limit of {MAX_PARSE_BYTES >> 20} MiB", where
        )


def _line_of(data: bytes, needles: tuple[bytes, ...], where: Location) -> Location:
    """``where`` at the line of the first of ``needles`` in ``data``."""
    position = min(found for found in (data.find(needle) for needle in needles) if found >= 0)
    return Location(file=where.file, line=data.count(b"\n", 0, position) + 1)


def hardened_parser() -> etree.XMLParser:
    """An lxml parser that never resolves entities, loads DTDs or uses the network, with libxml2's limits on."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        remove_blank_text=True,
        collect_ids=False,
    )


def parse_bytes(data: bytes, where: Location) -> etree._Element:
    """Parse checked bytes with a parser that never resolves entities, loads DTDs or uses the network."""
    try:
        root = etree.fromstring(data, hardened_parser())
    except etree.XMLSyntaxError as exc:
        message = str(exc.msg or exc).split(", line ")[0].strip()
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else None
        if "XML_PARSE_HUGE" in message:  # libxml2 suggests lifting a limit irgraph keeps on purpose
            message = re.sub(r",? *(use|try) XML_PARSE_HUGE( option)?", "", message)
            message = f"the XML exceeds a parser limit irgraph keeps on (nesting depth, text/attribute size): {message}"
        elif "encoding" in message.lower() or "utf-8" in message.lower():
            message = f"the file is not valid UTF-8 ({message})"
        else:
            message = f"not well-formed XML: {message}"
        raise IrParseError(message, Location(file=where.file, line=line)) from None
    except (ValueError, etree.LxmlError) as exc:
        raise IrParseError(f"cannot parse the XML: {exc}", where) from None
    if root is None:
        raise IrParseError("the file holds no XML element", where)
    if root.getroottree().docinfo.doctype:
        raise IrParseError("the file has a DOCTYPE; irgraph refuses them", where)
    return root
