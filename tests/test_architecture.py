"""The layout is the architecture: irgraph's modules import one another without cycles, and the layers
import only downwards: core <- ops <- graph <- control_flow <- analysis <- builders <- runtime, io <- tools <- cli.
core imports nothing else of irgraph; ops never see the graph, the XML or ONNX; io never imports the runtime
or the tools (and the analysis only where the table below says why); the runtime never imports io or the tools;
only io/ parses files; only cli/ parses command lines. Imports inside functions count too: a cycle hidden there
is still a cycle in the design. Imports under ``if TYPE_CHECKING:`` count everywhere but between two modules of
one package, where they annotate mutually recursive types (a Model's Nodes hold Bodies that hold Models)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SOURCE / "irgraph"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The irgraph module ``name`` refers to (a module, or the package holding the imported object)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _type_checking_imports(tree: ast.Module) -> set[ast.AST]:
    """The import statements under an ``if TYPE_CHECKING:`` of ``tree``."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            found.update(child for statement in node.body for child in ast.walk(statement))
    return found


def _package(module: str) -> str:
    return module.rpartition(".")[0]


def _import_graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        annotations_only = _type_checking_imports(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                target = _resolve(name, modules) if name.startswith("irgraph") else None
                if target is None or target == module or module.startswith(target + "."):
                    continue
                if node in annotations_only and _package(target) == _package(module):
                    continue
                graph.add_edge(module, target)
    return graph


GRAPH = _import_graph()


def test_no_import_cycles():
    """A package's __init__ importing its own modules is not a cycle; anything else in a loop is."""
    cycles = [cycle for cycle in nx.simple_cycles(GRAPH) if len(cycle) > 1]
    assert cycles == []


LAYERS = ("core", "ops", "graph", "control_flow", "analysis", "builders", "runtime", "io", "tools", "cli")
"""The top-level packages, lowest first: each may import only packages before it, except as FORBIDDEN says."""

FORBIDDEN = {
    "irgraph.core": tuple(f"irgraph.{layer}" for layer in LAYERS[1:]),
    "irgraph.ops": tuple(f"irgraph.{layer}" for layer in LAYERS[2:]),
    "irgraph.graph": tuple(f"irgraph.{layer}" for layer in LAYERS[3:]),
    "irgraph.control_flow": tuple(f"irgraph.{layer}" for layer in LAYERS[4:]),
    "irgraph.analysis": tuple(f"irgraph.{layer}" for layer in LAYERS[5:]),
    # The op builders add layers and infer each at once: above the analysis, below what runs or reads models.
    "irgraph.builders": tuple(f"irgraph.{layer}" for layer in LAYERS[6:]),
    "irgraph.runtime": ("irgraph.builders", "irgraph.io", "irgraph.tools", "irgraph.cli"),
    "irgraph.io": ("irgraph.builders", "irgraph.runtime", "irgraph.tools", "irgraph.cli", "irgraph.analysis",
                   "irgraph.control_flow"),
    "irgraph.io.weights": ("irgraph.io.xml", "irgraph.io.onnx", "irgraph.io.data"),
    "irgraph.io.xml": ("irgraph.io.onnx", "irgraph.io.data"),
    "irgraph.io.onnx": ("irgraph.io.xml", "irgraph.io.data"),
    "irgraph.io.data": ("irgraph.io.xml", "irgraph.io.onnx"),
    "irgraph.tools": ("irgraph.cli",),
}

IO_USES_ANALYSIS = {
    # Writing a model states every port's dims, so the writers infer shapes first.
    "irgraph.io.xml.writer -> irgraph.analysis.shape_inference",
    "irgraph.io.onnx.exporter -> irgraph.analysis.shape_inference",
    # Converting types each converted node as it is emitted, bodies included.
    "irgraph.io.onnx.converter -> irgraph.analysis.shape_inference",
    # TensorIterator, Loop and If see the graph, so their classes live in control_flow: the ONNX rules that
    # build and export them name them there.
    "irgraph.io.onnx.import_rules.control -> irgraph.control_flow",
    "irgraph.io.onnx.export_rules.control -> irgraph.control_flow",
    # The stateless ONNX export refuses variables that do not pair up, as validation reports them.
    "irgraph.io.onnx.exporter -> irgraph.analysis.variables",
    # validate_file = the XSD pass (lxml, so io) + reading + validate().
    "irgraph.io.xml.file_validation -> irgraph.analysis.validation",
}
"""The only edges from io to the analysis: each one named, so a new one is a decision, not an accident.
Reading (irgraph.io.xml.reader) is not among them: see test_reading_loads_no_upper_layer."""


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_downwards(layer):
    wrong = sorted(
        f"{module} -> {target}"
        for module, target in GRAPH.edges
        if _inside(module, layer) and any(_inside(target, f) for f in FORBIDDEN[layer])
        and f"{module} -> {target}" not in IO_USES_ANALYSIS
    )
    assert wrong == []


def test_the_io_exceptions_are_still_needed():
    """An exception the code no longer needs is deleted from IO_USES_ANALYSIS, so the table stays the truth."""
    edges = {f"{module} -> {target}" for module, target in GRAPH.edges}
    assert sorted(IO_USES_ANALYSIS - edges) == []


@pytest.mark.parametrize("asker", ["irgraph.analysis.shape_inference", "irgraph.runtime.interpreter"])
def test_inference_and_the_interpreter_ask_sub_graph_ops_what_they_ask_every_op(asker):
    """TensorIterator, Loop and If answer Op.infer_layer and Op.plan_step through their bodies: shape inference
    and the interpreter name no control-flow module but the run budget (once a RUNNERS table keyed by op class
    and an isinstance(op, SubGraphOp) branch)."""
    named = sorted(target for target in GRAPH.successors(asker) if _inside(target, "irgraph.control_flow"))
    assert named in ([], ["irgraph.control_flow.bodies"])


def test_the_top_level_holds_only_packages():
    """src/irgraph/ is __init__.py, py.typed, the schemas and the layers: a new module goes into a layer."""
    entries = sorted(path.name for path in PACKAGE.iterdir() if path.name != "__pycache__")
    assert entries == sorted(["__init__.py", "py.typed", "schemas", *LAYERS])
    assert all((PACKAGE / layer / "__init__.py").is_file() for layer in LAYERS)


READ_SAMPLES = {
    "samples/dml-split-axis2/model.xml": ("runtime", "analysis", "control_flow", "tools", "cli"),
    # If, Loop and TensorIterator see the graph, so their classes live in control_flow (below the analysis);
    # the op registry imports them from there for a file that holds them.
    "tests/data/ov-subgraphs/if/model.xml": ("runtime", "analysis", "tools", "cli"),
}


@pytest.mark.parametrize("sample", sorted(READ_SAMPLES))
@pytest.mark.parametrize("module", ["irgraph.io.xml", "irgraph.io.xml.reader"])
def test_reading_loads_no_upper_layer(module, sample):
    """Reading a model needs core, ops, graph and io only (control flow for a model with bodies): not the
    runtime, the analysis or the tools (the reader once loaded the interpreter for one constant, and with it
    57 modules)."""
    path = Path(__file__).resolve().parent.parent / sample
    script = (f"import sys, {module}\n"
              f"from irgraph.io.xml.reader import read_model\n"
              f"read_model({str(path)!r})\n"
              "print('\\n'.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded = done.stdout.split()
    upper = [name for name in loaded if any(_inside(name, f"irgraph.{layer}")
                                             for layer in READ_SAMPLES[sample])]
    assert "irgraph.io.xml.reader" in loaded
    assert len(upper) == 0, upper


@pytest.mark.parametrize("library", ["lxml", "onnx", "argparse"])
def test_parsers_stay_in_their_layer(library):
    """Only io/ parses files (lxml, onnx); only cli/ parses command lines (argparse)."""
    home = "irgraph.cli" if library == "argparse" else "irgraph.io"
    users = []
    for module, path in _modules().items():
        if module.startswith(home):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            if any(name == library or name.startswith(library + ".") for name in names):
                users.append(module)
    assert users == []


MAX_MODULE_LINES = 500
"""A module past this holds more than one concern: split it by concern (io/packed.py left io/weights.py so)."""


def test_no_module_outgrows_one_concern():
    sizes = {str(path.relative_to(SOURCE)): len(path.read_text(encoding="utf-8").splitlines())
             for path in SOURCE.rglob("*.py")}
    assert {module: lines for module, lines in sizes.items() if lines > MAX_MODULE_LINES} == {}
