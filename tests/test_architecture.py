"""The layout is the architecture: irgraph's modules import one another without cycles, and the layers
import only downwards (ops never see the graph, the XML or ONNX; only io/ parses files; only cli/ parses
command lines). Imports inside functions count too: a cycle hidden there is still a cycle in the design.
Imports under ``if TYPE_CHECKING:`` count everywhere but between two modules of one package, where
they annotate mutually recursive types (a Model's Nodes hold Bodies that hold Models)."""

from __future__ import annotations

import ast
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


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("irgraph.ops", ("irgraph.graph", "irgraph.io", "irgraph.cli", "irgraph.interpreter")),
        ("irgraph.shapes", ("irgraph.graph", "irgraph.io", "irgraph.cli", "irgraph.ops")),
        ("irgraph.graph", ("irgraph.io", "irgraph.cli", "irgraph.interpreter")),
        ("irgraph.io.weights", ("irgraph.io.xml", "irgraph.io.onnx")),
        ("irgraph.io.xml", ("irgraph.io.onnx", "irgraph.cli")),
        ("irgraph.io.onnx", ("irgraph.io.xml", "irgraph.cli")),
    ],
)
def test_layers_import_downwards(layer, forbidden):
    wrong = sorted(
        f"{module} -> {target}"
        for module, target in GRAPH.edges
        if (module == layer or module.startswith(layer + "."))
        and any(target == f or target.startswith(f + ".") for f in forbidden)
    )
    assert wrong == []


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
