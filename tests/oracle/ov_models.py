"""Golden IR corpus built with the real OpenVINO (the oracle).

Every case is a small model built with ``openvino.opset13`` builders and written by
``ov.serialize`` (never fp16-compressed), optionally hand-edited afterwards (XML text or .bin
bytes) to show what OpenVINO's *reader* tolerates or rejects. ``write_case(name, directory)``
writes one case as::

    model.xml, model.bin   the IR exactly as OpenVINO wrote it (plus the case's hand edits)
    inputs.npz             one array per Parameter, keyed by the Parameter's friendly name
    expected.npz           outputs, keyed by DESIGN.md section 6 (expect == "ok" only)
    ov_cpu.npz             what OpenVINO's own CPU path gives where it deviates (see below)
    case.json              {"what", "ir_version", "expect", "run", "ov_error", ...}

Arrays in the .npz files use the in-memory NumPy dtype of ``irgraph.core.element_types``; ml_dtypes
arrays (bf16, f8*, f4e2m1, i4, u1, u2, u4) are stored as raw ``|V2``/``|V1`` items holding the
element's bits (what ``np.savez`` writes for most of them; float8_e5m2 must be viewed as ``V1``
explicitly because ``np.savez`` writes it as ``'<f1'``, which ``np.load`` rejects). Sub-byte types
are one element per byte with the code in the low bits (i4 -1 is 0x0f); nf4, u3 and u6 are uint8
codes; strings are NumPy unicode arrays of the narrowest width that holds them (``<U{max len}``).

expected.npz holds OpenVINO CPU outputs (compiled with INFERENCE_PRECISION_HINT=f32), cross-checked
against a NumPy evaluation of the same graph as OpenVINO read it. Where they disagree, expected.npz
holds the NumPy result, ov_cpu.npz the CPU result, and case.json says so ("ov_cpu_deviates").
Where the CPU plugin cannot compile the model (u1, u2, u3, u6), case.json has ``"run": false``,
the compile error in ``ov_cpu_error`` and expected.npz comes from the NumPy evaluation.

IR v10 files are evaluated through the IR frontend (``FrontEndManager().load_by_framework("ir")``)
because ``Core.read_model`` applies the legacy v10 type fix-ups (f16 inputs -> f32, integer outputs
-> i32, other outputs -> f32); what ``Core.read_model`` + CPU gives for such files is recorded in
case.json (``ov_core_read_model``) and, when it differs, in ov_cpu.npz.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import signal
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset13 as ops
from openvino import op as ov_op
from openvino.frontend import FrontEndManager

SEED = 20260421
ORACLE = f"openvino {ov.get_version()} CPU"
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
assert sys.byteorder == "little", "the .bin format is little-endian; this generator assumes a little-endian host"

# --------------------------------------------------------------------------------------------
# Element types: IR name -> OpenVINO type, bit width, in-memory NumPy dtype


@dataclasses.dataclass(frozen=True)
class TypeInfo:
    name: str
    ov_type: ov.Type
    bits: int
    dtype: np.dtype  # in-memory dtype, one element per item (as irgraph.core.element_types)


def _t(name: str, bits: int, dtype: Any) -> TypeInfo:
    return TypeInfo(name, getattr(ov.Type, name), bits, np.dtype(dtype))


TYPES: dict[str, TypeInfo] = {
    t.name: t
    for t in (
        _t("boolean", 8, np.bool_),
        _t("bf16", 16, ml_dtypes.bfloat16),
        _t("f16", 16, np.float16),
        _t("f32", 32, np.float32),
        _t("f64", 64, np.float64),
        _t("f8e4m3", 8, ml_dtypes.float8_e4m3fn),
        _t("f8e5m2", 8, ml_dtypes.float8_e5m2),
        _t("f8e8m0", 8, ml_dtypes.float8_e8m0fnu),
        _t("f4e2m1", 4, ml_dtypes.float4_e2m1fn),
        _t("nf4", 4, np.uint8),
        _t("i4", 4, ml_dtypes.int4),
        _t("i8", 8, np.int8),
        _t("i16", 16, np.int16),
        _t("i32", 32, np.int32),
        _t("i64", 64, np.int64),
        _t("u1", 1, ml_dtypes.uint1),
        _t("u2", 2, ml_dtypes.uint2),
        _t("u3", 3, np.uint8),
        _t("u4", 4, ml_dtypes.uint4),
        _t("u6", 6, np.uint8),
        _t("u8", 8, np.uint8),
        _t("u16", 16, np.uint16),
        _t("u32", 32, np.uint32),
        _t("u64", 64, np.uint64),
        _t("string", 0, np.str_),
    )
}
_BY_OV_TYPE = {t.ov_type.get_type_name(): t for t in TYPES.values()}


def type_of(ov_type: ov.Type) -> TypeInfo:
    return _BY_OV_TYPE[ov_type.get_type_name()]


def _codes(arr: np.ndarray, bits: int) -> np.ndarray:
    """The sub-byte codes of ``arr`` as uint8, flat (ml_dtypes keeps the code in each byte)."""
    return (np.ascontiguousarray(arr).view(np.uint8).reshape(-1) & ((1 << bits) - 1)).astype(np.uint8)


def _pad(codes: np.ndarray, multiple: int) -> np.ndarray:
    return np.concatenate([codes, np.zeros((-len(codes)) % multiple, np.uint8)])


def pack_strings(values: np.ndarray) -> bytes:
    """String tensor layout: int32 N, N+1 int32 end offsets starting at 0, concatenated UTF-8."""
    encoded = [str(v).encode("utf-8") for v in np.asarray(values).reshape(-1)]
    ends = np.cumsum([0] + [len(b) for b in encoded]).astype("<i4")
    return np.array([len(encoded)], "<i4").tobytes() + ends.tobytes() + b"".join(encoded)


def unpack_strings(raw: bytes, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.frombuffer(raw, "<i4", 1)[0])
    ends = np.frombuffer(raw, "<i4", n + 1, 4)
    data = raw[4 + 4 * (n + 1) :]
    items = [data[ends[i] : ends[i + 1]].decode("utf-8") for i in range(n)]
    return np.array(items, dtype=np.str_).reshape(shape)


def pack(arr: np.ndarray, type_name: str) -> bytes:
    """The .bin bytes OpenVINO writes for ``arr`` (in-memory dtype) as element type ``type_name``."""
    info = TYPES[type_name]
    if type_name == "string":
        return pack_strings(arr)
    arr = np.ascontiguousarray(np.asarray(arr, dtype=info.dtype))
    if info.bits >= 8:  # little-endian host assumed (checked at import)
        return arr.tobytes()
    c = _codes(arr, info.bits)
    if info.bits == 1:  # MSB first
        return np.packbits(c, bitorder="big").tobytes()
    if info.bits == 2:  # element 0 in bits 1..0
        c = _pad(c, 4).reshape(-1, 4)
        return (c[:, 0] | c[:, 1] << 2 | c[:, 2] << 4 | c[:, 3] << 6).astype(np.uint8).tobytes()
    if info.bits == 4:  # element 0 in the low nibble
        c = _pad(c, 2).reshape(-1, 2)
        return (c[:, 0] | c[:, 1] << 4).astype(np.uint8).tobytes()
    if info.bits == 3:  # blocks of 8 elements in 3 bytes: 2 low-bit planes MSB-first, then high bits
        c = _pad(c, 8).reshape(-1, 8)
        lo, hi = c & 3, c >> 2
        b0 = lo[:, 0] << 6 | lo[:, 1] << 4 | lo[:, 2] << 2 | lo[:, 3]
        b1 = lo[:, 4] << 6 | lo[:, 5] << 4 | lo[:, 6] << 2 | lo[:, 7]
        b2 = np.packbits(hi, axis=1, bitorder="big")[:, 0]
        return np.stack([b0, b1, b2], axis=1).astype(np.uint8).tobytes()
    if info.bits == 6:  # blocks of 4 elements in 3 bytes: low nibbles high-first, then 2-bit highs
        c = _pad(c, 4).reshape(-1, 4)
        lo, hi = c & 15, c >> 4
        b0 = lo[:, 0] << 4 | lo[:, 1]
        b1 = lo[:, 2] << 4 | lo[:, 3]
        b2 = hi[:, 0] << 6 | hi[:, 1] << 4 | hi[:, 2] << 2 | hi[:, 3]
        return np.stack([b0, b1, b2], axis=1).astype(np.uint8).tobytes()
    raise AssertionError(type_name)


def unpack(raw: bytes, type_name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Inverse of :func:`pack` (extra trailing bytes are ignored)."""
    info = TYPES[type_name]
    shape = tuple(int(d) for d in shape)
    n = int(np.prod(shape, dtype=np.int64))
    if type_name == "string":
        return unpack_strings(raw, shape)
    b = np.frombuffer(raw, np.uint8)
    if info.bits >= 8:
        return b[: n * info.dtype.itemsize].copy().view(info.dtype).reshape(shape)
    if info.bits == 1:
        c = np.unpackbits(b, bitorder="big")
    elif info.bits == 2:
        c = np.stack([b & 3, b >> 2 & 3, b >> 4 & 3, b >> 6], axis=1).reshape(-1)
    elif info.bits == 4:
        c = np.stack([b & 15, b >> 4], axis=1).reshape(-1)
    elif info.bits == 3:
        blk = b[: len(b) // 3 * 3].reshape(-1, 3)
        lo = np.stack([blk[:, k // 4] >> (6 - 2 * (k % 4)) & 3 for k in range(8)], axis=1)
        hi = np.unpackbits(blk[:, 2:3], axis=1, bitorder="big")
        c = (lo | hi << 2).reshape(-1)
    elif info.bits == 6:
        blk = b[: len(b) // 3 * 3].reshape(-1, 3)
        lo = np.stack([blk[:, 0] >> 4, blk[:, 0] & 15, blk[:, 1] >> 4, blk[:, 1] & 15], axis=1)
        hi = np.stack([blk[:, 2] >> 6, blk[:, 2] >> 4 & 3, blk[:, 2] >> 2 & 3, blk[:, 2] & 3], axis=1)
        c = (lo | hi << 4).reshape(-1)
    else:
        raise AssertionError(type_name)
    return c[:n].astype(np.uint8).view(info.dtype).reshape(shape)


def sample(type_name: str, shape: tuple[int, ...], rng: np.random.Generator, specials: bool = False) -> np.ndarray:
    """Seeded test values of an element type (``specials`` mixes in -0.0/inf/nan where they exist)."""
    info = TYPES[type_name]
    n = int(np.prod(shape, dtype=np.int64))
    if type_name == "string":
        pool = ["", "a", "bc", "é", "名前", "x,y", "tab\there", "<&>\"'", "longer string", "\\"]
        return np.array([pool[i] for i in rng.integers(0, len(pool), n)], dtype=np.str_).reshape(shape)
    if type_name == "boolean":
        return rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
    if info.bits < 8 or type_name in ("f8e4m3", "f8e5m2", "f8e8m0"):
        if type_name == "f8e8m0":  # powers of two 2^-6 .. 2^6
            v = np.exp2(rng.integers(-6, 7, n)).astype(np.float32).astype(info.dtype)
        elif type_name in ("f8e4m3", "f8e5m2"):
            v = (rng.standard_normal(n) * 8).astype(np.float32).astype(info.dtype)
            if specials and n >= 2:
                v[0] = np.float32(-0.0)
                v[1] = np.float32(np.nan) if type_name == "f8e4m3" else np.float32(np.inf)
        elif type_name == "i4":
            v = rng.integers(-8, 8, n).astype(np.int8).astype(ml_dtypes.int4)
        else:  # unsigned codes (f4e2m1 and nf4 codes too)
            v = rng.integers(0, 1 << info.bits, n).astype(np.uint8).view(info.dtype)
        return np.asarray(v).reshape(shape)
    if info.dtype.kind == "f" or type_name == "bf16":
        v = rng.standard_normal(n) * 10  # f64 values need all 53 bits; narrower types round
        if specials and n >= 4:
            v[:4] = [-0.0, np.inf, -np.inf, np.nan]
        return v.astype(info.dtype).reshape(shape)
    limits = np.iinfo(info.dtype)
    v = rng.integers(limits.min, limits.max, n, dtype=info.dtype, endpoint=True)
    if n >= 2:
        v[0], v[1] = limits.min, limits.max
    return v.reshape(shape)


def to_tensor(arr: np.ndarray, type_name: str) -> ov.Tensor:
    """An ov.Tensor of element type ``type_name`` holding ``arr`` (in-memory dtype)."""
    arr = np.asarray(arr)
    tensor = ov.Tensor(TYPES[type_name].ov_type, ov.Shape(list(arr.shape)))
    if type_name == "string":
        if arr.size:
            tensor.str_data = arr.astype(np.str_)
        return tensor
    raw = np.frombuffer(pack(arr, type_name), np.uint8)
    dst = tensor.data.reshape(-1).view(np.uint8)
    assert len(dst) >= len(raw) or arr.size == 0, (type_name, arr.shape, len(dst), len(raw))
    dst[: len(raw)] = raw[: len(dst)]
    return tensor


def from_tensor(tensor: ov.Tensor) -> np.ndarray:
    """The in-memory array of an ov.Tensor (any element type)."""
    info = type_of(tensor.element_type)
    shape = tuple(tensor.shape)
    if info.name == "string":
        if int(np.prod(shape, dtype=np.int64)) == 0:
            return np.zeros(shape, np.str_)
        return np.array(tensor.str_data, dtype=np.str_).reshape(shape)
    raw = np.ascontiguousarray(tensor.data).reshape(-1).view(np.uint8).tobytes()
    return unpack(raw, info.name, shape)


def const_value(node: ov.Node) -> np.ndarray:
    """The in-memory value of a Constant node (read back through its raw bytes)."""
    info = type_of(node.get_output_element_type(0))
    shape = tuple(node.get_output_shape(0))
    if info.name == "string":
        return np.array(node.get_value_strings(), dtype=np.str_).reshape(shape)
    raw = np.ascontiguousarray(node.get_data()).reshape(-1).view(np.uint8).tobytes()
    return unpack(raw, info.name, shape)


# --------------------------------------------------------------------------------------------
# Building blocks


def const(value: Any, type_name: str, name: str) -> ov.Node:
    """A named Constant of ``type_name`` holding ``value`` (converted to the in-memory dtype)."""
    arr = np.asarray(value, dtype=TYPES[type_name].dtype)
    node = ov_op.Constant(to_tensor(arr, type_name), shared_memory=False)
    node.set_friendly_name(name)
    return node


def param(name: str, shape: Any, type_name: str = "f32", names: set[str] | None = None) -> ov.Node:
    """A Parameter; ``shape`` is a list or a PartialShape string like ``"2,?,1..8"`` / ``"..."``."""
    ps = ov.PartialShape(shape) if isinstance(shape, str) else ov.PartialShape(list(shape))
    node = ops.parameter(ps, TYPES[type_name].ov_type, name=name)
    if names is not None:
        node.output(0).get_tensor().set_names(set(names))
    return node


def split(x: Any, axis: int, n: int, name: str, axis_type: str = "i64") -> ov.Node:
    return ops.split(x, const(axis, axis_type, name + "/axis"), n, name=name)


def vsplit(x: Any, axis: int, lengths: list[int], name: str, axis_type: str = "i64", lengths_type: str = "i64",
           axis_shape: tuple[int, ...] = ()) -> ov.Node:
    ax = const(np.full(axis_shape, axis), axis_type, name + "/axis")
    return ops.variadic_split(x, ax, const(lengths, lengths_type, name + "/lengths"), name=name)


def concat(xs: list[Any], axis: int, name: str) -> ov.Node:
    return ops.concat(xs, axis, name=name)


def result(x: Any, name: str) -> ov.Node:
    return ops.result(x, name=name)


def set_names(output: Any, *names: str) -> None:
    output.get_tensor().set_names(set(names))


def model(results: list[ov.Node], params: list[ov.Node], name: str) -> ov.Model:
    return ov.Model(results, params, name)


def rng_for(case_name: str) -> np.random.Generator:
    """A generator seeded by SEED and the case name, so every case is reproducible on its own."""
    return np.random.default_rng([SEED, *case_name.encode("utf-8")])


def iota(shape: tuple[int, ...], type_name: str = "f32", start: int = 1) -> np.ndarray:
    """start, start+1, ... in row-major order (the documents' example values)."""
    n = int(np.prod(shape, dtype=np.int64))
    return np.arange(start, start + n).astype(TYPES[type_name].dtype).reshape(shape)


# --------------------------------------------------------------------------------------------
# Cases

Edit = Callable[[str, bytes], tuple[str, bytes]]


@dataclasses.dataclass
class CaseSpec:
    """One golden case: a model, its inputs and how it is written."""

    what: str
    model: ov.Model
    inputs: dict[str, np.ndarray]  # keyed by Parameter friendly name, in-memory dtypes
    ir_version: int = 11
    expect: str = "ok"  # "ok" or "error"
    edits: list[Edit] = dataclasses.field(default_factory=list)  # applied to (xml text, bin bytes)
    reserialize: bool = False  # read the edited files back with OpenVINO and let it write them again
    notes: dict[str, Any] = dataclasses.field(default_factory=dict)  # extra case.json entries


CASES: dict[str, Callable[[], CaseSpec]] = {}


def case(name: str) -> Callable[[Callable[[], CaseSpec]], Callable[[], CaseSpec]]:
    def register(fn: Callable[[], CaseSpec]) -> Callable[[], CaseSpec]:
        assert name not in CASES, name
        CASES[name] = fn
        return fn

    return register


# --------------------------------------------------------------------------------------------
# Writing a case: serialize, edit, read back, run, record


def split_names(text: str | None) -> list[str]:
    """Split a ``names``/``output_names`` attribute: commas separate, ``\\,`` is a literal comma."""
    names, cur, i = [], [], 0
    text = text or ""
    while i < len(text):
        if text[i] == "\\" and text[i + 1 : i + 2] == ",":
            cur.append(",")
            i += 2
            continue
        if text[i] == ",":
            names.append("".join(cur))
            cur = []
        else:
            cur.append(text[i])
        i += 1
    names.append("".join(cur))
    return [n for n in names if n]


def output_keys(xml_text: str) -> list[tuple[str, str]]:
    """(Result layer name, output key) per Result in document order, by DESIGN.md section 6."""
    import xml.etree.ElementTree as ET  # trusted files written by this module

    net = ET.fromstring(xml_text.encode("utf-8"))
    version = int(net.get("version", "0"))
    layers = {lay.get("id"): lay for lay in net.iter("layer")}
    edges = {(e.get("to-layer"), e.get("to-port")): (e.get("from-layer"), e.get("from-port")) for e in net.iter("edge")}
    keys = []
    for lay in net.find("layers").findall("layer"):
        if lay.get("type", "").lower() != "result":
            continue
        key = None
        if version >= 11:
            names = split_names(lay.get("output_names"))
            key = names[0] if names else None
        in_ports = lay.findall("input/port")
        src = edges.get((lay.get("id"), in_ports[0].get("id"))) if in_ports else None
        if key is None and src and src[0] in layers:
            for port in layers[src[0]].findall("output/port"):
                if port.get("id") == src[1]:
                    names = split_names(port.get("names"))
                    key = names[0] if names else None
                    break
        keys.append((lay.get("name"), key if key is not None else lay.get("name")))
    return keys


def _read(xml_path: Path, ir_version: int, via_core: bool | None = None) -> ov.Model:
    """Read an IR: v11 through Core.read_model, v10 through the IR frontend (no legacy fix-ups)."""
    if via_core or (via_core is None and ir_version >= 11):
        return ov.Core().read_model(str(xml_path))
    fe = FrontEndManager().load_by_framework("ir")
    return ov.Model(fe.convert(fe.load(str(xml_path))))


def _run_cpu(m: ov.Model, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(m, "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    for i, p in enumerate(m.get_parameters()):
        want = type_of(p.get_element_type())
        arr = as_dtype(inputs[p.get_friendly_name()], want.dtype)
        if want.name != "string" and arr.dtype != want.dtype:  # the v10 Core.read_model path (f16 -> f32)
            arr = arr.astype(np.float32).astype(want.dtype)
        request.set_input_tensor(i, to_tensor(arr, want.name))
    request.infer()
    return [from_tensor(request.get_output_tensor(i)) for i in range(len(m.outputs))]


_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import ov_models as M
xml, version, via_core, inputs, out = sys.argv[2:]
stage = "read"
try:
    m = M._read(M.Path(xml), int(version), via_core=via_core == "1")
    stage = "compile+infer"
    got = M._run_cpu(m, M.read_npz(M.Path(inputs)))
    M.write_npz(M.Path(out), {str(i): a for i, a in enumerate(got)})
    print("@@OK@@", flush=True)
except Exception as exc:
    print("@@ERROR@@" + stage + "@@" + str(exc), flush=True)
"""


def cpu_in_child(xml: Path, ir_version: int, inputs: dict[str, np.ndarray], via_core: bool = False
                 ) -> tuple[list[np.ndarray] | None, str | None, str, str | None]:
    """Read, compile and run on CPU in a fresh process: (outputs, OpenVINO error, stage, crash description).

    A fresh process, because the CPU plugin corrupts the heap on some element types (nf4, f4e2m1,
    string Split) and the process then aborts, possibly only at exit; and because OpenVINO's error
    texts name nodes after a per-process counter (``Split_61``), which only a fresh process keeps
    reproducible.
    """
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        feeds, out = Path(tmp) / "inputs.npz", Path(tmp) / "outputs.npz"
        write_npz(feeds, inputs)
        argv = [sys.executable, "-c", _CHILD, str(Path(__file__).resolve().parent), str(xml), str(ir_version),
                "1" if via_core else "0", str(feeds), str(out)]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        outputs = None
        if "@@OK@@" in proc.stdout and out.exists():
            loaded = read_npz(out)
            outputs = [loaded[str(i)] for i in range(len(loaded))]
        error, stage = None, "compile+infer"
        if "@@ERROR@@" in proc.stdout:
            stage, error = proc.stdout.split("@@ERROR@@", 1)[1].split("@@", 1)
            error = error.strip()
    crash = None
    if proc.returncode != 0:
        how = (f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0
               else f"exit status {proc.returncode}")
        crash = f"the process running the CPU plugin died ({how})"
    return outputs, error, stage, crash


def evaluate(m: ov.Model, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """NumPy evaluation of a Parameter/Const/Split/VariadicSplit/Concat/Result graph as OpenVINO read it."""
    values: dict[tuple[int, int], np.ndarray] = {}

    def arg(node: ov.Node, i: int) -> np.ndarray:
        src = node.input(i).get_source_output()
        return values[(src.get_node().get_instance_id(), src.get_index())]

    for node in m.get_ordered_ops():
        kind = node.get_type_name()
        if kind == "Parameter":
            outs = [np.asarray(inputs[node.get_friendly_name()])]
        elif kind == "Constant":
            outs = [const_value(node)]
        elif kind == "Split":
            x, axis = arg(node, 0), int(arg(node, 1))
            outs = np.split(x, node.get_num_splits(), axis)
        elif kind == "VariadicSplit":
            x = arg(node, 0)
            axis = int(np.asarray(arg(node, 1)).reshape(-1)[0]) % x.ndim
            lengths = [int(v) for v in np.asarray(arg(node, 2)).reshape(-1)]
            if -1 in lengths:
                lengths[lengths.index(-1)] = x.shape[axis] - (sum(lengths) + 1)
            outs = np.split(x, np.cumsum(lengths)[:-1], axis) if lengths else []
        elif kind == "Concat":
            outs = [np.concatenate([arg(node, i) for i in range(node.get_input_size())], axis=node.get_axis())]
        elif kind == "Result":
            outs = [arg(node, 0)]
        else:
            raise NotImplementedError(f"evaluate(): no NumPy rule for {kind}")
        for i, out in enumerate(outs):
            values[(node.get_instance_id(), i)] = np.array(out, copy=True, order="C")
    return [values[(r.get_instance_id(), 0)] for r in m.get_results()]


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Exact equality: dtype, shape and bits (strings by value)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "U":
        return bool(np.array_equal(a, b))
    return a.tobytes() == b.tobytes()


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Like np.savez_compressed, but any string is a valid key (np.load gives the same dict back)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for key, arr in arrays.items():
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            arr = np.asarray(arr, order="C")
            if arr.dtype.kind == "U":  # the narrowest width that holds the values (what np.array(list) gives)
                arr = arr.astype(f"<U{max([1, *(len(v) for v in arr.reshape(-1).tolist())])}")
            if arr.dtype.type.__module__ == "ml_dtypes":
                # raw items: np.save writes float8_e5m2 as '<f1', which np.load then rejects
                arr = arr.view(f"V{arr.dtype.itemsize}")
            with zf.open(info, "w") as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
    path.write_bytes(buf.getvalue())


def as_dtype(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Undo what .npz files do to ml_dtypes arrays (they come back as raw |V1/|V2 items)."""
    if arr.dtype.kind == "V" and arr.dtype.itemsize == np.dtype(dtype).itemsize:
        return arr.view(dtype)
    return arr


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def ov_message(error: BaseException | str) -> str:
    """The message of an OpenVINO exception without the 'Exception from file:line' frames."""
    lines = [ln.strip() for ln in str(error).splitlines()]
    lines = [ln for ln in lines if ln and not re.match(r"^Exception from \S+:\d+:$", ln)]
    return " | ".join(lines)


def _port_info(port: Any) -> dict[str, Any]:
    return {
        "type": type_of(port.get_element_type()).name if port.get_element_type().is_static() else "dynamic",
        "shape": str(port.get_partial_shape()),
        "ov_names": sorted(port.get_names()),
    }


def _serialize(m: ov.Model, xml: Path, version: int) -> None:
    ov.serialize(m, str(xml), str(xml.with_suffix(".bin")), version=f"IR_V{version}")


def write_case(name: str, directory: str | Path) -> dict[str, Any]:
    """Write case ``name`` into ``directory``; returns the case.json content."""
    import tempfile

    spec = CASES[name]()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("expected.npz", "ov_cpu.npz"):
        (out / stale).unlink(missing_ok=True)
    xml, binf = out / "model.xml", out / "model.bin"
    with tempfile.TemporaryDirectory() as tmp:
        first = Path(tmp) / "model.xml"
        _serialize(spec.model, first, spec.ir_version)
        text, data = first.read_text("utf-8"), first.with_suffix(".bin").read_bytes()
        for edit in spec.edits:
            text, data = edit(text, data)
        if spec.reserialize:  # let OpenVINO write what it read from the edited files
            edited = Path(tmp) / "edited.xml"
            edited.write_text(text, "utf-8")
            edited.with_suffix(".bin").write_bytes(data)
            again = ov.Core().read_model(str(edited))
            del again.get_rt_info()["version"]
            second = Path(tmp) / "again.xml"
            _serialize(again, second, spec.ir_version)
            del again
            text, data = second.read_text("utf-8"), second.with_suffix(".bin").read_bytes()
    xml.write_bytes(text.encode("utf-8"))
    binf.write_bytes(data)
    m_version = re.search(r'<net\b[^>]*\bversion="(\d+)"', text)
    meta: dict[str, Any] = {
        "what": spec.what,
        "ir_version": int(m_version.group(1)) if m_version else spec.ir_version,
        "expect": spec.expect,
        "oracle": ORACLE,
        "generated_by": f"tests/oracle/generate_goldens.py (case {name})",
    }
    meta.update(spec.notes)
    write_npz(out / "inputs.npz", spec.inputs)

    cpu, error, stage, crash = cpu_in_child(xml, spec.ir_version, spec.inputs)
    if crash:
        meta["ov_cpu_crash"] = crash
    if spec.expect == "error":
        if error is None:
            raise RuntimeError(f"case {name}: OpenVINO accepted a model that should be rejected ({crash})")
        full = ov_message(error)
        meta.update({"stage": stage, "ov_error": full.rsplit(" | ", 1)[-1], "ov_error_full": full})
        _write_meta(out, meta)
        return meta
    if stage == "read":
        raise RuntimeError(f"case {name}: OpenVINO cannot read it: {error}")
    model_read = _read(xml, spec.ir_version)
    if cpu is not None:
        cpu = [as_dtype(a, type_of(o.get_element_type()).dtype) for a, o in zip(cpu, model_read.outputs, strict=True)]

    keys = output_keys(text)
    results = model_read.get_results()
    assert [k[0] for k in keys] == [r.get_friendly_name() for r in results], (name, keys)
    assert len({k for _, k in keys}) == len(keys), ("duplicate output keys", name, keys)
    reference = evaluate(model_read, spec.inputs)
    meta["inputs"] = {p.get_friendly_name(): _port_info(p.output(0)) for p in model_read.get_parameters()}
    meta["outputs"] = {}
    for (_, key), port in zip(keys, model_read.outputs, strict=True):
        meta["outputs"][key] = _port_info(port)
        if port.get_names() and port.get_any_name() != key:
            meta["outputs"][key]["ov_any_name"] = port.get_any_name()
    expected = dict(zip([k for _, k in keys], reference, strict=True))
    deviating = []
    if cpu is not None:
        deviating = [k for (_, k), r, c in zip(keys, reference, cpu, strict=True) if not same(r, c)]
        if deviating:
            meta["ov_cpu_deviates"] = deviating
            write_npz(out / "ov_cpu.npz", dict(zip([k for _, k in keys], cpu, strict=True)))
    if error is not None or crash:
        meta["run"] = False
        meta["ov_cpu"] = "rejects"  # what /work/shared/conformance/check understands
        meta["ov_cpu_error"] = ov_message(error) if error is not None else crash
        meta["expected_from"] = "NumPy evaluation (the CPU plugin cannot run this model)"
    else:
        meta["run"] = True
        if not deviating:
            expected = dict(zip([k for _, k in keys], cpu, strict=True))
    if spec.ir_version == 10:
        meta["ov_core_read_model"] = _v10_core_path(xml, spec.inputs, keys, expected, out)
    write_npz(out / "expected.npz", expected)
    _write_meta(out, meta)
    return meta


def _v10_core_path(xml: Path, inputs: dict[str, np.ndarray], keys: list[tuple[str, str]],
                   expected: dict[str, np.ndarray], out: Path) -> dict[str, Any]:
    """What Core.read_model (legacy v10 fix-ups) + CPU make of a v10 file."""
    info: dict[str, Any] = {}
    try:
        m = _read(xml, 10, via_core=True)
        info["inputs"] = {p.get_friendly_name(): _port_info(p.output(0)) for p in m.get_parameters()}
        info["outputs"] = {k: {**_port_info(o), "ov_any_name": o.get_any_name()}
                           for (_, k), o in zip(keys, m.outputs, strict=True)}
    except Exception as exc:  # noqa: BLE001
        info["error"] = ov_message(exc)
        return info
    got, error, _, crash = cpu_in_child(xml, 10, inputs, via_core=True)
    if error is not None or crash or got is None:
        info["error"] = ov_message(error) if error is not None else crash
        return info
    got = [as_dtype(a, type_of(o.get_element_type()).dtype) for a, o in zip(got, m.outputs, strict=True)]
    cpu = dict(zip([k for _, k in keys], got, strict=True))
    if any(not same(expected[k], cpu[k]) for k in expected) and not (out / "ov_cpu.npz").exists():
        write_npz(out / "ov_cpu.npz", cpu)
        info["ov_cpu_npz"] = "ov_cpu.npz holds these outputs"
    return info


def _dumps(value: Any, indent: str = "") -> str:
    """JSON with one key per line, but innermost objects and lists on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return "[\n" + ",\n".join(inner + _dumps(v, inner) for v in value) + "\n" + indent + "]"
    if isinstance(value, (dict, list)) and len(json.dumps(value, ensure_ascii=False)) > 100:
        if isinstance(value, dict):
            items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_dumps(v, inner)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + indent + "}"
        return "[\n" + ",\n".join(inner + _dumps(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _write_meta(out: Path, meta: dict[str, Any]) -> None:
    (out / "case.json").write_text(_dumps(meta) + "\n", "utf-8")


# --------------------------------------------------------------------------------------------
# Text edits of OpenVINO-written files (the writer's layout is fixed: TAB indents, one element a line)


def _layer_spans(text: str) -> list[re.Match[str]]:
    return list(re.finditer(r"\t\t<layer [^\n]*>\n.*?\n\t\t</layer>\n", text, re.S))


def _layer_block(text: str, name: str) -> re.Match[str]:
    for m in _layer_spans(text):
        if re.search(rf' name="{re.escape(name)}"', m.group(0).split("\n", 1)[0]):
            return m
    raise KeyError(name)


def _layer_id(text: str, name: str) -> str:
    return re.search(r' id="(\d+)"', _layer_block(text, name).group(0)).group(1)


def replace_in_layer(name: str, old: str, new: str) -> Edit:
    """Replace ``old`` (must occur) inside the layer named ``name``."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        m = _layer_block(text, name)
        assert old in m.group(0), (name, old)
        return text[: m.start()] + m.group(0).replace(old, new) + text[m.end() :], data

    return edit


def replace_text(old: str, new: str, count: int = -1) -> Edit:
    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        assert old in text, old
        return text.replace(old, new, count), data

    return edit


def patch_const(name: str, value: Any, type_name: str) -> Edit:
    """Overwrite the .bin bytes of Const ``name`` in place (same size) with ``value``."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        block = _layer_block(text, name).group(0)
        offset = int(re.search(r' offset="(\d+)"', block).group(1))
        size = int(re.search(r' size="(\d+)"', block).group(1))
        raw = pack(np.asarray(value, TYPES[type_name].dtype), type_name)
        assert len(raw) == size, (name, len(raw), size)
        return text, data[:offset] + raw + data[offset + size :]

    return edit


def reverse_layers(text: str, data: bytes) -> tuple[str, bytes]:
    spans = _layer_spans(text)
    blocks = [m.group(0) for m in spans]
    return text[: spans[0].start()] + "".join(reversed(blocks)) + text[spans[-1].end() :], data


def renumber_layers(new_ids: list[int]) -> Edit:
    """Give the layers (in document order) the ids ``new_ids`` and rewrite the edges to match."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        old_ids = [re.search(r' id="(\d+)"', m.group(0)).group(1) for m in _layer_spans(text)]
        mapping = dict(zip(old_ids, [str(i) for i in new_ids], strict=True))
        text = re.sub(r'(\t\t<layer id=")(\d+)"', lambda m: f'{m.group(1)}{mapping[m.group(2)]}"', text)
        return re.sub(r'((?:from|to)-layer=")(\d+)"', lambda m: f'{m.group(1)}{mapping[m.group(2)]}"', text), data

    return edit


def _port_blocks(section: str) -> list[str]:
    return re.findall(r"\t\t\t\t<port [^\n]*?(?: />\n|>\n.*?\t\t\t\t</port>\n)", section, re.S)


def reorder_ports(layer: str, direction: str, order: list[int]) -> Edit:
    """List the ``direction`` ("input"/"output") ports of ``layer`` in ``order`` (positions)."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        m = _layer_block(text, layer)
        block = m.group(0)
        sec = re.search(rf"\t\t\t<{direction}>\n(.*?)\t\t\t</{direction}>\n", block, re.S)
        ports = _port_blocks(sec.group(1))
        assert "".join(ports) == sec.group(1) and len(ports) == len(order), (layer, direction)
        new_sec = "".join(ports[i] for i in order)
        block = block[: sec.start(1)] + new_sec + block[sec.end(1) :]
        return text[: m.start()] + block + text[m.end() :], data

    return edit


def relabel_ports(layer: str, mapping: dict[int, int]) -> Edit:
    """Change port ids of ``layer`` (keeping their positions) and the edges that use them."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        lid = _layer_id(text, layer)
        m = _layer_block(text, layer)

        def relabel(port_id: str) -> int:
            return mapping.get(int(port_id), int(port_id))

        block = re.sub(r'(<port id=")(\d+)"', lambda p: f'{p.group(1)}{relabel(p.group(2))}"', m.group(0))
        text = text[: m.start()] + block + text[m.end() :]

        def fix(e: re.Match[str]) -> str:
            s = re.sub(rf'from-layer="{lid}" from-port="(\d+)"',
                       lambda p: f'from-layer="{lid}" from-port="{relabel(p.group(1))}"', e.group(0))
            return re.sub(rf'to-layer="{lid}" to-port="(\d+)"',
                          lambda p: f'to-layer="{lid}" to-port="{relabel(p.group(1))}"', s)

        return re.sub(r"<edge [^>]*/>", fix, text), data

    return edit


def drop_xml_declaration(text: str, data: bytes) -> tuple[str, bytes]:
    assert text.startswith('<?xml version="1.0"?>\n')
    return text.split("\n", 1)[1], data


def drop_net_rt_info(text: str, data: bytes) -> tuple[str, bytes]:
    new = re.sub(r"\t<rt_info />\n|\t<rt_info>\n.*?\n\t</rt_info>\n(?=</net>)", "", text, flags=re.S)
    assert new != text
    return new, data


def compact_whitespace(text: str, data: bytes) -> tuple[str, bytes]:
    return re.sub(r">\s+<", "><", text).strip(), data


def strip_names(text: str, data: bytes) -> tuple[str, bytes]:
    return re.sub(r' (?:output_)?names="[^"]*"', "", text), data


def rewire(to_layer: str, to_port: int, from_layer: str, from_port: int) -> Edit:
    """Make input ``to_port`` of ``to_layer`` come from output port id ``from_port`` of ``from_layer``."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        t, f = _layer_id(text, to_layer), _layer_id(text, from_layer)
        pat = rf'<edge from-layer="\d+" from-port="\d+" to-layer="{t}" to-port="{to_port}" />'
        new = f'<edge from-layer="{f}" from-port="{from_port}" to-layer="{t}" to-port="{to_port}" />'
        assert re.search(pat, text), pat
        return re.sub(pat, new, text), data

    return edit


def add_rt_attributes(layer: str, attrs: list[str], port: int | None = None) -> Edit:
    """Insert ``<rt_info>`` with ``attrs`` into a layer (after <data>) or into its port id ``port``."""

    def edit(text: str, data: bytes) -> tuple[str, bytes]:
        m = _layer_block(text, layer)
        block = m.group(0)
        if port is None:
            body = "".join(f"\t\t\t\t{a}\n" for a in attrs)
            at = re.search(r"\t\t\t<(?:input|output)>\n", block).start()
            block = block[:at] + "\t\t\t<rt_info>\n" + body + "\t\t\t</rt_info>\n" + block[at:]
        else:
            body = "".join(f"\t\t\t\t\t\t{a}\n" for a in attrs)
            p = re.search(rf'\t\t\t\t<port id="{port}"[^\n]*?(?: />\n|>\n.*?\t\t\t\t</port>\n)', block, re.S)
            pb = p.group(0)
            rt = "\t\t\t\t\t<rt_info>\n" + body + "\t\t\t\t\t</rt_info>\n"
            if pb.endswith(" />\n"):
                pb = pb[: -len(" />\n")] + ">\n" + rt + "\t\t\t\t</port>\n"
            else:
                pb = pb[: -len("\t\t\t\t</port>\n")] + rt + "\t\t\t\t</port>\n"
            block = block[: p.start()] + pb + block[p.end() :]
        return text[: m.start()] + block + text[m.end() :], data

    return edit


# --------------------------------------------------------------------------------------------
# The catalogue


def _v10(base: Callable[[], CaseSpec]) -> Callable[[], CaseSpec]:
    """The same case written as IR v10."""

    def build() -> CaseSpec:
        spec = base()
        spec.ir_version = 10
        spec.what = "[IR v10] " + spec.what
        return spec

    return build


def _with_v10(name: str, fn: Callable[[], CaseSpec]) -> None:
    CASES[name] = fn
    CASES[name + "-v10"] = _v10(fn)


# -- every element type through Split / VariadicSplit / Concat, and Consts of every type


_CPU_NOTES = {
    "i64": "the CPU plugin moves i64 data through i32: inputs wrap, constants saturate (see ov_cpu.npz)",
    "u64": "the CPU plugin moves u64 data through i32: inputs wrap, constants saturate (see ov_cpu.npz)",
    "u32": "the CPU plugin moves u32 data through i32: values above 2^31-1 saturate (see ov_cpu.npz)",
    "f64": "the CPU plugin moves f64 data through f32: every value (Consts too) is rounded to f32 and +-inf "
    "comes back as +-3.4028234663852886e38 (see ov_cpu.npz)",
    "nf4": "the CPU plugin returns wrong nibbles for nf4 Split/Concat and corrupts the heap (the process aborts)",
    "f4e2m1": "the CPU plugin corrupts the heap on f4e2m1 Split/Concat (the process aborts)",
    "string": "the CPU plugin crashes (SIGSEGV, or 'free(): invalid pointer' at exit) on string Split/VariadicSplit; "
    "string Concat alone works",
}


def _type_case(t: str) -> Callable[[], CaseSpec]:
    def build() -> CaseSpec:
        rng = rng_for("type-" + t)
        x = param("x", [2, 6], t)
        sp = split(x, 1, 2, "sp")
        vs = vsplit(x, -1, [1, -1, 2], "vs")
        k = const(sample(t, (2, 3), rng, specials=True), t, "k")
        cat = concat([sp.output(1), k, sp.output(0), vs.output(0), vs.output(2), vs.output(1)], 1, "cat")
        odd = const(sample(t, (7,), rng), t, "odd")
        m = model([result(cat, "y"), result(vs.output(1), "vs_mid"), result(odd, "odd_const")], [x], "type_" + t)
        return CaseSpec(
            what=f"{t}: x[2,6] -> Split(axis 1, 2) and VariadicSplit(axis -1, [1,-1,2]) -> Concat(axis 1) with a "
            f"{t} Const[2,3]; a {t} Const[7] straight to a Result (odd element count: sub-byte packing)",
            model=m,
            inputs={"x": sample(t, (2, 6), rng, specials=True)},
            notes={"ov_cpu_note": _CPU_NOTES[t]} if t in _CPU_NOTES else {},
        )

    return build


for _t_name in TYPES:
    _with_v10("type-" + _t_name, _type_case(_t_name))


# -- the documents' examples


@case("doc-split-6x12x10x24")
def _doc_split() -> CaseSpec:
    x = param("data", [6, 12, 10, 24])
    sp = split(x, 1, 3, "split")
    m = model([result(sp.output(i), f"out{i}") for i in range(3)], [x], "doc_split")
    return CaseSpec("OpenVINO Split-1 spec example: 6x12x10x24 split into 3 along axis 1 (values 1..17280)", m,
                    {"data": iota((6, 12, 10, 24))})


def _dml_split_axis2() -> CaseSpec:
    x = param("input", [1, 1, 6, 2])
    vs = vsplit(x, 2, [2, 1, 3], "split")
    m = model([result(vs.output(i), f"output{i}") for i in range(3)], [x], "dml_split_axis2")
    return CaseSpec("DirectML Split example 1: 1x1x6x2 (values 1..12) on axis 2 into 2,1,3 (VariadicSplit)", m,
                    {"input": iota((1, 1, 6, 2))})


_with_v10("dml-split-axis2-2-1-3", _dml_split_axis2)


@case("dml-split-axis3-2")
def _dml_split_axis3() -> CaseSpec:
    x = param("input", [1, 1, 6, 2])
    sp = split(x, 3, 2, "split")
    m = model([result(sp.output(i), f"output{i}") for i in range(2)], [x], "dml_split_axis3")
    return CaseSpec("DirectML Split example 2: 1x1x6x2 (values 1..12) on axis 3 into 2 (Split)", m,
                    {"input": iota((1, 1, 6, 2))})


@case("dml-join-2x3-2x4-axis3")
def _dml_join_axis3() -> CaseSpec:
    a, b = param("input0", [1, 1, 2, 3]), param("input1", [1, 1, 2, 4])
    m = model([result(concat([a, b], 3, "join"), "output")], [a, b], "dml_join")
    return CaseSpec("DirectML Join example 1: 1x1x2x3 (1..6) + 1x1x2x4 (7..14) on axis 3", m,
                    {"input0": iota((1, 1, 2, 3)), "input1": iota((1, 1, 2, 4), start=7)})


def _dml_join_three(axis: int) -> Callable[[], CaseSpec]:
    def build() -> CaseSpec:
        xs = [param(f"input{i}", [1, 1, 2, 2]) for i in range(3)]
        m = model([result(concat(xs, axis, "join"), "output")], xs, "dml_join_three")
        return CaseSpec(f"DirectML Join example 2: three 1x1x2x2 (1..4, 5..8, 9..12) on axis {axis}", m,
                        {f"input{i}": iota((1, 1, 2, 2), start=1 + 4 * i) for i in range(3)})

    return build


for _axis in (1, 2, 3):
    CASES[f"dml-join-three-2x2-axis{_axis}"] = _dml_join_three(_axis)


# -- Split / VariadicSplit / Concat variants


@case("split-negative-axis")
def _split_negative_axis() -> CaseSpec:
    x = param("x", [2, 3, 4])
    a = split(x, -1, 2, "split_last")
    b = split(x, -3, 2, "split_first")
    outs = [result(a.output(0), "last0"), result(a.output(1), "last1"), result(b.output(0), "first0"),
            result(b.output(1), "first1")]
    return CaseSpec("Split x[2,3,4] with axis -1 (into 2) and axis -3 (into 2)", model(outs, [x], "split_neg"),
                    {"x": iota((2, 3, 4))})


@case("split-axis-int-types")
def _split_axis_types() -> CaseSpec:
    x = param("x", [2, 6])
    outs = []
    for t in ("i32", "i8", "u8", "u64", "i16"):
        sp = split(x, 1, 3, "split_" + t, axis_type=t)
        outs += [result(sp.output(i), f"{t}_{i}") for i in range(3)]
    return CaseSpec("Split x[2,6] into 3 on axis 1 with the axis Const as i32, i8, u8, u64 and i16",
                    model(outs, [x], "split_axis_types"), {"x": iota((2, 6))})


@case("split-axis-from-parameter")
def _split_axis_param() -> CaseSpec:
    x = param("x", [4, 4])
    axis = ops.parameter(ov.PartialShape([]), ov.Type.i64, name="axis")
    sp = ops.split(x, axis, 2, name="split")
    outs = [result(sp.output(0), "part0"), result(sp.output(1), "part1")]
    return CaseSpec("Split x[4,4] into 2 with the axis given as a scalar i64 Parameter (run with axis=1); "
                    "OpenVINO makes every output dim dynamic", model(outs, [x, axis], "split_axis_param"),
                    {"x": iota((4, 4)), "axis": np.array(1, np.int64)})


@case("vsplit-minus-one-and-zero-parts")
def _vsplit_zero() -> CaseSpec:
    x = param("x", [2, 6])
    a = vsplit(x, 1, [0, -1, 0, 2], "vs_zero")
    b = vsplit(x, 1, [6, -1], "vs_rest_empty")
    c = vsplit(x, 0, [-1], "vs_single")
    outs = [result(a.output(i), f"zero{i}") for i in range(4)]
    outs += [result(b.output(0), "all"), result(b.output(1), "none"), result(c.output(0), "copy")]
    y = concat([a.output(0), a.output(3), a.output(2), a.output(1)], 1, "rejoin")
    outs.append(result(y, "rejoined"))
    return CaseSpec("VariadicSplit [0,-1,0,2] on 6 (zero-length parts), [6,-1] (-1 resolves to 0), [-1] (copy); "
                    "zero-size parts concatenated back", model(outs, [x], "vsplit_zero"),
                    {"x": iota((2, 6))})


@case("vsplit-axis-shape1-mixed-types")
def _vsplit_axis_shape1() -> CaseSpec:
    x = param("x", [3, 4])
    a = vsplit(x, 1, [1, 3], "vs_axis_vec", axis_shape=(1,), lengths_type="i32")
    b = vsplit(x, -2, [2, -1], "vs_i32_axis", axis_type="i32", lengths_type="i64")
    b2 = vsplit(x, 0, [1, 1, 1], "vs_u8", axis_type="u8", lengths_type="i8")
    outs = [result(a.output(i), f"vec{i}") for i in range(2)] + [result(b.output(i), f"i32ax{i}") for i in range(2)]
    outs += [result(b2.output(i), f"u8ax{i}") for i in range(3)]
    return CaseSpec("VariadicSplit with axis of shape [1] and i32 lengths, i32 axis -2 with i64 lengths, u8 axis "
                    "with i8 lengths (axis and lengths types need not match)", model(outs, [x], "vsplit_axis"),
                    {"x": iota((3, 4))})


@case("concat-same-output-twice")
def _concat_twice() -> CaseSpec:
    x = param("x", [2, 3])
    sp = split(x, 1, 3, "sp")
    a = concat([x, x], 0, "twice")
    b = concat([sp.output(1), sp.output(1), sp.output(0), sp.output(1)], 1, "repeat_split_out")
    return CaseSpec("Concat(x, x) on axis 0, and Concat of the same Split output three times (parallel edges)",
                    model([result(a, "twice"), result(b, "repeated")], [x], "concat_twice"), {"x": iota((2, 3))})


@case("concat-split-reordered")
def _concat_reordered() -> CaseSpec:
    x = param("x", [2, 6])
    sp = split(x, 1, 3, "sp")
    y = concat([sp.output(2), sp.output(0), sp.output(1)], -1, "cat")
    return CaseSpec("Split x[2,6] into 3 on axis 1, Concat(out2, out0, out1) on axis -1",
                    model([result(y, "y")], [x], "concat_reordered"), {"x": iota((2, 6))})


@case("concat-single-input")
def _concat_single() -> CaseSpec:
    x = param("x", [2, 3])
    return CaseSpec("Concat with one input (a copy)", model([result(concat([x], 0, "cat"), "y")], [x], "concat1"),
                    {"x": iota((2, 3))})


# -- dynamic and interval shapes


def _dyn_dim() -> CaseSpec:
    x = param("x", "2,?")
    vs = vsplit(x, 1, [1, -1], "vs")
    y = concat([vs.output(1), vs.output(0)], 1, "cat")
    return CaseSpec("x[2,?] -> VariadicSplit(axis 1, [1,-1]) -> Concat(rest, first); run with 2x5",
                    model([result(y, "y")], [x], "dyn_dim"), {"x": iota((2, 5))})


_with_v10("dyn-dim", _dyn_dim)


@case("dyn-dim-zero-size-run")
def _dyn_zero() -> CaseSpec:
    x = param("x", "2,?")
    k = const(iota((2, 2), start=100), "f32", "k")
    y = concat([x, k], 1, "cat")
    return CaseSpec("x[2,?] concatenated with a Const[2,2]; run with a 2x0 input", model([result(y, "y")], [x], "dz"),
                    {"x": np.zeros((2, 0), np.float32)})


@case("dyn-interval-split")
def _dyn_interval_split() -> CaseSpec:
    x = param("x", "2,2..8")
    sp = split(x, 1, 2, "sp")
    y = concat([sp.output(1), sp.output(0)], 1, "cat")
    outs = [result(sp.output(0), "half0"), result(y, "swapped")]
    return CaseSpec("x[2,2..8] -> Split(axis 1, 2) (output dim 1..4) -> Concat swapped; run with 2x6",
                    model(outs, [x], "dyn_interval"), {"x": iota((2, 6))})


@case("dyn-interval-upper-bound")
def _dyn_upper() -> CaseSpec:
    x = param("x", "..5,3")
    y = concat([x, x], 0, "cat")
    vs = vsplit(x, 1, [1, 2], "vs")
    outs = [result(y, "doubled"), result(vs.output(0), "col0"), result(vs.output(1), "cols12")]
    return CaseSpec("x[..5,3] -> Concat(x, x, axis 0) and VariadicSplit(axis 1, [1,2]); run with 4x3",
                    model(outs, [x], "dyn_upper"), {"x": iota((4, 3))})


@case("dyn-interval-lower-bound")
def _dyn_lower() -> CaseSpec:
    x = param("x", "2..,4")
    sp = split(x, 1, 2, "sp")
    y = concat([sp.output(1), sp.output(0)], 0, "cat")
    return CaseSpec("x[2..,4] -> Split(axis 1, 2) -> Concat on axis 0; run with 3x4",
                    model([result(y, "y")], [x], "dyn_lower"), {"x": iota((3, 4))})


def _dyn_rank() -> CaseSpec:
    x = param("x", "...")
    sp = split(x, 0, 2, "sp")
    y = concat([sp.output(1), sp.output(0)], 0, "cat")
    outs = [result(y, "y"), result(sp.output(0), "head")]
    return CaseSpec("x of dynamic rank [...] -> Split(axis 0, 2) -> Concat swapped; run with 4x3",
                    model(outs, [x], "dyn_rank"), {"x": iota((4, 3))})


_with_v10("dyn-rank", _dyn_rank)


def _dyn_mixed() -> CaseSpec:
    x = param("x", "?,1..8,..5,2..")
    y = concat([x, x], 3, "cat")
    sp = split(x, 3, 2, "sp")
    outs = [result(y, "y"), result(sp.output(1), "right")]
    return CaseSpec("x[?,1..8,..5,2..] -> Concat(x, x, axis 3) and Split(axis 3, 2); run with 1x2x3x4",
                    model(outs, [x], "dyn_mixed"), {"x": iota((1, 2, 3, 4))})


_with_v10("dyn-mixed", _dyn_mixed)


# -- tensor names


@case("names-comma")
def _names_comma() -> CaseSpec:
    x = param("x", [2, 6], names={"x", "in,put"})
    sp = split(x, 1, 3, "sp")
    set_names(sp.output(0), "a,b", "zz")
    set_names(sp.output(1), "tail,")
    set_names(sp.output(2), ",lead", "p,q,r")
    outs = [result(sp.output(i), f"r{i}") for i in range(3)]
    return CaseSpec("tensor names containing commas (written as \\,), several names per port",
                    model(outs, [x], "names_comma"), {"x": iota((2, 6))})


@case("names-multi")
def _names_multi() -> CaseSpec:
    x = param("x", [2, 2], names={"x", "input:0", "data"})
    y = concat([x, x], 0, "cat")
    set_names(y.output(0), "out", "y:0", "Y")
    return CaseSpec("several tensor names on the Parameter port and on the Concat output",
                    model([result(y, "result")], [x], "names_multi"), {"x": iota((2, 2))})


def _names_special() -> CaseSpec:
    x = param("in put", [2, 4], names={"in put", "ünï/名前"})
    sp = split(x, 1, 2, "split & <more>")
    set_names(sp.output(0), "with space", 'quote"d', "a&b<c>d")
    set_names(sp.output(1), " leading and trailing ", "tab\there", "apos'")
    outs = [result(sp.output(0), "first out"), result(sp.output(1), "second<out>")]
    return CaseSpec("names with spaces, unicode, & < > \" ' and TAB, in layer names and tensor names",
                    model(outs, [x], "names & <special>"), {"in put": iota((2, 4))})


_with_v10("names-special", _names_special)


@case("names-output-names-override")
def _names_override() -> CaseSpec:
    base = _names_multi()
    base.what = "Result output_names=\"renamed,alias\" differs from the producer's names (hand edit): v11 key rule"
    base.edits = [replace_in_layer("result", 'type="Result" version="opset1"',
                                   'type="Result" version="opset1" output_names="renamed,alias"')]
    return base


@case("names-absent")
def _names_absent() -> CaseSpec:
    x = param("x", [2, 6])
    sp = split(x, 1, 2, "sp")
    outs = [result(sp.output(0), "left"), result(sp.output(1), "right")]
    return CaseSpec("every names/output_names attribute removed (hand edit): outputs keyed by the Result layer name",
                    model(outs, [x], "names_absent"), {"x": iota((2, 6))}, edits=[strip_names])


# -- rt_info


def _rt_net() -> CaseSpec:
    x = param("x", [2, 4])
    sp = split(x, 1, 2, "sp")
    m = model([result(concat([sp.output(1), sp.output(0)], 1, "cat"), "y")], [x], "rt_net")
    m.set_rt_info("my value", "simple_key")
    m.set_rt_info("v1", ["nested", "inner_a"])
    m.set_rt_info("v2", ["nested", "deeper", "x"])
    m.set_rt_info("odd", "key with space")
    m.set_rt_info("5", "123starts_with_digit")
    m.set_rt_info("x", "xmlprefixed")
    m.set_rt_info("u", "ключ")
    m.set_rt_info("c", "a:b")
    m.set_rt_info('<&>"', "escaped_value")
    m.set_rt_info("deep", ["conversion_parameters", "framework", "x y"])
    return CaseSpec("net-level rt_info: nested maps, keys that are not XML names (<info name=...>), escaped values",
                    m, {"x": iota((2, 4))})


_with_v10("rtinfo-net", _rt_net)

_RT_ATTRS = [
    '<attribute name="fused_names" version="0" value="sp,orig split" />',
    '<attribute name="old_api_map_order" version="0" value="1,0" />',
    '<attribute name="old_api_map_element_type" version="0" value="f16" />',
    '<attribute name="decompression" version="0" />',
    '<attribute name="dequantization" version="0" />',
    '<attribute name="disable_fp16_compression" version="0" />',
    '<attribute name="precise" version="0" />',
    '<attribute name="preprocessing" version="0" />',
    '<attribute name="primitives_priority" version="0" value="cpu:ref" />',
    '<attribute name="unknown_attribute" version="7" value="dropped" />',
    '<custom name="custom_entry" value="dropped" />',
]


def _rt_layer_port(reserialize: bool) -> Callable[[], CaseSpec]:
    def build() -> CaseSpec:
        x = param("x", [1, 2, 2, 4])
        x.set_layout(ov.Layout("NCHW"))
        sp = split(x, 3, 2, "sp")
        y = concat([sp.output(1), sp.output(0)], 3, "cat")
        r = result(y, "y")
        r.set_layout(ov.Layout("NHWC"))
        m = model([r, result(sp.output(0), "left")], [x], "rt_layers")
        edits = [
            add_rt_attributes("sp", _RT_ATTRS),
            add_rt_attributes("sp", _RT_ATTRS, port=2),
            add_rt_attributes("cat", ['<attribute name="fused_names" version="0" value="cat,concat_orig" />']),
        ]
        how = ("hand-written into the layer/port rt_info, read by OpenVINO and written again: what survives"
               if reserialize else "hand-written into a v10 file (OpenVINO ignores layer/port rt_info in v10)")
        what = "layer and port rt_info (fused_names, old_api_map_*, decompression, precise, layout, ...) " + how
        return CaseSpec(what,
                        m, {"x": iota((1, 2, 2, 4))}, edits=edits, reserialize=reserialize,
                        ir_version=11 if reserialize else 10,
                        notes={"rt_info_attributes_offered": _RT_ATTRS})

    return build


CASES["rtinfo-layer-port"] = _rt_layer_port(True)
CASES["rtinfo-layer-port-v10"] = _rt_layer_port(False)


# -- constants


@case("const-dedup")
def _const_dedup() -> CaseSpec:
    x = param("x", [2, 6])
    axis_scalar = const(1, "i64", "axis_scalar_i64")  # 8 bytes 01 00..
    axis_vec = const([1], "i64", "axis_vec_i64")  # same 8 bytes
    sp = ops.split(x, axis_scalar, 2, name="sp")
    vs = ops.variadic_split(x, axis_vec, const([1, 5], "i64", "lengths_i64"), name="vs")
    a = const([[1, 3]], "i64", "i64_1x2")
    b = const([[1, 3]], "i64", "i64_1x2_again")
    c = const([1, 0, 3, 0], "i32", "i32_1_0_3_0")
    d = const(np.frombuffer(pack(np.array([1, 0, 3, 0], np.int32), "i32"), np.uint8), "u8", "u8_16_same_bytes")
    f = const([1.0, 2.0], "f32", "f32_1_2")
    g = const(np.array([1.0, 2.0], np.float32).view(np.int32), "i32", "i32_bits_of_f32")
    outs = [result(sp.output(0), "sp0"), result(vs.output(1), "vs1")]
    outs += [result(n, n.get_friendly_name()) for n in (a, b, c, d, f, g)]
    return CaseSpec("Consts with identical bytes across types and shapes share one blob in model.bin "
                    "(scalar i64 1 / i64 [1]; i64 [[1,3]] twice, i32 [1,0,3,0], u8[16]; f32 [1,2] / i32 bits)",
                    model(outs, [x], "const_dedup"), {"x": iota((2, 6))})


@case("const-empty")
def _const_empty() -> CaseSpec:
    x = param("x", [2, 3])
    e1 = const(np.zeros((2, 0)), "f32", "empty_2x0")
    e2 = const(np.zeros((0, 3)), "f32", "empty_0x3")
    e3 = const(np.zeros((0,)), "i64", "empty_i64")
    e4 = const(np.zeros((0, 2)), "u8", "empty_u8")
    outs = [result(concat([e1, x, e1], 1, "cat_cols"), "cols"), result(concat([e2, x], 0, "cat_rows"), "rows"),
            result(e3, "empty_i64"), result(e4, "empty_u8")]
    return CaseSpec("zero-element Consts (written with size=\"1\"), concatenated with x and returned directly",
                    model(outs, [x], "const_empty"), {"x": iota((2, 3))})


# -- hand edits that OpenVINO reads fine


def _edit_base() -> CaseSpec:
    """Two inputs, three outputs; the base of the hand-edited cases."""
    x = param("x", [2, 6])
    z = param("z", [1, 6])
    sp = split(x, 1, 3, "sp")
    y = concat([sp.output(2), sp.output(0), sp.output(1)], 1, "cat")
    vs = vsplit(x, 0, [1, -1], "vs")
    w = concat([vs.output(1), z], 0, "cat_z")
    outs = [result(y, "y"), result(vs.output(0), "top"), result(w, "w")]
    return CaseSpec("", model(outs, [x, z], "edited"), {"x": iota((2, 6)), "z": iota((1, 6), start=101)})


def _edited(what: str, *edits: Edit, **notes: Any) -> Callable[[], CaseSpec]:
    def build() -> CaseSpec:
        spec = _edit_base()
        spec.what = what
        spec.edits = list(edits)
        spec.notes = dict(notes)
        return spec

    return build


CASES["edit-reversed-layer-order"] = _edited(
    "layers in reversed document order (hand edit)", reverse_layers,
    ov_behaviour="reads fine; inputs and outputs follow the document order of Parameter/Result layers, so the "
    "model's input order becomes z, x and its output order w, top, y")
CASES["edit-sparse-ids"] = _edited(
    "non-sequential layer ids 100, 7, 55, 3, 42, 1000, ... (hand edit)",
    renumber_layers([100, 7, 55, 3, 42, 1000, 8, 12, 13, 21, 5, 0]),
    ov_behaviour="reads fine; ids are only labels")
CASES["edit-port-ids-relabelled"] = _edited(
    "port ids renumbered but listed in order (Split sp: in 9,4 / out 11,5,7; edges follow) (hand edit)",
    relabel_ports("sp", {0: 9, 1: 4, 2: 11, 3: 5, 4: 7}),
    ov_behaviour="reads fine; same results as without the edit")
CASES["edit-input-ports-out-of-order"] = _edited(
    "Concat 'cat' input ports listed as ids 1,0,2 (edges unchanged) (hand edit)",
    reorder_ports("cat", "input", [1, 0, 2]),
    ov_behaviour="reads fine, but a port's POSITION in <input> is its index, not its id: the edge to-port=1 now "
    "feeds input 0, so y = Concat(sp.out0, sp.out2, sp.out1) instead of Concat(sp.out2, sp.out0, sp.out1)")
CASES["edit-output-ports-out-of-order"] = _edited(
    "Split 'sp' output ports listed as ids 4,2,3 (edges unchanged) (hand edit)",
    reorder_ports("sp", "output", [2, 0, 1]),
    ov_behaviour="reads fine, but a port's POSITION in <output> is its output index, not its id: port id 4 is now "
    "output 0, so y = Concat(sp.out0, sp.out1, sp.out2) = x instead of Concat(sp.out2, sp.out0, sp.out1)")
CASES["edit-no-xml-declaration"] = _edited("no <?xml ...?> declaration (hand edit)", drop_xml_declaration,
                                           ov_behaviour="reads fine")
CASES["edit-no-net-rt-info"] = _edited(
    "no net-level <rt_info> (hand edit)", drop_net_rt_info,
    ov_behaviour="reads fine; re-serializing adds <rt_info><optimization /></rt_info>")
CASES["edit-compact-whitespace"] = _edited("all whitespace between tags removed (hand edit)", compact_whitespace,
                                           ov_behaviour="reads fine")
CASES["edit-unknown-elements"] = _edited(
    "unknown <data>, <layer>, <port> and <edge> attributes, unknown layer children (before and after <input>), "
    "unknown top-level sections after <edges> (hand edit)",
    replace_in_layer("sp", '<data num_splits="3" />', '<data num_splits="3" flavour="extra" />\n'
                     '\t\t\t<custom_child a="1"><nested>text</nested></custom_child>'),
    replace_in_layer("cat", "\t\t</layer>\n", "\t\t\t<trailing_child />\n\t\t</layer>\n"),
    replace_in_layer("cat", 'version="opset1">', 'version="opset1" colour="blue">'),
    replace_in_layer("x", 'names="x">', 'names="x" note="unknown port attribute">'),
    replace_text(' to-layer="4" to-port="0" />', ' to-layer="4" to-port="0" weight="1" />'),
    replace_text("</net>", "\t<statistics>\n\t\t<layer name=\"x\" min=\"0\" />\n\t</statistics>\n"
                 "\t<meta_data>\n\t\t<MO_version value=\"old\" />\n\t</meta_data>\n"
                 "\t<quantization_parameters><config>{}</config></quantization_parameters>\n</net>"),
    ov_behaviour="reads fine; all unknown content is ignored (OpenVINO also ignores unknown sections between "
    "<layers> and <edges> and unknown <port> children, which the structural schemas reject)")
CASES["edit-opset-alias-and-type-case"] = _edited(
    "type=\"split\" version=\"opset13\" and type=\"CONCAT\" version=\"opset8\" (hand edit)",
    replace_in_layer("sp", 'type="Split" version="opset1"', 'type="split" version="opset13"'),
    replace_in_layer("cat", 'type="Concat" version="opset1"', 'type="CONCAT" version="opset8"'),
    ov_behaviour="reads fine: any opset holding the op version works and type matching ignores case "
    "(but not for Const: see err-const-type-constant, err-const-type-lowercase)")


# -- hand edits that OpenVINO rejects


def _error(what: str, *edits: Edit) -> Callable[[], CaseSpec]:
    def build() -> CaseSpec:
        spec = _edit_base()
        spec.what = what
        spec.expect = "error"
        spec.edits = list(edits)
        return spec

    return build


CASES["err-split-nondivisible"] = _error(
    "Split num_splits edited from 3 to 4 on an axis of size 6",
    replace_in_layer("sp", 'num_splits="3"', 'num_splits="4"'))
CASES["err-vsplit-two-minus-one"] = _error(
    "VariadicSplit split_lengths [1,-1] patched to [-1,-1] in model.bin", patch_const("vs/lengths", [-1, -1], "i64"))
CASES["err-vsplit-sum-mismatch"] = _error(
    "VariadicSplit split_lengths [1,-1] patched to [1,2] on an axis of size 2",
    patch_const("vs/lengths", [1, 2], "i64"))
CASES["err-split-axis-out-of-range"] = _error(
    "Split axis Const patched from 1 to 2 on a rank-2 input", patch_const("sp/axis", 2, "i64"))
CASES["err-concat-axis-out-of-range"] = _error(
    "Concat axis attribute edited from 1 to 2 on rank-2 inputs", replace_in_layer("cat", 'axis="1"', 'axis="2"'))
CASES["err-concat-rank-mismatch"] = _error(
    "Parameter z edited to shape 1,6,1 so Concat(vs.1 [1,6], z [1,6,1]) mixes ranks",
    replace_in_layer("z", 'shape="1,6"', 'shape="1,6,1"'),
    replace_in_layer("z", "<dim>6</dim>\n", "<dim>6</dim>\n\t\t\t\t\t<dim>1</dim>\n"))

CASES["err-const-type-constant"] = _error(
    "the Split axis Const written as type=\"Constant\" (the class name): OpenVINO builds a Constant without data",
    replace_in_layer("sp/axis", 'type="Const"', 'type="Constant"'))
CASES["err-const-type-lowercase"] = _error(
    "the Split axis Const written as type=\"const\": the case-insensitive type lookup does not cover Const",
    replace_in_layer("sp/axis", 'type="Const"', 'type="const"'))


def _offset_beyond(text: str, data: bytes) -> tuple[str, bytes]:
    old = re.search(r'offset="\d+"', _layer_block(text, "vs/lengths").group(0)).group(0)
    return replace_in_layer("vs/lengths", old, f'offset="{len(data)}"')(text, data)


CASES["err-const-offset-beyond-bin"] = _error("Const vs/lengths offset edited to the size of model.bin",
                                              _offset_beyond)
CASES["err-cycle"] = _error("Split sp's data input rewired to come from the Concat it feeds (a cycle)",
                            rewire("sp", 0, "cat", 3))
