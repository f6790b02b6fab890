"""The op catalogue: OpenVINO's opsets 1-16 as data, how a layer's type/version resolve, lazy op modules."""

from __future__ import annotations

import keyword
import random
import re
import sys

import pytest

from irgraph.ops import Split, catalogue, lookup, registry
from irgraph.ops.catalogue import Kind, classify, find, module_name


@pytest.mark.parametrize(
    ("type_name", "expected"),
    [("MaxPool", "max_pool"), ("ReduceL2", "reduce_l2"), ("NV12toRGB", "nv12_to_rgb"), ("RGBtoNV12", "rgb_to_nv12"),
     ("I420toBGR", "i420_to_bgr"), ("LogicalAnd", "logical_and"), ("NMSRotated", "nms_rotated"),
     ("GroupConvolutionBackpropData", "group_convolution_backprop_data"), ("Const", "const"), ("IsNaN", "is_nan"),
     ("Col2Im", "col2im"), ("ExperimentalDetectronTopKROIs", "experimental_detectron_top_k_rois"),
     ("CTCGreedyDecoderSeqLen", "ctc_greedy_decoder_seq_len"), ("HSwish", "h_swish"), ("DFT", "dft")],
)
def test_module_name_rule(type_name, expected):
    assert module_name(type_name) == expected


def _module_name_by_patterns(type_name: str) -> str:
    word_start, to = catalogue._word_patterns()
    name = word_start.sub("_", to.sub("_to_", type_name)).replace("__", "_").lower()
    return name + "_" if keyword.iskeyword(name) else name


def test_module_names_without_the_patterns_are_the_patterns_names():
    # module_name skips compiling its patterns for plain camel case (Parameter, VariadicSplit): the same names
    names = {spelled for entry in catalogue.all_versions() for spelled in (entry.type_name, entry.ir_name)}
    generator = random.Random(28)
    alphabet = "AaBbTtOoZz09_-é"
    names |= {"".join(generator.choice(alphabet) for _ in range(generator.randrange(1, 9))) for _ in range(5000)}
    names |= {"If", "Loop", "Tile", "TopK", "AtoB", "Ato", "toA", "A1B", "a1B", "AB", "Ab", "aB", "Ab2Cd", "Cto2"}
    special = set(catalogue._MODULE_NAMES)
    assert sum(catalogue._plain_words(name) for name in names - special) > 100  # both ways are exercised
    for name in sorted(names - special):
        assert module_name(name) == _module_name_by_patterns(name), name


def test_the_catalogue_covers_opsets_1_to_16():
    assert catalogue.OPSETS == range(1, 17)
    assert len(catalogue.all_versions()) == 241
    assert len({entry.type_name for entry in catalogue.all_versions()}) == 205
    assert [entry.title for entry in catalogue.opset_contents(1)][:3] == ["Abs-1", "Acos-1", "Add-1"]
    assert len(catalogue.opset_contents(1)) == 109 and len(catalogue.opset_contents(16)) == 203


def test_every_entry_has_a_spec_category_and_a_module_path():
    categories = {entry.category for entry in catalogue.all_versions()}
    assert categories == {
        "activation", "arithmetic", "bitwise", "comparison", "condition", "convolution", "detection", "generation",
        "image", "infrastructure", "logical", "matrix", "movement", "normalization", "pooling", "quantization",
        "reduction", "sequence", "shape", "signals", "sort", "sparse", "type",
    }
    maxpool8 = find("MaxPool", "opset8")
    assert maxpool8 is not None and maxpool8.module == "irgraph.ops.pooling.max_pool"
    assert find("Constant", "opset1").module == "irgraph.ops.infrastructure.const"
    # Ops defined by sub-graph bodies see the graph, so they live in control_flow (spec category kept)
    assert find("If", "opset8").module == "irgraph.control_flow.if_" and find("If", "opset8").category == "condition"
    assert find("TensorIterator", "opset1").modules == ("irgraph.control_flow.tensor_iterator",)
    assert find("SoftMax", "opset8").modules == ("irgraph.ops.activation.softmax", "irgraph.ops.activation.soft_max")


