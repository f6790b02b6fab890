"""CTCLoss-4: named cases, generated configurations judged by a port of OpenVINO's reference kernel and its CPU
plugin, OpenVINO's shape rule and refusals, and an IR written by OpenVINO run through ir-run.

OpenVINO 2026.4.1 neither folds nor evaluates CTCLoss; the port (the reference's enumeration of every
alignment, in its arithmetic: f32 for f32 logits, f64 for f64 and, rounded once, for f16) judges every value.
"""

from __future__ import annotations

import math

import numpy as np
import openvino as ov
import openvino.opset4 as ov4
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import IrError
from irgraph.ops.sequence.ctc_loss import CTCLoss, decoded_target
from tests.ops.differential import assert_values_close, check_op, check_types, port, same_op
from tests.ops.helpers import tt


def ported(logits, logit_length, labels, label_length, blank, collapse, merge, unique, real) -> np.ndarray:
    """OpenVINO's ``CTCLoss`` kernel (reference/ctc_loss.hpp, 2026.4.1): every alignment enumerated by
    ``findPaths``, its log probability summed frame by frame and merged with log1p(exp(.)) in ``real`` (the
    reference's ``log1pf`` rounds to f32 even for f64 logits; ``real=np.float64`` is the exact computation)."""
    batch, frames, classes = logits.shape
    losses = []
    for b in range(batch):
        target = decoded_target(list(labels[b]), int(label_length[b]), collapse, unique)
        length, size = int(logit_length[b]), len(target)
        x = logits[b].astype(real)
        with np.errstate(over="ignore", divide="ignore"):
            norm = [real(np.log(real(np.sum(np.exp(x[t]), dtype=real)))) for t in range(length)]
        log_prob = [[real(x[t, c] - norm[t]) for c in range(classes)] for t in range(length)]
        result = [real(-np.inf)]

        def add(value, result=result):
            if result[0] == -np.inf:
                result[0] = value
            elif value != -np.inf:
                low, high = sorted((result[0], value))
                ratio = np.exp(real(low - high))  # the reference's log1pf takes a float: f32 for f32 logits
                result[0] = real(high + real(math.log1p(float(np.float32(ratio) if real == np.float32 else ratio))))

        def find(index, start, end, previous, target=target, length=length, log_prob=log_prob, size=size):
            if end > length:
                add(previous)
                return
            for pos in range(start, end):
                value = previous
                for bl in range(start, pos):
                    value = real(value + log_prob[bl][blank])
                if not merge:
                    value = real(value + log_prob[pos][target[index]])
                    if end == length:
                        for ble in range(pos + 1, length):
                            value = real(value + log_prob[ble][blank])
                    find(index + 1, pos + 1, end + 1, value)
                    continue
                next_start = pos + 1
                if end == length:
                    for ble in range(pos + 1, length):
                        value = real(value + log_prob[ble][blank])
                if index < size - 1 and target[index] == target[index + 1]:
                    value = real(value + log_prob[next_start][blank])
                    next_start += 1
                for bl in range(pos, start - 1, -1):
                    value = real(value + log_prob[bl][target[index]])
                    find(index + 1, next_start, end + 1, value)
                    if bl > 0:
                        value = real(value - log_prob[bl - 1][blank])

        if size == 0 or length - size + 1 > length:
            add(real(0))  # the reference's first call already passes the last frame
        elif length >= size:
            find(0, 0, length - size + 1, real(0))
        losses.append(-result[0])
    return np.array(losses)


def make_inputs(logits, logit_length, labels, label_length, blank=None, index=np.int32):
    inputs = [logits, np.array(logit_length, index), np.array(labels, index), np.array(label_length, index)]
    return inputs + ([np.array(blank, index)] if blank is not None else [])


def test_one_frame_one_label_is_the_negative_log_softmax():
    logits = np.log(np.array([[[0.25, 0.75]]], np.float64))  # classes 0 and blank (1)
    (loss,) = CTCLoss().evaluate(make_inputs(logits, [1], [[0]], [1]))
    assert loss.tolist() == [-math.log(0.25)]


def test_two_frames_sum_three_alignments():
    # label [0] over two frames with blank 1: "0 0", "0 _", "_ 0"; p(0) = 0.5 everywhere
    logits = np.log(np.full((1, 2, 2), 0.5))
    (loss,) = CTCLoss().evaluate(make_inputs(logits, [2], [[0, 0]], [1]))
    np.testing.assert_allclose(loss, [-math.log(3 * 0.25)], rtol=1e-15)
    (single,) = CTCLoss(ctc_merge_repeated=False).evaluate(make_inputs(logits, [2], [[0, 0]], [1]))
    np.testing.assert_allclose(single, [-math.log(2 * 0.25)], rtol=1e-15)  # a label lasts one frame: no "0 0"


