"""Resource bombs: declared shapes of 10^15 elements are refused before anything is allocated (a per-tensor
element budget, default 2^31, that --max-elements and element_limit= raise), and a 200,000-layer model is
refused before parsing (over 1,000,000), while a 20,000-layer one reads, validates and runs in bounded memory."""

from __future__ import annotations

import io
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np

import irgraph as ir
from irgraph.cli import ir_convert, ir_run, ir_validate
from irgraph.core.errors import ResourceLimitError, WeightsError
from irgraph.io.xml import security as xml_security
from tests.helpers import line_of
from tests.hostile.conftest import (
    EXIT_FAILURE,
    const,
    edge,
    expect_cli_error,
    expect_error,
    layer,
    net,
    parameter,
    port,
    result,
    run_tool,
    save_npz,
    split_model,
)

HUGE = (100_000, 100_000, 100_000)  # 10^15 elements
DEFAULT_LIMIT = 2**31


def _peak_bytes(call) -> int:
    """Peak Python-heap bytes while running ``call`` (errors included)."""
    tracemalloc.start()
    try:
        try:
            call()
        except ir.IrError:
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _huge_const_model() -> str:
    """x f32[2,6] -> Concat(x, c) where c is a Const f32 declared [10^5,10^5,10^5] (10^15 elements)."""
    return net(
        [parameter(0), const(1, "c", "f32", HUGE, 0, 4 * 10**15, "FP32"),
         layer(2, "cat", "Concat", data={"axis": "0"}, inputs=[port(0, (2, 6)), port(1, HUGE)], outputs=[port(2)]),
         result(3, "r")],
        [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)],
    )


def test_a_const_of_10_to_the_15_elements_is_refused_before_anything_is_allocated(write_ir, capsys):
    text = _huge_const_model()
    files = write_ir(text, bytes(24))
    line = line_of(text, '<layer id="1"')
    message = f"Const of shape [100000, 100000, 100000] has {10**15} elements; the limit is {DEFAULT_LIMIT}"
    expect_error(lambda: ir.read_model(files.xml), ResourceLimitError, message, file=files.xml, line=line, layer_id=1)
    assert _peak_bytes(lambda: ir.read_model(files.xml)) < 20 * 2**20
    output = files.directory / "out.npz"
    expect_cli_error(ir_run.main, [files.xml, "--output", output], capsys, EXIT_FAILURE, message)
    assert not output.exists()
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_FAILURE, message)


def test_the_element_budget_is_raised_by_a_keyword_and_a_flag(write_ir, capsys):
    files = write_ir(_huge_const_model(), bytes(24))
    # Above the budget, the next check applies: the 24-byte .bin cannot hold the declared bytes.
    message = f"Const bytes [0, {4 * 10**15}) lie outside the weights file of 24 bytes"
    expect_error(lambda: ir.read_model(files.xml, element_limit=10**15), WeightsError, message, file=files.xml)
    expect_cli_error(ir_run.main, [files.xml, "--max-elements", str(10**15)], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml", "--max-elements", "1e15"], capsys, 2,
                     "argument --max-elements: expected an integer, got '1e15'")


def test_the_element_budget_can_also_be_lowered(write_ir, capsys):
    xml, weights = split_model()
    files = write_ir(xml, weights)
    inputs = save_npz(files.directory / "inputs.npz", x=np.zeros((2, 6), np.float32))
    expect_cli_error(ir_run.main, [files.xml, "--inputs", inputs, "--max-elements", "11"], capsys, EXIT_FAILURE,
                     "array 'x' declares 12 elements, above the limit of 11 (see --max-elements)")
    model = ir.read_model(files.xml)
    expect_error(lambda: ir.Interpreter(model, element_limit=11).run({"x": np.zeros((2, 6), np.float32)}),
                 ResourceLimitError, "input 'x' has 12 elements, above the limit of 11", file=files.xml,
                 line=line_of(xml, '<layer id="0"'), layer_id=0)
    assert run_tool(ir_run.main, [files.xml, "--inputs", inputs, "--max-elements", "12"], capsys).code == 0


def test_a_computed_tensor_above_the_budget_is_refused_at_its_layer(write_ir, capsys):
    text = net(
        [parameter(0, shape=(4,)),
         layer(1, "cat", "Concat", data={"axis": "0"}, inputs=[port(0, (4,)), port(1, (4,)), port(2, (4,))],
               outputs=[port(3, (12,))]),
         result(2, "r", (12,))],
        [edge(0, 0, 1, 0), edge(0, 0, 1, 1), edge(0, 0, 1, 2), edge(1, 3, 2, 0)],
    )
    files = write_ir(text)
    model = ir.read_model(files.xml)
    message = "output 0 has 12 elements, above the limit of 10"
    expect_error(lambda: ir.Interpreter(model, element_limit=10).run({"x": np.zeros(4, np.float32)}),
                 ResourceLimitError, message, file=files.xml, line=line_of(text, '<layer id="1"'), layer_id=1)
    inputs = save_npz(files.directory / "inputs.npz", x=np.zeros(4, np.float32))
    output = files.directory / "out.npz"
    expect_cli_error(ir_run.main, [files.xml, "--inputs", inputs, "--max-elements", "10", "--output", output], capsys,
                     EXIT_FAILURE, message)
    assert not output.exists()


