"""The committed op catalogue against the installed OpenVINO: its opset tables and its IR reader's verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.ops import catalogue
from irgraph.ops.catalogue import Kind, classify
from tests.oracle import make_catalogue

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")

pytestmark = pytest.mark.oracle


def test_the_committed_catalogue_is_what_the_installed_openvinos_tables_give():
    version, entries = make_catalogue.derive()
    committed = [(e.type_name, e.version, e.category, e.opsets) for e in catalogue.all_versions()]
    added = sorted(set(entries) - set(committed))
    removed = sorted(set(committed) - set(entries))
    assert (added, removed) == ([], []), (
        f"OpenVINO {version}'s opset tables differ from the catalogue generated from OpenVINO "
        f"{catalogue.OPENVINO_VERSION}: new {added}, gone {removed}; run python -m tests.oracle.make_catalogue"
    )
    assert make_catalogue.render(version, entries) == make_catalogue.DATA_FILE.read_text()


def _one_op_ir(type_name: str, version: str) -> bytes:
    port = '<port id="{}" precision="FP32"><dim>1</dim><dim>2</dim></port>'
    return f"""<?xml version="1.0"?>
<net name="m" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,2" element_type="f32"/>
<output>{port.format(0)}</output></layer>
<layer id="1" name="op" type="{type_name}" version="{version}"><input>{port.format(0)}</input>
<output>{port.format(1)}</output></layer>
<layer id="2" name="y" type="Result" version="opset1"><input>{port.format(0)}</input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>""".encode()


def _openvino_verdict(type_name: str, version: str) -> str:
    try:
        ov.Core().read_model(_one_op_ir(type_name, version), ov.Tensor(np.zeros(0, np.uint8)))
    except RuntimeError as err:
        return str(err).strip().splitlines()[-1]
    return "read"


@pytest.mark.parametrize(
    ("type_name", "version"),
    [("Relu", "opset1"), ("RELU", "opset16"), ("Gelu", "opset2"), ("Gelu", "opset1"), ("FooBarOp", "opset1"),
     ("Sigmoid", "opset9"), ("SoftPlus", "opset3"), ("SoftPlus", "opset4"), ("HSwish", "opset4"),
     ("FooBarOp", "extension"), ("Relu", "extension"), ("Parameter", "wrongOpset"), ("FooBarOp", "opset99"),
     ("Relu", "opset17"), ("Relu", "Opset1"), ("Relu", "opset01")],
)
def test_classification_agrees_with_openvinos_reader(type_name, version):
    """OpenVINO 2026.4.1 reads standard ops, refuses invalid types with the message irgraph quotes, and refuses
    any version outside its opsets without an extension ("Cannot create ... from unsupported opset"); irgraph
    refuses that too for the types of OpenVINO's opsets (an extension would have to claim a core type's name)
    and keeps the others as custom ops."""
    verdict = _openvino_verdict(type_name, version)
    found = classify(type_name, version)
    unsupported = f"Cannot create {type_name} layer op id:1 from unsupported opset: {version}"
    if version == "opset17":  # newer than the catalogue: OpenVINO 2026.4.1's opset17 is in development
        unsupported = f"Opset opset17 doesn't contain the operation with type: {type_name}"
    if found.kind is Kind.STANDARD:
        assert verdict == "read"
    elif found.kind is Kind.INVALID and catalogue.opset_number(version) in catalogue.OPSETS:
        assert found.message.startswith(verdict)
    elif found.kind is Kind.INVALID:
        assert verdict == unsupported
        assert found.message.startswith(f"Cannot create {type_name} layer from unsupported opset: {version} (")
    else:
        assert verdict == unsupported
        assert not catalogue.versions_of(type_name)


def _two_input_ir(type_name: str, version: str) -> bytes:
    """One layer on two inputs with a variable_id: OpenVINO 2026.4.1's reader crashes (SIGSEGV) on a one-input
    Broadcast-1 and on an Assign or ReadValue without a variable; every other op refuses the inputs it does not
    take after the reader has found its type (or reads)."""
    port = '<port id="{}" precision="FP32"><dim>1</dim><dim>2</dim></port>'
    return f"""<?xml version="1.0"?>
