"""What writing a model as IR v10 loses, one line per kind, so nothing is dropped silently.

OpenVINO 2026.4.1's v10 reader ignores every layer and port ``<rt_info>`` (it keeps the model's
``<rt_info>``, which irgraph writes in v10 too) and has no Result ``output_names``; irgraph's
writer therefore leaves them out of a v10 file. :func:`v10_losses` says what was left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from irgraph.graph import InputPort, Model, RtEntry

LISTED_KINDS = 8
"""A loss line names at most this many rt_info kinds."""


def rt_info_kinds(entries: Iterable[RtEntry]) -> list[str]:
    """The kinds of rt_info entries: an ``<attribute name="decompression" .../>`` is ``decompression``."""
    kinds = []
    for entry in entries:
        name = dict(entry.attributes).get("name") if entry.tag == "attribute" else None
        kinds.append(name or entry.tag)
    return kinds


def _listing(kinds: Counter[str]) -> str:
    ordered = sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
    text = ", ".join(f"{kind}×{count}" for kind, count in ordered[:LISTED_KINDS])
    return text + (f" and {len(ordered) - LISTED_KINDS} more" if len(ordered) > LISTED_KINDS else "")


def v10_losses(model: Model) -> list[str]:
    """One line per kind of information an IR v10 file of ``model`` cannot hold (empty: nothing is lost)."""
    layers, layer_kinds = 0, Counter[str]()
    ports, port_kinds = 0, Counter[str]()
    named_results = 0
    for node in model:
        if node.rt_info:
            layers += 1
            layer_kinds.update(rt_info_kinds(node.rt_info))
        for entries in (*(port.rt_info for port in node.inputs), *(output.rt_info for output in node.outputs)):
            if entries:
                ports += 1
                port_kinds.update(rt_info_kinds(entries))
        if node.result_names and not set(node.result_names) <= _producer_names(model, node):
            named_results += 1
    lines = []
    if layers:
        lines.append(f"IR v10 cannot hold layer rt_info: {_whose(layers, 'layer')} rt_info dropped "
                     f"({_listing(layer_kinds)})")
    if ports:
        lines.append(f"IR v10 cannot hold port rt_info: {_whose(ports, 'port')} rt_info dropped "
                     f"({_listing(port_kinds)})")
    if named_results:
        lines.append(f"IR v10 cannot hold Result output_names: {_whose(named_results, 'Result')} output_names "
                     "dropped (names their producing port does not carry)")
    return lines


def _whose(count: int, noun: str) -> str:
    return f"{count} {noun}'s" if count == 1 else f"{count} {noun}s'"


def _producer_names(model: Model, result) -> set[str]:  # noqa: ANN001 - a Result node
    """The tensor names of the port feeding a Result (v10 keeps those)."""
    source = model.producer(InputPort(result.id, 0)) if result.num_inputs else None
    return set(model.node(source.node_id).outputs[source.index].tensor_names) if source is not None else set()
