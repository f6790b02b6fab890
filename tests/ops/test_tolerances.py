"""docs/tolerances.md lists every registered op with the tolerance its class declares."""

from __future__ import annotations

from pathlib import Path

from tests.ops.tolerance_table import render

TABLE = Path(__file__).resolve().parents[2] / "docs" / "tolerances.md"


def test_tolerance_table_is_generated_from_the_op_classes():
    assert TABLE.read_text(encoding="utf-8") == render(), (
        "docs/tolerances.md is stale: PYTHONPATH=src python -m tests.ops.tolerance_table > docs/tolerances.md"
    )