<net name="m" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,2" element_type="f32"/>
<output>{port.format(0)}</output></layer>
<layer id="1" name="op" type="{type_name}" version="{version}"><data variable_id="v"/>
<input>{port.format(0)}{port.format(1)}</input><output>{port.format(2)}</output></layer>
<layer id="2" name="y" type="Result" version="opset1"><input>{port.format(0)}</input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>
<edge from-layer="1" from-port="2" to-layer="2" to-port="0"/></edges></net>""".encode()


def test_openvinos_reader_finds_a_type_exactly_where_the_catalogue_does():
    """Every catalogued type (IR spelling and lower case) in every opset 1-16 and as "experimental"/"extension":
    OpenVINO 2026.4.1's IR reader refuses the type ("doesn't contain the operation", "unsupported opset") exactly
    where irgraph classifies it invalid. Its reader takes MVN, ROIPooling and ReorgYolo in opset1 (from opset2)
    and eight ops marked experimental or extension (from opset6), in their exact spelling only."""
    core, empty = ov.Core(), ov.Tensor(np.zeros(0, np.uint8))
    names = sorted({spelling for entry in catalogue.all_versions()
                    for spelling in (entry.ir_name, entry.ir_name.lower()) if spelling != "const"})
    versions = [f"opset{n}" for n in catalogue.OPSETS] + ["experimental", "extension"]
    disagreements, redirected = [], []
    for type_name in names:
        for version in versions:
            try:
                core.read_model(_two_input_ir(type_name, version), empty)
                verdict = "read"
            except RuntimeError as err:
                verdict = str(err).strip().splitlines()[-1]
            refused = "doesn't contain the operation" in verdict or "from unsupported opset" in verdict
            if refused != (classify(type_name, version).kind is Kind.INVALID):
                disagreements.append((type_name, version, verdict))
            if not refused and catalogue.reader_opset(type_name, version) != version:
                redirected.append(f"{type_name} {version}")
    assert disagreements == []
    assert len(redirected) == 3 + 2 * 8  # every exception of the reader was met, and read


REAL = make_catalogue.DATA_FILE.parents[3] / "tests" / "data" / "realistic" / "resnet-block" / "model.xml"


def _read_with_openvino(xml: str) -> str:
    try:
        ov.Core().read_model(xml.encode(), ov.Tensor(np.fromfile(REAL.with_suffix(".bin"), np.uint8)))
    except RuntimeError as err:
        return str(err).strip().splitlines()[-1]
    return "read"


def test_openvino_reads_the_real_model_and_refuses_it_with_an_invalid_type():
    """The files tests/cli/test_real_models.py validates: OpenVINO 2026.4.1 reads the model as written, refuses
    FooBarOp in opset1 (irgraph: an invalid-op error) and an op of an unknown opset without its extension
    (irgraph keeps it: a custom-op note)."""
    text = REAL.read_text()
    assert _read_with_openvino(text) == "read"
    foo = text.replace('name="b1_relu" type="ReLU"', 'name="b1_relu" type="FooBarOp"')
    assert _read_with_openvino(foo) == "Opset opset1 doesn't contain the operation with type: FooBarOp"
    custom = text.replace('name="b1_relu" type="ReLU" version="opset1"', 'name="b1_relu" type="MyRelu" '
                                                                         'version="extension"')
    assert _read_with_openvino(custom) == "Cannot create MyRelu layer b1_relu id:30 from unsupported opset: extension"


def test_openvino_reads_a_model_whose_assign_feeds_nothing():
    from tests.analysis.test_validation import STATEFUL

    model = ov.Core().read_model(STATEFUL.encode(), ov.Tensor(np.zeros(0, np.uint8)))
    assert [sink.get_type_name() for sink in model.get_sinks()] == ["Assign"]
