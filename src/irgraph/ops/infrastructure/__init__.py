"""Infrastructure ops (OpenVINO's spec category): importing this package registers every op module in it."""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
