"""The fast reader inside sub-graphs: TensorIterator, Loop and If layers as OpenVINO writes them.

OpenVINO writes a layer's port maps and back edges before its ``<input>`` and its bodies after its
``<output>``. A ``<layers>`` section's top-level bodies are cut out of it first (each run of them is
replaced by ``\\x02`` and its newlines, so lines stay exact), then its port maps (``\\x01``); the
layers left are read as any others, their templates knowing that they have sub-graphs, and each body
is read by the same fast reader, recursively, into its own Model. What these functions give is what
:mod:`irgraph.io.xml.sub_graphs` gives on the plain path; anything it would refuse or note raises
NotCanonical, and the plain path reads the file and says what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from irgraph.core.integers import parse_int
from irgraph.core.lazy import lazy_pattern
from irgraph.graph import BackEdge, Body, Model, PortMapEntry
from irgraph.graph.subgraph import BODY_TAGS, PORT_MAP_TAGS
from irgraph.io.xml import sub_graphs as plain
from irgraph.io.xml._fast.edges import connect_edges
from irgraph.io.xml._fast.patterns import BACK_EDGE, BODY_LAYERS, BODY_TAIL, PORT_MAP_ENTRY, SECTIONS, NotCanonical
from irgraph.io.xml.sub_graphs import _ENTRY_ATTRIBUTES, _SLICING, _port_index

if TYPE_CHECKING:
    from irgraph.core.errors import Location
    from irgraph.graph import RtEntry

__all__ = [
    "BODIES", "MAPS", "SubGraphReading", "TagScan", "cut_bodies", "cut_maps", "has_bodies", "read_sub_graphs",
    "section_end",
]

BODIES, MAPS = "\x02", "\x01"
"""What stands for a cut-out run of bodies and of port maps (characters no XML file holds)."""

_TAGS = lazy_pattern(r"<(/?)(body|then_body|else_body|layers)(>|[^>]*>)")

Span = tuple[str, int, int]
"""A body: its tag, and where it starts and ends in the file's text."""
Attributes = Callable[[str], dict[str, str]]
"""The fast reader's attribute parser (unescaping, refusing repeats and namespaces)."""


class SubGraphReading:
    """The fast reader's part that reads a body into its Model (the reader reads its layers, edges, rt_info)."""

    text: str
    _depth: int
    """How many bodies deep the layers being read are."""
    _counted: tuple[int, int]
    """A position in the text and its line: lines are counted on from the last one asked for."""

    def _layers(self, model: Model, start: int) -> tuple[dict[str, Any], int]:
        raise NotImplementedError

    def _rt_info(self, content: str, parent: str) -> tuple[RtEntry, ...]:
        raise NotImplementedError

    def _line_at(self, position: int) -> int:
        """The line ``position`` is on (counted on from the position asked for last: bodies come in order)."""
        known, line = self._counted
        if position >= known:
            line += self.text.count("\n", known, position)
        else:
            line = self.text.count("\n", 0, position) + 1
        self._counted = (position, line)
        return line

    def _body_model(self, parent: Model, tag: str, start: int, end: int) -> Model:
        """The Model of the body between ``start`` and ``end``, as ``sub_graphs._body_model`` makes it."""
        text = self.text
        opening = BODY_LAYERS.match(text, start)
        # The plain path's limit, read where it reads it; past it the plain path says which limit it passes.
        if opening is None or self._depth >= plain.MAX_BODY_DEPTH:
            raise NotCanonical
        model = Model(tag, ir_version=parent.ir_version)
        model.source = parent.source
        self._depth += 1
        try:
            by_text, layers_end = self._layers(model, opening.end())
        finally:
            self._depth -= 1
        sections = SECTIONS.match(text, layers_end)
        if sections is None:
            raise NotCanonical
        edges_end = text.find("</edges>", sections.end(), end)
        if edges_end < 0:
            raise NotCanonical
        connect_edges(model, text[sections.end():edges_end], by_text)
        tail = BODY_TAIL.fullmatch(text, edges_end + len("</edges>"), end - len(tag) - 3)
        if tail is None:
            raise NotCanonical
        self._depth += 1  # the body's own rt_info sits one level deeper than the net's
        try:
            model.rt_info = self._rt_info(tail.group(1), "net") if tail.group(1) is not None else (
                () if tail.group(2) else None
            )
        finally:
            self._depth -= 1
        return model


def has_bodies(text: str) -> bool:
    """Whether ``text`` may hold sub-graph bodies (else the sections are cut without looking for them)."""
    # One pass of SRE's literal-prefix search: twice as fast as str's search for "body" on an IR's text (whose
    # quotes and slashes defeat its skip table), and a file without bodies (most) is searched once.
    return re.search("body[> ]", text) is not None


