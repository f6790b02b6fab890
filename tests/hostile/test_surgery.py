"""ir-convert's surgery (irgraph.tools.surgery) on absurd requests: shapes near int64's end, values past the
element limit. Each is refused in one line or left as it is, never an internal error or an allocation past it."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert
from tests.hostile.conftest import run_tool


def shape_of_broadcast(path) -> None:
    """x f32[2,6] -> ShapeOf -> Broadcast(1.0, shape) -> Add(x): the Broadcast folds only where x's shape is static."""
    model = ir.Model("folds")
    x = model.parameter("x", [2, 6], "f32")
    ones = ir.ops.broadcast(np.float32(1), ir.ops.shape_of(x), model=model)
    model.result(ir.ops.add(ones, x), name="y")
    ir.write_model(model, path)


@pytest.mark.parametrize("dims", ["4611686018427387904,2", "4611686018427387903,2"])
def test_folding_after_a_reshape_to_2_to_the_62_leaves_the_shape_of_unfolded(tmp_path, capsys, dims):
    # Before: "error: internal error: ValueError: iterator is too large" (array is too big): the zero-strided
    # placeholder ShapeOf reads could not be made for 2**63 elements or bytes.
    shape_of_broadcast(tmp_path / "model.xml")
    outcome = run_tool(ir_convert.main, [tmp_path / "model.xml", tmp_path / "out.xml", "--reshape", f"x[{dims}]",
                                         "--fold-constants"], capsys)
    assert outcome.code == 0, outcome.err
    assert "folded 0 layers into 0 Consts" in outcome.out + outcome.err
    folded = ir.read_model(tmp_path / "out.xml")
    assert [node.type_name for node in folded] == ["Parameter", "ShapeOf", "Const", "Broadcast", "Add", "Result"]
    assert str(folded.parameters[0].op.shape) == f"[{dims}]"
