"""The runtime's fast path, behind one switch: element-wise steps writing over an input that dies there.

The plain path allocates every output. With the switch on, the interpreter lets an element-wise step
(Add, ReLU, ...) write its output into its input 0 when that input dies at the step and nothing else can
see its memory, as OpenVINO's CPU plugin does (``in_place`` says how that is known, relying on CPython's
reference counts). Outputs are bit-identical either way (tests/runtime/test_fast_paths.py runs the model
corpus both ways).

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
