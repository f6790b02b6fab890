"""Interpreter(model).run(feeds): execute a model with NumPy in topological order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from irgraph.element_types import ElementType
from irgraph.errors import EvaluationError, InputError, IrError, OpError, ResourceLimitError
from irgraph.graph import Model, Node
from irgraph.ops import Const, Parameter, Result
from irgraph.shape_inference import infer_shapes

DEFAULT_ELEMENT_LIMIT = 2**31
"""Largest tensor (in elements) a run may feed or produce unless the caller raises the limit."""


@dataclass(frozen=True)
class _Step:
    node: Node
    sources: tuple[tuple[int, int], ...]
    frees: tuple[tuple[int, int], ...]


class Interpreter:
    """Runs a model: checks it once, then executes it any number of times.

    Split outputs are views of their input; each Concat writes its output once; every tensor is
    dropped after its last use. int64 and float64 are computed exactly (no down-casting).
    """

    def __init__(self, model: Model, *, element_limit: int = DEFAULT_ELEMENT_LIMIT) -> None:
        self.model = model
        self.element_limit = element_limit
        infer_shapes(model)
        not_runnable = [node for node in model if not node.op.can_run]
        if not_runnable:
            node = not_runnable[0]
            try:
                node.op.evaluate([])
            except IrError as err:
                raise err.locate(node.location) from None
        if not model.results:
            raise EvaluationError(f"model {model.name!r} has no Result layers: there is nothing to compute")
        self._plan = self._schedule()
        self._outputs = [(model.output_key(r), model.input_sources(r)[0]) for r in model.results]

    def _schedule(self) -> list[_Step]:
        needed = self.model.reachable_from_results()
        order = [n for n in self.model.topological_order() if n.id in needed]
        last_use: dict[tuple[int, int], int] = {}
        result_ports = {(s.node_id, s.index) for r in self.model.results for s in self.model.input_sources(r) if s}
        for position, node in enumerate(order):
            for source in self.model.input_sources(node):
                if source is not None:
                    last_use[(source.node_id, source.index)] = position
        frees_at: dict[int, list[tuple[int, int]]] = {}
        for key, position in last_use.items():
            if key not in result_ports:
                frees_at.setdefault(position, []).append(key)
        steps = []
        for position, node in enumerate(order):
            if isinstance(node.op, Parameter | Result):
                continue
            sources = tuple((s.node_id, s.index) for s in self.model.input_sources(node))  # type: ignore[union-attr]
            steps.append(_Step(node, sources, tuple(frees_at.get(position, ()))))
        return steps

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Execute the model; returns every output keyed as DESIGN.md section 6 says."""
        values: dict[tuple[int, int], np.ndarray] = self._bind(feeds)
        for step in self._plan:
            node = step.node
            arrays = [values[key] for key in step.sources]
            try:
                outputs = node.op.evaluate(arrays)
            except OpError as err:
                raise EvaluationError(err.message, node.location) from None
            except IrError as err:
                raise err.locate(node.location) from None
            for index, array in enumerate(outputs):
                if not isinstance(node.op, Const) and array.size > self.element_limit:
                    raise ResourceLimitError(
                        f"output {index} has {array.size} elements, above the limit of {self.element_limit}",
                        node.location,
                    )
                values[(node.id, index)] = array
            for key in step.frees:
                values.pop(key, None)
        return {key: values[(source.node_id, source.index)] for key, source in self._outputs if source}

    def _bind(self, feeds: Mapping[str, np.ndarray]) -> dict[tuple[int, int], np.ndarray]:
        by_name: dict[str, Node] = {}
        for parameter in self.model.parameters:
            for name in self.model.input_names(parameter):
                by_name.setdefault(name, parameter)
        values: dict[tuple[int, int], np.ndarray] = {}
        for name, array in feeds.items():
            parameter = by_name.get(name)
            if parameter is None:
                known = ", ".join(sorted(by_name)) or "none"
                raise InputError(f"the model has no input named {name!r}; inputs: {known}")
            if (parameter.id, 0) in values:
                raise InputError(f"input {parameter.name!r} is given twice (also as {name!r})")
            values[(parameter.id, 0)] = check_feed(parameter, name, array, self.element_limit)
        missing = [p.name for p in self.model.parameters if (p.id, 0) not in values]
        if missing:
            raise InputError(f"no data for input(s) {', '.join(repr(m) for m in missing)}")
        return values


def check_feed(parameter: Node, name: str, array: np.ndarray, element_limit: int) -> np.ndarray:
    """Check a feed against its Parameter's element type (exactly, no casts) and partial shape."""
    op: Parameter = parameter.op  # type: ignore[assignment]
    array = np.asarray(array)
    expected = op.element_type
    if expected is ElementType.STRING:
        if array.dtype.kind not in "UO":
            raise InputError(f"input {name!r} must hold strings; got dtype {array.dtype}", parameter.location)
        array = array.astype(object)
    elif not expected.is_dynamic and array.dtype != expected.numpy_dtype:
        raise InputError(
            f"input {name!r} must have element type {expected} (NumPy {expected.numpy_dtype}); got {array.dtype}",
            parameter.location,
        )
    elif array.dtype.kind == "O":
        raise InputError(f"input {name!r} is an object array; only typed arrays can be fed", parameter.location)
    if not op.shape.accepts(array.shape):
        raise InputError(
            f"input {name!r} has shape [{','.join(map(str, array.shape))}], which does not fit {op.shape}",
            parameter.location,
        )
    if array.size > element_limit:
        raise ResourceLimitError(f"input {name!r} has {array.size} elements, above the limit of {element_limit}")
    return array


def run(model: Model, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``model`` once on ``feeds`` (keyed by Parameter name or tensor name)."""
    return Interpreter(model).run(feeds)

