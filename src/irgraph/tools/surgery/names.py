"""Rename a model's inputs and outputs: the tensor names OpenVINO addresses them by (``ovc --input``/``--output``).

An input answers to its Parameter's layer name and to its port's tensor names; an output to its Result's
``output_names``, its producer port's tensor names and the Result's layer name (DESIGN.md section 6). A rename
replaces ``OLD`` by ``NEW`` wherever the input or output answers to it, so ``OLD`` no longer finds it and ``NEW``
does, in irgraph, in OpenVINO (``model.input("NEW")``) and in an ONNX export.
"""

from __future__ import annotations

from irgraph.core.errors import FeedError
from irgraph.graph import InputPort, Model, Node


def parse_rename(text: str, option: str) -> tuple[str, str]:
    """``OLD=NEW`` -> (OLD, NEW); FeedError naming ``option`` for anything else."""
    old, equals, new = text.partition("=")
    if not equals or not old or not new or "," in new:
        raise FeedError(f"{option} expects OLD=NEW (NEW without commas), got {text!r}")
    return old, new


def rename_input(model: Model, old: str, new: str) -> Node:
    """Rename the input answering to ``old`` (in place); returns its Parameter."""
    parameter = model.input_index().get(old)
    if parameter is None:
        inputs = ", ".join(repr(p.name) for p in model.parameters) or "none"
        raise FeedError(f"--rename-input {old}={new}: the model has no input {old!r}; inputs: {inputs}")
    _check_free(model, new, f"--rename-input {old}={new}", parameter)
    names = parameter.outputs[0].tensor_names
    parameter.outputs[0].tensor_names = _replaced(names, old, new) if old in names else [new, *names]
    if parameter.name == old or not names:
        parameter.name = new
    return parameter


def rename_output(model: Model, old: str, new: str) -> Node:
    """Rename the output answering to ``old`` (its key, a tensor name or its Result's name; in place); returns its
    Result."""
    result = _find_output(model, old)
    if result is None:
        outputs = ", ".join(repr(key) for key in model.output_keys().values()) or "none"
        raise FeedError(f"--rename-output {old}={new}: the model has no output {old!r}; outputs: {outputs}")
    _check_free(model, new, f"--rename-output {old}={new}", result)
    source = model.producer(InputPort(result.id, 0))
    port_names = [] if source is None else model.node(source.node_id).outputs[source.index].tensor_names
    if old in port_names:
        port_names[:] = _replaced(port_names, old, new)
    if result.result_names and old in result.result_names:
        result.result_names = _replaced(result.result_names, old, new)
    if result.name == old:
        result.name = new
    if model.named_output_key(result) != new:  # it was keyed by another name: NEW becomes the first
        if result.result_names:
            result.result_names = [new, *(n for n in result.result_names if n != new)]
        else:
            port_names[:] = [new, *(n for n in port_names if n != new)]
    return result


def _find_output(model: Model, name: str) -> Node | None:
    keys = model.output_keys()
    for result in model.results:
        if keys[result.id] == name or result.name == name or name in (result.result_names or ()):
            return result
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None and name in model.node(source.node_id).outputs[source.index].tensor_names:
            return result
    return None


def _check_free(model: Model, name: str, what: str, owner: Node) -> None:
    """FeedError when ``name`` already names another layer, or a tensor an input or output answers to.

    Any layer counts, internal ones too: irgraph's per-layer tools (``--mark``, ``ir-extract``, ``ir-diff``)
    address layers by name, and two layers of one name would make them ambiguous."""
    for node in model:
        if node is owner:
            continue
        taken = name in node.result_names if node.result_names else False
        taken = taken or any(name in output.tensor_names for output in node.outputs)
        if taken or node.name == name:
            raise FeedError(f"{what}: {name!r} already names layer {node.name!r} ({node.type_name}) or its tensor")


def _replaced(names: list[str], old: str, new: str) -> list[str]:
    return [new if name == old else name for name in names if name != new or old == new]
