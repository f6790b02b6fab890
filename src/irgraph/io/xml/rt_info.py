"""rt_info kept verbatim: ``<rt_info>`` subtrees <-> :class:`RtEntry` trees, written as pugixml does."""

from __future__ import annotations

from collections.abc import Iterable

from irgraph.core.errors import IrParseError, Location, ResourceLimitError
from irgraph.graph import Model, RtEntry
from irgraph.io.xml.lazy_etree import etree
from irgraph.io.xml.text import escape_attribute, escape_text

LEGACY_SECTIONS = ("meta_data", "quantization_parameters")
"""Net-level sections of older IR that OpenVINO still reads (as rt_info, when there is no ``<rt_info>``)."""

MAX_ATTRIBUTES = 1000
"""Most attributes read from one element (real IR has a few dozen at most); lxml takes O(n^2) time for n."""

MAX_RT_INFO_ITEMS = 10_000
"""Most elements and attributes one ``<rt_info>`` (of a layer, a port or the net) may hold. A layer's holds a
few (``fused_names``, ``decompression``), a net's conversion parameters some hundreds."""

MAX_RT_INFO_TOTAL = 2_000_000
"""Most rt_info elements and attributes one file may hold, bodies' included (four per layer of a
500,000-layer model). Measured on a file of 1.35 million rt_info attributes (450,000 ``<attribute>``
elements): read at 0.3 GiB and validated at 0.6 GiB peak."""


def attribute_items(element: etree._Element) -> list[tuple[str, str]]:
    """``element``'s attributes in order; IrParseError when there are more than MAX_ATTRIBUTES."""
    count = len(element.attrib)
    if count > MAX_ATTRIBUTES:
        raise IrParseError(
            f"<{element.tag}> has {count} attributes; irgraph reads at most {MAX_ATTRIBUTES} per element"
        )
    return element.items()


def read_rt_info(elements: Iterable[etree._Element]) -> tuple[RtEntry, ...]:
    """The children of an ``<rt_info>`` element (or any elements) as RtEntry trees (tags, attributes in
    order, children, text), within the bounds of one ``<rt_info>``."""
    return RtInfoReader().read(elements)


_SHARED_VALUE_LENGTH = 32


class RtInfoReader:
    """Reads the rt_info of one file: bounds each ``<rt_info>`` (:data:`MAX_RT_INFO_ITEMS`) and the file's
    total (:data:`MAX_RT_INFO_TOTAL`), and shares what repeats (tags, attributes with short values, equal leaves:
    every port's ``<attribute name="precise_0" version="0" value=""/>``), since entries are immutable."""

    def __init__(self) -> None:
        self.total = 0
        """Elements and attributes read so far (each use of a shared block counts again)."""
        self._names: dict[str, str] = {}
        self._pairs: dict[tuple[str, str], tuple[str, str]] = {}
        self._leaves: dict[RtEntry, RtEntry] = {}

    def read(self, elements: Iterable[etree._Element], where: Location | None = None) -> tuple[RtEntry, ...]:
        """The entries of ``elements`` (an ``<rt_info>``'s children); ResourceLimitError at ``where`` when
        they hold more than :data:`MAX_RT_INFO_ITEMS`, or bring the file past :data:`MAX_RT_INFO_TOTAL`."""
        elements = list(elements)
        # Counted on lxml's tree before any entry is made: a refusal builds nothing.
        items = 0
        for element in elements:
            for node in element.iter():
                attributes = len(node.attrib)
                if attributes > MAX_ATTRIBUTES:
                    attribute_items(node)  # the error for one element's attributes comes first
                items += 1 + attributes
        if items > MAX_RT_INFO_ITEMS:
            raise ResourceLimitError(
                f"<rt_info> holds {items} elements and attributes; irgraph reads at most {MAX_RT_INFO_ITEMS} in one",
                where,
            )
        self.charge(items, where)
        return tuple(self._entry(element) for element in elements)

    def charge(self, items: int, where: Location | None = None) -> None:
        """Count ``items`` more rt_info elements and attributes against the file's total."""
        self.total += items
        if self.total > MAX_RT_INFO_TOTAL:
            raise ResourceLimitError(
                f"the file's rt_info holds more than {MAX_RT_INFO_TOTAL} elements and attributes; irgraph reads "
                "at most that many", where,
            )

    def _name(self, name: str) -> str:
        return self._names.setdefault(name, name)

    def _pair(self, key: str, value: str) -> tuple[str, str]:
        # Short values repeat (version="0", name="fused_names"); long ones (the fused names) rarely do.
        if len(value) > _SHARED_VALUE_LENGTH:
            return self._names.setdefault(key, key), value
        found = self._pairs.get((key, value))
        if found is None:
            found = self._pairs[(key, value)] = (self._names.setdefault(key, key), value)
        return found

    def _entry(self, element: etree._Element) -> RtEntry:
        # Recursion depth is bounded by libxml2's nesting limit (huge_tree is off).
        children = tuple(self._entry(child) for child in element)
        text = element.text if not children and element.text and element.text.strip() else None
        pair = self._pair
        attributes = tuple(pair(key, value) for key, value in attribute_items(element))
        entry = RtEntry(tag=self._name(element.tag), attributes=attributes, children=children, text=text)
        if children:  # hashing a tree would walk it again at every level above: only leaves are shared
            return entry
        return self._leaves.setdefault(entry, entry)


