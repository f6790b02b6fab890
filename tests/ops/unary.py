"""The shared differential test of unary element-wise ops: any shape, any numeric type, specials."""

from __future__ import annotations

from hypothesis import strategies as st

from irgraph.ops import Op
from irgraph.ops.op import Tolerance
from tests.ops import strategies as S
from tests.ops.differential import check_op, same_op


def check_unary(op: Op, data: st.DataObject, types=S.NUMERIC, low: float | None = None, high: float | None = None,
                type_name: str | None = None, cpu_tolerance: Tolerance | None = None,
                specials: bool = True, cpu_on_integers: bool = True) -> None:
    """One generated configuration of ``op`` against OpenVINO (ordinary values in [low, high], plus specials);
    ``cpu_on_integers`` False where the CPU plugin's integer answers are not the op's (it rounds a result the
    reference truncates)."""
    element_type = data.draw(st.sampled_from(types))
    shape = data.draw(S.shapes())
    # Floats: half the time ordinary values in [low, high], else anywhere (specials too, NaN results
    # included). Integers: always in the domain, as an integer out of it (NaN cast to u32) is undefined
    # in C++ and OpenVINO's answer depends on the instruction its compiler picked.
    in_domain = not element_type.is_real or data.draw(st.booleans())
    x = S.values(element_type, shape, data.draw(S.seeds), low=low if in_domain else None,
                 high=high if in_domain else None,
                 specials=specials and (not in_domain or element_type.is_real))
    check_op(op, [x], same_op(op, type_name), cpu_tolerance=cpu_tolerance,
             cpu=cpu_on_integers or not element_type.is_integral)
