"""ONNX's backend node tests through OpenVINO's own ONNX frontend: the IR OpenVINO users get from ONNX.

For one node case (onnx.backend.test.case.node, the cases the onnx 1.23.2 wheel's data/node folders are written
from) ``judge(case)`` writes its model.onnx, converts it with openvino 2026.4.1 (``ov.convert_model``, then
``ov.save_model`` with its defaults: f32 weights compressed to f16, as ``ovc`` writes them), and runs every data
set three ways:

1. OpenVINO's CPU plugin (``INFERENCE_PRECISION_HINT=f32``) on the saved IR. Where it gives ONNX's expected
   outputs (``agrees``: the tolerances of test_onnx_import_sweep.py), ONNX's outputs judge irgraph.
2. Where it does not, OpenVINO's reference kernels: the saved IR with each Parameter replaced by a Constant of
   its input, folded by ``ConstantFolding`` (as tests/ops/differential.py judges one op). When every Result
   folds, the folded values judge irgraph.
3. irgraph reads the saved IR and runs it with its Interpreter.

The verdict names its judge ("onnx", "reference"), or why there is none, and what irgraph got wrong if anything.
``python -m tests.io.onnx_node_frontend [N]`` prints the verdict of every N-th case (the full sweep by default),
which is how tests/io/onnx_node_frontend_expectations.py was filled.
"""

from __future__ import annotations

import functools
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import openvino as ov
from onnx import numpy_helper
from openvino.passes import ConstantFolding, Manager

import irgraph as ir
from irgraph.core.errors import IrError
from tests.oracle.ov_models import const_value, from_tensor, to_tensor, type_of

CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
ORACLES = f"openvino {ov.get_version().split('-')[0]}, onnx {onnx.__version__}"


@functools.cache
def node_cases() -> dict:
    """name -> every case of onnx.backend.test.case.node (1,884 in onnx 1.23.2), by name."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():  # some cases compute their expected outputs through overflowing casts
        warnings.simplefilter("ignore")
        return {case.name: case for case in sorted(collect_testcases(None), key=lambda case: case.name)}


def _array(value: np.ndarray | onnx.TensorProto) -> np.ndarray:
    """Node cases give TensorProtos for the element types NumPy lacks (float8, int4, bfloat16)."""
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)


def _as_in_memory(array: np.ndarray) -> np.ndarray:
    """ONNX's arrays as irgraph holds them: strings as NumPy unicode (ONNX gives object arrays of str/bytes)."""
    if array.dtype == object:
        return np.array([x.decode() if isinstance(x, bytes) else x for x in array.reshape(-1)],
                        dtype=np.str_).reshape(array.shape)
    return array


def disagreement(got: np.ndarray, expected: np.ndarray, rtol: float = 1e-4, atol: float = 1e-5) -> str | None:
    """None when ``got`` is ``expected`` (integers, booleans and strings exactly; floats within rtol/atol, NaN
    where NaN is expected; f16, bf16, float8 and float4 within two units of the type, as the import sweep
    judges), else what differs."""
    got, expected = _as_in_memory(np.asarray(got)), _as_in_memory(np.asarray(expected))
    if got.shape != expected.shape:
        return f"shape {got.shape} != {expected.shape}"
    if got.dtype != expected.dtype:
        return f"dtype {got.dtype} != {expected.dtype}"
    if expected.dtype.kind == "U":
        return None if got.tolist() == expected.tolist() else f"{got.tolist()} != {expected.tolist()}"
    floating = expected.dtype.kind in "fc" or (expected.dtype.kind == "V" and "float" in expected.dtype.name)
    if not floating:
        wide_got, wide_expected = got.astype(np.int64 if got.dtype.kind != "b" else bool), expected.astype(
            np.int64 if expected.dtype.kind != "b" else bool)
        if np.array_equal(wide_got, wide_expected):
            return None
        where = np.argwhere(wide_got != wide_expected)
        first = tuple(int(i) for i in where[0])
        return f"{len(where)} of {got.size} values differ, first at {first}: {got[first]} != {expected[first]}"
    if expected.dtype.itemsize < 4 or expected.dtype.kind == "V":  # two units of the narrow type
        rtol = max(rtol, 2 * float(ml_dtypes.finfo(expected.dtype).eps))
    a, b = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), expected.astype(
        np.complex128 if expected.dtype.kind == "c" else np.float64)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    where = np.argwhere(~close)
    first = tuple(int(i) for i in where[0])
    return (f"{len(where)} of {got.size} values differ beyond rtol {rtol:g} / atol {atol:g}, first at {first}: "
            f"{a[first]} != {b[first]}")


