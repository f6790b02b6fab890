"""`import irgraph` loads nothing but the package itself (not NumPy, lxml or the op library): the public names
load on first use through the module's ``__getattr__``, so a command that needs one part pays for that part."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import irgraph

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "dml-split-axis2"


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    env = {key: value for key, value in os.environ.items() if key != "IRGRAPH_NO_FAST"}  # the fast reader on
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    return set(done.stdout.split())


def _ir_run(*args: str) -> str:
    """A script running ir-run's main() on the sample, its table swallowed (the module list is printed after)."""
    argv = [str(SAMPLE / "model.xml"), *args]
    return ("import contextlib, io\nfrom irgraph.cli.ir_run import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main({argv!r}) == 0")


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


# What a plain run of a model OpenVINO wrote has no use for: the lxml tree (the fast reader reads such files
# with regular expressions), the comparison, backends, profiling and JSON machinery, the temporary files of
# atomic writes. NumPy itself imports some of these (inspect, in NumPy 2.x): only what irgraph adds counts.
NOT_ON_THE_RUN_PATH = {
    "lxml", "lxml.etree", "inspect", "zipfile", "json", "tempfile", "shutil", "hashlib", "secrets", "shlex",
    "irgraph.tools.compare", "irgraph.tools.backends", "irgraph.tools.layerwise", "irgraph.tools.profiling",
    "irgraph.analysis.validation",
    # The sample is f32 Split/Concat: no ml_dtypes type, no Convert (so no decompression chain and none of the
    # chain's op classes), no state ops, no sub-graphs. Each would be imported (and its classes created) only
    # by a model that has one.
    "ml_dtypes", "irgraph.analysis.variables", "irgraph.ops.infrastructure.read_value",
    "irgraph.ops.infrastructure.assign", "irgraph.control_flow.if_", "irgraph.control_flow.loop",
    "irgraph.control_flow.tensor_iterator", "irgraph.control_flow.sub_graph_op", "irgraph.ops.type.convert",
    "irgraph.ops.arithmetic.multiply", "irgraph.ops.families.elementwise", "irgraph.ops.shape.squeeze",
    "irgraph.ops.movement.concat", "irgraph.ops.movement.split",  # seeds no more: the sample has neither
    "threadpoolctl",  # no step multiplies matrices: BLAS's thread count is left alone
    "irgraph.core.diagnostics",  # the reader notes nothing about the sample
    # No body to run or mark, no variable (so no KV cache), no --decompression f32 or kept weights, no Polygraphy
    # file; and the signal handlers are set through _signal, without the signal module's enum classes.
    "irgraph.control_flow", "irgraph.control_flow.bodies", "irgraph.runtime._fast.kv_cache",
    "irgraph.analysis.decompression_chains", "irgraph.io.data.polygraphy_json", "signal",
    "irgraph.io.atomic",  # nothing is written: the output-file checks and atomic writes are imported when needed
    "heapq",  # the sample's layers are in topological order already: Model.topological_order does not sort
}


def test_a_run_on_random_data_imports_only_what_it_uses():
    floor = _modules_after("import numpy, numpy.random")  # which imports secrets, so hashlib
    loaded = _modules_after(_ir_run("--seed", "1"))
    assert "irgraph.io.xml._fast.reader" in loaded  # the run did read the model
    assert (loaded - floor) & NOT_ON_THE_RUN_PATH == set()


# zipfile and what it imports (pathlib for zipfile.Path, with urllib.parse and ipaddress; shutil with bz2 and lzma):
# irgraph lists an archive's members itself (irgraph.io.data.zip_directory) and inflates them itself.
ZIPFILE_AND_ITS_IMPORTS = {"zipfile", "pathlib", "urllib.parse", "ipaddress", "shutil", "bz2", "lzma"}


def test_a_run_on_an_npz_adds_only_the_archive_reader():
    floor = _modules_after("import numpy, numpy.random")
    loaded = _modules_after(_ir_run("--inputs", str(SAMPLE / "inputs.npz")))
    assert "irgraph.io.data.zip_directory" in loaded
    assert (loaded - floor) & (NOT_ON_THE_RUN_PATH | ZIPFILE_AND_ITS_IMPORTS) == set()


# argparse imports gettext, which imports locale: a plain `ir-run MODEL [--inputs FILE]` line is read without them.
ARGPARSE_AND_ITS_IMPORTS = {"argparse", "gettext", "locale", "irgraph.cli._parsing", "irgraph.cli._run_parser"}