def test_an_empty_label_costs_nothing_as_in_openvinos_reference():
    logits = np.zeros((1, 3, 4), np.float32)
    (loss,) = CTCLoss().evaluate(make_inputs(logits, [3], [[0, 0, 0]], [0]))
    assert loss.tolist() == [0.0] and math.copysign(1, loss[0]) == -1  # -res with res = 0: -0.0


def test_collapse_and_unique_decode_the_labels():
    assert decoded_target([1, 1, 2, 1, 1], 5, collapse=True, unique=False) == [1, 2, 1]
    assert decoded_target([1, 1, 2, 1, 1], 5, collapse=False, unique=True) == [1, 2]
    assert decoded_target([1, 1, 2, 1, 1], 5, collapse=True, unique=True) == [1, 2]
    assert decoded_target([3, 1], 0, collapse=True, unique=False) == [3]  # the reference keeps labels[0]


# ------------------------------------------------------------------------------------ generated configurations
def configurations(count: int = 36) -> list[dict]:
    rng = np.random.default_rng(404)
    found = []
    for number in range(count):
        batch, frames, classes = int(rng.integers(1, 4)), int(rng.integers(1, 7)), int(rng.integers(2, 5))
        plugin_runs = number % 3 != 2  # lengths of 1 or more and no label equal to the blank: the CPU plugin judges
        logit_length = rng.integers(1 if plugin_runs else 0, frames + 1, batch)
        label_length = np.array([int(rng.integers(1 if plugin_runs else 0, n + 1)) for n in logit_length])
        found.append(dict(batch=batch, frames=frames, classes=classes, logit_length=logit_length.tolist(),
                          label_length=label_length.tolist(), collapse=bool(number % 2), merge=bool(number % 3),
                          unique=number % 5 == 0, blank=[None, int(rng.integers(0, classes))][number % 2],
                          dtype=np.dtype([np.float32, np.float32, np.float64, np.float16][number % 4]),
                          index=[np.int32, np.int32, np.int64, np.int32][number % 4], plugin_runs=plugin_runs,
                          seed=int(rng.integers(1 << 30))))
    return found


@pytest.mark.parametrize("config", configurations(), ids=lambda c: f"{c['dtype'].name}-T{c['frames']}-"
                         f"merge{c['merge']}-collapse{c['collapse']}-unique{c['unique']}-seed{c['seed']}")
def test_generated_configurations_match_the_ported_reference(config):
    rng = np.random.default_rng(config["seed"])
    dtype = config["dtype"]
    logits = rng.uniform(-3, 3, (config["batch"], config["frames"], config["classes"])).astype(dtype)
    blank = config["blank"] if config["blank"] is not None else config["classes"] - 1
    labels = rng.integers(0, config["classes"], (config["batch"], config["frames"]))
    if config["plugin_runs"]:
        labels = (blank + 1 + rng.integers(0, config["classes"] - 1, labels.shape)) % config["classes"]
    if config["batch"] > 1:
        labels[0] = labels[0, 0]  # a run of one label: collapse and merge matter
    inputs = make_inputs(logits, config["logit_length"], labels, config["label_length"], config["blank"],
                         config["index"])
    op = CTCLoss(preprocess_collapse_repeated=config["collapse"], ctc_merge_repeated=config["merge"],
                 unique=config["unique"])
    # openvino 2026.4.1's CPU plugin crashes (segmentation fault) on a logit or label length of 0, and differs from
    # the reference on labels equal to the blank (CTCLoss.cpu_plugin_differs)
    used = [value for row, n in zip(labels, config["label_length"], strict=True) for value in row[:n]]
    cpu = min(config["logit_length"]) > 0 and min(config["label_length"]) > 0 and blank not in used
    real = np.float32 if dtype == np.float32 else np.float64
    expected = ported(logits, config["logit_length"], labels, config["label_length"], blank, config["collapse"],
                      config["merge"], config["unique"], real).astype(dtype)
    # the port judges every configuration; the CPU plugin f32 ones too
    outcome = check_op(op, inputs, same_op(op), cpu=cpu, independent=port(lambda op, arrays, types: [expected]))
    assert not outcome.refused and outcome.judge in ("cpu", "port")
    if cpu and config["index"] == np.int32 and dtype in (np.float32, np.float16):
        assert outcome.cpu


# ------------------------------------------------------------------------------------ shapes and refusals
def test_the_spec_example_shape():
    op = CTCLoss()
    types = [tt("10,120,28"), tt("10", "i32"), tt("10,120", "i32"), tt("10", "i32"), tt("", "i32")]
    check_types(op, types, same_op(op))
    assert str(op.infer(types, [None] * 5)[0]) == "f32[10]"


