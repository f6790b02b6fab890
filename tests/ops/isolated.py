"""OpenVINO's reference evaluation in a separate process, for configurations it may crash on.

OpenVINO 2026.4.1's constant folding corrupts its heap on some inputs with zero elements (i64 [1,2] - [0,3,1]
folds to a [0,0,2] tensor, then free() aborts), so the harness does not fold them in the test process. Here a
helper process that has imported OpenVINO and run nothing forks a child per configuration; the child reads the
serialized model, folds it (or calls the node's ``evaluate``), sends the values back and exits. A child that
crashes leaves no answer and no damage: the next configuration gets a fresh copy of the clean helper.
"""

from __future__ import annotations

import atexit
import os
import pickle
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

_HELPER = r"""
import os, pickle, struct, sys
import numpy as np
import openvino as ov
from openvino.passes import ConstantFolding, Manager
from tests.oracle.ov_models import const_value, from_tensor, to_tensor, type_of


def frame(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    return pickle.loads(stream.read(struct.unpack("<I", head)[0]))


def child(request, out_fd):
    core = ov.Core()
    model = core.read_model(request["xml"], ov.Tensor(np.frombuffer(request["bin"], np.uint8).copy()))
    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(model)
    sources = [result.input_value(0).get_node() for result in model.get_results()]
    if all(source.get_type_name() == "Constant" for source in sources):
        values, how = [const_value(source) for source in sources], "reference"
    else:  # not folded: the node's own evaluate, on its Constant inputs
        node, how = sources[0], "evaluate"
        shapes = request["shapes"]
        if len({id(s) for s in sources}) != 1 or shapes is None:
            values = None
        else:
            inputs = [node.input_value(i).get_node() for i in range(node.get_input_size())]
            if any(x.get_type_name() != "Constant" for x in inputs):
                values = None
            else:
                arguments = [to_tensor(const_value(x), type_of(x.get_output_element_type(0)).name) for x in inputs]
                outputs = [ov.Tensor(node.get_output_element_type(i), ov.Shape(shape))
                           for i, shape in enumerate(shapes)]
                try:
                    done = node.evaluate(outputs, arguments)
                except RuntimeError:
                    done = False
                values = [from_tensor(t).reshape(shape) for t, shape in zip(outputs, shapes)] if done else None
    data = pickle.dumps({"values": values, "how": how})
    os.write(out_fd, struct.pack("<I", len(data)) + data)


while True:
    request = frame(sys.stdin.buffer)
    if request is None:
        break
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            child(request, write_fd)
        except BaseException as error:
            data = pickle.dumps({"error": f"{type(error).__name__}: {error}"})
            os.write(write_fd, struct.pack("<I", len(data)) + data)
        os._exit(0)
    os.close(write_fd)
    chunks = []
    while chunk := os.read(read_fd, 1 << 20):
        chunks.append(chunk)
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    reply = b"".join(chunks)
    if len(reply) < 4 or len(reply) != 4 + struct.unpack("<I", reply[:4])[0]:
        data = pickle.dumps({"crash": f"the child died (wait status {status})"})
        reply = struct.pack("<I", len(data)) + data
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
"""

_helper: subprocess.Popen[bytes] | None = None


def _start() -> subprocess.Popen[bytes]:
    global _helper
    if _helper is None or _helper.poll() is not None:
        root = Path(__file__).resolve().parents[2]
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join([str(root), str(root / "src"), environment.get("PYTHONPATH", "")])
        _helper = subprocess.Popen([sys.executable, "-c", _HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   env=environment)
        atexit.register(_stop, _helper)
    return _helper


def _stop(helper: subprocess.Popen[bytes]) -> None:
    if helper.poll() is None:
        helper.stdin.close()  # type: ignore[union-attr]  # the helper's loop ends at end of input
        helper.wait(timeout=30)


def reference_in_child(model: Any, shapes: list[list[int]] | None) -> tuple[list[np.ndarray] | None, str]:
    """``model``'s results (Constants in, one op, Results) from OpenVINO's constant folding (``reference``),
    else from the op's ``evaluate`` with output ``shapes`` (``evaluate``), computed in a forked child; None
    when neither answers or the child crashed."""
    import openvino as ov

    with tempfile.TemporaryDirectory() as directory:
        xml, weights = Path(directory) / "model.xml", Path(directory) / "model.bin"
        ov.serialize(model, str(xml), str(weights))
        request = {"xml": xml.read_text(), "bin": weights.read_bytes(), "shapes": shapes}
    helper = _start()
    data = pickle.dumps(request)
    helper.stdin.write(struct.pack("<I", len(data)) + data)  # type: ignore[union-attr]
    helper.stdin.flush()  # type: ignore[union-attr]
    head = helper.stdout.read(4)  # type: ignore[union-attr]
    reply = pickle.loads(helper.stdout.read(struct.unpack("<I", head)[0]))  # type: ignore[union-attr]
    return reply.get("values"), reply.get("how", "")
