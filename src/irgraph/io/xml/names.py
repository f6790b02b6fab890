"""Tensor names in ``names`` / ``output_names`` attributes: comma-separated, ``\\,`` is a literal comma."""

from __future__ import annotations

from collections.abc import Iterable

from irgraph.core.lazy import lazy_pattern

_UNESCAPED_COMMA = lazy_pattern(r"(?<!\\),")


def split_names(text: str | None) -> list[str]:
    """Split like OpenVINO 2026's reader: on commas not preceded by ``\\``; ``\\,`` becomes ``,``.

    Empty items are dropped, nothing is trimmed, duplicates collapse (first occurrence kept).
    """
    if not text:
        return []
    if "\\," not in text:
        parts = text.split(",")
    else:
        parts = [part.replace("\\,", ",") for part in _UNESCAPED_COMMA.split(text)]
    if len(parts) == 1:
        return parts if parts[0] else []
    return [name for name in dict.fromkeys(parts) if name]


def join_names(names: Iterable[str]) -> str:
    """Join like OpenVINO's writer: sorted bytewise (code-point order is UTF-8 byte order), ``,`` -> ``\\,``."""
    return ",".join(name.replace(",", "\\,") for name in sorted(set(names)))


def join_key_first(names: list[str]) -> str:
    """``join_names``, but the first name stays first: an output's key is the first of its Result's
    ``output_names`` or of its producer's ``names`` (DESIGN.md section 6), so sorting it away would rename the output
    when the file is read back. Lists OpenVINO wrote are sorted already: for them the text is ``join_names``'."""
    if not names:
        return ""
    rest = join_names(name for name in names if name != names[0])
    first = names[0].replace(",", "\\,")
    return f"{first},{rest}" if rest else first