@pytest.mark.parametrize("shapes", [
    ("?,5,4", "3", "?,5", "?"),
    ("...", "?", "2..4,?", "3"),
    ("1..5,?,?", "...", "...", "2..8"),
    ("...", "...", "...", "..."),
])
def test_partial_shapes_follow_openvino(shapes):
    op = CTCLoss()
    types = [tt(shapes[0])] + [tt(s, "i64") for s in shapes[1:]]
    check_types(op, types, same_op(op))


@pytest.mark.parametrize("types", [
    [tt("2,5,4", "i32"), tt("2", "i32"), tt("2,5", "i32"), tt("2", "i32")],  # integer logits
    [tt("2,5,4"), tt("2", "f32"), tt("2,5", "i32"), tt("2", "i32")],  # float lengths
    [tt("2,5"), tt("2", "i32"), tt("2,5", "i32"), tt("2", "i32")],  # 2D logits
    [tt("2,5,4"), tt("3", "i32"), tt("2,5", "i32"), tt("2", "i32")],  # batch
    [tt("2,5,4"), tt("2", "i32"), tt("2,6", "i32"), tt("2", "i32")],  # time
    [tt("2,5,4"), tt("2", "i32"), tt("2,5", "i32"), tt("2", "i32"), tt("1", "i32")],  # blank not a scalar
])
def test_what_openvino_refuses_irgraph_refuses(types):
    op = CTCLoss()
    assert check_types(op, types, same_op(op)).refused


LENGTHS = "Logit or label length cannot greater than max sequence length"


@pytest.mark.parametrize("logit_length, label_length, labels, blank, message", [
    ([6], [2], [[0, 1, 0, 0, 0]], None, f"{LENGTHS}.* Logit len: 6; Label len: 2"),  # a logit length past the frames
    ([2], [3], [[0, 1, 0, 0, 0]], None, f"{LENGTHS}.* Logit len: 2; Label len: 3"),  # a label longer than its logits
    ([-1], [0], [[0, 1, 0, 0, 0]], None, f"{LENGTHS}.* Logit len: -1; Label len: 0"),
    # a label past the classes (the reference reads out of bounds)
    ([5], [2], [[0, 7, 0, 0, 0]], None, r"labels must be in \[0, 4\) .*Got: \[0, 7\]"),
    ([5], [2], [[0, 1, 0, 0, 0]], 4, r"blank_index must be in \[0, 4\) .*Got: 4"),  # a blank past the classes
])
def test_bad_lengths_labels_and_blanks_are_refused_at_run_time(logit_length, label_length, labels, blank, message):
    inputs = make_inputs(np.zeros((1, 5, 4), np.float32), logit_length, labels, label_length, blank)
    with pytest.raises(IrError, match=message):  # each for its own reason, not the first check's
        CTCLoss().evaluate(inputs)


# ------------------------------------------------------------------------------------ an IR written by OpenVINO
def test_ir_run_runs_openvinos_ctc_loss_ir(tmp_path, capsys):
    logits = ov4.parameter([2, 6, 5], ov.Type.f32, name="logits")
    lengths = ov4.parameter([2], ov.Type.i32, name="logit_length")
    labels = ov4.parameter([2, 6], ov.Type.i32, name="labels")
    label_lengths = ov4.parameter([2], ov.Type.i32, name="label_length")
    node = ov4.ctc_loss(logits, lengths, labels, label_lengths, ov4.constant(np.array(0, np.int32)),
                        preprocess_collapse_repeated=False, ctc_merge_repeated=True, unique=False)
    result = ov4.result(node)
    result.output(0).get_tensor().set_names({"loss"})
    xml = tmp_path / "ctc.xml"
    ov.save_model(ov.Model([result], [logits, lengths, labels, label_lengths], "ctc"), xml)
    assert 'type="CTCLoss" version="opset4"' in xml.read_text()
    rng = np.random.default_rng(9)
    feeds = {"logits": rng.uniform(-2, 2, (2, 6, 5)).astype(np.float32),
             "logit_length": np.array([6, 4], np.int32),
             "labels": np.array([[1, 1, 2, 3, 0, 0], [4, 2, 0, 0, 0, 0]], np.int32),
             "label_length": np.array([3, 2], np.int32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        got = written["loss"]
    expected = ported(feeds["logits"], [6, 4], feeds["labels"], [3, 2], 0, False, True, False, np.float32)
    inputs = make_inputs(feeds["logits"], [6, 4], feeds["labels"], [3, 2], 0)
    magnitude = CTCLoss().term_magnitudes(inputs)[0]
    assert_values_close(got, expected.astype(np.float32), CTCLoss.tolerance, "vs the ported reference", magnitude)
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    on_cpu = np.asarray(compiled(feeds)["loss"])
    assert_values_close(got, on_cpu, CTCLoss.tolerance, "vs the CPU plugin", magnitude)
    assert ir.validate(ir.read_model(xml)) == []
    ir.write_model(ir.read_model(xml), tmp_path / "again.xml", version=11)  # written back byte for byte
    assert (tmp_path / "again.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "again.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
