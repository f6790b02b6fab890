"""The limits the README states are the ones core/limits.py sets (the README is where a user reads them)."""

from __future__ import annotations

from pathlib import Path

from irgraph.core import limits

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_states_the_body_nesting_and_iteration_limits_the_code_sets() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert f"at any nesting depth up to {limits.MAX_BODY_DEPTH} levels" in text
    assert f"One run executes at most {limits.DEFAULT_ITERATION_LIMIT:,} bodies in all" in text
    assert f"`--steps` takes at most {limits.MAX_STEPS:,} runs" in text
    power = limits.DEFAULT_ELEMENT_LIMIT.bit_length() - 1
    assert 2**power == limits.DEFAULT_ELEMENT_LIMIT and f"`--max-elements N` (default 2**{power})" in text
