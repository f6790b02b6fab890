"""The command-line tools on a real-world-shaped model (tests/data/realistic/resnet-block, written by
OpenVINO 2026.4.1 from ONNX with fp16 compression): no per-layer noise, summaries, filters, invalid types."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from irgraph.cli import ir_validate
from irgraph.ops import catalogue
from irgraph.ops.registry import lookup

REAL = Path(__file__).resolve().parents[1] / "data" / "realistic" / "resnet-block"


def unchecked_types(xml: Path) -> Counter[str]:
    """Layers per op title that irgraph has no class for, found through the registry (not validation)."""
    found: Counter[str] = Counter()
    for type_name, version in re.findall(r'<layer id="\d+" name="[^"]*" type="([^"]+)" version="([^"]+)"',
                                         xml.read_text("utf-8")):
        entry = catalogue.find(type_name, version)
        if entry is not None and lookup(type_name, version) is None:
            versions = sum(e.type_name == entry.type_name for e in catalogue.all_versions())
            found[entry.title if versions > 1 else entry.ir_name] += 1  # the version only where there are several
    return found


def summary_lines(xml: Path) -> list[str]:
    """The unchecked-op note ir-validate prints for ``xml`` (none when irgraph checks every op)."""
    counts = unchecked_types(xml)
    if not counts:
        return []
    listing = ", ".join(f"{title}×{count}" for title, count in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    layers, types = sum(counts.values()), len(counts)
    return [f"{xml}:2: note: [unchecked-op] {layers} layer{'s' * (layers != 1)} of {types} op type{'s' * (types != 1)} "
            f"not checked yet (kept as declared; they cannot run): {listing}"]


def notes(xml: Path) -> str:
    count = len(summary_lines(xml))
    return f", {count} note" if count else ""


def run(capsys: pytest.CaptureFixture[str], main, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def real_copy(tmp_path: Path):
    """A copy of the real model; ``edit(old, new, count)`` rewrites its XML text and returns the .xml path."""
    shutil.copy(REAL / "model.xml", tmp_path / "model.xml")
    shutil.copy(REAL / "model.bin", tmp_path / "model.bin")
    xml = tmp_path / "model.xml"

    def edit(old: str, new: str, count: int = 1) -> Path:
        text = xml.read_text()
        assert text.count(old) >= count, old
        xml.write_text(text.replace(old, new, count))
        return xml

    return edit


def test_a_real_model_is_one_summary_line_not_a_line_per_layer(capsys):
    model = REAL / "model.xml"
    code, out, err = run(capsys, ir_validate.main, model)
    assert (code, err) == (0, "")
    assert out.splitlines() == [*summary_lines(model), f"{model}: valid: 0 errors, 0 warnings{notes(model)}"]


def test_strict_does_not_fail_on_ops_irgraph_does_not_check_yet(capsys):
    code, out, _ = run(capsys, ir_validate.main, "--strict", REAL / "model.xml")
    assert code == 0 and out.splitlines()[-1].endswith(f"valid: 0 errors, 0 warnings{notes(REAL / 'model.xml')}")


def test_a_type_the_named_opset_lacks_is_an_error_as_openvino_refuses_it(real_copy, capsys):
    xml = real_copy('name="b1_relu" type="ReLU"', 'name="b1_relu" type="FooBarOp"')
    code, out, err = run(capsys, ir_validate.main, xml)
    assert code == 1
    assert out.splitlines()[0] == (
        f"{xml}:583: error: [invalid-op] layer 30 'b1_relu' (FooBarOp): Opset opset1 doesn't contain the operation "
        "with type: FooBarOp (no OpenVINO opset 1-16 has this type); OpenVINO refuses the model"
    )
    assert out.splitlines()[1:-1] == summary_lines(xml)
    assert err.strip() == f"error: {xml}: invalid model (1 error)"


def test_a_custom_op_is_noted_once_and_strict_passes(real_copy, capsys):
    real_copy('type="ReLU" version="opset1"', 'type="MyRelu" version="extension"', 4)
    xml = real_copy('type="Convert" version="opset1"', 'type="MyConvert" version="my_opset"', 2)
    code, out, _ = run(capsys, ir_validate.main, "--strict", xml)
    assert code == 0
    assert f"{xml}:2: note: [custom-op] 6 layers of 2 op types outside OpenVINO's opsets (OpenVINO reads them only " \
           "with their extension; irgraph keeps them as declared): MyRelu (extension)×4, MyConvert (my_opset)×2" \
           in out.splitlines()


def test_a_problem_at_many_layers_is_one_line_unless_verbose(real_copy, capsys):
    xml = real_copy('<data destination_type="f32" />', '<data destination_type="f32" colour="red" />', 3)
    code, out, _ = run(capsys, ir_validate.main, xml)
    assert code == 0
    repeated = [line for line in out.splitlines() if "[unknown-attribute]" in line]
    assert repeated == [f"{xml}:26: warning: [unknown-attribute] layer 2 'b0c0_w' (Convert): Convert-1 has no "
                        "attribute 'colour'; it is ignored [and 2 more (lines 84, 160)]"]
    xml = real_copy('name="b0c0_relu"', 'name="b0_relu"')
    code, out, _ = run(capsys, ir_validate.main, xml)
    assert f"{xml}:131: warning: [duplicate-name] layer 7 'b0_relu' (ReLU): 2 layers are named 'b0_relu' " \
           "[and 1 more (lines 290)]" in out.splitlines()
    code, out, _ = run(capsys, ir_validate.main, "--verbose", xml)
    assert sum("[duplicate-name]" in line for line in out.splitlines()) == 2


def test_select_and_ignore_filter_by_code(real_copy, capsys):
    xml = real_copy('name="b0c0_relu"', 'name="b0_relu"')
    code, out, _ = run(capsys, ir_validate.main, "--select", "duplicate-name", xml)
    assert [line.split(": ", 2)[1] for line in out.splitlines()[:-1]] == ["warning"]
    assert out.splitlines()[-1] == f"{xml}: valid: 0 errors, 2 warnings"  # one line for the two layers
    code, out, _ = run(capsys, ir_validate.main, "--ignore", "unchecked-op", "--ignore=duplicate-name", xml)
    assert out.splitlines() == [f"{xml}: valid: 0 errors, 0 warnings"]
    code, out, _ = run(capsys, ir_validate.main, "--strict", "--select", "duplicate-name,unchecked-op", xml)
    assert code == 1 and out.splitlines()[-1] == f"{xml}: invalid: 2 errors, 0 warnings{notes(xml)}"


def test_an_unknown_code_for_select_is_a_warning_naming_the_codes(capsys):
    code, out, err = run(capsys, ir_validate.main, "--select", "unknown-op", REAL / "model.xml")
    assert code == 0
    assert err.startswith("warning: --select: no diagnostic has the code 'unknown-op' (codes: const-size, custom-op,")
    assert out.splitlines() == [f"{REAL / 'model.xml'}: valid: 0 errors, 0 warnings"]


def test_json_holds_every_diagnostic_and_the_summary_counts(real_copy, capsys):
    xml = real_copy('name="b0c0_relu"', 'name="b0_relu"')
    code, out, _ = run(capsys, ir_validate.main, "--json", "--ignore", "cycle", xml)
    report = json.loads(out)
    assert (report["select"], report["ignore"]) == (None, ["cycle"])
    (file,) = report["files"]
    assert (file["errors"], file["warnings"], file["notes"]) == (0, 2, len(summary_lines(xml)))
    expected = unchecked_types(xml)
    assert [d["code"] for d in file["diagnostics"]] == ["duplicate-name", "duplicate-name"] + ["unchecked-op"] * bool(
        expected)
    if expected:
        summary = file["diagnostics"][-1]
        assert summary["counts"] == dict(expected)
        assert (summary["severity"], summary["line"], summary["layer_id"]) == ("note", 2, None)


# ------------------------------------------------------------------------------------ ir-info
def info(capsys, *argv):
    from irgraph.cli import ir_info

    return run(capsys, ir_info.main, *argv)


def test_info_shows_weights_compression_and_the_models_rt_info(capsys):
    code, out, err = info(capsys, REAL / "model.xml")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "consts     9 f16, 1 i64" in lines
    assert "compressed 9 decompression Converts (weights stored compressed, converted on load)" in lines
    assert lines[lines.index("rt_info:"):] == [
        "rt_info:",
        "  OpenVINO Runtime: 2026.4.1-22982-e213a147257-releases/2026/4",
        "  Runtime_version: 2026.4.1-22982-e213a147257-releases/2026/4",
        "  conversion_parameters:",
        "    is_python_object: False",
    ]
    code, out, _ = info(capsys, "--json", REAL / "model.xml")
    report = json.loads(out)
    assert report["rt_info"]["conversion_parameters"] == {"is_python_object": "False"}
    assert report["weights"]["decompression"] == 9 and report["weights"]["consts"] == {"f16": 9, "i64": 1}


@pytest.mark.parametrize("damage", ["missing", "truncated", "directory"])
def test_info_works_from_the_xml_alone(real_copy, damage, capsys):
    xml = real_copy("<layers>", "<layers>")
    weights = xml.with_suffix(".bin")
    if damage == "missing":
        weights.unlink()
    elif damage == "truncated":
        weights.write_bytes(weights.read_bytes()[:300])
    else:
        weights.unlink()
        weights.mkdir()
    code, out, err = info(capsys, xml)
    assert code == 0
    (warning,) = err.splitlines()
    assert warning.startswith(f"warning: {xml}: ")
    reason = {
        "missing": f"there is no weights file: '{weights}' does not exist",
        "truncated": "Const bytes [",
        "directory": f"cannot open the weights file '{weights}'",
    }[damage]
    assert reason in warning
    without = 10 if damage != "truncated" else 8  # 300 bytes still hold the first two Consts ([0, 296))
    assert warning.endswith(f"so {without} Const layers have no data (the topology needs none)")
    assert "inputs:" in out and "y  f32  [1,3]" in out


def test_info_layers_lists_every_layer_with_its_types(capsys):
    code, out, _ = info(capsys, "--layers", REAL / "model.xml")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 38
    assert lines[0].split() == ["id", "name", "type", "inputs", "outputs", "tensor", "names", "attributes"]
    assert " ".join(lines[4].split()) == ("3 b0c0/WithoutBiases Convolution-1 f32[1,4,8,8], f32[4,4,3,3] f32[1,4,8,8] "
                                          "strides=1, 1; dilations=1, 1; pads_begin=1, 1; pads_end=1, 1; "
                                          "auto_pad=explicit")
    assert " ".join(lines[-1].split()) == "36 y/sink_port_0 Result-1 f32[1,3] -"


def test_info_dot_shows_attributes_and_folds_decompressed_weights(real_copy, capsys):
    code, out, _ = info(capsys, "--dot", REAL / "model.xml")
    assert code == 0
    lines = out.splitlines()
    assert ('  n3 [label="b0c0/WithoutBiases\\nConvolution-1\\nstrides=1, 1; dilations=1, 1; pads_begin=1, 1\\n'
            'pads_end=1, 1; auto_pad=explicit\\nin1: b0c0_w f32[4,4,3,3] = Convert(Const)"];') in lines
    # 4 values: shown through the Convert; 144 values are not
    assert ('  n6 [label="b0c0\\nAdd-1\\nauto_broadcast=numpy\\nin1: Reshape_15 f32[1,4,1,1] = Convert(Const) = '
            '[-0.09943, 0.06604, -0.1652, -0.05969]"];') in lines
    assert not any("Const-1" in line or "Convert-1" in line for line in lines)
    code, out, _ = info(capsys, "--dot", "--const-layers", REAL / "model.xml")
    assert 'n4 [label="Reshape_15_compressed\\nConst-1\\nf16[1,4,1,1] = [-0.09943, 0.06604, -0.1652, -0.05969]", ' \
           'style=dashed];' in out
    assert 'n1 [label="b0c0_w_compressed\\nConst-1\\nf16[4,4,3,3]", style=dashed];' in out  # 144 values: none shown
    xml = real_copy("<layers>", "<layers>")
    xml.with_suffix(".bin").unlink()
    code, out, _ = info(capsys, "--dot", xml)
    assert code == 0 and "in1: Reshape_15 f32[1,4,1,1] = Convert(Const)\"];" in out


# ------------------------------------------------------------------------------------ ir-convert
def convert(capsys, *argv):
    from irgraph.cli import ir_convert

    return run(capsys, ir_convert.main, *argv)


def test_v10_down_conversion_says_what_it_drops_once_per_kind(tmp_path, capsys):
    destination = tmp_path / "v10.xml"
    code, out, err = convert(capsys, REAL / "model.xml", destination, "--ir-version", "10")
    assert code == 0 and out.startswith(f"wrote {destination}")
    assert err.splitlines() == [
        f"warning: {destination}: IR v10 cannot hold layer rt_info: 9 layers' rt_info dropped (decompression×9)",
    ]
    text = destination.read_text()
    assert 'version="10"' in text and "decompression" not in text
    assert "<conversion_parameters>" in text  # the model's rt_info: OpenVINO's v10 reader keeps it


def test_v10_losses_name_port_rt_info_and_result_names_too(real_copy, tmp_path, capsys):
    real_copy('output_names="y"', 'output_names="logits"')
    xml = real_copy('<port id="2" precision="FP32" names="y">',
                    '<port id="2" precision="FP32" names="y">\n<rt_info><attribute name="fused_names" version="0" '
                    'value="fc" /></rt_info>')
    destination = tmp_path / "out" / "v10.xml"
    destination.parent.mkdir()
    code, _, err = convert(capsys, xml, destination, "--ir-version", "10")
    assert code == 0
    assert err.splitlines()[1:] == [
        f"warning: {destination}: IR v10 cannot hold port rt_info: 1 port's rt_info dropped (fused_names×1)",
        f"warning: {destination}: IR v10 cannot hold Result output_names: 1 Result's output_names dropped (names "
        "their producing port does not carry)",
    ]


def test_convert_prints_the_readers_notes_once_per_kind(tmp_path, capsys):
    v10 = tmp_path / "v10.xml"
    convert(capsys, REAL / "model.xml", v10, "--ir-version", "10")
    text = v10.read_text().replace("<data destination_type=\"f32\" />", "<data destination_type=\"f32\" />\n"
                                   "\t\t\t<rt_info><attribute name=\"decompression\" version=\"0\" /></rt_info>")
    v10.write_text(text)
    code, _, err = convert(capsys, v10, tmp_path / "again.xml")
    assert code == 0
    (line,) = err.splitlines()
    assert line.startswith(f"warning: {v10}:") and line.endswith(
        "(Convert): IR v10 has no layer or port rt_info; OpenVINO ignores it (and 8 more like it)")


def test_info_says_what_irgraph_does_with_each_op(real_copy, capsys):
    real_copy('name="b1_relu" type="ReLU"', 'name="b1_relu" type="FooBarOp"')
    xml = real_copy('name="pool" type="ReduceMean" version="opset1"', 'name="pool" type="MyMean" version="ext"')
    code, out, _ = info(capsys, xml)
    assert code == 0
    rows = {" ".join(line.split()[:2]): " ".join(line.split()[2:]) for line in out.splitlines()
            if line.startswith("  ") and "-" in line.split()[0]}
    assert rows["Const-1 10"] == "runs" and rows["Convert-1 9"] == "runs"
    assert rows["FooBarOp-1 1"] == "not in its opset" and rows["MyMean-ext 1"] == "custom op"
    code, out, _ = info(capsys, "--json", xml)
    assert json.loads(out)["op_support"]["ReLU-1"] == "runs"
