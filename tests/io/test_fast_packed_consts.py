"""Sub-byte weights the fast reader keeps packed until their value is first read (ops/infrastructure/const.py's
``_UnpackedOnFirstRead``): the same values as the plain reader's eager unpacking, every way a value is reached."""

from __future__ import annotations

import copy
import pickle
import threading
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.io.xml import _fast
from irgraph.ops import Const
from irgraph.ops.infrastructure.const import holds_value

DATA = Path(__file__).resolve().parents[1] / "data"
PACKED = [DATA / "ov" / f"type-{name}" / "model.xml" for name in ("u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1")]
PACKED += [DATA / "compressed" / f"{name}.xml" for name in ("int4_sym", "int4_asym", "nf4")]


def _consts(path: Path, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[Const]:
    monkeypatch.setattr(_fast, "ENABLED", fast)
    return [node.op for node in ir.read_model(path) if isinstance(node.op, Const)]


def _packed(op: Const) -> bool:
    return "_unpack" in vars(op)


@pytest.mark.parametrize("path", PACKED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_packed_consts_unpack_on_first_read_to_the_plain_readers_values(path, monkeypatch):
    plain, fast = _consts(path, False, monkeypatch), _consts(path, True, monkeypatch)
    assert not any(_packed(op) for op in plain)
    assert any(_packed(op) for op in fast), "the fast reader left no weight packed"
    for eager, lazy in zip(plain, fast, strict=True):
        was_packed = _packed(lazy)
        assert holds_value(lazy) and holds_value(eager)
        assert hash(lazy) == hash(eager) and repr(lazy) == repr(eager)
        value = lazy.value
        assert value is not None and value.dtype == eager.value.dtype and value.shape == eager.value.shape
        assert value.tobytes() == eager.value.tobytes()
        assert lazy.value is value, "unpacked once, then kept"
        assert not _packed(lazy) and lazy == eager
        if was_packed:
            assert vars(lazy).keys() == vars(eager).keys()


@pytest.mark.parametrize("make", [copy.copy, copy.deepcopy, lambda op: pickle.loads(pickle.dumps(op))],
                         ids=["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_packed_const_holds_its_value(make, monkeypatch):
    op = next(op for op in _consts(DATA / "ov" / "type-u4" / "model.xml", True, monkeypatch) if _packed(op))
    made = make(op)
    assert not _packed(made) and made == op and made.value.tobytes() == op.value.tobytes()


def test_threads_reading_a_packed_value_at_once_get_one_array(monkeypatch):
    ops = [op for op in _consts(DATA / "compressed" / "int4_asym.xml", True, monkeypatch) if _packed(op)]
    seen: list[list[np.ndarray]] = [[], []]
    start = threading.Barrier(2)

    def read(into: list[np.ndarray]) -> None:
        start.wait()
        into.extend(op.value for op in ops)

    threads = [threading.Thread(target=read, args=(into,)) for into in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(first is second for first, second in zip(*seen, strict=True))


def test_a_const_without_a_value_reads_none_and_the_class_its_default():
    assert Const.value is None
    assert Const(element_type=ir.ElementType.U4, shape=(2,)).value is None
    assert not holds_value(Const(element_type=ir.ElementType.U4, shape=(2,)))
