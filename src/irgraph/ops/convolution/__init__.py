"""Ops of OpenVINO's 'convolution' spec category.

Called, this package is the newest Convolution builder: ``ir.ops.convolution(x, w, strides=...)``. Importing a
subpackage binds its name in the parent, so in ``irgraph.ops`` the name ``convolution`` is this package, where
the builders of the other op types are (``irgraph.ops.__getattr__``); it is the one category named like an op.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CategoryAndBuilder(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import importlib

        from irgraph.ops import BUILDERS

        return importlib.import_module(BUILDERS).convolution(*args, **kwargs)


sys.modules[__name__].__class__ = _CategoryAndBuilder
