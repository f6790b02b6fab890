"""One op end to end: an IR written by OpenVINO's own serializer, checked by ``ir-validate`` and run by ``ir-run``
against OpenVINO's reference values (the same node on Constants, folded)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import openvino as ov
import pytest

from irgraph.cli import ir_run, ir_validate
from irgraph.core.element_types import ElementType
from tests.ops.differential import ov_constant, ov_ops, ov_reference, ov_type


def assert_openvino_ir_runs(build: Callable[..., Any], inputs: Sequence[np.ndarray], tmp_path: Path,
                            capsys: pytest.CaptureFixture[str], *, constant: Collection[int] = (),
                            expected: Sequence[np.ndarray] | None = None) -> None:
    """``build`` on Parameters (Constants for the ``constant`` inputs), saved by ``openvino.save_model``;
    ir-validate must find nothing wrong and ir-run's outputs must equal the reference's bit for bit (``expected``
    where OpenVINO folds no such node: values its reference gave another way)."""
    arguments, parameters, feeds = [], [], {}
    for index, array in enumerate(inputs):
        if index in constant:
            arguments.append(ov_constant(array))
            continue
        parameter = ov_ops.parameter(list(array.shape), ov_type(ElementType.from_numpy(array.dtype)), name=f"in{index}")
        parameter.output(0).get_tensor().set_names({f"in{index}"})
        arguments.append(parameter)
        parameters.append(parameter)
        feeds[f"in{index}"] = array
    node = build(*arguments)
    results = []
    for index in range(node.get_output_size()):
        result = ov_ops.result(node.output(index))
        result.set_friendly_name(f"out{index}")
        node.output(index).get_tensor().set_names({f"out{index}"})
        results.append(result)
    xml = tmp_path / "model.xml"
    ov.save_model(ov.Model(results, parameters, "one_op"), xml, compress_to_fp16=False)
    if expected is None:
        expected = ov_reference(build(*[ov_constant(x) for x in inputs]))
        assert expected is not None, "openvino folds no such node: pass the values its reference gives as expected"
    np.savez(tmp_path / "in.npz", **feeds)
    np.savez(tmp_path / "expected.npz", **{f"out{i}": value for i, value in enumerate(expected)})

    assert ir_validate.main([str(xml), "--strict"]) == 0, capsys.readouterr().out
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz"),
                        "--compare", str(tmp_path / "expected.npz"), "--atol", "0", "--rtol", "0"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        for index, value in enumerate(expected):
            np.testing.assert_array_equal(written[f"out{index}"], value)
