"""The interpreter with its fast path (irgraph.runtime._fast: element-wise steps writing over an input that dies
there) and without it (``_fast.ENABLED = False``, what ``IRGRAPH_NO_FAST=1`` sets) gives bit-identical outputs on
the model corpus (tests/data/models), run twice each (a stateful model's second run reads the first one's state)."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.runtime import _fast
from irgraph.runtime._fast import in_place, ufunc_steps
from tests.test_models import MODELS, NAMES, inputs_of


@pytest.fixture
def donations(monkeypatch) -> list[bool]:
    """Whether each in-place step got its input 0 to write over, in the order asked: a ufunc step's answer once,
    when its Interpreter is built (ufunc_steps.plan_writes_over), any other step's at each run (in_place.donor)."""
    seen: list[bool] = []
    original = in_place.donor
    planned = ufunc_steps.plan_writes_over

    def spy(dense, inputs, private, *references):
        given = original(dense, inputs, private, *references)
        seen.append(bool(given))
        return given

    def plan_spy(*arguments):
        given = planned(*arguments)
        seen.append(given)
        return given

    monkeypatch.setattr(in_place, "donor", spy)
    monkeypatch.setattr(ufunc_steps, "plan_writes_over", plan_spy)
    return seen


def _runs(name: str) -> list[list[tuple[str, str, tuple[int, ...], bytes]]]:
    """Two runs of the model ``name`` on its seeded inputs (a fresh Interpreter): every output's key, dtype,
    shape and bytes."""
    interpreter = ir.Interpreter(ir.read_model(MODELS / name / "model.xml"))
    feeds = inputs_of(name)
    runs = []
    for _ in range(2):
        outputs = interpreter.run({key: value.copy() for key, value in feeds.items()})
        runs.append([(key, value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
                     for key, value in outputs.items()])
    return runs


@pytest.mark.parametrize("name", NAMES)
def test_models_run_bit_identical_with_and_without_in_place_steps(name, monkeypatch, donations):
    monkeypatch.setattr(_fast, "ENABLED", True)
    fast = _runs(name)
    asked = len(donations)
    monkeypatch.setattr(_fast, "ENABLED", False)
    plain = _runs(name)
    assert len(donations) == asked  # no step of the plain run may write over an input
    assert fast == plain


def test_the_corpus_takes_the_fast_path_and_the_switch_turns_it_off(monkeypatch, donations):
    """Not vacuous: with the switch on, steps of the corpus write over their inputs; off, none is even asked."""
    monkeypatch.setattr(_fast, "ENABLED", True)
    for name in ("yolo-tiny", "bert-tiny"):
        _runs(name)
    assert donations.count(True) > 10
    donations.clear()
    monkeypatch.setattr(_fast, "ENABLED", False)
    for name in ("yolo-tiny", "bert-tiny"):
        _runs(name)
    assert donations == []
