"""Generated configurations of the export rules whose attributes interact (broadcasting modes, windows,
padding, rounding), reusing the op tests' strategies: onnxruntime 1.31.1 computes irgraph's values on
every exported model, or irgraph refuses the configuration with a stated reason. Bounded examples
(``OP_EXAMPLES``: 25 by default, ``IRGRAPH_OP_EXAMPLES=500`` for a long run)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import ConversionError, IrError
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.mod import Mod
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.op import Tolerance
from irgraph.ops.pooling.avg_pool import AvgPool
from irgraph.ops.pooling.max_pool import MaxPool8
from tests.io.test_onnx_export_rules import Case, check_case
from tests.ops import strategies as S
from tests.ops.convolution.conv_cases import spatial_attributes
from tests.ops.differential import OP_EXAMPLES
from tests.ops.pooling.pool_cases import irgraph_attributes, pool_config

pytestmark = pytest.mark.oracle

REFUSALS = (
    "onnxruntime refuses them",  # a window wholly in the padding: AvgPool without padding counted has no ONNX form
    "holds only padding",  # MaxPool indices of a window without data: OpenVINO's 0, onnxruntime's negative
)
"""The stated reasons an export may refuse a generated configuration for; any other refusal fails."""


SIGNED_ZEROS = Tolerance(eps=1e-30)
"""Equal as numbers, the sign of a zero aside: onnxruntime 1.31.1's Where can turn a selected -0.0 into +0.0
(Where(True, -0.0, -3.0) over shapes [2] and [2, 4, 1], or over 27-element [3, 3, 3] inputs; 4-element inputs keep
the sign). The exported Less + Where is exactly OpenVINO's std::max in ONNX's semantics."""


def check(case: Case) -> None:
    """The differential check; a configuration irgraph itself refuses (an IrError before export) is skipped."""
    try:
        check_case(case)
    except ConversionError as err:
        assert any(reason in str(err) for reason in REFUSALS), str(err)
    except IrError:
        pass  # irgraph refuses the configuration (OpenVINO does too): nothing to export


@OP_EXAMPLES
@given(st.data())
def test_binary_ops_under_every_broadcast_mode(data):
    mode = data.draw(st.sampled_from(["numpy", "pdpd", "none"]))
    op_class = data.draw(st.sampled_from([Add, Subtract, Maximum, Greater, Power, Divide, Mod, FloorMod]))
    element_type = data.draw(st.sampled_from([S.ElementType.F32, S.ElementType.I32]))
    a_shape, b_shape = data.draw(S.broadcast_pair(mode, max_rank=4))
    low, high = (1, 6) if op_class in (Divide, Mod, FloorMod, Power) else (-6, 6)
    a = S.values(element_type, a_shape, data.draw(S.seeds), specials=False, low=-6, high=6)
    b = S.values(element_type, b_shape, data.draw(S.seeds), specials=False, low=low, high=high)
    if op_class is Power:
        a = np.asarray(np.abs(a) + np.ones((), a.dtype), a.dtype)
        b = np.asarray(np.minimum(b, np.asarray(4, b.dtype)), b.dtype)
    if op_class in (Divide, Mod, FloorMod) and element_type is S.ElementType.I32:
        sign = S.values(S.ElementType.BOOLEAN, b_shape, data.draw(S.seeds), specials=False)
        b = np.asarray(np.where(sign, b, -b), b.dtype)
    tolerance = SIGNED_ZEROS if op_class is Maximum and element_type is S.ElementType.F32 else None
    check(Case(op_class(auto_broadcast=mode), [a, b], tolerance=tolerance))


@OP_EXAMPLES
@given(st.data())
def test_convolutions_with_generated_windows(data):
    count = data.draw(st.integers(1, 2))
    attributes = data.draw(spatial_attributes(count))
    spatial = [data.draw(st.integers(3, 7)) for _ in range(count)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(count)]
    groups = data.draw(st.integers(1, 2))
    channels = groups * data.draw(st.integers(1, 2))
    x = S.values(S.ElementType.F32, (1, channels, *spatial), data.draw(S.seeds), specials=False, low=-3, high=3)
    if groups == 1:
        op = Convolution(**irgraph_attributes(attributes))
        filters_shape = (2, channels, *kernel)
    else:
        op = GroupConvolution(**irgraph_attributes(attributes))
        filters_shape = (groups, 2, channels // groups, *kernel)
    filters = S.values(S.ElementType.F32, filters_shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    check(Case(op, [x, filters], constant=(1,)))


@OP_EXAMPLES
@given(st.data())
def test_pools_with_generated_windows(data):
    max_pool = data.draw(st.booleans())
    shape, attributes = data.draw(pool_config(dilations=max_pool, rounding=("floor", "ceil")))
    x = S.values(S.ElementType.F32, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    if max_pool:
        op = MaxPool8(**irgraph_attributes(attributes))
    else:
        op = AvgPool(exclude_pad=data.draw(st.booleans()), **irgraph_attributes(attributes))
    check(Case(op, [x]))
