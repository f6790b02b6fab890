"""The KV cache steps (irgraph.runtime._fast.kv_cache): a beam_idx Gather that picks every row in order returns its
data, and a cache's Concat appends in place to a buffer with spare room, and a generate loop gives bit for bit
what it gives without them (``_fast.ENABLED = False``, what ``IRGRAPH_NO_FAST=1`` sets): logits and every variable,
through buffer growth, a beam reorder, set_state and reset_state."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import ResourceLimitError
from irgraph.ops import Concat, OpError
from irgraph.ops.movement.gather import Gather8
from irgraph.runtime import _fast
from irgraph.runtime._fast.kv_cache import SPARE_ROWS, AppendStep, BeamGather
from tests.llm_like import SMALL, SMALL_GQA, LlamaConfig, step_inputs, write_llama

LIMIT = 10**9


def _rows(count: int, start: float = 0.0) -> np.ndarray:
    return (np.arange(2 * 3 * count * 4, dtype=np.float32).reshape(2, 3, count, 4) + np.float32(start))


def test_an_append_writes_only_after_the_rows_its_past_shows():
    step = AppendStep(Concat(axis=2), LIMIT)
    (first,) = step.evaluate([_rows(5), _rows(1, 100)])
    np.testing.assert_array_equal(first, np.concatenate([_rows(5), _rows(1, 100)], axis=2))
    (second,) = step.evaluate([first, _rows(1, 200)])
    assert second.base is first.base  # appended in the same buffer
    np.testing.assert_array_equal(second, np.concatenate([_rows(5), _rows(1, 100), _rows(1, 200)], axis=2))
    np.testing.assert_array_equal(first, np.concatenate([_rows(5), _rows(1, 100)], axis=2))  # unchanged
    # Appending to an older view again (a failed run's variable) must not write over rows `second` shows.
    (again,) = step.evaluate([first, _rows(1, 300)])
    assert again.base is not first.base
    np.testing.assert_array_equal(again, np.concatenate([_rows(5), _rows(1, 100), _rows(1, 300)], axis=2))
    np.testing.assert_array_equal(second, np.concatenate([_rows(5), _rows(1, 100), _rows(1, 200)], axis=2))


def test_a_full_buffer_grows_into_a_new_one_and_views_stay_read_only():
    step = AppendStep(Concat(axis=-2), LIMIT)
    (value,) = step.evaluate([_rows(0), _rows(2)])
    views, expected = [value], [_rows(2)]
    for index in range(3 * SPARE_ROWS):
        (value,) = step.evaluate([value, _rows(1, index)])
        expected.append(_rows(1, index))
        views.append(value)
    assert len({id(view.base) for view in views}) > 2  # it grew, more than once
    for count, view in enumerate(views):
        np.testing.assert_array_equal(view, np.concatenate(expected[:count + 1], axis=2))
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view.flags.writeable = True  # the buffer owns the memory and is read-only: no view can write it


def test_an_append_to_another_array_or_of_mismatched_rows_is_a_plain_concat():
    step = AppendStep(Concat(axis=2), LIMIT)
    past = _rows(3)
    (joined,) = step.evaluate([past, _rows(2, 50)])
    np.testing.assert_array_equal(joined, np.concatenate([past, _rows(2, 50)], axis=2))
    with pytest.raises(OpError):
        step.evaluate([joined, np.zeros((2, 3, 1, 5), np.float32)])


def test_the_buffer_stays_within_the_element_limit_and_a_larger_output_is_refused_before_allocating():
    step = AppendStep(Concat(axis=2), 2 * 3 * 8 * 4)
    (value,) = step.evaluate([_rows(3), _rows(2)])
    assert value.base.shape == (2, 3, 8, 4)
    with pytest.raises(ResourceLimitError, match="^output 0 has 216 elements, above the limit of 192$"):
        step.evaluate([value, _rows(4)])


def test_a_beam_gather_returns_its_data_only_for_every_row_in_order():
    gather = BeamGather(Gather8(batch_dims=0))
    data, axis = _rows(3), np.array(0, np.int64)
    assert gather.evaluate([data, np.array([0, 1], np.int32), axis])[0] is data
    for indices in ([1, 0], [0, 0], [0], [0, 1, 1], [-2, -1]):
        picked = np.array(indices, np.int32)
        (found,) = gather.evaluate([data, picked, axis])
        assert found is not data
        np.testing.assert_array_equal(found, Gather8(batch_dims=0).evaluate([data, picked, axis])[0])
    many = np.arange(70 * 3, dtype=np.float32).reshape(70, 3)  # past 64 rows the indices are compared as arrays
    assert gather.evaluate([many, np.arange(70, dtype=np.int64), axis])[0] is many
    swapped = np.arange(70, dtype=np.int64)
    swapped[[68, 69]] = [69, 68]
    np.testing.assert_array_equal(gather.evaluate([many, swapped, axis])[0], many[swapped])


def _generate(xml, enabled: bool, monkeypatch) -> list[tuple[str, bytes]]:
    """A generate loop: every logits array and variable value after every run, as bytes."""
    monkeypatch.setattr(_fast, "ENABLED", enabled)
    interpreter = ir.Interpreter(ir.read_model(xml), decompression="f32")
    names = list(interpreter.state.declared)
    rng = np.random.default_rng(3)
    feeds = [step_inputs(rng.integers(0, SMALL.vocab, (2, 5)), past=0)]
    feeds += [step_inputs(rng.integers(0, SMALL.vocab, (2, 1)), past=5 + k) for k in range(2 * SPARE_ROWS)]
    feeds[7]["beam_idx"] = np.array([1, 0], np.int32)
    seen: list[tuple[str, bytes]] = []
    for index, step in enumerate(feeds):
        if index == 12:  # a value from set_state, then reset_state and a new prefill
            interpreter.set_state(names[0], interpreter.get_state(names[0]))
        if index == 20:
            interpreter.reset_state()
            step = step_inputs(rng.integers(0, SMALL.vocab, (2, 3)), past=0)
        if index > 20:
            step = step_inputs(step["input_ids"], past=3 + index - 21)
        logits = interpreter.run(step)["logits"]
        assert logits.flags.writeable
        seen.append((f"run {index}: logits", logits.tobytes()))
        seen += [(f"run {index}: {name}", interpreter.get_state(name).tobytes()) for name in names]
    if enabled:  # not vacuous: the caches were kept as views of their buffers, not copied
        assert all(interpreter.state._values[name].base is not None for name in names)
        # and the decode steps ran a plan of their own (one token, the mask's length left open), sharing the state
        plans = [plan for plan in interpreter._specialiser.plans.values() if plan is not None]
        assert plans and all(plan.state is interpreter.state for plan in plans)
        held = [step for step in interpreter.state.cache_steps
                if isinstance(step, AppendStep) and step.buffer is not None]
        assert len(held) == len(names)  # one buffer a cache: those of the plan that did not run the last step dropped
        interpreter.reset_state()  # and forgetting them frees the buffers
        assert all(step.buffer is None for step in interpreter.state.cache_steps if isinstance(step, AppendStep))
    return seen


@pytest.mark.oracle  # OpenVINO writes the model
@pytest.mark.parametrize("config", [SMALL, SMALL_GQA], ids=["mha", "gqa"])
def test_a_generate_loop_is_bit_identical_with_and_without_the_cache_steps(tmp_path, monkeypatch,
                                                                          config: LlamaConfig):
    xml = write_llama(tmp_path, config, "fp16")
    fast, plain = _generate(xml, True, monkeypatch), _generate(xml, False, monkeypatch)
    assert [key for key, _ in fast] == [key for key, _ in plain]
    for (key, mine), (_, theirs) in zip(fast, plain, strict=True):
        assert mine == theirs, key


def test_a_buffer_filled_to_its_last_row_is_still_appended_to_in_place():
    """Six rows take a buffer of 6 + SPARE_ROWS (16) rows; sixteen appends of one row fill it exactly."""
    step = AppendStep(Concat(axis=2), LIMIT)
    (value,) = step.evaluate([_rows(5), _rows(1, 100)])
    buffer = value.base
    assert step.buffer is not None and step.buffer.shape[2] == 6 + SPARE_ROWS
    for index in range(SPARE_ROWS):
        (value,) = step.evaluate([value, _rows(1, index)])
    assert value.shape[2] == 6 + SPARE_ROWS and value.base is buffer and step.buffer is buffer


def test_only_views_of_a_cache_buffer_are_copied_before_a_run_returns_them():
    from irgraph.runtime._fast.kv_cache import writable_outputs

    step = AppendStep(Concat(axis=2), LIMIT)
    (cache,) = step.evaluate([_rows(1), _rows(1, 10)])
    logits = np.ones(3, np.float32)
    returned = writable_outputs({"cache": cache, "logits": logits}, [step])
    assert returned["logits"] is logits
    assert returned["cache"] is not cache and returned["cache"].flags.writeable
    np.testing.assert_array_equal(returned["cache"], cache)
