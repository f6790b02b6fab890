"""StringTensorPack-15 and StringTensorUnpack-15: the spec's examples, generated string tensors against OpenVINO's
CPU plugin and a plain formulation, shapes and refusals, and string tensors end to end through an IR written by
OpenVINO: fed to ``ir-run`` and saved as NumPy unicode arrays in .npz, described by ``ir-info``.

OpenVINO 2026.4.1 folds neither op; its CPU plugin runs both on string Parameters and judges every value.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset15 as ov15
import pytest

import irgraph as ir
from irgraph.cli import ir_info, ir_run
from irgraph.core.errors import IrError
from irgraph.ops.type.string_tensor_pack import StringTensorPack
from irgraph.ops.type.string_tensor_unpack import StringTensorUnpack
from tests.ops.differential import check_types, same_op
from tests.ops.helpers import tt

PACK, UNPACK = StringTensorPack(), StringTensorUnpack()
WORDS = ["", "a", "Intel", "OpenVINO", "ünïcode", "日本語", "emoji 🙂", "tab\tand\nnewline", "x" * 40]


def strings(values, shape=None) -> np.ndarray:
    array = np.empty(len(values), object)
    array[:] = values
    return array.reshape(shape if shape is not None else (len(values),))


def test_the_spec_examples():
    # Unpack: ["Intel", "OpenVINO"] -> begins [0, 5], ends [5, 13], symbols "IntelOpenVINO"
    begins, ends, symbols = UNPACK.evaluate([strings(["Intel", "OpenVINO"])])
    assert (begins.tolist(), ends.tolist(), symbols.tobytes()) == ([0, 5], [5, 13], b"IntelOpenVINO")
    assert (begins.dtype, ends.dtype, symbols.dtype) == (np.int32, np.int32, np.uint8)
    # Pack: the same spans back, and overlapping or skipped spans as the indices say
    (packed,) = PACK.evaluate([begins, ends, symbols])
    assert packed.tolist() == ["Intel", "OpenVINO"] and packed.dtype == object
    (overlapping,) = PACK.evaluate([np.array([[0, 5], [2, 5]], np.int64), np.array([[5, 13], [4, 5]], np.int64),
                                    symbols])
    assert overlapping.tolist() == [["Intel", "OpenVINO"], ["te", ""]]


def test_unpack_counts_utf8_bytes_not_characters():
    begins, ends, symbols = UNPACK.evaluate([strings(["日本", "ü"], (2, 1))])
    assert begins.tolist() == [[0], [6]] and ends.tolist() == [[6], [8]] and symbols.size == 8


# ------------------------------------------------------------------------------------ generated, against the CPU plugin
def string_tensors(count: int = 24) -> list[np.ndarray]:
    rng = np.random.default_rng(15)
    shapes = [(), (0,), (3,), (2, 3), (1, 4, 2), (2, 0, 3), (5,)]
    found = []
    for number in range(count):
        shape = shapes[number % len(shapes)]
        picks = rng.integers(0, len(WORDS), int(np.prod(shape, dtype=np.int64)))
        found.append(strings([WORDS[i] for i in picks], shape))
    return found


_core = ov.Core()


def cpu_unpack(data: np.ndarray) -> list[np.ndarray]:
    parameter = ov15.parameter(list(data.shape), ov.Type.string)
    node = ov15.string_tensor_unpack(parameter)
    compiled = _core.compile_model(ov.Model([node.output(i) for i in range(3)], [parameter]), "CPU")
    request = compiled.create_infer_request()
    request.infer([ov.Tensor(data.astype(str)) if data.size else ov.Tensor(ov.Type.string, ov.Shape(list(data.shape)))])
    return [np.array(request.get_output_tensor(i).data) for i in range(3)]


def cpu_pack(begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> np.ndarray:
    index_type = ov.Type.i32 if begins.dtype == np.int32 else ov.Type.i64
    parameters = [ov15.parameter(list(begins.shape), index_type), ov15.parameter(list(ends.shape), index_type),
                  ov15.parameter(list(symbols.shape), ov.Type.u8)]
    node = ov15.string_tensor_pack(*parameters)
    compiled = _core.compile_model(ov.Model([node], parameters), "CPU")
    request = compiled.create_infer_request()
    request.infer([begins, ends, symbols])
    return np.array(request.get_output_tensor(0).str_data).reshape(begins.shape)


@pytest.mark.parametrize("data", string_tensors(), ids=lambda d: f"{list(d.shape)}")
def test_unpack_matches_the_cpu_plugin_and_pack_undoes_it(data):
    got = UNPACK.evaluate([data])
    expected = cpu_unpack(data)
    for mine, theirs, name in zip(got, expected, ("begins", "ends", "symbols"), strict=True):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, name
        np.testing.assert_array_equal(mine, theirs, err_msg=name)
    assert b"".join(item.encode() for item in data.reshape(-1).tolist()) == got[2].tobytes()  # a plain formulation
    (packed,) = PACK.evaluate(got)
    assert packed.shape == data.shape and packed.tolist() == data.tolist()


@pytest.mark.parametrize("seed", range(12))
def test_pack_matches_the_cpu_plugin_on_arbitrary_spans(seed):
    rng = np.random.default_rng(seed)
    text = b"The quick brown fox jumps over the lazy dog"
    symbols = np.frombuffer(text, np.uint8).copy()
    shape = [(4,), (2, 3), (0,), (1, 1, 2)][seed % 4]
    count = int(np.prod(shape, dtype=np.int64))
    begins = rng.integers(0, len(text) + 1, count)
    ends = np.minimum(begins + rng.integers(0, 8, count), len(text))
    index = [np.int32, np.int64][seed % 2]
    begins, ends = begins.astype(index).reshape(shape), ends.astype(index).reshape(shape)
    (got,) = PACK.evaluate([begins, ends, symbols])
    expected = [text[b:e].decode() for b, e in zip(begins.reshape(-1).tolist(), ends.reshape(-1).tolist(), strict=True)]
    assert got.reshape(-1).tolist() == expected
    if count:  # openvino 2026.4.1's CPU plugin refuses to allocate an empty string output
        assert got.tolist() == cpu_pack(begins, ends, symbols).tolist()


# ------------------------------------------------------------------------------------ shapes and refusals
@pytest.mark.parametrize("types", [
    [tt("2,?", "i32"), tt("2,?", "i32"), tt("?", "u8")],
    [tt("...", "i64"), tt("...", "i64"), tt("...", "u8")],
    [tt("3..5", "i64"), tt("3..5", "i64"), tt("10", "u8")],
    [tt("2,?", "i32"), tt("?,3", "i32"), tt("?", "u8")],  # merged: [2,3]
    [tt("1..4", "i64"), tt("2..6", "i64"), tt("...", "u8")],  # merged: [2..4]
])
def test_pack_shapes_follow_openvino(types):
    check_types(PACK, types, same_op(PACK))


@pytest.mark.parametrize("types", [
    [tt("2", "i32"), tt("2", "i64"), tt("5", "u8")],  # index types differ
    [tt("2", "f32"), tt("2", "f32"), tt("5", "u8")],
    [tt("2", "i32"), tt("2", "i32"), tt("5", "i8")],  # symbols not u8
    [tt("2", "i32"), tt("3", "i32"), tt("5", "u8")],  # begins and ends of different shapes
    [tt("2", "i32"), tt("2", "i32"), tt("5,1", "u8")],  # symbols not 1D
    # a dynamic element type matches nothing (irgraph accepted these until a surviving mutant showed it)
    [tt("2", "dynamic"), tt("2", "i32"), tt("5", "u8")],
    [tt("2", "i64"), tt("2", "dynamic"), tt("5", "u8")],
    [tt("2", "dynamic"), tt("2", "dynamic"), tt("5", "u8")],
    [tt("2", "i32"), tt("2", "i32"), tt("5", "dynamic")],
])
def test_what_openvino_refuses_in_pack_irgraph_refuses(types):
    assert check_types(PACK, types, same_op(PACK)).refused


def test_pack_names_both_index_types_when_they_differ():
    """openvino 2026.4.1's words: "... Got: i32 and i64" (begins' type first)."""
    with pytest.raises(IrError, match=r"^The element types of the begins and ends input tensors must match and be of "
                                      r"i32 or i64 type. Got: i32 and i64$"):
        PACK.infer([tt("2", "i32"), tt("2", "i64"), tt("5", "u8")], [None, None, None])


def test_unpack_says_its_output_shapes_before_it_runs():
    """The shapes a run checks against its limits before allocating (Op.output_shapes): the data's shape twice
    and the UTF-8 byte count, those of evaluate's outputs."""
    data = np.array([["ab", "ü"], ["日本", ""]], object)
    assert UNPACK.output_shapes([data]) == [(2, 2), (2, 2), (10,)]
    assert [x.shape for x in UNPACK.evaluate([data])] == [(2, 2), (2, 2), (10,)]


