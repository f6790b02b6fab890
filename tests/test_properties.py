"""Hypothesis properties over ranks 1-8, every element type with in-memory data, and every axis."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.element_types import ElementType

TYPES = [t for t in ElementType if t.numpy_dtype is not None]


@st.composite
def tensors(draw):
    """A random tensor of rank 1..8 (small dims) of any element type, plus an axis."""
    element_type = draw(st.sampled_from(TYPES))
    rank = draw(st.integers(1, 8))
    shape = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    shape[draw(st.integers(0, rank - 1))] = draw(st.integers(0, 12))
    size = int(np.prod(shape))
    raw = draw(st.binary(min_size=size, max_size=size))
    codes = np.frombuffer(raw, np.uint8).reshape(shape)
    if element_type is ElementType.STRING:
        array = codes.astype(str).astype(object)
    elif element_type is ElementType.BOOLEAN:
        array = (codes & 1).astype(bool)
    elif element_type.is_packed or element_type in (ElementType.F8E8M0,):
        array = (codes % (1 << min(element_type.bitwidth, 4))).astype(element_type.numpy_dtype)
    else:
        array = codes.astype(element_type.numpy_dtype)
    axis = draw(st.integers(-rank, rank - 1))
    return element_type, array, axis


def same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype == object:
        return a.shape == b.shape and a.tolist() == b.tolist()
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=300, deadline=None)
@given(tensors(), st.data())
def test_concat_of_split_equals_the_input(tensor, data):
    element_type, array, axis = tensor
    dim = array.shape[axis]
    divisors = [n for n in range(1, max(dim, 1) + 1) if dim % n == 0] if dim else [1, 2, 3]
    parts = data.draw(st.sampled_from(divisors))
    model = ir.Model("prop")
    x = model.parameter("x", list(array.shape), element_type)
    pieces = model.split(x, axis=axis, num_splits=parts)
    model.result(model.concat(list(pieces), axis=axis), name="y")
    assert same(ir.run(model, {"x": array})["y"], array)


@settings(max_examples=300, deadline=None)
@given(tensors(), st.data())
def test_variadic_split_equals_np_split_at_cumulative_lengths(tensor, data):
    element_type, array, axis = tensor
    dim = array.shape[axis]
    count = data.draw(st.integers(1, 5))
    cuts = sorted(data.draw(st.lists(st.integers(0, dim), min_size=count - 1, max_size=count - 1)))
    lengths = np.diff([0, *cuts, dim]).tolist()
    if data.draw(st.booleans()):
        lengths[data.draw(st.integers(0, count - 1))] = -1
    model = ir.Model("prop")
    x = model.parameter("x", list(array.shape), element_type)
    for i, part in enumerate(model.variadic_split(x, axis=axis, lengths=lengths)):
        model.result(part, name=f"out{i}")
    outputs = ir.run(model, {"x": array})
    expected = np.split(array, cuts, axis=axis)
    assert len(outputs) == count
    for i, part in enumerate(expected):
        assert same(outputs[f"out{i}"], part)
