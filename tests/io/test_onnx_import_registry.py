"""The ONNX import rules' registry: every module of import_rules/ is found without a list, every op has one rule,
and Split/Concat/Constant/Identity are registered like the others."""

import pkgutil
import sys

import pytest

from irgraph.io.onnx import import_rules
from irgraph.io.onnx.import_rules import RULES, imports
from irgraph.io.onnx.importer import SUPPORTED_OPS


def test_every_rule_module_is_imported():
    modules = [info.name for info in pkgutil.iter_modules(import_rules.__path__)]
    assert "split" in modules and "registry" in modules
    assert [name for name in modules if f"{import_rules.__name__}.{name}" not in sys.modules] == []


def test_the_seed_ops_are_ordinary_rules():
    assert RULES["Split"].versions == (1, 2, 11, 13, 18)
    assert RULES["Concat"].versions == (1, 4, 11, 13)
    assert RULES["Constant"].versions is None
    assert RULES["Identity"].versions is None


def test_supported_ops_are_the_registered_ones():
    assert SUPPORTED_OPS == tuple(sorted(RULES))


def test_a_second_rule_for_an_op_type_is_refused():
    with pytest.raises(RuntimeError, match="Split has two ONNX import rules"):
        imports("Split")(lambda context: None)
    assert RULES["Split"].convert.__name__ == "split"
