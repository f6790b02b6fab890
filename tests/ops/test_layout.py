"""Op modules live where the lazy registry looks: irgraph.ops.<category>.<snake_case of the type>."""

from __future__ import annotations

import re

import pytest

from irgraph.ops import CATEGORIES
from irgraph.ops.registry import registered_classes

_BEFORE_UPPER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def module_name(type_name: str) -> str:
    """``MaxPool`` -> ``max_pool``: ``_`` before an upper-case letter that follows a lower-case letter or
    digit, or that starts a new word after upper-case letters (``NV12toRGB`` -> ``nv12to_rgb``)."""
    return _BEFORE_UPPER.sub("_", type_name).lower()


@pytest.mark.parametrize(
    ("type_name", "expected"),
    [("MaxPool", "max_pool"), ("ReduceL2", "reduce_l2"), ("LogicalAnd", "logical_and"), ("HSwish", "h_swish"),
     ("SoftMax", "soft_max"), ("Gelu", "gelu"), ("ConvertLike", "convert_like"), ("ShapeOf", "shape_of"),
     ("NV12toRGB", "nv12to_rgb"), ("PRelu", "p_relu"), ("Const", "const"), ("NMSRotated", "nms_rotated")],
)
def test_module_name_rule(type_name, expected):
    assert module_name(type_name) == expected


@pytest.mark.parametrize("op_class", registered_classes(), ids=lambda cls: cls.title())
def test_every_registered_op_lives_in_its_category_module(op_class):
    package, _, module = op_class.__module__.rpartition(".")
    root, _, category = package.rpartition(".")
    assert (root, module) == ("irgraph.ops", module_name(op_class.type_name))
    assert category in CATEGORIES