@dataclass(frozen=True)
class Verdict:
    """What one node case gave."""

    name: str
    converted: bool
    judge: str | None = None
    """"onnx" (the CPU plugin gives ONNX's outputs), "reference" (it does not, OpenVINO's folding judges), or
    None (not converted, or no judge: the plugin differs from ONNX and the reference does not fold)."""
    why_no_judge: str = ""
    irgraph_error: str | None = None
    """None when irgraph gave the judge's outputs; else what went wrong (a refusal, or which values differ)."""

    @property
    def passed(self) -> bool:
        return self.converted and self.judge is not None and self.irgraph_error is None

    def describe(self) -> str:
        if not self.converted:
            return f"{self.name}: not converted by OpenVINO ({self.why_no_judge})"
        if self.judge is None:
            return f"{self.name}: no judge ({self.why_no_judge}); irgraph: {self.irgraph_error or 'ran'}"
        return f"{self.name}: judged by {self.judge}: {self.irgraph_error or 'irgraph agrees'}"


def _input_names(proto: onnx.ModelProto) -> list[str]:
    initializers = {tensor.name for tensor in proto.graph.initializer}
    return [value.name for value in proto.graph.input if value.name not in initializers]


def _ov_input(array: np.ndarray, ov_type: ov.Type) -> ov.Tensor:
    return to_tensor(_as_in_memory(array), type_of(ov_type).name)


