"""Record and MutableRecord behave as the frozen and plain dataclasses they replace on the run path."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from irgraph.core.records import DataclassFields, MutableRecord, Record


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


# DataclassFields: the eq, hash and repr of a frozen dataclass for the dataclasses under it declared
# eq=False, repr=False (irgraph's Op and the op classes every run creates). Each is checked against the methods
# the same dataclass compiles when declared plainly.
def _twins(**fields: object) -> tuple[type, type]:
    namespace = {"__annotations__": {name: "object" for name in fields}, **fields}
    plain = dataclasses.dataclass(frozen=True)(type("Twin", (), dict(namespace)))
    based = dataclasses.dataclass(frozen=True, eq=False, repr=False)(type("Twin", (DataclassFields,), dict(namespace)))
    return plain, based


FIELD_SETS = [
    {},
    {"a": 1},
    {"a": 1, "b": "x"},
    {"a": 1, "b": dataclasses.field(default=2, compare=False), "c": dataclasses.field(default=3, repr=False)},
    {"a": dataclasses.field(default=1, hash=False), "b": dataclasses.field(default=2, compare=False, hash=True)},
]


@pytest.mark.parametrize("fields", FIELD_SETS, ids=lambda fields: ",".join(fields) or "none")
def test_dataclass_fields_compares_hashes_and_prints_as_the_compiled_methods(fields):
    plain, based = _twins(**fields)
    names = [name for name in fields]
    for values in ([], [5] * len(names), [[1], "y", 2.5][: len(names)]):
        kwargs = dict(zip(names, values, strict=False))
        other = dict(zip(names, [7] * len(names), strict=False))
        assert repr(based(**kwargs)) == repr(plain(**kwargs))
        assert (based(**kwargs) == based(**kwargs)) == (plain(**kwargs) == plain(**kwargs))
        assert (based(**kwargs) == based(**other)) == (plain(**kwargs) == plain(**other))
        assert based(**kwargs) != plain(**kwargs) and based(**kwargs).__eq__(1) is NotImplemented
        try:
            expected = hash(plain(**kwargs))
        except TypeError as err:  # a list among the hashed fields
            with pytest.raises(TypeError, match=str(err)):
                hash(based(**kwargs))
        else:
            assert hash(based(**kwargs)) == expected


def test_dataclass_fields_repr_stops_at_a_cycle_as_a_dataclass_does():
    plain, based = _twins(a=None)
    looped_plain, looped_based = plain(a=[]), based(a=[])
    looped_plain.a.append(looped_plain)
    looped_based.a.append(looped_based)
    assert repr(looped_based) == repr(looped_plain) == "Twin(a=[...])"


def test_the_op_classes_of_every_run_compare_and_print_as_their_dataclass_twins():
    from irgraph.core.element_types import ElementType
    from irgraph.core.shapes import Shape
    from irgraph.ops.infrastructure.parameter import Parameter
    from irgraph.ops.infrastructure.result import Result
    from irgraph.ops.movement.variadic_split import VariadicSplit
    from irgraph.ops.op import Op
    from irgraph.ops.opaque import OpaqueOp

    ops = [Parameter(Shape.of([1, 2]), ElementType.F32), Parameter(), Result(), VariadicSplit(),
           OpaqueOp("X", "1", {}, ()), OpaqueOp("Y")]
    for op in ops:
        twin_class = dataclasses.dataclass(frozen=True)(type(type(op).__name__, (type(op),), {}))
        twin = twin_class(**{f.name: getattr(op, f.name) for f in dataclasses.fields(op)})
        assert repr(op) == repr(twin)
        assert op == type(op)(**{f.name: getattr(op, f.name) for f in dataclasses.fields(op)})
        if not isinstance(op, OpaqueOp):  # its attributes are a dict: unhashable, as the dataclass made it
            assert hash(op) == hash(twin)
    assert Op() == Op() and hash(Op()) == hash(()) and repr(Op()) == "Op()"
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
        Op().x = 1  # type: ignore[attr-defined]  # the assignment a frozen dataclass refuses


class OtherPair(Record):
    __slots__ = ("left", "right")
    left: int
    right: object

    def __init__(self, left: int, right: object = None) -> None:
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)


def test_records_of_different_classes_with_the_same_values_differ_as_dataclasses_do():
    assert Pair(1, 2) != OtherPair(1, 2) and OtherPair(1, 2) != Pair(1, 2)
    assert Pair(1, 2).__eq__(OtherPair(1, 2)) is NotImplemented