def test_unpack_refuses_text_its_i32_ends_cannot_hold(monkeypatch):
    """2**31 bytes or more overflow the i32 ends; the message names the total (the last end). Three strings taken
    as 2**30 bytes each (a patched encoder: the real text would need 3 GiB)."""
    from irgraph.ops.type import string_tensor_unpack

    class Claimed(bytes):
        def __len__(self) -> int:
            return 2**30

    monkeypatch.setattr(string_tensor_unpack, "utf8", lambda item: Claimed())
    with pytest.raises(IrError, match=r"^StringTensorUnpack's i32 ends cannot hold 3221225472 bytes of text$"):
        UNPACK.evaluate([np.array(["a", "b", "c"], object)])


@pytest.mark.parametrize("shape", ["2,?", "...", "", "0"])
def test_unpack_shapes_follow_openvino(shape):
    check_types(UNPACK, [tt(shape, "string")], same_op(UNPACK))


def test_unpack_of_known_strings_knows_the_byte_count():
    values = [np.array(["ab", "ü"])]  # a NumPy unicode array, as the harness gives OpenVINO
    check_types(UNPACK, [tt("2", "string")], same_op(UNPACK), values)
    assert [str(t) for t in UNPACK.infer([tt("2", "string")], values)] == ["i32[2]", "i32[2]", "u8[4]"]


