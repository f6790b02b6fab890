"""rt_info kept verbatim: ``<rt_info>`` subtrees <-> :class:`RtEntry` trees, written as pugixml does."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from lxml import etree

from irgraph.core.errors import IrParseError
from irgraph.graph import RtEntry
from irgraph.io.xml.text import escape_attribute, escape_text

LEGACY_SECTIONS = ("meta_data", "quantization_parameters")
"""Net-level sections of older IR that OpenVINO still reads (as rt_info, when there is no ``<rt_info>``)."""

MAX_ATTRIBUTES = 1000
"""Most attributes read from one element (real IR has a few dozen at most); lxml takes O(n^2) time for n."""


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
    order, children, text)."""
    return tuple(_entry(child) for child in elements)


def _entry(element: etree._Element) -> RtEntry:
    # Recursion depth is bounded by libxml2's nesting limit (huge_tree is off).
    children = tuple(_entry(child) for child in element)
    text = element.text if not children and element.text and element.text.strip() else None
    return RtEntry(tag=element.tag, attributes=tuple(attribute_items(element)), children=children, text=text)


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
                found[tag] = dataclasses.replace(as_value(child), tag=tag)
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
