"""Hypothesis strategies for pooling configurations (MaxPool and AvgPool tests)."""

from __future__ import annotations

from hypothesis import strategies as st

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")


@st.composite
def pool_config(draw: st.DrawFn, dilations: bool, rounding: tuple[str, ...]) -> tuple[tuple[int, ...], dict]:
    """A data shape and pooling attributes; now and then a kernel or pads OpenVINO refuses."""
    count = draw(st.integers(1, 3))
    spatial = [draw(st.integers(1, 7 if count < 3 else 4)) for _ in range(count)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *spatial)
    kernel = [draw(st.integers(1, 3)) for _ in range(count)]
    wild = draw(st.integers(0, 9)) == 0
    attributes = {
        "strides": [draw(st.integers(1, 3)) for _ in range(count)],
        "pads_begin": [draw(st.integers(0, 3 if wild else k - 1)) for k in kernel],
        "pads_end": [draw(st.integers(0, 3 if wild else k - 1)) for k in kernel],
        "kernel": kernel,
        "rounding_type": draw(st.sampled_from(rounding)),
        "auto_pad": draw(st.sampled_from(AUTO_PADS)),
    }
    if dilations:
        attributes["dilations"] = [draw(st.integers(1, 2)) for _ in range(count)]
    return shape, attributes


def irgraph_attributes(attributes: dict) -> dict:
    """Lists as tuples (irgraph's attribute values)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in attributes.items()}


@st.composite
def partial_data_shape(draw: st.DrawFn, count: int) -> str:
    """A partial data shape of rank count + 2 (or dynamic rank now and then)."""
    if draw(st.integers(0, 8)) == 0:
        return "..."
    dims = st.sampled_from(["?", "1", "2", "3", "5", "8", "2..6", "0..4", "4..", "1..9", "3..3"])
    return ",".join(draw(dims) for _ in range(count + 2))
