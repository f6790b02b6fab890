"""TensorIterator, Loop and If: the ops defined by sub-graph bodies, each owning its bodies' inference, checks and
runner (``sub_graph_op``, ``tensor_iterator``, ``loop``, ``if_``; shared parts in ``inference``, ``validation``,
``bodies`` and ``iterations``). It sees the graph; the op registry imports the op modules from here, and the
analysis and runtime layers above ask these ops the questions they ask every op (``Op.infer_layer``,
``Op.plan_step``).

The op classes load on first use (module ``__getattr__``): the runtime imports ``bodies`` for every model, and a
model without sub-graphs should not pay for creating the three op classes."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgraph.control_flow.if_ import If
    from irgraph.control_flow.loop import Loop
    from irgraph.control_flow.sub_graph_op import SubGraphOp
    from irgraph.control_flow.tensor_iterator import TensorIterator

__all__ = ["If", "Loop", "SubGraphOp", "TensorIterator"]

_MODULES = {"If": "if_", "Loop": "loop", "SubGraphOp": "sub_graph_op", "TensorIterator": "tensor_iterator"}


def __getattr__(name: str) -> object:
    """``If``, ``Loop``, ``SubGraphOp``, ``TensorIterator``: imported from their module on first use."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
