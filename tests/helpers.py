"""Small helpers shared across test packages: the golden corpus, locating text in XML, file modes and syncs."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from irgraph.ops.catalogue import OpVersion

CORPUS = Path(__file__).resolve().parent / "data" / "ov"
"""IR files written by the real OpenVINO (tests/oracle/generate_goldens.py), one case per folder."""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first occurrence of ``needle`` in ``text``."""
    position = text.index(needle)
    return text.count("\n", 0, position) + 1


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """Run the block under the process umask ``mask`` (restored after)."""
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode_of(path: str | os.PathLike[str]) -> int:
    """The permission bits of ``path`` (0o644...)."""
    return stat.S_IMODE(os.lstat(path).st_mode)


def record_fsync_and_replace(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str]]:
    """Record every ``os.fsync`` (with the path its descriptor names) and ``os.replace``, in call order.

    Entries are ``("fsync", path, "")`` and ``("replace", source, destination)``; both calls still happen.
    """
    calls: list[tuple[str, str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}"), ""))
        real_fsync(descriptor)

    def replace(source: str, destination: str, **kwargs: object) -> None:
        calls.append(("replace", os.fspath(source), os.fspath(destination)))
        real_replace(source, destination, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return calls


def assert_detached_as_one_parse(data: bytes, root: object, bodies: dict) -> None:
    """The tree ``detach_bodies(data)`` made, each stub replaced by its body, is the tree libxml2 parses in one
    go with its depth limit raised (huge_tree: 2048 levels instead of 256): same tags, attributes, texts and
    lines, element for element. tests/conftest.py runs this on every deep file a test reads."""
    from lxml import etree

    one_parse = etree.XMLParser(  # irgraph.io.xml.security.hardened_parser's options, huge_tree on
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=True,
        remove_comments=True, remove_pis=True, remove_blank_text=True, collect_ids=False,
    )
    expected = etree.fromstring(data, one_parse)
    pending = [(root, None, expected)]
    while pending:
        got, tail, want = pending.pop()
        if got in bodies:  # a stub: its body stands in its place, with the stub's tail
            got, tail = bodies[got], got.tail
        elif tail is None:
            tail = got.tail
        where = f"<{want.tag}> at line {want.sourceline}"
        assert (got.tag, dict(got.attrib), _text(got.text), got.sourceline) == (
            want.tag, dict(want.attrib), _text(want.text), want.sourceline), where
        assert _text(tail) == _text(want.tail) or want.getparent() is None, (where, tail, want.tail)
        assert len(got) == len(want), where
        pending.extend((child, None, other) for child, other in zip(got, want, strict=True))



def _text(text: str | None) -> str | None:
    """Text as the reader sees it: white space alone is none (libxml2 keeps or drops it by a guess)."""
    return text if text and not text.isspace() else None


def unimplemented_standard_op(monkeypatch: pytest.MonkeyPatch) -> OpVersion:
    """A catalogued op version irgraph does not run: one not implemented yet, or (now that irgraph
    runs every catalogued version) NMSRotated-13 hidden from the registry for the test."""
    from irgraph.ops import registry
    from irgraph.ops.catalogue import all_versions, find
    from irgraph.ops.registry import known_ops

    runnable = set(known_ops())
    found = next((entry for entry in all_versions() if entry.title not in runnable), None)
    if found is None:
        found = find("NMSRotated", "opset13")
        assert found is not None
        monkeypatch.setattr(registry, "_CLASSES", {k: v for k, v in registry._CLASSES.items() if k != found})
    return found
