"""TensorIterator, Loop and If: the ops defined by sub-graph bodies, each owning its bodies' inference, checks and
runner (``sub_graph_op``, ``tensor_iterator``, ``loop``, ``if_``; shared parts in ``inference``, ``validation``,
``bodies`` and ``iterations``). It sees the graph; the op registry imports the op modules from here, and the
analysis and runtime layers above ask these ops the questions they ask every op (``Op.infer_layer``,
``Op.plan_step``)."""

from irgraph.control_flow.if_ import If
from irgraph.control_flow.loop import Loop
from irgraph.control_flow.sub_graph_op import SubGraphOp
from irgraph.control_flow.tensor_iterator import TensorIterator

__all__ = ["If", "Loop", "SubGraphOp", "TensorIterator"]