def _cpu_outputs(core: ov.Core, model: ov.Model, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    compiled = core.compile_model(model, "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    for port in compiled.inputs:
        name = next(name for name in feeds if name in port.get_names())
        request.set_tensor(port, _ov_input(feeds[name], port.get_element_type()))
    request.infer()
    return [from_tensor(request.get_output_tensor(i)) for i in range(len(compiled.outputs))]


def _reference_outputs(core: ov.Core, xml: Path, feeds: dict[str, np.ndarray]) -> tuple[list[np.ndarray] | None, str]:
    """The IR's outputs by OpenVINO's reference kernels: Parameters become Constants, ConstantFolding runs.
    (None, why) when a Result does not fold: the first op left whose inputs all folded names the kernel
    missing (or refusing these values)."""
    model = core.read_model(str(xml))
    for parameter in model.get_parameters():
        constant = ov.op.Constant(_ov_input(feeds[parameter.get_friendly_name()], parameter.get_element_type()),
                                  shared_memory=False)
        for target in list(parameter.output(0).get_target_inputs()):
            target.replace_source_output(constant.output(0))
    for node in model.get_ops():  # compressed weights' f16 -> f32 Converts are kept from folding: fold them too
        info = node.get_rt_info()
        for key in ("disable_const_folding", "decompression"):
            if key in info:
                del info[key]
    folded = ov.Model(model.get_results(), [], "reference")
    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(folded)
    values = []
    for result in folded.get_results():
        source = result.input_value(0).get_node()
        if source.get_type_name() != "Constant":
            return None, _unfolded(folded)
        values.append(const_value(source))
    return values, ""


def _unfolded(folded: ov.Model) -> str:
    for node in folded.get_ordered_ops():
        if node.get_type_name() not in ("Constant", "Result") and all(
                value.get_node().get_type_name() == "Constant" for value in node.input_values()):
            return f"OpenVINO's reference does not fold {node.get_type_name()}-{node.get_type_info().version_id}"
    return "OpenVINO's reference does not fold the model"


def _irgraph_outputs(xml: Path, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    model = ir.read_model(str(xml))
    got = ir.Interpreter(model).run({name: _as_in_memory(array) for name, array in feeds.items()})
    return list(got.values())


def _first_disagreement(got: list[np.ndarray], expected: list[np.ndarray], rtol: float, atol: float) -> str | None:
    if len(got) != len(expected):
        return f"{len(got)} outputs for {len(expected)}"
    for index, (a, b) in enumerate(zip(got, expected, strict=True)):
        found = disagreement(a, b, rtol, atol)
        if found:
            return f"output {index}: {found}"
    return None


def judge(case) -> Verdict:
    """Convert ``case`` with OpenVINO, find its judge, run irgraph on OpenVINO's IR and compare."""
    rtol, atol = max(case.rtol, 1e-4), max(case.atol, 1e-5)
    core = ov.Core()
    with tempfile.TemporaryDirectory(prefix="onnx-node-ov-") as folder:
        onnx_file, xml = Path(folder) / "model.onnx", Path(folder) / "model.xml"
        onnx.save(case.model, str(onnx_file))
        try:
            ov.save_model(ov.convert_model(str(onnx_file)), str(xml))
        except Exception as error:  # noqa: BLE001 - any refusal of OpenVINO's frontend means "not converted"
            return Verdict(case.name, converted=False, why_no_judge=_first_line(error))
        names = _input_names(case.model)
        kept = {parameter.get_friendly_name() for parameter in core.read_model(str(xml)).get_parameters()}
        judges = []
        for inputs, outputs in case.data_sets:
            # OpenVINO drops the inputs nothing uses (CastLike's 'like' once its type is read)
            feeds = {name: _array(array) for name, array in zip(names, inputs, strict=True) if name in kept}
            expected = [_as_in_memory(_array(a)) for a in outputs]
            try:
                cpu = _cpu_outputs(core, core.read_model(str(xml)), feeds)
                cpu_differs = _first_disagreement(cpu, expected, rtol, atol)
            except Exception as error:  # noqa: BLE001 - the plugin refusing to compile or run is a difference
                cpu_differs = f"CPU plugin failed: {_first_line(error)}"
            if cpu_differs is None:
                judges.append(("onnx", feeds, expected))
                continue
            try:
                reference, why_not = _reference_outputs(core, xml, feeds)
            except Exception as error:  # noqa: BLE001 - a kernel refusing these values leaves no judge
                reference, why_not = None, f"OpenVINO's reference fails: {_first_line(error)}"
            if reference is None:
                return Verdict(case.name, converted=True,
                               why_no_judge=f"CPU plugin differs from ONNX ({cpu_differs}); {why_not}")
            judges.append(("reference", feeds, reference))
        judge_name = "onnx" if all(j[0] == "onnx" for j in judges) else "reference"
        for _, feeds, expected in judges:
            try:
                got = _irgraph_outputs(xml, feeds)
            except IrError as error:
                return Verdict(case.name, True, judge_name, irgraph_error=f"irgraph refused: {_first_line(error)}")
            except Exception as error:  # noqa: BLE001 - a crash is a verdict too (the test names it)
                return Verdict(case.name, True, judge_name, irgraph_error=f"irgraph crashed: {_first_line(error)}")
            found = _first_disagreement(got, expected, rtol, atol)
            if found:
                return Verdict(case.name, True, judge_name, irgraph_error=found)
        return Verdict(case.name, True, judge_name)


_NOISE = ("Check '", "Exception from ", "FrontEnd API failed", "Model wasn't fully converted", "Summary:",
          "Loading input model", "[ONNX Frontend] Conversion failed", "While validating", "Conversion is failed")


def _first_line(error: BaseException) -> str:
    """The informative part of an error: OpenVINO's messages wrap it in source locations and boilerplate."""
    lines = [line.strip(" -") for line in str(error).strip().splitlines()]
    failed = [line.removesuffix(" with a message:") for line in lines if line.endswith(" with a message:")]
    lines = [line for line in lines if line and not line.startswith(_NOISE) and not line.endswith("message:")]
    text = "; ".join((lines or [str(error).strip()])[: 1 if failed else 2])
    return f"{type(error).__name__}: {failed[0] + ': ' if failed else ''}{text}"[:300]


def main(argv: list[str]) -> None:
    every = int(argv[1]) if len(argv) > 1 else 1
    names = list(node_cases())[::every]
    for name in names:
        print(judge(node_cases()[name]).describe(), flush=True)


if __name__ == "__main__":
    main(sys.argv)
