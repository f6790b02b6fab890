"""The bounds shared by several layers, each defined once (a bound used by one module stays beside its use).

Every bound is a refusal with a message, never a silent cut: past it, irgraph raises ResourceLimitError
or an error naming the limit and how to raise it where the caller can.
"""

from __future__ import annotations

DEFAULT_ELEMENT_LIMIT = 2**31
"""Largest tensor (in elements) a read, a feed, a run or an op's intermediate may hold unless the caller
raises the limit (``Interpreter(..., element_limit=N)``, ``ir-run --max-elements N``)."""

DEFAULT_ITERATION_LIMIT = 100_000
"""Most sub-graph bodies one run may execute in all (TensorIterator and Loop iterations, If branches, nested
ones included) unless the caller raises the limit.

Real exports iterate over sequence steps or generated tokens: thousands per run (a sample-level audio
RNN may need more: raise the limit). An iteration costs the interpreter 10 to 100 microseconds even
for a tiny body (the upper end on a loaded machine), so a runaway ``trip_count = -1`` Loop, or Loops
nested to multiply their counts, fail within seconds, with a message saying how to raise the limit,
instead of never returning (at 10**6 such a Loop ran 20 s alone, 90 s on a busy machine)."""

MAX_STEPS = 100_000
"""Most steps one run of a stateful model may take, asked for (``ir-run --steps``) or given by per-step inputs: an
LLM's export runs one per generated token, and sequences stay below a few 10**4 tokens; a count past this is a
typo or an attack, not a model's need."""

MAX_BODY_DEPTH = 128
"""Deepest nesting of sub-graph bodies read, inferred or run (real models nest a few levels; each level costs
Python frames)."""
