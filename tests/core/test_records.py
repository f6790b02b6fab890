"""Record and MutableRecord behave as the frozen and plain dataclasses they replace on the run path."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from irgraph.core.records import MutableRecord, Record


class Pair(Record):
    __slots__ = ("left", "right")
    _unprinted = frozenset({"right"})
    left: int
    right: object

    def __init__(self, left: int, right: object = None) -> None:
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)


class Box(MutableRecord):
    __slots__ = ("content",)

    def __init__(self, content: object) -> None:
        self.content = content


@dataclasses.dataclass(frozen=True)
class FrozenPair:
    left: int
    right: object = dataclasses.field(default=None, repr=False)


def test_a_record_compares_hashes_and_prints_as_the_frozen_dataclass_did():
    assert Pair(1, (2,)) == Pair(1, (2,)) and Pair(1, 2) != Pair(1, 3) and Pair(1) != FrozenPair(1)
    assert hash(Pair(1, (2,))) == hash((1, (2,))) == hash(FrozenPair(1, (2,)))
    assert repr(Pair(1, 2)) == "Pair(left=1)" and repr(FrozenPair(1, 2)) == "FrozenPair(left=1)"
    assert {Pair(1, 2): "x"}[Pair(1, 2)] == "x"


def test_a_record_refuses_assignment_as_a_frozen_dataclass_does():
    pair = Pair(1)
    with pytest.raises(dataclasses.FrozenInstanceError, match="'left'"):
        pair.left = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del pair.left
    with pytest.raises(AttributeError):
        pair.other = 1  # type: ignore[attr-defined]  # the point: slots take no other attribute
    assert pair.left == 1


def test_replace_makes_a_changed_copy():
    pair = Pair(1, 2)
    assert pair.replace(right=3) == Pair(1, 3) and pair == Pair(1, 2)
    assert Box(1).replace(content=2) == Box(2)


def test_records_pickle_and_copy():
    pair = Pair(1, [2])
    assert pickle.loads(pickle.dumps(pair)) == pair and copy.deepcopy(pair) == pair and copy.copy(pair) == pair
    box = Box([1])
    assert pickle.loads(pickle.dumps(box)) == box and copy.deepcopy(box).content is not box.content


def test_a_mutable_record_takes_assignment_and_is_unhashable():
    box = Box(1)
    box.content = 2
    assert box == Box(2) and repr(box) == "Box(content=2)"
    with pytest.raises(TypeError, match="unhashable"):
        hash(box)
