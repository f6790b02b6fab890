"""tools.tolerances: the default tolerance of each compared tensor (one function for ir-run --compare and the
repro bundle's self-check) and the --atol/--rtol values split into defaults and per-tensor parts."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.ops import Add
from irgraph.tools.compare import ToleranceOverride
from irgraph.tools.tolerances import default_tolerances, output_ports, split_tolerances


def _model(element_type: str) -> ir.Model:
    """y: x joined with itself (exact), z: x + x (rounds)."""
    m = ir.Model("joined")
    x = m.parameter("x", [2], element_type)
    m.result(m.concat([x, x], axis=0), name="y")
    m.result(OutputPort(m.add_node(Add(), "add", [x, x]).id, 0, m), name="z")
    return m


def test_an_output_of_exact_ops_is_exact_and_one_that_rounds_is_not():
    model = _model("f32")
    arrays = {"y": np.zeros(4, np.float32), "z": np.zeros(2, np.float32)}
    defaults = default_tolerances(model, output_ports(model), arrays, None)
    assert defaults["y"].basis == "exact (f32, only exact ops on the way)"
    assert (defaults["y"].atol, defaults["y"].rtol) == (0.0, 0.0)
    assert defaults["z"].basis == "f32 rounding" and defaults["z"].rtol > 0


def test_an_ml_dtypes_output_is_judged_by_its_ops_too():
    # The repro bundle's own copy once gave bf16 (dtype kind 'V') outputs the unknown-path default.
    model = _model("bf16")
    arrays = {"y": np.zeros(4, ml_dtypes.bfloat16)}
    assert default_tolerances(model, output_ports(model), arrays, None)["y"].basis == \
        "exact (bf16, only exact ops on the way)"


def test_a_coarser_reference_precision_rounds_even_exact_ops():
    model = _model("f32")
    defaults = default_tolerances(model, output_ports(model), {"y": np.zeros(4, np.float32)}, ElementType.BF16)
    assert defaults["y"].basis == "bf16 rounding"


def test_a_key_without_a_port_is_taken_as_exact():
    model = _model("f32")
    defaults = default_tolerances(model, {}, {"y": np.zeros(4, np.float32)}, None)
    assert defaults["y"].basis == "exact (f32, only exact ops on the way)"


def test_the_last_bare_value_is_the_default_and_named_values_fill_in_from_it():
    atol, rtol, overrides = split_tolerances([(None, 0.1), ("y", 0.5), (None, 0.2)], [(None, 0.01)])
    assert (atol, rtol) == (0.2, 0.01)
    assert overrides == {"y": ToleranceOverride(0.5, 0.01)}
    assert split_tolerances([], []) == (None, None, {})