@pytest.mark.parametrize("args", [(), ("--inputs", str(SAMPLE / "inputs.npz"))], ids=["random", "npz"])
def test_a_plain_command_line_builds_no_argument_parser(args):
    loaded = _modules_after(_ir_run(*args))
    assert "irgraph.io.xml._fast.reader" in loaded  # the run did read the model
    assert loaded & ARGPARSE_AND_ITS_IMPORTS == set()


def test_any_other_command_line_goes_to_the_argument_parser():
    loaded = _modules_after(_ir_run("--seed", "1"))
    assert ARGPARSE_AND_ITS_IMPORTS <= loaded


def test_a_damaged_archive_imports_zipfile_for_its_error():
    """The exceptions stay zipfile's (BadZipFile): imported when one is raised."""
    loaded = _modules_after(
        "import io\nfrom irgraph.io.data.zip_directory import read_directory\n"
        "try:\n    read_directory(io.BytesIO(b'not a zip file, 22 bytes+'), 25)\n"
        "except Exception as err:\n    assert type(err).__name__ == 'BadZipFile', err\n"
        "else:\n    raise AssertionError('read')")
    assert "zipfile" in loaded


def test_a_file_outside_openvinos_layout_still_reads_through_lxml(tmp_path):
    """The lazy lxml is the same lxml: the plain path loads it when the fast reader declines the file."""
    text = (SAMPLE / "model.xml").read_text().replace("<layers>", "<layers><!-- a comment -->")  # not OpenVINO's
    (tmp_path / "model.xml").write_text(text)
    (tmp_path / "model.bin").write_bytes((SAMPLE / "model.bin").read_bytes())
    loaded = _modules_after(f"import irgraph\nassert len(list(irgraph.read_model({str(tmp_path / 'model.xml')!r})))")
    assert "lxml.etree" in loaded


def test_ml_dtypes_types_and_the_control_flow_classes_load_on_first_use():
    """What a plain run leaves out is there when asked for: an ml_dtypes element type's dtype (and its NumPy name),
    the control-flow package's classes. (Stateful models, decompression chains and bodies read from files are
    tested where those features are: tests/runtime/test_state.py, tests/analysis/test_decompression_chains.py.)"""
    loaded = _modules_after(
        "import numpy as np, irgraph as ir\n"
        "from irgraph.core.element_types import ElementType\n"
        "assert ElementType.BF16.numpy_dtype.name == 'bfloat16' and ElementType.of('bfloat16') is ElementType.BF16\n"
        "from irgraph.control_flow import If, Loop\n"
        "assert If.type_name == 'If' and Loop.type_name == 'Loop'\n")
    assert {"ml_dtypes", "irgraph.control_flow.if_", "irgraph.control_flow.loop"} <= loaded


def test_the_registry_says_which_op_types_have_their_module_loaded():
    """``registry.loaded`` is what the lazy checks ask: False until a look-up (or an import) loads the type's module."""
    loaded = _modules_after(
        "from irgraph.ops import registry\n"
        "assert not registry.loaded('Convert') and not registry.loaded('ReadValue', 'Assign')\n"
        "assert registry.lookup('Convert', 'opset1') is not None and registry.loaded('Convert')\n"
        "assert registry.loaded('VariadicSplit') and not registry.loaded('ReadValue', 'Assign')\n"
        "assert not registry.loaded('Concat') and registry.lookup('Concat', 'opset1') is not None\n"
        "assert registry.loaded('Concat')\n")
    assert "irgraph.ops.type.convert" in loaded


def test_a_file_without_nested_bodies_loads_no_bisect():
    """The fast reader's tag scan bisects only when it rescans a nested body (random data would load it anyway,
    through numpy.random)."""
    loaded = _modules_after(_ir_run("--inputs", str(SAMPLE / "inputs.npz")))
    assert "irgraph.io.xml._fast.bodies" in loaded and "bisect" not in loaded


def test_a_run_builds_the_catalogue_entries_of_its_model_s_types_only():
    # The sample's four types (and OpaqueOp's look-ups): not the ~240 entries, nor module_name's look-behind patterns
    loaded = _modules_after(
        _ir_run("--seed", "1") + "\nfrom irgraph.ops import catalogue\n"
        "assert 0 < len(catalogue._OF_TYPE) < 10, sorted(catalogue._OF_TYPE)\n"
        "assert catalogue._word_patterns.cache_info().currsize == 0\n"
        "assert catalogue.all_versions.cache_info().currsize == 0\n")
    assert "irgraph.ops.catalogue" in loaded
