"""irgraph.core.lazy: stand-ins that import a module or compile a pattern on first use, once."""

from __future__ import annotations

import importlib
import re

import pytest

from irgraph.core import lazy


def test_a_lazy_module_imports_on_the_first_attribute_and_then_holds_its_names(monkeypatch):
    imports: list[str] = []
    importing = importlib.import_module
    monkeypatch.setattr(lazy.importlib, "import_module", lambda name: imports.append(name) or importing(name))
    stand_in = lazy.lazy_module("json")
    assert repr(stand_in) == "<module 'json', imported on first use>"
    assert imports == []
    assert stand_in.dumps([1]) == "[1]"
    assert stand_in.loads("2") == 2
    assert imports == ["json"]  # the second name came from the names it holds, not another import
    assert "loads" in vars(stand_in)
    with pytest.raises(AttributeError):
        _ = stand_in.no_such_name


def test_a_lazy_pattern_compiles_on_first_use_once_and_then_holds_its_methods(monkeypatch):
    compiles: list[str] = []
    compiling = re.compile
    monkeypatch.setattr(lazy.re, "compile", lambda pattern, flags=0: compiles.append(pattern) or compiling(
        pattern, flags))
    pattern = lazy.lazy_pattern(r"a(b+)", re.IGNORECASE)
    assert repr(pattern) == "<pattern 'a(b+)', compiled on first use>"
    assert compiles == []
    assert pattern.fullmatch("ABB").group(1) == "BB"  # type: ignore[union-attr]  # it matched
    assert pattern.sub("-", "xab") == "x-"
    assert (pattern.pattern, pattern.flags & re.IGNORECASE, pattern.groups) == (r"a(b+)", re.IGNORECASE, 1)
    assert compiles == [r"a(b+)"]
    assert "search" in vars(pattern)
