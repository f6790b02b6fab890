"""`import irgraph` loads nothing but the package itself (not NumPy, lxml or the op library): the public names
load on first use through the module's ``__getattr__``, so a command that needs one part pays for that part."""

from __future__ import annotations

import subprocess
import sys

import pytest

import irgraph


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_import_irgraph_loads_only_the_package():
    loaded = _modules_after("import irgraph")
    assert {m for m in loaded if m.startswith("irgraph")} == {"irgraph"}
    assert not loaded & {"numpy", "lxml", "ml_dtypes", "onnx", "networkx"}


def test_a_name_loads_its_module_on_first_use():
    loaded = _modules_after("import irgraph\nirgraph.Shape")
    assert "irgraph.core.shapes" in loaded and "irgraph.runtime.interpreter" not in loaded and "lxml" not in loaded


@pytest.mark.parametrize("name", irgraph.__all__)
def test_every_public_name_resolves(name):
    assert getattr(irgraph, name) is not None
    assert name in dir(irgraph)


def test_subpackages_resolve_as_attributes_and_unknown_names_do_not():
    assert irgraph.ops.VariadicSplit.type_name == "VariadicSplit"
    assert not hasattr(irgraph, "no_such_name")
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        irgraph.no_such_name  # noqa: B018


def test_from_imports_still_work():
    from irgraph import ElementType, Model, read_model, run

    assert Model is irgraph.graph.Model and run is irgraph.runtime.interpreter.run
    assert ElementType.F32.numpy_dtype == "float32" and callable(read_model)
