"""IR -> ONNX export rules, one per op type, registered by op class (see ``registry``).

Importing this package imports every module in it, found on disk rather than listed (as ``import_rules`` does), so
a new rule module registers its rules by being here and ``RULES`` holds them all.
"""

import importlib
import pkgutil

from irgraph.io.onnx.export_rules.registry import REFUSED, RULES, ExportContext, Rule, exports, refuses

for _module in sorted(info.name for info in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["REFUSED", "RULES", "ExportContext", "Rule", "exports", "refuses"]
