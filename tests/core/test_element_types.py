"""Element types: which are stored several to a byte (the .bin layout of OpenVINO 2026.4.1's packed types)."""

from __future__ import annotations

from irgraph.core.element_types import ElementType


def test_the_sub_byte_types_are_packed():
    packed = {e.ir_name: e.bitwidth for e in ElementType if e.is_packed}
    assert packed == {"u1": 1, "u2": 2, "u3": 3, "u4": 4, "i4": 4, "nf4": 4, "f4e2m1": 4, "u6": 6}
    assert not ElementType.U8.is_packed and not ElementType.BOOLEAN.is_packed
