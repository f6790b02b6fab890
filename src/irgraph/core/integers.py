"""The one parser of integer texts read from files: ids, port ids, dims, attributes, offsets, sizes.

Integer text is ASCII digits only (DESIGN.md section 7). Python's ``int()``, ``str.isdigit()``,
``str.strip()`` and ``re``'s ``\\d`` accept far more (Arabic-Indic '٣', Devanagari '३', full-width
'３', superscripts, U+3000 spaces), and OpenVINO accepts none of it, so no integer text of a model
goes through them directly: every reader site calls :func:`parse_int`.

What OpenVINO 2026.4.1 accepts, measured with ``openvino.Core().read_model`` (tests/io/test_integers.py)
and read in its source, and what irgraph accepts of it (never more):

- ``<layer id>``, port ids, ``<edge>`` ids, Const ``offset``/``size``, ``<net version>``
  (``pugixml::get_uint64_attr``: ``std::stoll`` that must consume the whole text, then ``>= 0``):
  leading whitespace, a ``+`` or ``-`` sign, leading zeros; no trailing whitespace, nothing after
  the digits, nothing above int64. irgraph: the same without a sign (``+1`` and ``-0`` are no
  writer's output), :data:`UNSIGNED`.
- ``<dim>`` texts (``std::istringstream >> int64_t``): whitespace around, a sign, and any garbage
  after the digits, silently dropped (``6abc`` and ``6.5`` read as 6, ``0x6`` as 0). irgraph: no
  garbage and no ``+``, :data:`SIGNED` (the caller checks ``>= -1``).
- Integer op attributes such as ``num_splits`` and ``axis`` ("Cannot parse '+2' to number"):
  leading whitespace skipped, no ``+``, garbage after the digits dropped as for dims (``2abc`` and
  ``2.0`` read as 2, ``0x2`` as 0). irgraph: :data:`SIGNED`.
- Dims of a ``shape="1,?,1..8"`` attribute (``ov::Dimension``: trimmed, then any run of digits
  and ``-``, ``-1`` being dynamic): OpenVINO reads ``-2``, ``-0`` and ``-`` as 0, ``1-`` as 1 and
  wraps numbers above int64 around. irgraph: digits, ``-1`` and intervals only
  (see :meth:`irgraph.core.shapes.Dim.parse`).

Whitespace is XML's: space, tab, newline, carriage return (OpenVINO's C ``isspace`` also takes
vertical tab and form feed, which XML 1.0 forbids in a document).
"""

from __future__ import annotations

import re

from irgraph.core.lazy import lazy_pattern

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
"""Largest id, port id, dim, offset, size or attribute value (OpenVINO keeps them in 64 bits)."""

WHITESPACE = " \t\n\r"
"""XML whitespace: the only spaces an integer text may have around its digits."""

CANONICAL = "[0-9]{1,18}"
"""A regular-expression piece for the integers OpenVINO writes (ASCII digits, never above int64):
what the reader's fast path matches before handing the text to :func:`parse_int`."""

_DIGITS = lazy_pattern(r"-?[0-9]+", re.ASCII)
_UNSIGNED_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_INT64_DIGITS = len(str(INT64_MAX))


class IntegerSyntax:
    """How one kind of integer text may be written: a sign or not, whitespace after the digits or not."""

    __slots__ = ("pattern", "trailing_space")

    def __init__(self, signed: bool, trailing_space: bool) -> None:
        self.pattern = _DIGITS if signed else _UNSIGNED_DIGITS
        self.trailing_space = trailing_space


SIGNED = IntegerSyntax(signed=True, trailing_space=True)
"""``-?digits`` with whitespace around: dims and integer op attributes."""
UNSIGNED = IntegerSyntax(signed=False, trailing_space=False)
"""``digits`` after optional whitespace: ids, port ids, Const offset and size, the IR version."""


def parse_int(
    text: str, minimum: int = INT64_MIN, maximum: int = INT64_MAX, syntax: IntegerSyntax = SIGNED
) -> int:
    """The integer ``text`` holds, in ``[minimum, maximum]``.

    Raises ValueError whose message says what the text must be, worded to follow "must be":
    ``an integer``, ``a non-negative integer``, ``an integer >= -1``, ``at most 9223372036854775807``
    or ``an integer in the int64 range``; ``(ASCII digits 0-9 only)`` is added when the text holds
    other Unicode digits.
    """
    body = text.lstrip(WHITESPACE)
    if syntax.trailing_space:
        body = body.rstrip(WHITESPACE)
    if syntax.pattern.fullmatch(body) is None:
        raise ValueError(_wanted(minimum, syntax) + ascii_note(text))
    magnitude = body.lstrip("-").lstrip("0")
    if len(magnitude) > _INT64_DIGITS:  # never int() thousands of digits (Python refuses over 4300)
        raise ValueError(_out_of_range(body, minimum, maximum))
    value = int(body)
    if not minimum <= value <= maximum:
        raise ValueError(_out_of_range(body, minimum, maximum))
    return value


def _wanted(minimum: int, syntax: IntegerSyntax) -> str:
    if minimum == 0 or syntax is UNSIGNED:
        return "a non-negative integer"
    if minimum == INT64_MIN:
        return "an integer"
    return f"an integer >= {minimum}"


def _out_of_range(body: str, minimum: int, maximum: int) -> str:
    if minimum == INT64_MIN and maximum == INT64_MAX:
        return "an integer in the int64 range"
    if body.startswith("-"):
        return "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
    return f"at most {maximum}"


def ascii_note(text: str) -> str:
    """`` (ASCII digits 0-9 only)`` when ``text`` holds a digit of another script, else empty."""
    return " (ASCII digits 0-9 only)" if any(char.isdigit() and not char.isascii() for char in text) else ""