Tag = tuple[int, int, str, str, str]
"""A match of ``_TAGS``: where it starts and ends, its '/' (or ''), its tag and what follows the tag."""


class TagScan:
    """The sub-graph tags of a text (``_TAGS``), each found once: a body's section lies inside its parent's, whose
    scan has found its tags already (each nesting level scanned its sections again before: a sixth of a read of a
    file with nested If bodies)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: list[Tag] = []
        self._starts: list[int] = []
        self._origin: int | None = None
        """Where the recorded scan began; it found ``_found`` and then stopped at ``_scanned`` (a match's end)."""
        self._scanned = 0

    def tags(self, start: int) -> Iterator[Tag]:
        """The matches ``_TAGS.finditer(text, start)`` gives, from the record where it holds them."""
        position = start
        if self._origin is None:
            self._origin = self._scanned = start
        elif self._origin <= start <= self._scanned:
            import bisect  # here: a file without nested bodies never rescans, and _bisect is a shared library to load

            index = bisect.bisect_left(self._starts, start)
            if index and self._found[index - 1][1] > start:  # ``start`` inside a recorded match: scan afresh
                yield from self._fresh(start)
                return
            while index < len(self._found):  # (the record cannot grow meanwhile: scans run one at a time)
                yield self._found[index]
                index += 1
            position = self._scanned
        else:
            yield from self._fresh(start)
            return
        for match in _TAGS.finditer(self.text, position):  # the scan goes on where the record stops
            found = _tag(match)
            self._found.append(found)
            self._starts.append(found[0])
            self._scanned = found[1]
            yield found

    def _fresh(self, start: int) -> Iterator[Tag]:
        for match in _TAGS.finditer(self.text, start):
            yield _tag(match)


def _tag(match: re.Match[str]) -> Tag:
    return match.start(), match.end(), match.group(1), match.group(2), match.group(3)


def section_end(text: str, start: int, bodies: TagScan | None) -> tuple[int, list[Span]]:
    """Where the ``</layers>`` closing the section that starts at ``start`` is, and the bodies at its top level
    (``bodies``: the text's tags, None when it holds no bodies)."""
    if bodies is None:
        end = text.find("</layers>", start)
        if end < 0:
            raise NotCanonical
        return end, []
    spans: list[Span] = []
    depth = 0
    opened = 0
    for match_start, match_end, closing, tag, rest in bodies.tags(start):
        if rest != ">":  # attributes, or an empty element: not OpenVINO's layout
            raise NotCanonical
        if tag == "layers":
            if depth == 0:
                if not closing:
                    raise NotCanonical
                return match_start, spans
            continue
        if not closing:
            if depth == 0:
                opened = match_start
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                raise NotCanonical
            if depth == 0:
                if not text.startswith(f"<{tag}>", opened):
                    raise NotCanonical
                spans.append((tag, opened, match_end))
    raise NotCanonical


def _marker(mark: str, section: str, start: int, end: int) -> str:
    return mark + "\n" * section.count("\n", start, end)


def cut_bodies(section: str, offset: int, spans: list[Span]) -> tuple[str, list[list[Span]]]:
    """``section`` (at ``offset`` in the text) with each run of adjacent bodies replaced by BODIES, and the runs."""
    pieces: list[str] = []
    runs: list[list[Span]] = []
    cursor = run_start = run_end = 0
    for tag, start, end in spans:
        start, end = start - offset, end - offset
        if runs and not section[run_end:start].strip(" \t\n"):
            runs[-1].append((tag, start + offset, end + offset))
        else:
            if runs:
                pieces += [_marker(BODIES, section, run_start, run_end), section[run_end:start]]
            else:
                pieces.append(section[cursor:start])
            runs.append([(tag, start + offset, end + offset)])
            run_start = start
        run_end = end
    pieces += [_marker(BODIES, section, run_start, run_end), section[run_end:]]
    return "".join(pieces), runs


def cut_maps(section: str) -> tuple[str, list[list[tuple[str, str]]]]:
    """``section`` with each run of adjacent port maps and back edges replaced by MAPS, and the runs'
    (tag, content) pairs."""
    starts = _map_starts(section)
    pieces: list[str] = []
    runs: list[list[tuple[str, str]]] = []
    run_start = run_end = 0
    for position, tag in starts:
        if position < run_end:  # inside the previous block: not OpenVINO's layout
            raise NotCanonical
        close = section.find(f"</{tag}>", position)
        if close < 0:
            raise NotCanonical
        block_start = position
        while block_start > run_end and section[block_start - 1] in " \t\n":
            block_start -= 1
        item = (tag, section[position + len(tag) + 2:close])
        if runs and block_start == run_end:
            runs[-1].append(item)
        else:
            if runs:
                pieces += [_marker(MAPS, section, run_start, run_end), section[run_end:block_start]]
            else:
                pieces.append(section[:block_start])
            runs.append([item])
            run_start = block_start
        run_end = close + len(tag) + 3
    if not runs:
        return section, []
    pieces += [_marker(MAPS, section, run_start, run_end), section[run_end:]]
    return "".join(pieces), runs


def _map_starts(section: str) -> list[tuple[int, str]]:
    """Where each port map and back edges start tag (``<port_map>``, ``<then_port_map>``, ``<else_port_map>``,
    ``<back_edges>``) is in ``section``, in order, with its tag. Found with str.find (the tags are rare; a regex
    would try every position of the section), the port maps by their common end: two passes over a long section
    instead of four."""
    starts = [(position, "back_edges") for position in _all(section, "<back_edges>")]
    for position in _all(section, "port_map>"):
        if position >= 1 and section[position - 1] == "<":
            starts.append((position - 1, "port_map"))
        elif position >= 6 and section.startswith(("<then_", "<else_"), position - 6):
            starts.append((position - 6, section[position - 5 : position] + "port_map"))
    return sorted(starts)


def _all(text: str, needle: str) -> list[int]:
    """Every position of ``needle`` in ``text``."""
    found = []
    position = text.find(needle)
    while position >= 0:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


def read_sub_graphs(
    maps: list[tuple[str, str]], bodies: list[Span], inputs: dict[str, int], outputs: dict[str, int],
    attributes: Attributes, body_model: Callable[[str, int, int], Model], where: Location,
    port_maps: dict[tuple[str, tuple, tuple], tuple[PortMapEntry, ...]],
) -> tuple[Body, ...]:
    """A layer's bodies, as ``sub_graphs.read_bodies`` makes them (``body_model`` reads one body's span).

    ``port_maps``: the port maps read so far, by text and the layer's port labels (the entries are immutable, and
    layers repeating a body, as a detection network's per-level If layers, repeat its port map).
    """
    found = dict(maps)
    spans = {tag: (start, end) for tag, start, end in bodies}
    if len(found) != len(maps) or len(spans) != len(bodies):  # an element twice
        raise NotCanonical
    if any(tag in found and body not in spans for tag, body in PORT_MAP_TAGS.items()) or (
        "back_edges" in found and "body" not in spans
    ):
        raise NotCanonical
    made = []
    for tag in BODY_TAGS:
        span = spans.get(tag)
        if span is None:
            continue
        content = found.get(tag[: -len("body")] + "port_map")
        port_map = None
        if content is not None:
            key = (content, tuple(inputs.items()), tuple(outputs.items()))
            port_map = port_maps.get(key)
            if port_map is None:
                port_map = port_maps[key] = tuple(_port_map(content, inputs, outputs, attributes, where))
        back_edges = tuple(_back_edges(found["back_edges"], attributes)) if tag == "body" and "back_edges" in found \
            else ()
        made.append(Body(tag, body_model(tag, *span), port_map, back_edges))
    return tuple(made)


def _entries(pattern: re.Pattern[str], content: str) -> list[re.Match[str]]:
    """Every element of a port map or back edges, which must hold nothing else."""
    matches = []
    position = 0
    while (match := pattern.match(content, position)) is not None:
        matches.append(match)
        position = match.end()
    if content[position:].strip(" \t\n"):
        raise NotCanonical
    return matches


def _port_map(content: str, inputs: dict[str, int], outputs: dict[str, int], attributes: Attributes,
              where: Location) -> list[PortMapEntry]:
    input_labels = {int(label): index for label, index in inputs.items()}
    output_labels = {int(label): index for label, index in outputs.items()}
    entries = []
    for match in _entries(PORT_MAP_ENTRY, content):
        output = match.group(1) == "output"
        attrs = attributes(match.group(2))
        if not _ENTRY_ATTRIBUTES.issuperset(attrs) or "external_port_id" not in attrs \
                or "internal_layer_id" not in attrs:
            raise NotCanonical  # the plain path notes the attribute, or says which is missing
        internal = parse_int(attrs["internal_layer_id"])
        if internal < 0:
            raise NotCanonical
        slicing = {name: parse_int(attrs[name]) if name in attrs else None for name in _SLICING}
        external = _port_index(parse_int(attrs["external_port_id"]), output_labels if output else input_labels,
                               len(inputs) if output else 0, where)
        entries.append(PortMapEntry(output, external, internal, purpose=attrs.get("purpose"), **slicing))
    return entries


def _back_edges(content: str, attributes: Attributes) -> list[BackEdge]:
    edges = []
    for match in _entries(BACK_EDGE, content):
        attrs = attributes(match.group(1))
        if "from-layer" not in attrs or "to-layer" not in attrs:
            raise NotCanonical
        edges.append(BackEdge(parse_int(attrs["from-layer"]), parse_int(attrs["to-layer"])))
    return edges
