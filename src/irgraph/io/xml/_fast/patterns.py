"""The layout the fast reader recognises: OpenVINO's serializer output as regular expressions, and the
checks that keep the fast reader away from what only the lxml path reads right."""

from __future__ import annotations

import re

from irgraph.core.integers import CANONICAL
from irgraph.core.lazy import lazy_pattern
from irgraph.io.xml.rt_info import MAX_ATTRIBUTES

_SPACE = r"[ \t\n]*"  # no carriage returns: lines are counted by newlines
# Tabs and newlines would be normalised to spaces; other controls are not XML. U+FFFE and U+FFFF are not XML
# either: the reader declines a file holding them (NOT_XML_CHARACTERS) before any pattern runs, which keeps the
# character class below within Latin-1 (a class reaching past it costs ~0.1 ms to compile, in every pattern).
_VALUE = r'[^"<&\x00-\x1f]*(?:&(?:amp|lt|gt|quot|apos);[^"<&\x00-\x1f]*)*'
NOT_XML_CHARACTERS = ("\ufffe".encode(), "\uffff".encode())
"""U+FFFE and U+FFFF in UTF-8: no pattern here excludes them, so the reader declines a file holding one."""
_INT = CANONICAL  # ids, port ids and dims as OpenVINO writes them: ASCII digits, never above int64
_NAME = r"[A-Za-z_][A-Za-z0-9_.-]{0,999}"

HEAD = re.compile(
    rf"""(?:<\?xml version=(["'])1\.0\1(?: encoding=(["'])(?:UTF-8|utf-8)\2)?\?>)?{_SPACE}"""
    rf'<net name="(?P<name>{_VALUE})" version="(?P<version>10|11)">{_SPACE}<layers>'
)
LAYER_START = re.compile(
    rf'<layer id="({_INT})" name="({_VALUE})" type="({_VALUE})" version="({_VALUE})"(?: output_names="({_VALUE})")?>'
)
LAYER_END = re.compile(rf"{_SPACE}</layer>{_SPACE}\Z")
CONST_ATTRIBUTES = ("element_type", "shape", "offset", "size")
CONST_DATA = re.compile(  # a Const's <data> as OpenVINO writes it (no value needs unescaping)
    r' element_type="([a-z0-9]{1,16})" shape="([0-9, ]{0,1000})" offset="([0-9]{1,18})" size="([0-9]{1,18})"'
)
DATA = re.compile(rf'{_SPACE}<data((?: {_NAME}="{_VALUE}")*) />')
RT_INFO = re.compile(rf"{_SPACE}<rt_info(?:>| />)")
OPEN = {False: re.compile(rf"{_SPACE}<input>"), True: re.compile(rf"{_SPACE}<output>")}
CLOSE = {False: re.compile(rf"{_SPACE}</input>"), True: re.compile(rf"{_SPACE}</output>")}
PORT_NAMES = re.compile(rf' names="({_VALUE})"')  # cut out of the layers: the bodies left repeat
ATTRIBUTE = re.compile(rf' ({_NAME})="({_VALUE})"')
PORT = re.compile(
    rf'{_SPACE}<port id="({_INT})" precision="([A-Za-z0-9]{{1,16}})"(?: names="({_VALUE})")?'
    rf"(?: />|>(?:{_SPACE}(\x00))?{_SPACE}"
    rf"(?:<rt_info>(.*?)</rt_info>{_SPACE}|(<rt_info />){_SPACE})?</port>)",
    re.DOTALL,
)
DIM = re.compile(rf"<dim>(-?{_INT})</dim>")
# A port's dims, cut out of the layers by a loose pattern (fast character loops, each stopping at the
# next '<', so a hostile run of '<dim>' costs linear time); each distinct run is then checked against
# the strict one (DIMS) before it is read.
DIMS_CUT = re.compile(r"(<dim>[^<]*</dim>(?:[ \t\n]*<dim>[^<]*</dim>)*)")
DIMS = re.compile(rf"<dim>-?{_INT}</dim>(?:{_SPACE}<dim>-?{_INT}</dim>)*")
SECTIONS = re.compile(rf"</layers>{_SPACE}<edges>")
# Sub-graphs: a body's start, a port map's entries, a back edge (see bodies.py).
BODY_LAYERS = lazy_pattern(rf"<(?:body|then_body|else_body)>{_SPACE}<layers>")
PORT_MAP_ENTRY = lazy_pattern(rf'{_SPACE}<(input|output)((?: {_NAME}="{_VALUE}")*) />')
BACK_EDGE = lazy_pattern(rf'{_SPACE}<edge((?: {_NAME}="{_VALUE}")*) />')
SUB_GRAPH_MARK = {False: re.compile(rf"{_SPACE}\x01"), True: re.compile(rf"{_SPACE}\x02")}
"""The stand-ins of a layer's cut-out port maps (before its ports) and bodies (after them)."""
EDGE_START = re.compile(
    rf'<edge from-layer="({_INT})" from-port="({_INT})" to-layer="({_INT})" to-port="({_INT})" />'
)
TAIL = re.compile(rf"{_SPACE}(?:<rt_info>(.*)</rt_info>|(<rt_info />))?{_SPACE}</net>{_SPACE}", re.DOTALL)
BODY_TAIL = lazy_pattern(rf"{_SPACE}(?:<rt_info>(.*)</rt_info>|(<rt_info />))?{_SPACE}", re.DOTALL)  # before </body>

# libxml2 (huge_tree off) refuses a start tag, attribute value or text node past 10,000,000 bytes,
# counted from where its input buffer starts, which moves with the parse. Every such piece lies
# between two '<', so a file with no long run without one is far inside those limits.
MAX_RUN = 1_000_000  # bytes
RT_INFO_DEPTH = {"net": 1, "layer": 3, "port": 5}  # elements above an <rt_info> (libxml2 limits nesting)


class NotCanonical(Exception):
    """The file leaves the layout this module reads (the lxml path reads it instead)."""


def has_long_run(data: bytes) -> bool:
    """Whether ``data`` holds ``MAX_RUN`` bytes in a row without a '<'."""
    position = 0
    while len(data) - position >= MAX_RUN:
        last = data.rfind(b"<", position, position + MAX_RUN)
        if last < 0:
            return True
        position = last + 1
    return False


def unescape(value: str) -> str:
    """An attribute value with pugixml's five escapes undone (``&amp;`` last)."""
    if "&" not in value:
        return value
    return (
        value.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'")
        .replace("&amp;", "&")
    )


def attributes(data: str, escaped: bool) -> dict[str, str]:
    """A ``<data>`` element's attributes (unescaped when the file uses escapes); NotCanonical for a repeated
    attribute (not well-formed), too many, or a namespace declaration: the lxml path says what is wrong."""
    items = ATTRIBUTE.findall(data)
    found = {name: unescape(value) if escaped else value for name, value in items}
    if len(found) != len(items) or len(items) > MAX_ATTRIBUTES or any(name.startswith("xmlns") for name in found):
        raise NotCanonical
    return found
