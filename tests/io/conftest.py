"""Fixtures shared by the reader tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture
def deep_recursion() -> Iterator[None]:
    """Comparing 256-level rt_info trees (nested dataclasses) needs more than Python's default recursion limit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    yield
    sys.setrecursionlimit(limit)
