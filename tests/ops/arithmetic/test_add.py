"""Add-1 through the differential harness (the first member of the binary arithmetic family)."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.ops.arithmetic.add import Add
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, ov_ops


def pdpd_overruns(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """OpenVINO 2026.4.1 accepts pdpd [1] + [0] but its reference then corrupts the heap; irgraph refuses."""
    return len(b) <= len(a) and any(x == 1 and y == 0 for x, y in zip(a, b, strict=False))


@OP_EXAMPLES
@given(st.data())
def test_add_matches_openvino(data):
    mode = data.draw(st.sampled_from(["numpy", "pdpd", "none"]))
    element_type = data.draw(st.sampled_from([t for t in S.NUMERIC if t.ir_name != "bf16"]))
    a_shape, b_shape = data.draw(S.any_pair(mode))
    assume(mode != "pdpd" or not pdpd_overruns(a_shape, b_shape))
    a = S.values(element_type, a_shape, data.draw(S.seeds))
    b = S.values(element_type, b_shape, data.draw(S.seeds))
    check_op(Add(auto_broadcast=mode), [a, b], lambda x, y: ov_ops.add(x, y, auto_broadcast=mode))