def test_random_data_for_a_parameter_of_10_to_the_15_elements_is_refused(write_ir, capsys):
    text = net([parameter(0, shape=HUGE), result(1, "r", HUGE)], [edge(0, 0, 1, 0)])
    files = write_ir(text)
    model = ir.read_model(files.xml)  # declaring it costs nothing
    assert [d for d in ir.validate(model) if d.is_error] == []
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE,
                     f"random data for input 'x' would have {10**15} elements, above the limit of {DEFAULT_LIMIT}")


def _npy_header_only(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    """A .npy that declares ``shape`` but holds no data."""
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, {"descr": dtype, "fortran_order": False, "shape": shape})
    return stream.getvalue()


def test_an_input_file_declaring_10_to_the_15_elements_is_refused_from_its_header(write_ir, tmp_path, capsys):
    xml, weights = split_model()
    files = write_ir(xml, weights)
    inputs = tmp_path / "inputs.npz"
    with zipfile.ZipFile(inputs, "w") as archive:
        archive.writestr("x.npy", _npy_header_only(HUGE))
    npy = tmp_path / "x.npy"
    npy.write_bytes(_npy_header_only(HUGE))
    message = f"declares {10**15} elements, above the limit of {DEFAULT_LIMIT}"
    expect_cli_error(ir_run.main, [files.xml, "--inputs", inputs], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_run.main, [files.xml, "-i", f"x={npy}"], capsys, EXIT_FAILURE, message)


# ------------------------------------------------------------------------------------ many layers
def chain_xml(pairs: int) -> str:
    """x f32[2,4] -> (Split(axis 1, 2) -> Concat(swapped) on axis 1) x ``pairs`` -> y: 2 * pairs + 3 layers.

    An even number of pairs gives back x. One axis Const feeds every Split. Written directly as text (fast).
    """
    d24, d22 = "<dim>2</dim><dim>4</dim>", "<dim>2</dim><dim>2</dim>"
    out = [
        '<?xml version="1.0"?>\n<net name="chain" version="11">\n\t<layers>\n',
        '\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="2,4" element_type="f32" />\n'
        f'\t\t\t<output><port id="0" precision="FP32" names="x">{d24}</port></output>\n\t\t</layer>\n',
        '\t\t<layer id="1" name="axis" type="Const" version="opset1">\n'
        '\t\t\t<data element_type="i64" shape="" offset="0" size="8" />\n'
        '\t\t\t<output><port id="0" precision="I64" /></output>\n\t\t</layer>\n',
    ]
    edges = []
    previous = (0, 0)
    for i in range(pairs):
        s, c = 2 + 2 * i, 3 + 2 * i
        out.append(
            f'\t\t<layer id="{s}" name="s{i}" type="Split" version="opset1">\n\t\t\t<data num_splits="2" />\n'
            f'\t\t\t<input><port id="0" precision="FP32">{d24}</port><port id="1" precision="I64" /></input>\n'
            f'\t\t\t<output><port id="2" precision="FP32">{d22}</port><port id="3" precision="FP32">{d22}</port>'
            "</output>\n\t\t</layer>\n"
            f'\t\t<layer id="{c}" name="c{i}" type="Concat" version="opset1">\n\t\t\t<data axis="1" />\n'
            f'\t\t\t<input><port id="0" precision="FP32">{d22}</port><port id="1" precision="FP32">{d22}</port>'
            f'</input>\n\t\t\t<output><port id="2" precision="FP32">{d24}</port></output>\n\t\t</layer>\n'
        )
        edges.append(
            f'\t\t<edge from-layer="{previous[0]}" from-port="{previous[1]}" to-layer="{s}" to-port="0" />\n'
            f'\t\t<edge from-layer="1" from-port="0" to-layer="{s}" to-port="1" />\n'
            f'\t\t<edge from-layer="{s}" from-port="3" to-layer="{c}" to-port="0" />\n'
            f'\t\t<edge from-layer="{s}" from-port="2" to-layer="{c}" to-port="1" />\n'
        )
        previous = (c, 2)
    last = 2 + 2 * pairs
    out.append(f'\t\t<layer id="{last}" name="y" type="Result" version="opset1">\n'
               f'\t\t\t<input><port id="0" precision="FP32">{d24}</port></input>\n\t\t</layer>\n')
    edges.append(f'\t\t<edge from-layer="{previous[0]}" from-port="{previous[1]}" to-layer="{last}" to-port="0" />\n')
    return "".join(out) + "\t</layers>\n\t<edges>\n" + "".join(edges) + "\t</edges>\n</net>\n"


