"""Generate ``src/irgraph/ops/_catalogue_data.py``: every op type and version of OpenVINO's opsets 1-16.

Run once per OpenVINO upgrade (``python -m tests.oracle.make_catalogue``; ``--check`` only compares).
The source of truth is the installed ``openvino`` wheel itself:

- its ``include/openvino/opsets/opsetN_tbl.hpp`` tables (the lists OpenVINO's IR reader builds its
  opsets from) say which op classes each opset holds;
- ``NodeFactory("opsetN").create(name)`` (what the reader calls) turns each into a node whose
  ``get_type_info()`` gives the IR type name and ``version_id`` (the opset that introduced it).

Categories follow OpenVINO's op spec folders (docs/articles_en/documentation/openvino-ir-format/
operation-sets/operation-specs/<category>/<op>-<N>.rst); the file names below were listed from
the openvinotoolkit/openvino repository and are matched to type names ignoring case and dashes.
``tests/oracle/test_catalogue.py`` re-derives the tables and fails by name when they drift.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

OPSETS = range(1, 17)
DATA_FILE = Path(__file__).resolve().parents[2] / "src" / "irgraph" / "ops" / "_catalogue_data.py"

SPEC_FILES = {
    "activation": "clamp elu exp gelu hard-sigmoid hsigmoid hswish identity log-soft-max mish prelu relu selu "
                  "sigmoid softmax softplus softsign swish",
    "arithmetic": "abs acos acosh add asin asinh atan atanh ceiling cos cosh cumsum divide erf erfinv floor "
                  "floormod log maximum minimum mod multiply negative power round segment-max sign sin sinh sqrt "
                  "squared-difference subtract tan tanh",
    "bitwise": "bitwise-and bitwise-left-shift bitwise-not bitwise-or bitwise-right-shift bitwise-xor",
    "comparison": "equal greater greater-equal isfinite isinf isnan less lessequal notequal",
    "condition": "bucketize if nonzero select",
    "convolution": "binary-convolution convolution convolution-backprop-data deformable-convolution "
                   "group-convolution group-convolution-backprop-data",
    "detection": "deformable-psroi-pooling detectionoutput experimental-detectron-detection-output "
                 "experimental-detectron-generate-proposals-single-image experimental-detectron-prior-grid-generator "
                 "experimental-detectron-roi-feature-extractor generate-proposals prior-box prior-box-clustered "
                 "proposal psroi-pooling region-yolo reorg-yolo roi-align roi-align-rotated roi-pooling",
    "generation": "eye multinomial random-uniform range",
    "image": "grid-sample i420-to-bgr i420-to-rgb interpolate nv12-to-bgr nv12-to-rgb",
    "infrastructure": "assign constant loop parameter read-value result tensor-iterator",
    "logical": "logical-and logical-not logical-or logical-xor",
    "matrix": "einsum inverse matmul",
    "movement": "batch-to-space broadcast col2im concat depth-to-space extract-image-patches gather gather-elements "
                "gather-nd gather-tree pad reverse reverse-sequence roll scatter-elements-update scatter-nd-update "
                "scatter-update shuffle-channels slice slice-scatter space-to-batch space-to-depth split "
                "strided-slice tile transpose unique variadic-split",
    "normalization": "batch-norm-inference grn group-normalization lrn mvn normalize-l2 rms-norm",
    "pooling": "adaptive-avg-pool adaptive-max-pool avg-pool max-pool",
    "quantization": "fake-convert fake-quantize",
    "reduction": "reduce-l1 reduce-l2 reduce-logical-and reduce-logical-or reduce-max reduce-mean reduce-min "
                 "reduce-prod reduce-sum",
    "sequence": "ctc-greedy-decoder ctc-greedy-decoder-seq-len ctc-loss gru-cell gru-sequence lstm-cell "
                "lstm-sequence one-hot rnn-cell rnn-sequence scaled-dot-product-attention",
    "shape": "reshape shape-of squeeze unsqueeze",
    "signals": "dft idft irdft istft rdft stft",
    "sort": "experimental-detectron-top-krois matrix-non-max-suppression multiclass-non-max-suppression "
            "nms-rotated non-max-suppression search-sorted top-k",
    "sparse": "embedding-bag-offsets embedding-bag-offsets-sum embedding-bag-packed embedding-bag-packed-sum "
              "embedding-segments-sum fill-empty-rows sparse-fill-empty-rows-unpacked-string",
    "type": "convert convert-like convert-promote-types string-tensor-pack string-tensor-unpack",
}
"""Spec file names (without ``-N.rst``) per category folder."""

CATEGORY_OF_TYPE = {
    # Types whose spec file name does not match the type name (or that have no spec page).
    "NonMaxSuppression": "sort",  # non-max-suppression-N.rst (NonMaxSuppression-5's page is no-max-suppression-5)
    "MulticlassNms": "sort",  # multiclass-non-max-suppression-N.rst
    "MatrixNms": "sort",  # matrix-non-max-suppression-8.rst
    "NMSRotated": "sort",  # nms-rotated-13.rst
    "ExperimentalDetectronTopKROIs": "sort",  # experimental-detectron-top-krois-6.rst
    "TopK": "sort",  # top-k-N.rst
    "RMSNorm": "normalization",  # rms-norm-N.rst
    "SoftMax": "activation",
    "LogSoftmax": "activation",  # log-soft-max-5.rst
    "Softmax": "activation",
    "PRelu": "activation",  # prelu-1.rst
    "HSigmoid": "activation",
    "HSwish": "activation",
    "SegmentMax": "arithmetic",
    "FloorMod": "arithmetic",
    "ShapeOf": "shape",
    "PSROIPooling": "detection",
    "ROIPooling": "detection",
    "ROIAlign": "detection",
    "ROIAlignRotated": "detection",
    "DeformablePSROIPooling": "detection",
    "CTCGreedyDecoderSeqLen": "sequence",
    "CTCLoss": "sequence",
    "GRUCell": "sequence",
    "GRUSequence": "sequence",
    "LSTMCell": "sequence",
    "LSTMSequence": "sequence",
    "RNNCell": "sequence",
    "RNNSequence": "sequence",
    "DFT": "signals",
    "IDFT": "signals",
    "RDFT": "signals",
    "IRDFT": "signals",
    "STFT": "signals",
    "ISTFT": "signals",
    "GRN": "normalization",
    "LRN": "normalization",
    "MVN": "normalization",
    "NormalizeL2": "normalization",
    "ReduceL1": "reduction",
    "ReduceL2": "reduction",
    "NV12toRGB": "image",
    "NV12toBGR": "image",
    "I420toRGB": "image",
    "I420toBGR": "image",
    "Col2Im": "movement",
    "GatherND": "movement",
    "ScatterNDUpdate": "movement",
    "StringTensorPack": "type",
    "StringTensorUnpack": "type",
    "SparseFillEmptyRows": "sparse",
    "IsFinite": "comparison",
    "IsInf": "comparison",
    "IsNaN": "comparison",
    "Constant": "infrastructure",
    "Xor": "logical",  # Xor-1, superseded by LogicalXor; no spec page
}
"""Overrides for the few types the file-name match cannot place (checked: every type gets one category)."""

_TABLE_ENTRY = re.compile(r"^_OPENVINO_OP_REG\((\w+),\s*[\w:]+\)", re.M)


def _squashed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _category(type_name: str) -> str:
    if type_name in CATEGORY_OF_TYPE:
        return CATEGORY_OF_TYPE[type_name]
    wanted = _squashed(type_name)
    found = [category for category, files in SPEC_FILES.items() for stem in files.split() if _squashed(stem) == wanted]
    if len(found) != 1:
        raise SystemExit(f"op type {type_name}: spec category {'ambiguous: ' + str(found) if found else 'unknown'}; "
                         "add it to CATEGORY_OF_TYPE")
    return found[0]


def derive() -> tuple[str, list[tuple[str, str, str, tuple[int, ...]]]]:
    """OpenVINO's version and every (type, version_id, category, opsets containing it), sorted."""
    import numpy as np
    import openvino
    from openvino.utils.node_factory import NodeFactory

    tables = Path(openvino.__file__).parent / "include" / "openvino" / "opsets"
    constant = openvino.op.Constant(np.zeros(1, np.float32)).get_type_info()
    opsets_of: dict[tuple[str, str], list[int]] = {}
    for number in OPSETS:
        factory = NodeFactory(f"opset{number}")
        for class_name in _TABLE_ENTRY.findall((tables / f"opset{number}_tbl.hpp").read_text()):
            info = constant if class_name == "Constant" else factory.create(class_name).get_type_info()
            if info.name != class_name:
                raise SystemExit(f"opset{number}: class {class_name} has the type name {info.name}")
            opsets_of.setdefault((info.name, info.version_id), []).append(number)
    entries = sorted(
        (type_name, version, _category(type_name), tuple(opsets))
        for (type_name, version), opsets in opsets_of.items()
    )
    return openvino.__version__.split("-")[0], entries