@pytest.mark.parametrize(
    ("type_name", "version", "title", "opsets"),
    [("MaxPool", "opset1", "MaxPool-1", "1-7"), ("ReLU", "opset2", "ReLU-1", "1-16"),
     ("softmax", "opset1", "SoftMax-1", "1-7"), ("MaxPool", "opset9", "MaxPool-8", "8-13"),
     ("MaxPool", "opset16", "MaxPool-14", "14-16"), ("maxpool", "opset14", "MaxPool-14", "14-16"),
     ("Softmax", "opset8", "SoftMax-8", "8-16"), ("Gelu", "opset6", "Gelu-2", "2-6"),
     ("ShuffleChannels", "opset3", "ShuffleChannels-1", "1,3-16"), ("Const", "opset5", "Const-1", "1-16"),
     ("CONSTANT", "opset5", "Const-1", "1-16")],
)
def test_a_version_resolves_to_the_op_version_its_opset_holds(type_name, version, title, opsets):
    entry = find(type_name, version)
    assert entry is not None
    assert (entry.title, catalogue._span_text(entry.opsets).replace(", ", ",")) == (title, opsets)


def test_an_opset_lacking_the_type_is_invalid_with_openvinos_message():
    assert classify("FooBarOp", "opset1") == catalogue.Classification(
        Kind.INVALID, None,
        "Opset opset1 doesn't contain the operation with type: FooBarOp (no OpenVINO opset 1-16 has this type)",
    )
    assert classify("Gelu", "opset1").message == (
        "Opset opset1 doesn't contain the operation with type: Gelu (Gelu-2 in opsets 2-6, Gelu-7 in opsets 7-16)"
    )
    assert classify("ShuffleChannels", "opset2").kind is Kind.INVALID  # OpenVINO's opset2 table lacks it
    assert classify("const", "opset1").kind is Kind.INVALID  # "Const" is read in this exact spelling only


@pytest.mark.parametrize(
    "version",
    ["extension", "custom_opset", "opset17", "opset0", "Opset1", " opset1", "opset01", "opset", "opset\u0661"],
)
def test_a_version_naming_no_catalogued_opset_is_a_custom_op(version):
    assert classify("MyRelu", version) == catalogue.Classification(Kind.CUSTOM)


@pytest.mark.parametrize("version", ["wrongOpset", "extension", "opset17", "Opset1", "opset01"])
def test_a_catalogued_type_in_no_catalogued_opset_is_invalid(version):
    """OpenVINO 2026.4.1 refuses ``Parameter`` with version="wrongOpset" (its IR frontend test WrongOpset)."""
    assert classify("Parameter", version) == catalogue.Classification(
        Kind.INVALID, None,
        f"Cannot create Parameter layer from unsupported opset: {version} (Parameter-1 in opsets 1-16)",
    )
    assert classify("relu", version).kind is Kind.INVALID  # type names match in any case, as OpenVINO's do


def test_lookup_resolves_registered_ops_for_every_opset_containing_them():
    assert lookup("Split", "opset1") is Split and lookup("split", "opset16") is Split
    assert lookup("Split", "opset17") is None and lookup("Split", " opset1") is None
    # every catalogued op version has its class; Constant (titled Const-1) is found by its IR spelling, Const
    assert [v.title for v in catalogue.all_versions() if lookup(v.type_name, v.version) is None] == ["Const-1"]
    assert lookup("Const", "opset1") is not None


@pytest.fixture
def unloaded_detection_output(monkeypatch):
    """``irgraph.ops.detection.detection_output`` not imported yet; registry state restored after."""
    monkeypatch.setattr(registry, "_CLASSES", dict(registry._CLASSES))
    monkeypatch.setattr(registry, "_LOADED", set(registry._LOADED) - {"irgraph.ops.detection.detection_output"})
    saved = sys.modules.pop("irgraph.ops.detection.detection_output", None)
    yield
    sys.modules.pop("irgraph.ops.detection.detection_output", None)
    if saved is not None:
        sys.modules["irgraph.ops.detection.detection_output"] = saved


