"""The Graphviz drawing (irgraph.tools.dot, ir-info --dot): constants folded, bodies as clusters, a neighbourhood.

The dot text is checked by its structure (every edge between declared nodes, clusters balanced, one box per
layer that is not a constant); where Graphviz's ``dot`` is installed, it must also lay every drawing out.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from irgraph.cli import ir_info
from irgraph.graph import Model
from irgraph.io.xml.reader import read_ir
from irgraph.ops import Const, Parameter, Result
from irgraph.runtime.marking import computed_layers
from irgraph.tools.dot import DotStyle, constant_layers, neighbourhood, to_dot

DATA = Path(__file__).resolve().parents[1] / "data"
RESNET_BLOCK = DATA / "realistic" / "resnet-block" / "model.xml"
NESTED = DATA / "ov-subgraphs" / "nested-if-loop-ti" / "model.xml"
GPT2 = DATA / "models" / "gpt2-tiny-stateful" / "model.xml"

_NODE = re.compile(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
_EDGE = re.compile(r'^\s*(\w+) -> (\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')


class Dot:
    """The statements of a drawing: nodes (id -> label lines, extra attributes), edges, clusters."""

    def __init__(self, text: str) -> None:
        self.nodes: dict[str, tuple[list[str], str]] = {}
        self.edges: list[tuple[str, str, str, str]] = []
        self.clusters: list[str] = []
        depth = 0
        for line in text.splitlines()[4:-1]:
            if line.strip().startswith("subgraph cluster_"):
                self.clusters.append(line.split()[1])
                depth += 1
            elif line.strip() == "}":
                depth -= 1
            elif line.strip().startswith("label=") and "style=dashed" in line:
                continue
            elif (node := _NODE.match(line)) is not None:
                assert node.group(1) not in self.nodes, line
                self.nodes[node.group(1)] = (node.group(2).split("\\n"), node.group(3))
            elif (edge := _EDGE.match(line)) is not None:
                self.edges.append(edge.groups())
            else:
                raise AssertionError(f"not a statement of the drawing: {line!r}")
            assert depth >= 0, line
        assert depth == 0
        assert text.splitlines()[-1] == "}"
        for source, target, _, _ in self.edges:
            assert source in self.nodes and target in self.nodes, (source, target)


def read(path: Path) -> Model:
    return read_ir(path).model


def render(text: str, tmp_path: Path) -> str:
    """The SVG Graphviz lays ``text`` out as (the test is skipped without Graphviz)."""
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("Graphviz's dot is not installed")
    source = tmp_path / "graph.dot"
    source.write_text(text, "utf-8")
    done = subprocess.run([dot, "-Tsvg", str(source)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_constants_are_folded_into_the_layers_that_read_them(tmp_path):
    model = read(RESNET_BLOCK)
    drawing = Dot(to_dot(model))
    folded = constant_layers(model)
    # Consts and their decompression Converts, nothing computed from the input
    assert {type(model.node(i).op).__name__ for i in folded} == {"Const", "Convert"}
    assert not folded & {node.id for node in computed_layers(model)}
    boxes = {f"n{node.id}" for node in computed_layers(model)}
    boxes |= {f"n{node.id}" for node in model if isinstance(node.op, (Parameter, Result))}
    assert set(drawing.nodes) == boxes
    # every input fed by a constant is a line of its reader's label, named after the layer feeding it
    for node in model:
        if f"n{node.id}" not in drawing.nodes:
            continue
        lines = drawing.nodes[f"n{node.id}"][0]
        for index, source in enumerate(model.input_sources(node)):
            if source is not None and source.node_id in folded:
                producer = model.node(source.node_id)
                assert sum(line.startswith(f"in{index}: {producer.name} ") for line in lines) == 1, lines
    everything = Dot(to_dot(model, fold_constants=False))
    assert len(everything.nodes) == len(model)
    assert sum(1 for _, extra in everything.nodes.values() if "style=dashed" in extra) == sum(
        1 for node in model if isinstance(node.op, Const))
    assert "<svg" in render(to_dot(model), tmp_path)


def test_a_stateful_gpt2_keeps_its_variables_and_loses_its_constant_boxes(tmp_path):
    model = read(GPT2)
    drawing = Dot(to_dot(model))
    types = [lines[1].rsplit("-", 1)[0] for lines, _ in drawing.nodes.values()]
    assert "Const" not in types and "ReadValue" in types and "Assign" in types
    assert len(drawing.nodes) == len(model) - len(constant_layers(model))
    assert len(drawing.nodes) < len(model) / 1.5
    render(to_dot(model), tmp_path)


def test_bodies_are_clusters_linked_by_their_port_maps(tmp_path):
    model = read(NESTED)
    drawing = Dot(to_dot(model))
    # If (n2) holds a Loop (n7) holding a TensorIterator (n6) with two bodies: four levels, four clusters
    assert drawing.clusters == ["cluster_n2_b0", "cluster_n2_b0_n7_b0", "cluster_n2_b0_n7_b0_n6_b0",
                                "cluster_n2_b0_n7_b0_n6_b1"]
    body = model.node(2).bodies[0]
    folded = constant_layers(body.model)
    assert {f"n2_b0_n{node.id}" for node in body.model if node.id not in folded} <= set(drawing.nodes)
    dotted = [(source, target, label) for source, target, label, extra in drawing.edges if "style=dotted" in extra]
    for entry in body.port_map or ():
        inner = f"n2_b0_n{entry.internal_layer_id}"
        expected = (inner, "n2") if entry.output else ("n2", inner)
        assert (*expected, f"{'out' if entry.output else 'in'} {entry.external_port}") in dotted
    loop = body.model.node(7).bodies[0]
    for back in loop.back_edges:
        assert (f"n2_b0_n7_b0_n{back.from_layer}", f"n2_b0_n7_b0_n{back.to_layer}", "next") in dotted
    assert ("n2_b0_n7", f"n2_b0_n7_b0_n{next(e for e in loop.inputs if e.purpose).internal_layer_id}",
            "current_iteration") in dotted
    svg = render(to_dot(model), tmp_path)
    assert svg.count('class="cluster"') == 4


def test_around_draws_the_layers_within_depth_and_stubs_for_the_rest(tmp_path):
    model = read(RESNET_BLOCK)
    centre = computed_layers(model)[5]
    shown = neighbourhood(model, centre, 1, constant_layers(model))
    sources = {s.node_id for s in model.input_sources(centre) if s is not None} - constant_layers(model)
    readers = {target.node_id for source, target in model.edges() if source.node_id == centre.id}
    assert shown == {centre.id} | sources | readers
    drawing = Dot(to_dot(model, around=centre, depth=1))
    drawn = {name for name, (_, extra) in drawing.nodes.items() if "style=dotted" not in extra}
    stubs = {name for name, (_, extra) in drawing.nodes.items() if "style=dotted" in extra}
    assert drawn == {f"n{i}" for i in shown}
    assert "penwidth=3" in drawing.nodes[f"n{centre.id}"][1]
    # a stub is a layer outside, one edge from a drawn one
    assert stubs and all(any(name in (s, t) and ({s, t} & drawn) for s, t, _, _ in drawing.edges) for name in stubs)
    wider = Dot(to_dot(model, around=centre, depth=3))
    assert drawn < {name for name, (_, extra) in wider.nodes.items() if "style=dotted" not in extra}
    style = DotStyle(notes={centre.id: "max abs error 0.5"}, colours={centre.id: "#f4a6a6"})
    noted = Dot(to_dot(model, around=centre, depth=1, style=style))
    lines, extra = noted.nodes[f"n{centre.id}"]
    assert lines[-1] == "max abs error 0.5" and 'fillcolor="#f4a6a6"' in extra
    render(to_dot(model, around=centre, depth=1, style=style), tmp_path)


def run_info(capsys, *argv):
    code = ir_info.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_ir_info_around_and_its_refusals(capsys):
    model = read(RESNET_BLOCK)
    centre = computed_layers(model)[5]
    code, out, err = run_info(capsys, RESNET_BLOCK, "--dot", "--around", centre.name, "--depth", "1")
    assert (code, err) == (0, "")
    assert out.rstrip("\n") == to_dot(model, around=centre, depth=1)
    code, out, _ = run_info(capsys, RESNET_BLOCK, "--dot", "--around", str(centre.id), "--depth", "1")
    assert code == 0 and f'n{centre.id} [label="{centre.name}' in out
    code, _, err = run_info(capsys, RESNET_BLOCK, "--dot", "--around", "b0c0/WithoutBiasez")
    assert code == 2 and err.startswith("error: ") and "closest: 'b0c0/WithoutBiases'" in err
    code, _, err = run_info(capsys, RESNET_BLOCK, "--around", centre.name)
    assert code == 2 and err == "error: --around is a --dot option: add --dot\n"
    code, _, err = run_info(capsys, RESNET_BLOCK, "--dot", "--depth", "3")
    assert code == 2 and err == "error: --depth is how far --around reaches: add --around LAYER\n"
    code, _, err = run_info(capsys, RESNET_BLOCK, "--const-layers")
    assert code == 2 and err == "error: --const-layers is a --dot option: add --dot\n"
    code, _, err = run_info(capsys, RESNET_BLOCK, "--dot", "--around", centre.name, "--depth", "0")
    assert code == 2 and "--depth" in err
    code, _, err = run_info(capsys, NESTED, "--dot", "--around", _body_layer_name())
    assert code == 2 and "inside" in err


def _body_layer_name() -> str:
    """A layer name found only inside a body of the nested model."""
    model = read(NESTED)
    outer = {node.name for node in model}
    return next(node.name for node in model.node(2).bodies[0].model if node.name not in outer)


def test_a_small_constant_converted_then_reshaped_by_a_constant_pattern_shows_its_values():
    import numpy as np

    import irgraph as ir
    from irgraph.ops.arithmetic.add import Add
    from irgraph.ops.shape.reshape import Reshape
    from irgraph.ops.type.convert import Convert

    model = ir.Model("reshaped_weight")
    x = model.parameter("x", [2, 3])

    def port(op, name, inputs):
        return ir.OutputPort(model.add_node(op, name, inputs).id, 0)

    widened = port(Convert(destination_type=ir.ElementType.F32), "w_f32", [model.const(np.arange(6, dtype=np.float16))])
    reshaped = port(Reshape(special_zero=False), "w_2x3", [widened, model.const(np.array([2, 3], np.int64))])
    add = model.add_node(Add(), "add", [x, reshaped])
    model.result(ir.OutputPort(add.id, 0), name="y")
    ir.infer_shapes(model)
    assert Dot(to_dot(model)).nodes[f"n{add.id}"][0][-1] == (
        "in1: w_2x3 f32[2,3] = Reshape(Convert(Const), Const) = [0, 1, 2, 3, 4, 5]")
