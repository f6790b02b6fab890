"""The builder namespaces: ``ir.opset1`` ... ``ir.opset16`` (the op versions each opset holds, as
``openvino.opsetN``) and ``ir.ops`` (the newest version of every op type), each builder made on first use.

Making all 241 builders costs every op module's import; a namespace makes one when its name is first read
(module ``__getattr__``), importing that op's module only, so ``import irgraph`` stays as cheap as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from irgraph.builders.builder import infer_new, make_builder, model_of
from irgraph.builders.spec import builder_name
from irgraph.core.element_types import ElementTypeLike
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Op, catalogue, registry

LATEST = 0
"""The namespace key of ``ir.ops``: the newest version of each type, whichever opset holds it."""


def parameter(shape: Any, element_type: ElementTypeLike = "f32", *, name: str, model: Model) -> OutputPort:
    """Add a model input (Parameter-1) of partial ``shape`` (``-1``/``"?"``/``"1..8"`` dims) named ``name``
    (its tensor name too); ``Model.parameter`` with OpenVINO's argument order."""
    port = model.parameter(name, shape, element_type)
    infer_new(model, model.node(port.node_id))
    return port


def constant(value: Any, element_type: ElementTypeLike | None = None, *, name: str | None = None,
             model: Model) -> OutputPort:
    """Add a Constant holding ``value`` (Python ints i64, floats f32, arrays their dtype, unless
    ``element_type`` says otherwise)."""
    port = model.const(value, element_type, name)
    infer_new(model, model.node(port.node_id))
    return port


def result(value: OutputPort, *, name: str | None = None, model: Model | None = None) -> Node:
    """Add a model output (Result-1) keyed by ``name``; ``Model.result``."""
    model = model_of("result", [value], model)
    node = model.result(value, name)
    try:
        infer_new(model, node, "result")
    except Exception:
        model.remove_node(node.id)
        raise
    return node


HAND_WRITTEN: dict[str, Callable[..., Any]] = {"Parameter": parameter, "Constant": constant, "Result": result}
"""Types whose builders take what ``Model``'s methods take (a name for an input, a value for a Constant)."""

SKIPPED = catalogue.CONTROL_FLOW
"""If, Loop and TensorIterator are made of bodies (Models with port maps): ``Model.add_node`` builds them."""


@functools.cache
def entries(opset: int) -> dict[str, catalogue.OpVersion]:
    """Builder name -> the op version it builds, for opset ``opset`` (``LATEST``: the newest of each type)."""
    if opset == LATEST:
        newest: dict[str, catalogue.OpVersion] = {}
        for entry in catalogue.all_versions():  # oldest first: the last of a type wins
            newest[entry.type_name] = entry
        chosen = list(newest.values())
    else:
        chosen = list(catalogue.opset_contents(opset))
    return {builder_name(entry.type_name): entry for entry in chosen if entry.type_name not in SKIPPED}


def op_class(entry: catalogue.OpVersion) -> type[Op] | None:
    """The class implementing ``entry`` (None when irgraph has none)."""
    return registry.lookup(entry.ir_name, entry.version)


_BUILDERS: dict[type[Op], Callable[..., Any]] = {}


def _builder(op: type[Op]) -> Callable[..., Any]:
    made = _BUILDERS.get(op)
    if made is None:
        made = _BUILDERS[op] = make_builder(op)
    return made


def builder(opset: int, name: str) -> Callable[..., Any]:
    """The builder ``name`` of opset ``opset`` (``LATEST`` for ``ir.ops``); AttributeError saying why not."""
    entry = entries(opset).get(name)
    where = "irgraph.ops" if opset == LATEST else f"opset{opset}"
    if entry is None:
        raise AttributeError(f"{where} has no builder {name!r}{_hint(opset, name)}")
    if entry.type_name in HAND_WRITTEN:
        return HAND_WRITTEN[entry.type_name]
    found = op_class(entry)
    if found is None:
        raise AttributeError(f"{where}: irgraph does not implement {entry.title} yet, so it has no builder {name!r}")
    return _builder(found)


def _hint(opset: int, name: str) -> str:
    if name in {builder_name(t) for t in SKIPPED}:
        return " (If, Loop and TensorIterator hold bodies: build them with Model.add_node)"
    elsewhere = [n for n in catalogue.OPSETS if name in entries(n)]
    if elsewhere:
        return f" (opsets {elsewhere[0]}-{elsewhere[-1]} have it)" if opset != LATEST else ""
    import difflib

    close = difflib.get_close_matches(name, entries(LATEST), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def module_functions(
    opset: int, module_globals: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the builder module of ``opset`` whose globals are ``module_globals``:
    a builder is made on first access and kept there, so later look-ups are plain attribute reads."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        made = module_globals[name] = builder(opset, name)
        return made

    def __dir__() -> list[str]:
        return sorted(entries(opset))

    return __getattr__, __dir__
