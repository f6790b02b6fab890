"""Run ir-run with one layer computed wrongly by irgraph: a test-only fault, planted in a process of its own.

    python -m tests.tools.planted LAYER SCALE IR-RUN-ARGUMENTS...

The layer named LAYER gets a copy of its op whose f32 outputs are multiplied by SCALE (other layers of the same
type are untouched, and so is the file), so that the comparison with a reference runtime has one layer to blame.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import numpy as np

import irgraph
from irgraph.cli import ir_run
from irgraph.io.xml import reader


def plant(layer: str, scale: float) -> None:
    """Make every model read (by ir-run, and by a repro bundle's self-check) whose layer ``layer`` computes SCALE
    times its f32 outputs; models without such a layer are read as they are."""
    read = reader.read_model

    def read_planted(*args: Any, **kwargs: Any) -> Any:
        model = read(*args, **kwargs)
        node = next((node for node in model if node.name == layer), None)
        if node is None:
            return model
        planted = node.op = copy.copy(node.op)
        kind = type(planted)
        evaluate = kind.evaluate

        def evaluate_planted(self: Any, inputs: Any, *rest: Any) -> Any:
            outputs = evaluate(self, inputs, *rest)
            if self is planted:  # f32 only, as a kernel's rounding bug: the layer in f64 (--truth f64) stays right
                outputs = [np.asarray(out * np.float32(scale), dtype=np.float32) if out.dtype == np.float32 else out
                           for out in outputs]
            return outputs

        kind.evaluate = evaluate_planted
        bound_evaluate = kind.bound_evaluate

        def bound_evaluate_planted(self: Any, *args: Any, **kwargs: Any) -> Any:
            # The planted layer runs through evaluate: a plan-time bound kernel would step around the fault.
            return None if self is planted else bound_evaluate(self, *args, **kwargs)

        kind.bound_evaluate = bound_evaluate_planted
        return model

    irgraph.read_model = read_planted
    for module in list(sys.modules.values()):  # every module that imported the reader's function by name
        if getattr(module, "read_model", None) is read:
            module.read_model = read_planted


if __name__ == "__main__":
    plant(sys.argv[1], float(sys.argv[2]))
    sys.exit(ir_run.main(sys.argv[3:]))
