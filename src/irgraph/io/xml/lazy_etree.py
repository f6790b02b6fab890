"""``etree``: lxml.etree, imported on first use.

The fast reader reads OpenVINO's own layout without an lxml tree, so a run that reads such a file
never needs lxml, whose import costs more than the read of a small model. The modules of the XML
reader take ``etree`` from here; type checkers see lxml.etree itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgraph.core.lazy import lazy_module

__all__ = ["etree"]

if TYPE_CHECKING:
    from lxml import etree
else:
    etree = lazy_module("lxml.etree")
