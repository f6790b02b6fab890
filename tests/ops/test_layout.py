"""Op modules live where the lazy registry looks: one of the modules the op catalogue names for the type
(irgraph.ops.<category>.<snake_case of the type>, see irgraph.ops.catalogue.module_name)."""

from __future__ import annotations

import pytest

from irgraph.ops import CATEGORIES, catalogue
from irgraph.ops.registry import load_all, registered_classes

load_all()


@pytest.mark.parametrize("op_class", registered_classes(), ids=lambda cls: cls.title())
def test_every_registered_op_lives_in_its_category_module(op_class):
    entry = catalogue.find(op_class.type_name, f"opset{min(op_class.opsets)}")
    assert entry is not None, f"{op_class.title()} is not in OpenVINO's opsets"
    assert op_class.__module__ in entry.modules
    assert entry.category in CATEGORIES
    assert op_class.type_name == entry.ir_name  # spelled as OpenVINO writes it in IR (ReLU, SoftMax, Const)
