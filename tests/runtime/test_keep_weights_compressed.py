"""Interpreter(keep_weights_compressed=True) and ir-run --keep-weights-compressed: weights stay in their stored type
(u8, u4, nf4, f16 ...) and their decompression chains run at every step instead of being folded once; the outputs
are the same arrays either way, under both decompression policies. The IR files are NNCF 3.4's output
(tests/data/compressed/make.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.runtime.decompression import chain_nodes, widened_nodes

DATA = Path(__file__).resolve().parents[1] / "data" / "compressed"
MODES = ("int8_asym", "int8_sym", "int4_sym", "int4_asym", "nf4", "fp4")
IDS = np.array([[1, 5, 9, 13, 0, 31, 2, 7]], dtype=np.int64)


def _weights_bytes(interpreter: ir.Interpreter) -> int:
    return sum(value.nbytes for value in interpreter._template if isinstance(value, np.ndarray))


@pytest.mark.parametrize("policy", ["ir", "f32"])
@pytest.mark.parametrize("mode", MODES)
def test_outputs_are_identical_with_weights_kept_compressed(mode: str, policy: str) -> None:
    model = ir.read_model(DATA / f"{mode}.xml")
    folded = ir.Interpreter(model, decompression=policy)  # type: ignore[arg-type]  # parametrized with POLICIES
    kept = ir.Interpreter(model, decompression=policy, keep_weights_compressed=True)  # type: ignore[arg-type]  # same
    for want, got in zip(folded.run({"input_ids": IDS}).values(), kept.run({"input_ids": IDS}).values(), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # the three chains (embedding, two MatMul weights) are steps now; what the Interpreter holds is the stored codes
    assert kept.steps - folded.steps == len(chain_nodes(model))
    assert _weights_bytes(kept) < _weights_bytes(folded) / 2


def test_the_f32_policy_still_widens_chains_run_at_every_step() -> None:
    """int4 asymmetric: f16 arithmetic and f32 arithmetic give different logits, and keeping the weights
    compressed keeps each policy's answer (the chain steps are widened, not run in f16)."""
    model = ir.read_model(DATA / "int4_asym.xml")
    answers = {policy: ir.Interpreter(model, decompression=policy, keep_weights_compressed=True)  # type: ignore[arg-type]  # a POLICIES literal
               .run({"input_ids": IDS})["logits"] for policy in ("ir", "f32")}
    assert not np.array_equal(answers["ir"], answers["f32"])
    assert widened_nodes(model) < chain_nodes(model)  # the closing Converts are run, not widened


def test_ir_run_keeps_weights_compressed_on_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.savez(tmp_path / "in.npz", input_ids=IDS)
    for name, extra in (("folded", []), ("kept", ["--keep-weights-compressed"])):
        code = ir_run.main([str(DATA / "int8_asym.xml"), "--inputs", str(tmp_path / "in.npz"), "--output",
                            str(tmp_path / f"{name}.npz"), *extra])
        assert code == 0, capsys.readouterr().err
    with np.load(tmp_path / "folded.npz") as folded, np.load(tmp_path / "kept.npz") as kept:
        assert sorted(folded) == sorted(kept) == ["logits"]
        np.testing.assert_array_equal(kept["logits"], folded["logits"])