def test_lookup_imports_a_catalogued_types_module_on_first_use(unloaded_detection_output):
    assert "irgraph.ops.detection.detection_output" not in sys.modules
    found = lookup("DETECTIONOUTPUT", "opset9")
    assert found is not None and found.__module__ == "irgraph.ops.detection.detection_output"
    assert found.opsets == tuple(range(8, 17))  # derived from the catalogue by introduced = 8
    assert found.title() == "DetectionOutput-8"
    assert lookup("DetectionOutput", "opset7").title() == "DetectionOutput-1"
    assert lookup("DetectionOutput", "opset17") is None


def _op_class(type_name: str, introduced: int | None, module: str = "irgraph.ops.activation.relu") -> type:
    from dataclasses import dataclass

    from irgraph.ops.op import Op

    body = {"type_name": type_name, "__module__": module}
    if introduced is not None:
        body["introduced"] = introduced
    return dataclass(frozen=True)(type(f"{type_name}Test", (Op,), body))


@pytest.mark.parametrize(
    ("type_name", "introduced", "module", "message"),
    [("Relu", 2, "irgraph.ops.activation.relu", "ReluTest: the catalogue has no Relu-2 (it has ReLU-1)"),
     ("MaxPool", 9, "irgraph.ops.pooling.max_pool",  # opset9 holds MaxPool-8: 9 is no version of MaxPool
      "MaxPoolTest: the catalogue has no MaxPool-9 (it has MaxPool-1, MaxPool-8, MaxPool-14)"),
     ("FooBarOp", 1, "irgraph.ops.activation.relu",
      "FooBarOpTest: the catalogue has no FooBarOp-1 (no OpenVINO opset 1-16 has this type)"),
     ("Relu", None, "irgraph.ops.activation.relu",
      "ReluTest: an op class declares the version it implements (introduced = N)"),
     ("Relu", 1, "irgraph.ops.activation.elu",
      "ReluTest: ReLU-1 must be defined in irgraph.ops.activation.relu, not irgraph.ops.activation.elu")],
)
def test_register_refuses_a_class_that_contradicts_the_catalogue(type_name, introduced, module, message):
    with pytest.raises(registry.RegistrationError, match=f"^{re.escape(message)}$"):
        registry.register(_op_class(type_name, introduced, module))


def test_register_refuses_an_inherited_version():
    """A subclass implementing another version must say which: AvgPool-14 inherits AvgPool-1's fields."""
    from irgraph.ops.pooling.avg_pool import AvgPool

    subclass = type("AvgPoolNext", (AvgPool,), {"__module__": AvgPool.__module__})
    with pytest.raises(registry.RegistrationError, match="AvgPoolNext: an op class declares the version"):
        registry.register(subclass)


def test_every_registered_class_has_the_catalogues_opsets_for_its_version():
    registry.load_all()
    for op_class in registry.registered_classes():
        entry = find(op_class.type_name, f"opset{op_class.introduced}")
        assert entry is not None and entry.introduced == op_class.introduced, op_class.title()
        assert tuple(op_class.opsets) == entry.opsets, op_class.title()
    titles = {op_class.title(): op_class.opsets for op_class in registry.registered_classes()}
    assert titles["Reverse-1"] == (1,) and titles["ShuffleChannels-1"] == (1, *range(3, 17))
    assert titles["AvgPool-14"] == (14, 15) and titles["LogicalXor-2"] == tuple(range(1, 17))


def test_importing_irgraph_imports_no_catalogued_op_module_it_does_not_need():
    import subprocess

    # irgraph.Model: the core API loads on first use (tests/test_lazy_import.py), and with it the catalogue
    code = "import irgraph, sys; irgraph.Model; print(sorted(m for m in sys.modules if m.startswith('irgraph.ops.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "irgraph.ops.activation" not in out and "irgraph.ops.catalogue" in out


