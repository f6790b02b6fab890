"""v10_losses lists the rt_info kinds an IR v10 file drops, the most frequent first, ties by name."""

from __future__ import annotations

import irgraph as ir
from irgraph.graph.node import RtEntry
from irgraph.io.xml.v10 import v10_losses


def test_kinds_are_listed_by_count_then_name() -> None:
    m = ir.Model()
    x = m.parameter("x", [2])
    joined = m.concat([x], axis=0, name="c")
    m.result(joined, name="y")
    m.node(joined.node_id).rt_info = (RtEntry("zeta"), RtEntry("attribute", (("name", "decompression"),)),
                                      RtEntry("alpha"))
    m.node(x.node_id).rt_info = (RtEntry("zeta"),)
    assert v10_losses(m) == ["IR v10 cannot hold layer rt_info: 2 layers' rt_info dropped "
                             "(zeta×2, alpha×1, decompression×1)"]