@pytest.mark.parametrize("element_type", ["f32", "dynamic"])
def test_unpack_refuses_numbers_as_openvino_does(element_type):
    assert check_types(UNPACK, [tt("2", element_type)], same_op(UNPACK)).refused


@pytest.mark.parametrize("begins, ends, message", [
    ([0, 3], [2, 9], "must lie within the 4 symbols"),  # past the symbols (the reference reads out of bounds)
    ([2], [1], "not end before it begins"),
    ([0], [1], "is not UTF-8"),  # half of "ü"
])
def test_pack_refuses_spans_it_cannot_hold(begins, ends, message):
    symbols = np.frombuffer("übc".encode(), np.uint8)
    with pytest.raises(IrError, match=message):
        PACK.evaluate([np.array(begins, np.int32), np.array(ends, np.int32), symbols])


# ------------------------------------------------------------------------------------ strings end to end
def string_model(path) -> None:
    """text [?] (string) -> Unpack -> (begins, ends, symbols); Pack(begins, ends, symbols) -> again; a string Const
    unpacked too."""
    text = ov15.parameter([-1], ov.Type.string, name="text")
    unpacked = ov15.string_tensor_unpack(text)
    again = ov15.string_tensor_pack(unpacked.output(0), unpacked.output(1), unpacked.output(2))
    words = ov.op.Constant(ov.Tensor(np.array([["ä", "bc"], ["", "def"]])), shared_memory=False)
    constant = ov15.string_tensor_unpack(words)
    outputs = [unpacked.output(0), unpacked.output(1), unpacked.output(2), again.output(0), constant.output(2)]
    names = ("begins", "ends", "symbols", "again", "constant_symbols")
    results = [ov15.result(output) for output in outputs]
    for result, name in zip(results, names, strict=True):
        result.output(0).get_tensor().set_names({name})
    ov.save_model(ov.Model(results, [text], "strings"), path)


def test_string_tensors_run_end_to_end_through_ir_run(tmp_path, capsys):
    xml = tmp_path / "strings.xml"
    string_model(xml)
    text = xml.read_text()
    assert 'type="StringTensorUnpack" version="opset15"' in text and 'type="StringTensorPack" version="opset15"' in text
    feed = np.array(["Intel", "", "OpenVINO ü", "日本"])  # a NumPy unicode array
    np.savez(tmp_path / "in.npz", text=feed)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:  # no pickles: strings come back as unicode
        got = {name: written[name] for name in written.files}
    assert got["again"].dtype.kind == "U" and got["again"].tolist() == feed.tolist()
    assert got["constant_symbols"].tobytes() == "äbcdef".encode()
    compiled = _core.compile_model(str(xml), "CPU")
    request = compiled.create_infer_request()
    request.infer({"text": ov.Tensor(feed)})
    for name in ("begins", "ends", "symbols", "constant_symbols"):
        np.testing.assert_array_equal(got[name], request.get_tensor(name).data, err_msg=name)
    assert request.get_tensor("again").str_data.tolist() == got["again"].tolist()
    assert ir.validate(ir.read_model(xml)) == []
    ir.write_model(ir.read_model(xml), tmp_path / "again.xml", version=11)  # written back byte for byte
    assert (tmp_path / "again.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "again.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
    assert ir_info.main([str(xml)]) == 0
    described = capsys.readouterr().out
    assert "string" in described
