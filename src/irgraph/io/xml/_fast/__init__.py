"""The XML reader's fast paths, behind one switch: the plain path (``reader``, ``layers``) is the reference.

Two shortcuts, each giving what the plain path gives (tests/io/test_fast_paths.py reads every IR file of
the test data and the conformance cases both ways and compares models, findings and errors):

- ``reader``: files laid out exactly as OpenVINO writes them are read with regular expressions, without
  an lxml tree (``bodies``: TensorIterator, Loop and If bodies too; ``edges``: the edges); anything else
  (and any error or finding) is left to the plain path, which says where.
- ``layers``: port types, Locations, ports and Const ops made through their slots, skipping the
  dataclass ``__init__`` and the checks the values are known to pass.

The switch: ``IRGRAPH_NO_FAST=1`` in the environment (read once, at import) turns both off, as does
setting :data:`ENABLED` to False (the differential tests do); the reader asks :func:`read_fast` and
:func:`layer_reader` on every read, nowhere else.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from irgraph.io.xml._fast import reader as _reader
from irgraph.io.xml._fast.layers import FastLayerReader
from irgraph.io.xml.layers import LayerReader

if TYPE_CHECKING:
    from irgraph.graph import Model
    from irgraph.io.xml.context import ReadContext, ReadResult

__all__ = ["ENABLED", "layer_reader", "read_fast"]

ENABLED: bool = os.environ.get("IRGRAPH_NO_FAST", "") in ("", "0")
"""Whether reading takes the fast paths (``IRGRAPH_NO_FAST=1``: never)."""


def read_fast(reader: ReadContext) -> ReadResult | None:
    """The model of ``reader``'s document read by the fast path, or None: the plain path reads it."""
    return _reader.read_fast(reader) if ENABLED else None


def layer_reader(reader: ReadContext, model: Model, version: int) -> LayerReader:
    """The reader of ``model``'s ``<layers>`` (with the fast constructors when enabled)."""
    return (FastLayerReader if ENABLED else LayerReader)(reader, model, version)
