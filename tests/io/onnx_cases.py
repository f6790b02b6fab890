"""Shared by the ONNX import and export tests: exact array equality and the ONNX project's node tests."""

from __future__ import annotations

import numpy as np


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Exactly equal: dtype, shape and bits (strings by value)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object:
        return a.shape == b.shape and a.tolist() == b.tolist()
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def onnx_node_cases() -> list:
    """Every Split and Concat case of onnx.backend.test.case.node (the ONNX project's node tests)."""
    import onnx.backend.test.case.node.concat  # noqa: F401 - importing runs their expect() calls
    import onnx.backend.test.case.node.split  # noqa: F401
    from onnx.backend.test.case.node import _NodeTestCases

    found = {c.name: c for c in _NodeTestCases if c.name.startswith(("test_split_", "test_concat_"))
             and not c.name.startswith("test_split_to_sequence")}  # present once another test collected every case
    return [found[name] for name in sorted(found)]