def render(openvino_version: str, entries: list[tuple[str, str, str, tuple[int, ...]]]) -> str:
    """The data module's text."""
    lines = [
        f'"""Generated by tests/oracle/make_catalogue.py from OpenVINO {openvino_version}\'s opset tables. '
        "Do not edit.",
        "",
        "One row per op version: (IR type name, version id = the opset that introduced it, spec category,",
        'the opsets containing this version as spans, "1,3-16" = 1 and 3 to 16).',
        '"""',
        "",
        f'OPENVINO_VERSION = "{openvino_version}"',
        f"OPSETS = range({OPSETS.start}, {OPSETS.stop})",
        "",
        "OPS: tuple[tuple[str, str, str, str], ...] = (",
    ]
    lines += [f'    ("{t}", "{v}", "{c}", "{spans(o)}"),' for t, v, c, o in entries]
    lines.append(")")
    return "\n".join(lines) + "\n"


def spans(numbers: tuple[int, ...]) -> str:
    """``(1, 3, 4, 5)`` -> ``"1,3-5"``."""
    parts: list[list[int]] = []
    for number in numbers:
        if parts and parts[-1][-1] == number - 1:
            parts[-1][-1] = number
        else:
            parts.append([number, number])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


def main(argv: list[str] | None = None) -> int:
    """Write the data module (or, with --check, say whether it is up to date)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when the data differs")
    args = parser.parse_args(argv)
    text = render(*derive())
    if args.check:
        current = DATA_FILE.read_text() if DATA_FILE.exists() else ""
        print("up to date" if current == text else f"{DATA_FILE} differs from the installed OpenVINO's tables")
        return 0 if current == text else 1
    DATA_FILE.write_text(text)
    print(f"wrote {DATA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
