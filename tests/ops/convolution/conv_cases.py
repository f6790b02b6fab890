"""Hypothesis strategies for convolution configurations (shared by the four convolution tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from tests.ops import strategies as S

CONV_TYPES = (ElementType.F32, ElementType.F16, ElementType.I32, ElementType.BF16, ElementType.F64)
"""openvino 2026.4.1 neither folds nor evaluates convolutions: f32 and i32 are judged by its CPU plugin, f16,
bf16 and f64 by the formulation in tests/ops/independent.py (exact sums rounded once: the plugin's f16 and bf16
depend on the instruction set, and it runs f64 as f32)."""
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")


@st.composite
def spatial_attributes(draw: st.DrawFn, count: int, max_pad: int = 2) -> dict:
    """strides, dilations, pads_begin, pads_end and auto_pad for ``count`` spatial dims."""
    def ints(low: int, high: int) -> list[int]:
        return draw(st.lists(st.integers(low, high), min_size=count, max_size=count))

    return {"strides": ints(1, 3), "dilations": ints(1, 2), "pads_begin": ints(0, max_pad),
            "pads_end": ints(0, max_pad), "auto_pad": draw(st.sampled_from(AUTO_PADS))}


def tensor(data: st.DataObject, element_type: ElementType, shape: tuple[int, ...]):
    """Bounded values without specials (sums of infinities and maxima depend on the order of summing)."""
    low, high = (-4, 4) if element_type.is_integral else (-3.0, 3.0)
    return S.values(element_type, shape, data.draw(S.seeds), specials=False, low=low, high=high)


def cpu_drops_taps(spatial: list[int], attributes: dict) -> bool:
    """openvino 2026.4.1's CPU plugin loses taps on a padded axis of size 1 with stride > 1:
    x (1, -1, -3) along H, W of 1, kernel 3x3, same_upper, strides (1, 2) gives 0 where stride 1 (and irgraph)
    give -7.39. Such configurations are judged by the formulation alone."""
    return any(size == 1 and stride > 1 for size, stride in zip(spatial, attributes["strides"], strict=True))
