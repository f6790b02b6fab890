"""The bounds shared by several layers, each defined once (a bound used by one module stays beside its use).

Every bound is a refusal with a message, never a silent cut: past it, irgraph raises ResourceLimitError
or an error naming the limit and how to raise it where the caller can.
"""

from __future__ import annotations

DEFAULT_ELEMENT_LIMIT = 2**31
"""Largest tensor (in elements) a read, a feed, a run or an op's intermediate may hold unless the caller
raises the limit (``Interpreter(..., element_limit=N)``, ``ir-run --max-elements N``)."""

DEFAULT_ITERATION_LIMIT = 1_000_000
"""Most iterations one TensorIterator or Loop execution may run unless the caller raises the limit.

Real exports iterate over sequence steps or generated tokens: thousands, rarely past 10**5 (a
sample-level audio RNN). An iteration costs the interpreter tens of microseconds even for a tiny
body, so a runaway ``trip_count = -1`` Loop fails within about a minute, with a message saying how
to raise the limit, instead of never returning."""

MAX_BODY_DEPTH = 128
"""Deepest nesting of sub-graph bodies read, inferred or run (real models nest a few levels; each level costs
Python frames)."""
