"""rt_info kept verbatim: ``<rt_info>`` subtrees <-> :class:`RtEntry` trees, written as pugixml does."""

from __future__ import annotations

from lxml import etree

from irgraph.errors import IrParseError
from irgraph.graph import RtEntry
from irgraph.io.xml_text import escape_attribute

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


def read_rt_info(element: etree._Element) -> tuple[RtEntry, ...]:
    """The children of an ``<rt_info>`` element as RtEntry trees (tags, attributes in order, children)."""
    return tuple(_entry(child) for child in element)


def _entry(element: etree._Element) -> RtEntry:
    # Recursion depth is bounded by libxml2's nesting limit (huge_tree is off).
    return RtEntry(
        tag=element.tag,
        attributes=tuple(attribute_items(element)),
        children=tuple(_entry(child) for child in element),
    )


def write_rt_info(out: list[str], entries: tuple[RtEntry, ...] | None, depth: int, *, always: bool = False) -> None:
    """Append ``<rt_info>`` with ``entries`` at indentation ``depth``; ``<rt_info />`` when empty and ``always``."""
    if entries:
        _write_entry(out, RtEntry("rt_info", (), entries), depth)
    elif always:
        out.append("\t" * depth + "<rt_info />\n")


def _write_entry(out: list[str], entry: RtEntry, depth: int) -> None:
    indent = "\t" * depth
    attributes = "".join(f' {key}="{escape_attribute(value)}"' for key, value in entry.attributes)
    if not entry.children:
        out.append(f"{indent}<{entry.tag}{attributes} />\n")
        return
    out.append(f"{indent}<{entry.tag}{attributes}>\n")
    for child in entry.children:
        _write_entry(out, child, depth + 1)
    out.append(f"{indent}</{entry.tag}>\n")
