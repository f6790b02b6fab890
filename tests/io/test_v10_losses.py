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


def test_the_writer_names_the_file_total_when_one_block_is_exactly_at_its_bound(tmp_path, monkeypatch) -> None:
    import pytest

    from irgraph.core.errors import ResourceLimitError
    from irgraph.io.xml import rt_info

    m = ir.Model()
    port = m.parameter("x", [2])
    for i in range(3):
        port = m.concat([port], axis=0, name=f"c{i}")
        block = tuple(RtEntry("attribute", (("name", f"k{j}"), ("value", "1"), ("version", "0"))) for j in range(2))
        m.node(port.node_id).rt_info = block  # 2 elements + 6 attributes: 8 items
    m.result(port, name="y")
    monkeypatch.setattr(rt_info, "MAX_RT_INFO_ITEMS", 8)
    monkeypatch.setattr(rt_info, "MAX_RT_INFO_TOTAL", 23)
    with pytest.raises(ResourceLimitError, match=r"\(its rt_info holds more than 23 elements and attributes;"):
        ir.write_model(m, tmp_path / "m.xml")