def _in_a_child(code: str, *args: str) -> tuple[int, str]:
    """Run ``code`` in a fresh Python; its peak resident memory in MiB (C allocations included) and its stdout.

    The peak is /proc's VmHWM, which starts afresh at exec (ru_maxrss keeps the forking pytest's size on Linux).
    """
    script = code + (
        "\nimport resource\n"
        "try:\n    peak = int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
        "except (OSError, IndexError):\n    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print('peak', peak)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.returncode == 0, done.stderr
    peak_kib = int(done.stdout.split("peak")[-1])
    return peak_kib >> 10, done.stdout


def test_a_model_over_the_old_100000_layer_cap_reads_writes_and_reads_back(tmp_path):
    """Issue 26 item 9: irgraph wrote 200,000-node ONNX conversions it then refused to read (cap 100,000).
    The cap is 1,000,000 now; memory bounded, no timing assertion (the child's timeout bounds it)."""
    path = tmp_path / "model.xml"
    path.write_text(chain_xml(50_000))
    (tmp_path / "model.bin").write_bytes(np.int64(1).tobytes())
    peak, out = _in_a_child(
        "import sys, numpy as np, irgraph as ir\n"
        "model = ir.read_model(sys.argv[1])\n"
        "ir.write_model(model, sys.argv[2])\n"
        "again = ir.read_model(sys.argv[2])\n"
        "x = np.arange(8, dtype=np.float32).reshape(2, 4)\n"
        "y = ir.Interpreter(again).run({'x': x})['y']\n"
        "print('layers', len(model), len(again), 'same', np.array_equal(x, y))\n",
        str(path), str(tmp_path / "copy.xml"),
    )
    assert "layers 100003 100003 same True" in out
    assert peak < 1536, f"peak {peak} MiB"  # measured 602 MiB (read 2.6 s, write 3.3 s, read back 2.8 s)


def test_a_model_over_the_layer_cap_is_refused_before_parsing_and_never_written(write_ir, monkeypatch, capsys):
    files = write_ir(chain_xml(600), np.int64(1).tobytes())
    model = ir.read_model(files.xml)  # 1,203 layers
    monkeypatch.setattr(xml_security, "MAX_LAYERS", 1000)
    message = "the file has about 1203 layers; irgraph reads at most 1000"
    expect_error(lambda: ir.read_model(files.xml), ResourceLimitError, message, file=files.xml)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    assert "error: [resource-limit]" in outcome.out
    copy = files.directory / "copy.xml"
    expect_cli_error(ir_convert.main, [files.xml, copy], capsys, EXIT_FAILURE, message)
    # What the reader refuses, the writer does not write (it names the limit and where to raise it).
    err = expect_error(lambda: ir.write_model(model, copy), ResourceLimitError,
                       f"not written: irgraph would not read it back ({message}; the limits are MAX_LAYERS",
                       file=copy)
    assert "irgraph.io.xml.security" in err.message
    assert sorted(p.name for p in files.directory.iterdir()) == ["model.bin", "model.xml"]


def test_a_tree_too_big_to_parse_is_refused_before_parsing(write_ir, monkeypatch, capsys):
    # A comment leaves OpenVINO's layout, so the reader needs an lxml tree (the layout itself is read without one).
    files = write_ir(chain_xml(500).replace("<layers>", "<!-- a comment --><layers>", 1), np.int64(1).tobytes())
    monkeypatch.setattr(xml_security, "MAX_PARSE_BYTES", 2**20)
    err = expect_error(lambda: ir.read_model(files.xml), ResourceLimitError, "attributes; parsing them would take",
                       file=files.xml)
    assert "more than irgraph's limit of 1 MiB" in err.message
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, "more than irgraph's limit of 1 MiB")
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, "more than irgraph's limit of 1 MiB")


def test_a_file_in_openvinos_layout_is_read_without_a_tree_past_the_parse_limit(write_ir, monkeypatch, capsys):
    files = write_ir(chain_xml(500), np.int64(1).tobytes())
    monkeypatch.setattr(xml_security, "MAX_PARSE_BYTES", 2**20)
    assert len(ir.read_model(files.xml)) == 1003
    outcome = run_tool(ir_validate.main, [files.xml], capsys)
    assert outcome.code == 0, outcome.out + outcome.err
    assert "the schema pass is skipped" in outcome.out


def test_a_20000_layer_model_reads_validates_and_runs_in_bounded_memory(tmp_path):
    """The size research/anchors.md section 4(b) measures; no timing assertion (no flakes), memory bounded."""
    path = tmp_path / "model.xml"
    path.write_text(chain_xml(10_000))
    (tmp_path / "model.bin").write_bytes(np.int64(1).tobytes())
    peak, out = _in_a_child(
        "import sys, numpy as np, irgraph as ir\n"
        "model = ir.read_model(sys.argv[1])\n"
        "assert len(model) == 20_003 and not [d for d in ir.validate(model) if d.is_error]\n"
        "x = np.arange(8, dtype=np.float32).reshape(2, 4)\n"
        "y = ir.Interpreter(model).run({'x': x})['y']\n"
        "print('same', np.array_equal(x, y))\n",  # an even number of swaps gives x back
        str(path),
    )
    assert "same True" in out
    assert peak < 1024, f"peak {peak} MiB"
