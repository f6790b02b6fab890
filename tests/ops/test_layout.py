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


def test_every_op_module_on_disk_is_where_the_catalogue_looks():
    """A module the catalogue never names is never imported by lookup: its ops would silently not run."""
    import importlib
    import pkgutil

    named = {module for entry in catalogue.all_versions() for module in entry.modules}
    stray = []
    for category in CATEGORIES:
        try:
            package = importlib.import_module(f"irgraph.ops.{category}")
        except ModuleNotFoundError:
            continue
        stray += [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)
                  if f"{package.__name__}.{m.name}" not in named]
    assert stray == []