def check_rt_info_size(model: Model, where: Location, *, layers: bool = True) -> None:
    """ResourceLimitError (``not written``) when ``model``'s rt_info passes a bound its reader keeps:
    :data:`MAX_RT_INFO_ITEMS` in one ``<rt_info>``, :data:`MAX_RT_INFO_TOTAL` in the file, bodies included.
    ``layers=False``: only the net's rt_info is written (IR v10), so only it counts."""
    total = 0
    for entries in _rt_info_blocks(model, layers):
        items = _items(entries)
        total += items
        if items > MAX_RT_INFO_ITEMS or total > MAX_RT_INFO_TOTAL:
            what = (f"one <rt_info> holds {items} elements and attributes (at most {MAX_RT_INFO_ITEMS})"
                    if items > MAX_RT_INFO_ITEMS else f"its rt_info holds more than {MAX_RT_INFO_TOTAL} elements and "
                    "attributes")
            raise ResourceLimitError(
                f"not written: irgraph would not read it back ({what}; the limits are MAX_RT_INFO_ITEMS and "
                "MAX_RT_INFO_TOTAL in irgraph.io.xml.rt_info, which a caller may raise)", where,
            )


def _rt_info_blocks(model: Model, layers: bool = True) -> Iterable[tuple[RtEntry, ...]]:
    """Every rt_info a file of ``model`` holds: the net's, its legacy sections, each layer's and port's, bodies'."""
    yield model.rt_info or ()
    yield model.legacy_sections
    if not layers:
        return
    for node in model:
        yield node.rt_info
        yield from (port.rt_info for port in node.inputs)
        yield from (output.rt_info for output in node.outputs)
        for body in node.bodies or ():
            yield from _rt_info_blocks(body.model)


def _items(entries: tuple[RtEntry, ...]) -> int:
    return sum(1 + len(entry.attributes) + _items(entry.children) for entry in entries)


def write_legacy_sections(out: list[str], sections: tuple[RtEntry, ...]) -> None:
    """Append the legacy ``<meta_data>`` / ``<quantization_parameters>`` sections as they were read."""
    for section in sections:
        _write_entry(out, section, 1)


def openvino_rt_info(rt_info: tuple[RtEntry, ...] | None, legacy: tuple[RtEntry, ...]) -> tuple[RtEntry, ...]:
    """The net-level rt_info OpenVINO 2026.4.1 derives: ``<rt_info>`` when the file has one; else the
    legacy sections turned into entries (``<meta_data>`` children at the top, its ``cli_parameters`` as
    ``conversion_parameters``, in file order; ``<quantization_parameters>`` as ``optimization``, sorted,
    element text as ``value``) and an ``optimization`` entry that is always there."""
    if rt_info is not None:
        return rt_info

    def as_value(entry: RtEntry) -> RtEntry:
        # OpenVINO takes the element's content as pugixml prints it, so the text stays XML-escaped.
        attributes = (("value", escape_text(entry.text)),) if entry.text is not None else entry.attributes
        return RtEntry(entry.tag, attributes, tuple(map(as_value, entry.children)))

    found: dict[str, RtEntry] = {}
    optimization: list[RtEntry] = []
    for section in legacy:
        if section.tag == "meta_data":
            for child in section.children:
                tag = "conversion_parameters" if child.tag == "cli_parameters" else child.tag
                found[tag] = as_value(child).replace(tag=tag)
        elif section.tag == "quantization_parameters":
            optimization.extend(as_value(c) for c in section.children)
    found["optimization"] = RtEntry("optimization", (), tuple(sorted(optimization, key=lambda e: e.tag)))
    return tuple(found[key] for key in sorted(found))


def write_rt_info(out: list[str], entries: tuple[RtEntry, ...] | None, depth: int, *, always: bool = False) -> None:
    """Append ``<rt_info>`` with ``entries`` at indentation ``depth``; ``<rt_info />`` when empty and ``always``."""
    if entries:
        _write_entry(out, RtEntry("rt_info", (), entries), depth)
    elif always:
        out.append("\t" * depth + "<rt_info />\n")


def _write_entry(out: list[str], entry: RtEntry, depth: int) -> None:
    indent = "\t" * depth
    attributes = "".join(f' {key}="{escape_attribute(value)}"' for key, value in entry.attributes)
    if entry.text is not None:
        out.append(f"{indent}<{entry.tag}{attributes}>{escape_text(entry.text)}</{entry.tag}>\n")
        return
    if not entry.children:
        out.append(f"{indent}<{entry.tag}{attributes} />\n")
        return
    out.append(f"{indent}<{entry.tag}{attributes}>\n")
    for child in entry.children:
        _write_entry(out, child, depth + 1)
    out.append(f"{indent}</{entry.tag}>\n")
