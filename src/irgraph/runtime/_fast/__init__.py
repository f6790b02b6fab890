"""The runtime's fast paths, behind one switch.

The plain path allocates every output and asks every op to evaluate with its checks. With the switch on:

- an element-wise step (Add, ReLU, ...) writes its output into its input 0 when that input dies at the step and
  nothing else can see its memory, as OpenVINO's CPU plugin does (``in_place`` says how that is known, relying on
  CPython's reference counts, or the plan on who reads the slot);
- element-wise steps of static types run as bare ufunc calls compiled together (``ufunc_steps``), and ops with a
  ``bound_evaluate`` for their static types call it;
- layers that read only static shapes (ShapeOf) are computed with the plan, and what follows from them folds;
- a model with dynamic inputs gets a plan of its own for feed shapes it is run on again (``specialize``);
- a stateful LLM's KV cache is appended to in place, and an identity beam_idx Gather returns it (``kv_cache``).

Outputs are bit-identical either way (tests/runtime/test_fast_paths.py runs the model corpus both ways, twice
each: the second run takes a specialised plan).

The switch: ``IRGRAPH_NO_FAST=1`` in the environment (read once, at import) turns it off, as does setting
:data:`ENABLED` to False before an Interpreter is built (the differential tests do). Python implementations
without ``sys.getrefcount`` never take it.
"""

from __future__ import annotations

import os
import sys

__all__ = ["ENABLED"]

ENABLED: bool = os.environ.get("IRGRAPH_NO_FAST", "") in ("", "0") and hasattr(sys, "getrefcount")
"""Whether Interpreters built from now on let element-wise steps write over their inputs."""