RESOLVE_EVERY_PAIR = """
import json, sys
from irgraph.ops import catalogue, registry
from irgraph.ops.opaque import OpaqueOp

before = sys.argv[1]
if before == "known_ops":
    registry.known_ops()
elif before == "opaque-op-message":
    OpaqueOp(op_type="Fancy", op_version="opset99").cannot_run_reason  # lists the runnable ops
names = sorted({entry.type_name for entry in catalogue.all_versions()} | {"Const", "FooBarOp"})
versions = [f"opset{n}" for n in range(0, 18)] + ["extension"]
verdicts = {}
for type_name in names:
    for spelling in sorted({type_name, catalogue.IR_SPELLING.get(type_name, type_name), type_name.lower(),
                            type_name.upper()}):
        for version in versions:
            found = registry.lookup(spelling, version)
            verdicts[f"{spelling} {version}"] = (
                found.title() if found is not None else catalogue.classify(spelling, version).kind.value
            )
print(json.dumps(verdicts))
"""


def _verdicts_in_a_fresh_process(before: str) -> dict[str, str]:
    import json
    import subprocess

    done = subprocess.run([sys.executable, "-c", RESOLVE_EVERY_PAIR, before], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _expected_verdict(spelling: str, version: str, implemented: dict[str, type]) -> str:
    """The catalogue's answer: the class of the op version the opset holds, "standard" (catalogued, no class),
    or the classification of a pair the catalogue lacks ("invalid"; "custom" for an unknown type)."""
    entry = find(spelling, version)
    if entry is None:
        return classify(spelling, version).kind.value
    op_class = implemented.get(entry.title)
    if op_class is None or (op_class.traits.exact_type_name and spelling != op_class.type_name):
        return Kind.STANDARD.value  # "Constant" is catalogued; OpenVINO reads only "Const" (const.py)
    return op_class.title()


@pytest.mark.parametrize("before", ["nothing", "known_ops", "opaque-op-message"])
def test_every_catalogued_type_and_opset_resolves_as_the_catalogue_says_whatever_was_imported_before(before):
    """Each (type, opsetN) pair, looked up in a fresh process first thing, after known_ops() (which imports every
    op module), or after an opaque op's error message (which calls it): the registered class of the version the
    catalogue gives, catalogued but not implemented, or invalid. Reverse in opset8 was once found only after
    known_ops() had imported its module, which claimed opsets 1-16 (the catalogue: opset1 only)."""
    registry.load_all()
    implemented = {op_class.title(): op_class for op_class in registry.registered_classes()}
    verdicts = _verdicts_in_a_fresh_process(before)
    expected = {key: _expected_verdict(*key.split(" "), implemented) for key in verdicts}
    assert {key: v for key, v in verdicts.items() if v != expected[key]} == {}
    resolved = {(entry.title, key.split(" ")[1]) for key in verdicts if (entry := find(*key.split(" "))) is not None}
    assert resolved >= {(entry.title, f"opset{n}") for entry in catalogue.all_versions() for n in entry.opsets}
    assert {verdict for verdict in verdicts.values() if verdict in implemented} == set(implemented)
    assert verdicts["Reverse opset1"] == "Reverse-1" and verdicts["Reverse opset8"] == "invalid"
    assert verdicts["ShuffleChannels opset2"] == "invalid" and verdicts["shufflechannels opset3"] == "ShuffleChannels-1"
    assert verdicts["AvgPool opset15"] == "AvgPool-14" and verdicts["AvgPool opset16"] == "AvgPool-16"
    assert verdicts["LogicalXor opset1"] == "LogicalXor-2" and verdicts["Xor opset2"] == "invalid"
    # OpenVINO's reader takes MVN in opset1 from opset2, GRUCell marked "extension" from opset6 (exact spelling)
    assert verdicts["MVN opset1"] == "MVN-2" and verdicts["mvn opset1"] == "invalid"
    assert verdicts["GRUCell extension"] == "GRUCell-3" and verdicts["grucell extension"] == "invalid"
