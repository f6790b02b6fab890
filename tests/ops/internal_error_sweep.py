"""A sweep for internal errors: every configuration the op tests give ``check_op``/``check_types``, bent out of shape.

irgraph must answer any input with a value or an IrError (the CLI's one-line ``error:``); anything else is an
``internal error`` and a bug (issue 23: a ScaledDotProductAttention mask that broadcast a one-row query raised
NumPy's ValueError). The op tests judge the configurations they generate; this plugin also runs irgraph alone on
variants of each: one dim set to 1 or to 0, the leading axis dropped or a new one added, an input converted
between integer and floating point, an input left out. It runs inside the op tests, whose verdicts are unchanged::

    PYTHONPATH=src python -m pytest -q -p tests.ops.internal_error_sweep tests/ops

and writes what it found (one line per op, exception and place, with the first configuration that reached it) to
``internal-errors.txt``, or to the file IRGRAPH_SWEEP_REPORT names.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops import Op
from irgraph.runtime.interpreter import Interpreter
from tests.ops import differential

MAX_VARIANTS = 16
"""Variants run per configuration (the first ones of a fixed order), to bound the sweep's time."""

_found: dict[tuple[str, str, str], str] = {}
_counts = {"configurations": 0, "variants": 0}


def _where(error: BaseException) -> str:
    """``file:line`` of the innermost frame inside irgraph (else the innermost frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    inside = [frame for frame in frames if "/irgraph/" in frame.filename] or frames
    frame = inside[-1]
    return f"{frame.filename.split('/src/')[-1]}:{frame.lineno}"


def _record(op: Op, what: str, error: Exception) -> None:
    key = (type(op).__name__, type(error).__name__, _where(error))
    _found.setdefault(key, f"{what}: {' '.join(str(error).split())[:300]}")


def _array_variants(arrays: Sequence[np.ndarray]) -> Iterator[tuple[str, list[np.ndarray]]]:
    for index, array in enumerate(arrays):
        for axis, size in enumerate(array.shape):
            if size > 1:
                yield f"input {index} axis {axis} -> 1", _replace(arrays, index, np.take(array, [0], axis=axis))
        if array.ndim:
            first = array[0] if array.shape[0] else np.zeros(array.shape[1:], array.dtype)
            yield f"input {index} leading axis dropped", _replace(arrays, index, first)
            yield f"input {index} axis {array.ndim - 1} -> 0", _replace(arrays, index, array[..., :0])
        yield f"input {index} new leading axis", _replace(arrays, index, array[None])
        if array.dtype.kind == "f":
            yield f"input {index} as i32", _replace(arrays, index, array.astype(np.int32))
        elif array.dtype.kind in "iub":
            yield f"input {index} as f32", _replace(arrays, index, array.astype(np.float32))
    if len(arrays) > 1:
        yield "last input left out", list(arrays[:-1])


def _replace(arrays: Sequence[np.ndarray], index: int, array: np.ndarray) -> list[np.ndarray]:
    changed = list(arrays)
    changed[index] = np.ascontiguousarray(array)
    return changed


def _run_irgraph(op: Op, arrays: Sequence[np.ndarray], constant: Sequence[int]) -> None:
    types = [TensorType(ElementType.from_numpy(x.dtype), Shape.static(x.shape)) for x in arrays]
    values = [x if i in constant else None for i, x in enumerate(arrays)]
    model, _ = differential.irgraph_model(op, types, values)
    feeds = {f"in{i}": x for i, x in enumerate(arrays) if i not in constant}
    Interpreter(model).run(feeds)


def _sweep_values(op: Op, inputs: Sequence[Any], constant: Sequence[int]) -> None:
    arrays = [np.asarray(x) for x in inputs]
    _counts["configurations"] += 1
    for number, (what, variant) in enumerate(_array_variants(arrays)):
        if number == MAX_VARIANTS:
            break
        _counts["variants"] += 1
        try:
            _run_irgraph(op, variant, [i for i in constant if i < len(variant)])
        except IrError:
            pass
        except Exception as error:  # noqa: BLE001 - any other exception is what the sweep looks for
            shapes = ", ".join(f"{x.dtype}{list(x.shape)}" for x in variant)
            _record(op, f"{what} ({shapes})", error)


def _type_variants(types: Sequence[TensorType]) -> Iterator[tuple[str, list[TensorType]]]:
    for index, tensor in enumerate(types):
        if tensor.shape.rank_is_dynamic:
            continue
        for axis in range(tensor.shape.rank):
            for label, dim in (("1", Dim.static(1)), ("?", Dim.dynamic()), ("0", Dim.static(0))):
                changed = list(types)
                changed[index] = TensorType(tensor.element_type, tensor.shape.replace(axis, dim))
                yield f"input {index} axis {axis} -> {label}", changed
        changed = list(types)
        changed[index] = TensorType(tensor.element_type, Shape(None))
        yield f"input {index} of dynamic rank", changed


def _sweep_types(op: Op, types: Sequence[TensorType], values: Sequence[Any] | None) -> None:
    _counts["configurations"] += 1
    for number, (what, variant) in enumerate(_type_variants(types)):
        if number == MAX_VARIANTS:
            break
        _counts["variants"] += 1
        given = [None] * len(variant) if values is None else list(values)
        try:
            differential.irgraph_types(op, variant, given)
        except IrError:
            pass
        except Exception as error:  # noqa: BLE001
            _record(op, f"types {what} ({', '.join(map(str, variant))})", error)


def _wrapped_check_op(original: Callable[..., Any]) -> Callable[..., Any]:
    def check_op(op: Op, inputs: Sequence[Any], build: Any, **options: Any) -> Any:
        try:
            return original(op, inputs, build, **options)
        finally:
            _sweep_values(op, inputs, list(options.get("constant", ())))
    return check_op


def _wrapped_check_types(original: Callable[..., Any]) -> Callable[..., Any]:
    def check_types(op: Op, input_types: Sequence[TensorType], build: Any, values: Any = None) -> Any:
        try:
            return original(op, input_types, build, values)
        finally:
            _sweep_types(op, input_types, values)
    return check_types


def pytest_configure(config: pytest.Config) -> None:
    """Wrap the harness before the test modules import its functions."""
    differential.check_op = _wrapped_check_op(differential.check_op)  # type: ignore[assignment]
    differential.check_types = _wrapped_check_types(differential.check_types)  # type: ignore[assignment]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the report."""
    path = os.environ.get("IRGRAPH_SWEEP_REPORT", "internal-errors.txt")
    lines = [f"{_counts['configurations']} configurations, {_counts['variants']} variants run by irgraph alone; "
             f"{len(_found)} internal errors (op, exception, where: first variant that reached it)"]
    lines += [f"{op}  {kind}  {where}: {what}" for (op, kind, where), what in sorted(_found.items())]
    with open(path, "w", encoding="utf-8") as report:
        report.write("\n".join(lines) + "\n")
