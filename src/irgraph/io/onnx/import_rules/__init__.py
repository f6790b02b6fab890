"""ONNX -> IR import rules, one per ONNX op type, registered by ``@imports`` (see ``registry``).

Importing this package imports every module in it, found on disk rather than listed, so a new rule module
registers its rules by being here and ``RULES`` holds them all.
"""

import importlib
import pkgutil

from irgraph.io.onnx.import_rules.registry import (
    RULES,
    BodyImport,
    ImportContext,
    ImportRule,
    Rule,
    imports,
    supported_ops,
)

for _module in sorted(info.name for info in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["RULES", "BodyImport", "ImportContext", "ImportRule", "Rule", "imports", "supported_ops"]
