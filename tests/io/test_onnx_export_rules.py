"""Every IR -> ONNX export rule, differentially: a one-op IR model exported to ONNX passes
``onnx.checker`` (full check, inside ``export_onnx``) and onnxruntime 1.31.1 computes irgraph's values
on it — bit for bit where the op is exact, within the op's row of docs/tolerances.md widened as
against OpenVINO's CPU plugin (at least 2 ULP or 1 eps: another vectorised math library) elsewhere,
or within a case's stated bound where the export is a pattern of several rounding ONNX ops.
Every rule has at least one case (``test_every_rule_has_a_case``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest

import irgraph as ir
from irgraph.control_flow.if_ import If
from irgraph.control_flow.loop import Loop
from irgraph.control_flow.tensor_iterator import TensorIterator
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.core.shapes import Shape, TensorType
from irgraph.io.onnx.export_rules import RULES
from irgraph.ops import Concat, Op, OpaqueOp, Split, VariadicSplit
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.elu import Elu
from irgraph.ops.activation.exp import Exp
from irgraph.ops.activation.gelu import Gelu2, Gelu7
from irgraph.ops.activation.h_sigmoid import HSigmoid
from irgraph.ops.activation.h_swish import HSwish
from irgraph.ops.activation.hard_sigmoid import HardSigmoid
from irgraph.ops.activation.identity import Identity
from irgraph.ops.activation.log_softmax import LogSoftmax
from irgraph.ops.activation.mish import Mish
from irgraph.ops.activation.p_re_lu import PReLU
from irgraph.ops.activation.relu import Relu
from irgraph.ops.activation.selu import Selu
from irgraph.ops.activation.sigmoid import Sigmoid
from irgraph.ops.activation.soft_max import SoftMax1, SoftMax8
from irgraph.ops.activation.soft_plus import SoftPlus
from irgraph.ops.activation.soft_sign import SoftSign
from irgraph.ops.activation.swish import Swish
from irgraph.ops.arithmetic.abs import Abs
from irgraph.ops.arithmetic.acos import Acos
from irgraph.ops.arithmetic.acosh import Acosh
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.asin import Asin
from irgraph.ops.arithmetic.asinh import Asinh
from irgraph.ops.arithmetic.atan import Atan
from irgraph.ops.arithmetic.atanh import Atanh
from irgraph.ops.arithmetic.ceiling import Ceiling
from irgraph.ops.arithmetic.cos import Cos
from irgraph.ops.arithmetic.cosh import Cosh
from irgraph.ops.arithmetic.cum_sum import CumSum
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.erf import Erf
from irgraph.ops.arithmetic.floor import Floor
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.log import Log
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.minimum import Minimum
from irgraph.ops.arithmetic.mod import Mod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.negative import Negative
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.arithmetic.segment_max import SegmentMax
from irgraph.ops.arithmetic.sign import Sign
from irgraph.ops.arithmetic.sin import Sin
from irgraph.ops.arithmetic.sinh import Sinh
from irgraph.ops.arithmetic.sqrt import Sqrt
from irgraph.ops.arithmetic.squared_difference import SquaredDifference
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.arithmetic.tan import Tan
from irgraph.ops.arithmetic.tanh import Tanh
from irgraph.ops.bitwise.bitwise_and import BitwiseAnd
from irgraph.ops.bitwise.bitwise_left_shift import BitwiseLeftShift
from irgraph.ops.bitwise.bitwise_not import BitwiseNot
from irgraph.ops.bitwise.bitwise_or import BitwiseOr
from irgraph.ops.bitwise.bitwise_right_shift import BitwiseRightShift
from irgraph.ops.bitwise.bitwise_xor import BitwiseXor
from irgraph.ops.comparison.equal import Equal
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.comparison.greater_equal import GreaterEqual
from irgraph.ops.comparison.is_finite import IsFinite
from irgraph.ops.comparison.is_inf import IsInf
from irgraph.ops.comparison.is_nan import IsNaN
from irgraph.ops.comparison.less import Less
from irgraph.ops.comparison.less_equal import LessEqual
from irgraph.ops.comparison.not_equal import NotEqual
from irgraph.ops.condition.bucketize import Bucketize
from irgraph.ops.condition.non_zero import NonZero
from irgraph.ops.condition.select import Select
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.deformable_convolution import DeformableConvolution, DeformableConvolution8
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.convolution.group_convolution_backprop_data import GroupConvolutionBackpropData
from irgraph.ops.detection.prior_box import PriorBox, PriorBox8
from irgraph.ops.detection.prior_box_clustered import PriorBoxClustered
from irgraph.ops.detection.psroi_pooling import PSROIPooling
from irgraph.ops.detection.region_yolo import RegionYolo
from irgraph.ops.detection.reorg_yolo import ReorgYolo
from irgraph.ops.detection.roi_align import ROIAlign3, ROIAlign9
from irgraph.ops.detection.roi_align_rotated import ROIAlignRotated
from irgraph.ops.detection.roi_pooling import ROIPooling
from irgraph.ops.generation.eye import Eye
from irgraph.ops.generation.multinomial import Multinomial
from irgraph.ops.generation.random_uniform import RandomUniform
from irgraph.ops.generation.range import Range, Range4
from irgraph.ops.image.grid_sample import GridSample
from irgraph.ops.image.i420_to_bgr import I420toBGR
from irgraph.ops.image.i420_to_rgb import I420toRGB
from irgraph.ops.image.interpolate import Interpolate1, Interpolate4, Interpolate11
from irgraph.ops.image.nv12_to_bgr import NV12toBGR
from irgraph.ops.image.nv12_to_rgb import NV12toRGB
from irgraph.ops.infrastructure.assign import Assign3, Assign6
from irgraph.ops.infrastructure.read_value import ReadValue3, ReadValue6
from irgraph.ops.logical.logical_and import LogicalAnd
from irgraph.ops.logical.logical_not import LogicalNot
from irgraph.ops.logical.logical_or import LogicalOr
from irgraph.ops.logical.logical_xor import LogicalXor
from irgraph.ops.logical.xor import Xor
from irgraph.ops.matrix.einsum import Einsum
from irgraph.ops.matrix.inverse import Inverse
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.movement.batch_to_space import BatchToSpace
from irgraph.ops.movement.broadcast import Broadcast, Broadcast3
from irgraph.ops.movement.col2im import Col2Im
from irgraph.ops.movement.depth_to_space import DepthToSpace
from irgraph.ops.movement.extract_image_patches import ExtractImagePatches
from irgraph.ops.movement.gather import Gather, Gather7, Gather8
from irgraph.ops.movement.gather_elements import GatherElements
from irgraph.ops.movement.gather_nd import GatherND, GatherND8
from irgraph.ops.movement.gather_tree import GatherTree
from irgraph.ops.movement.pad import Pad, Pad12
from irgraph.ops.movement.reverse import Reverse
from irgraph.ops.movement.reverse_sequence import ReverseSequence
from irgraph.ops.movement.roll import Roll
from irgraph.ops.movement.scatter_elements_update import ScatterElementsUpdate3, ScatterElementsUpdate12
from irgraph.ops.movement.scatter_nd_update import ScatterNDUpdate3, ScatterNDUpdate15
from irgraph.ops.movement.scatter_update import ScatterUpdate
from irgraph.ops.movement.shuffle_channels import ShuffleChannels
from irgraph.ops.movement.slice import Slice
from irgraph.ops.movement.slice_scatter import SliceScatter
from irgraph.ops.movement.space_to_batch import SpaceToBatch
from irgraph.ops.movement.space_to_depth import SpaceToDepth
from irgraph.ops.movement.strided_slice import StridedSlice
from irgraph.ops.movement.tile import Tile
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.movement.unique import Unique
from irgraph.ops.normalization.batch_norm_inference import BatchNormInference, BatchNormInference5
from irgraph.ops.normalization.grn import GRN
from irgraph.ops.normalization.group_normalization import GroupNormalization
from irgraph.ops.normalization.lrn import LRN
from irgraph.ops.normalization.mvn import MVN, MVN6
from irgraph.ops.normalization.normalize_l2 import NormalizeL2
from irgraph.ops.op import EXACT, Tolerance
from irgraph.ops.pooling.adaptive_avg_pool import AdaptiveAvgPool
from irgraph.ops.pooling.adaptive_max_pool import AdaptiveMaxPool
from irgraph.ops.pooling.avg_pool import AvgPool, AvgPool14, AvgPool16
from irgraph.ops.pooling.max_pool import MaxPool, MaxPool8, MaxPool14
from irgraph.ops.quantization.fake_quantize import FakeQuantize
from irgraph.ops.reduction.reduce_l1 import ReduceL1
from irgraph.ops.reduction.reduce_l2 import ReduceL2
from irgraph.ops.reduction.reduce_logical_and import ReduceLogicalAnd
from irgraph.ops.reduction.reduce_logical_or import ReduceLogicalOr
from irgraph.ops.reduction.reduce_max import ReduceMax
from irgraph.ops.reduction.reduce_mean import ReduceMean
from irgraph.ops.reduction.reduce_min import ReduceMin
from irgraph.ops.reduction.reduce_prod import ReduceProd
from irgraph.ops.reduction.reduce_sum import ReduceSum
from irgraph.ops.sequence.ctc_greedy_decoder import CTCGreedyDecoder
from irgraph.ops.sequence.ctc_greedy_decoder_seq_len import CTCGreedyDecoderSeqLen
from irgraph.ops.sequence.gru_cell import GRUCell
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_cell import LSTMCell1, LSTMCell4
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.one_hot import OneHot1, OneHot16
from irgraph.ops.sequence.rnn_cell import RNNCell
from irgraph.ops.sequence.rnn_sequence import RNNSequence
from irgraph.ops.sequence.scaled_dot_product_attention import ScaledDotProductAttention
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf1, ShapeOf3
from irgraph.ops.shape.squeeze import Squeeze, Squeeze15
from irgraph.ops.shape.unsqueeze import Unsqueeze
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.idft import IDFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.rdft import RDFT
from irgraph.ops.signals.stft import STFT
from irgraph.ops.sort.matrix_nms import MatrixNms
from irgraph.ops.sort.multiclass_nms import MulticlassNms, MulticlassNms8
from irgraph.ops.sort.non_max_suppression import (
    NonMaxSuppression,
    NonMaxSuppression1,
    NonMaxSuppression3,
    NonMaxSuppression4,
    NonMaxSuppression5,
)
from irgraph.ops.sort.search_sorted import SearchSorted
from irgraph.ops.sort.top_k import TopK1, TopK3, TopK11
from irgraph.ops.sparse.embedding_bag_offsets import EmbeddingBagOffsets
from irgraph.ops.sparse.embedding_bag_offsets_sum import EmbeddingBagOffsetsSum
from irgraph.ops.sparse.embedding_bag_packed import EmbeddingBagPacked
from irgraph.ops.sparse.embedding_bag_packed_sum import EmbeddingBagPackedSum
from irgraph.ops.sparse.embedding_segments_sum import EmbeddingSegmentsSum
from irgraph.ops.type.convert import Convert
from irgraph.ops.type.convert_like import ConvertLike
from tests.io.test_onnx_export import onnxruntime_run

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(20261123)
ORT = "onnxruntime 1.31.1"
PATTERN = Tolerance(ulp=4, eps=4)
"""A few ONNX ops in a row, each rounding to the element type, where irgraph rounds once."""
CUBIC = Tolerance(ulp=8, eps=8)
"""Sixteen weighted taps per value (cubic over two axes), summed in another order than OpenVINO's reference."""
ORT_SOFTSIGN = Tolerance(ulp=1)
"""onnxruntime 1.31.1's Softsign is 1 ULP from x / (1 + |x|) on 7 of 24 values (its own vectorised division)."""


def f32(*shape: int, low: float = -3.0, high: float = 3.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def i32(*shape: int, low: int = -9, high: int = 10) -> np.ndarray:
    return RNG.integers(low, high, shape).astype(np.int32)


def u8(*shape: int) -> np.ndarray:
    return RNG.integers(0, 256, shape).astype(np.uint8)


def boolean(*shape: int) -> np.ndarray:
    return RNG.integers(0, 2, shape).astype(bool)


def i64(*values: int) -> np.ndarray:
    return np.asarray(values, np.int64)


@dataclass
class Case:
    """One configuration: the op, its inputs, which of them are Consts, the opsets and the bound."""

    op: Op
    inputs: list[np.ndarray]
    constant: tuple[int, ...] = ()
    opsets: tuple[int, ...] = (18,)
    tolerance: Tolerance | None = None
    note: str = ""
    id: str = field(default="")

    def __post_init__(self) -> None:
        self.id = self.id or f"{type(self.op).__name__}{'-' + self.note if self.note else ''}"


def unary_cases() -> list[Case]:
    domains = {Acos: (-1, 1), Asin: (-1, 1), Atanh: (-0.99, 0.99), Acosh: (1, 5), Log: (0.01, 9), Sqrt: (0, 9)}
    ops = [Abs, Acos, Acosh, Asin, Asinh, Atan, Atanh, Ceiling, Cos, Cosh, Erf, Floor, Log, Negative, Sign, Sin,
           Sinh, Sqrt, Tan, Tanh, Exp, Relu, Sigmoid, SoftPlus, SoftSign]
    cases = [Case(op(), [f32(2, 3, 4, low=domains.get(op, (-3, 3))[0], high=domains.get(op, (-3, 3))[1])],
                  tolerance=ORT_SOFTSIGN if op is SoftSign else None) for op in ops]
    cases += [Case(Abs(), [i32(7)], note="i32"), Case(Negative(), [i32(7)], note="i32"),
              Case(LogicalNot(), [boolean(5)])]
    return cases


def binary_cases() -> list[Case]:
    cases = []
    for op_class in (Add, Subtract, Multiply, Maximum, Minimum, SquaredDifference, Equal, Greater, GreaterEqual,
                     Less, LessEqual, NotEqual):
        cases.append(Case(op_class(), [f32(2, 3, 4), f32(4)], note="numpy"))
    cases += [
        Case(Add(auto_broadcast="none"), [f32(2, 3), f32(2, 3)], note="none"),
        Case(Add(auto_broadcast="pdpd"), [f32(2, 3, 4, 5), f32(2, 3)], note="pdpd"),
        Case(Multiply(auto_broadcast="pdpd"), [f32(2, 3, 4, 5), f32(2, 1, 4, 1)], note="pdpd-trailing-1"),
        Case(Add(), [i32(3, 4), i32(3, 1)], note="i32"),
        Case(Maximum(), [np.asarray([-0.0, 0.0, np.nan, 1.0], np.float32), np.asarray([0.0, -0.0, 1.0, np.nan],
                                                                                       np.float32)], note="zeros-nan"),
        Case(Minimum(), [np.asarray([-0.0, 0.0, np.nan, 1.0], np.float32), np.asarray([0.0, -0.0, 1.0, np.nan],
                                                                                       np.float32)], note="zeros-nan"),
        Case(Minimum(), [i32(3, 4), i32(4)], note="i32"),
        Case(Power(), [f32(3, 4, low=0.1, high=3), f32(4, low=-2, high=2)]),
        Case(Divide(), [f32(3, 4), f32(4, low=0.5, high=3)], note="f32"),
        Case(Divide(), [i32(3, 4), i32(4, low=1, high=5) * np.int32(-1) ** i32(4, low=0, high=2)], note="i32-floor"),
        Case(Divide(m_pythondiv=False), [i32(3, 4), i32(4, low=1, high=5)], note="i32-trunc"),
        Case(Mod(), [i32(3, 4), i32(4, low=1, high=5) * np.int32(-1) ** i32(4, low=0, high=2)], note="i32"),
        Case(Mod(), [f32(3, 4), f32(4, low=0.5, high=2)], note="f32"),
        Case(FloorMod(), [i32(3, 4), i32(4, low=1, high=5) * np.int32(-1) ** i32(4, low=0, high=2)], note="i32"),
        Case(FloorMod(), [f32(3, 4), np.asarray([-1.5, 0.75, 2.0, -0.5], np.float32)], note="f32"),
        Case(LogicalAnd(), [boolean(2, 3), boolean(3)]), Case(LogicalOr(), [boolean(2, 3), boolean(3)]),
        Case(LogicalXor(), [boolean(2, 3), boolean(3)]), Case(Xor(), [boolean(2, 3), boolean(3)]),
        Case(Identity(), [f32(2, 3)]),
        Case(HardSigmoid(), [f32(2, 3), np.float32(0.3), np.float32(0.4)], constant=(1, 2)),
        Case(Selu(), [f32(2, 3), np.float32(1.67), np.float32(1.05)], constant=(1, 2)),
        Case(BitwiseAnd(), [i32(2, 3), i32(3)], note="i32"), Case(BitwiseOr(), [i32(2, 3), i32(3)]),
        Case(BitwiseXor(), [i32(2, 3), i32(3)]), Case(BitwiseAnd(), [boolean(2, 3), boolean(3)], note="bool"),
        Case(BitwiseNot(), [i32(5)], note="i32"), Case(BitwiseNot(), [boolean(5)], note="bool"),
        *(Case(shift(), [np.asarray([-128, -7, -1, 0, 5, 127, 100, -100], dtype),
                         np.asarray([1, 2, 9, 3, 33, 31, -1, 7], dtype)],
               note=np.dtype(dtype).name)
          for shift in (BitwiseLeftShift, BitwiseRightShift) for dtype in (np.int8, np.int32, np.int64)),
        *(Case(shift(), [np.asarray([255, 7, 1, 0, 200, 128], dtype), np.asarray([1, 2, 9, 3, 33, 7], dtype)],
               note=np.dtype(dtype).name)
          for shift in (BitwiseLeftShift, BitwiseRightShift) for dtype in (np.uint8, np.uint32)),
        Case(Select(), [boolean(2, 3), f32(2, 3), f32(3)], note="numpy"),
        Case(Select(auto_broadcast="pdpd"), [boolean(2, 3, 4), f32(2, 3, 4), f32(2, 3)], note="pdpd"),
        Case(Select(), [boolean(2, 3), boolean(2, 3), boolean(3)], note="bool"),
    ]
    return cases


def activation_cases() -> list[Case]:
    special = np.asarray([np.inf, -np.inf, np.nan, 0.0, 1.5, -2.0], np.float32)
    return [
        Case(Clamp(min=-1.0, max=1.5), [f32(3, 4)], note="f32"),
        Case(Clamp(min=-2.5, max=3.5), [i32(9)], note="i32"),
        Case(Elu(alpha=0.7), [f32(3, 4)], tolerance=PATTERN),
        Case(HSigmoid(), [f32(3, 4, low=-5, high=5)], tolerance=PATTERN),
        Case(HSwish(), [f32(3, 4, low=-5, high=5)], opsets=(13, 18), tolerance=PATTERN),
        Case(Mish(), [f32(3, 4)], opsets=(13, 18), tolerance=PATTERN),
        Case(Swish(), [f32(3, 4)], tolerance=PATTERN, note="no-beta"),
        Case(Swish(), [f32(3, 4), np.asarray(0.75, np.float32)], constant=(1,), tolerance=PATTERN, note="beta"),
        Case(Gelu2(), [f32(3, 4)], opsets=(18, 20), tolerance=PATTERN),
        Case(Gelu7(approximation_mode="TANH"), [f32(3, 4)], opsets=(18, 20), tolerance=PATTERN, note="tanh"),
        Case(Gelu7(), [f32(3, 4)], opsets=(18, 20), tolerance=PATTERN, note="erf"),
        Case(PReLU(), [f32(2, 3, 4, 4), f32(3)], constant=(1,), note="per-channel"),
        Case(PReLU(), [f32(2, 3, 4), f32(4)], constant=(1,), note="numpy"),
        Case(SoftMax1(axis=1), [f32(2, 3, 4)], tolerance=PATTERN),
        Case(SoftMax8(axis=-1), [f32(2, 3, 4)], tolerance=PATTERN),
        Case(LogSoftmax(axis=1), [f32(2, 3, 4)], tolerance=PATTERN),
        Case(Round(), [np.asarray([0.5, 1.5, -2.5, 2.4, -0.6, 3.5], np.float32)], note="half-to-even"),
        Case(Round(mode="half_away_from_zero"), [np.asarray([0.5, 1.5, -2.5, 2.4, -0.6, 3.5], np.float32)],
             note="half-away"),
        Case(IsFinite(), [special]), Case(IsNaN(), [special]),
        Case(IsInf(), [special], note="both"), Case(IsInf(detect_negative=False), [special], note="positive"),
    ]


def convolution_cases() -> list[Case]:
    return [
        Case(Convolution(strides=(2, 1), dilations=(1, 2), pads_begin=(1, 0), pads_end=(0, 2)),
             [f32(1, 3, 7, 8), f32(4, 3, 3, 2)], constant=(1,), note="explicit"),
        Case(Convolution(strides=(2, 2), auto_pad="same_upper"), [f32(1, 2, 7, 7), f32(3, 2, 3, 3)], constant=(1,),
             note="same-upper"),
        Case(Convolution(auto_pad="same_lower", strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,)),
             [f32(2, 2, 9), f32(3, 2, 4)], constant=(1,), note="same-lower-1d"),
        Case(Convolution(), [f32(1, 2, 5, 5), f32(3, 2, 3, 3)], note="filters-input"),
        Case(GroupConvolution(pads_begin=(1, 1), pads_end=(1, 1)), [f32(1, 6, 5, 5), f32(3, 2, 2, 3, 3)],
             constant=(1,), note="groups"),
        Case(GroupConvolution(strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1)),
             [f32(1, 4, 6, 6), f32(4, 1, 1, 3, 3)], note="depthwise"),
        Case(ConvolutionBackpropData(strides=(2, 2), pads_begin=(1, 0), pads_end=(0, 1), output_padding=(1, 1)),
             [f32(1, 3, 4, 4), f32(3, 2, 3, 3)], constant=(1,)),
        Case(GroupConvolutionBackpropData(strides=(2, 2)), [f32(1, 4, 3, 3), f32(2, 2, 3, 3, 3)], constant=(1,)),
        Case(MaxPool(strides=(2, 2), kernel=(3, 3), pads_begin=(2, 0), pads_end=(0, 1)), [f32(1, 2, 7, 7)]),
        Case(MaxPool8(strides=(2, 2), kernel=(3, 3), pads_begin=(0, 0), pads_end=(0, 0), rounding_type="ceil",
                      dilations=(1, 1), index_element_type=ElementType.I32), [f32(2, 3, 8, 8)], note="ceil-i32"),
        Case(MaxPool14(strides=(1, 1), kernel=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), dilations=(2, 2),
                       auto_pad="same_upper"), [f32(1, 2, 5, 5)], note="same-dilated"),
        Case(AvgPool(strides=(2, 2), kernel=(3, 3), pads_begin=(1, 1), pads_end=(1, 1), exclude_pad=True),
             [f32(1, 2, 7, 7)], note="exclude-pad"),
        Case(AvgPool(strides=(2, 2), kernel=(3, 3), pads_begin=(1, 0), pads_end=(0, 2)), [f32(1, 2, 7, 7)],
             note="include-pad"),
        Case(AvgPool(strides=(2, 2), kernel=(3, 3), pads_begin=(0, 0), pads_end=(0, 0), rounding_type="ceil"),
             [f32(1, 2, 8, 8)], note="ceil-unpadded"),
        Case(AvgPool14(strides=(2, 2), kernel=(3, 3), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="same_lower"),
             [f32(1, 2, 8, 8)], note="same-lower"),
        Case(AvgPool14(strides=(2, 2), kernel=(2, 2), pads_begin=(1, 1), pads_end=(0, 0), rounding_type="ceil_torch"),
             [f32(1, 2, 6, 6)], note="ceil-torch"),
        Case(MaxPool14(strides=(2, 2), kernel=(3, 3), pads_begin=(1, 1), pads_end=(0, 1), dilations=(1, 1),
                       rounding_type="ceil_torch"), [f32(1, 2, 6, 6)], note="ceil-torch"),
        Case(MaxPool(strides=(1,), kernel=(2,), pads_begin=(2,), pads_end=(3,)), [f32(1, 2, 5)],
             note="pads-past-kernel"),
        Case(AvgPool(strides=(1,), kernel=(2,), pads_begin=(0,), pads_end=(3,)), [f32(1, 2, 5)],
             note="pads-past-kernel"),
        Case(AvgPool14(strides=(1, 1), kernel=(7, 7), pads_begin=(0, 0), pads_end=(0, 0)), [f32(1, 4, 7, 7)],
             note="global"),
        Case(AvgPool16(strides=(1, 2), kernel=(2, 3), pads_begin=(0, 0), pads_end=(0, 0), dilations=(2, 1),
                       exclude_pad=True), [f32(1, 2, 7, 8)], opsets=(19, 22), note="dilated"),
        Case(AvgPool16(strides=(2, 2), kernel=(3, 2), pads_begin=(1, 1), pads_end=(1, 0), dilations=(1, 2),
                       rounding_type="ceil_torch"), [f32(1, 2, 7, 8)], opsets=(19,), note="dilated-include-pad-ceil"),
        Case(AvgPool16(strides=(2, 2), kernel=(2, 2), pads_begin=(1, 1), pads_end=(1, 1), exclude_pad=True),
             [f32(1, 2, 6, 6)], note="undilated"),
    ]


def reduction_cases() -> list[Case]:
    cases = []
    for op_class in (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2):
        cases.append(Case(op_class(keep_dims=True), [f32(2, 3, 4, low=0.5, high=1.5), i64(1, -1)], constant=(1,),
                          opsets=(13, 18), note="keep"))
        cases.append(Case(op_class(), [f32(2, 3, 4, low=0.5, high=1.5), i64(0)], constant=(1,), note="drop"))
    cases += [
        Case(ReduceSum(), [f32(2, 3), np.zeros(0, np.int64)], constant=(1,), note="empty-axes"),
        Case(ReduceL1(), [f32(2, 3), np.zeros(0, np.int64)], constant=(1,), note="empty-axes"),
        Case(ReduceMean(), [f32(2, 3, 4), i64(2)], note="axes-input"),
        Case(ReduceLogicalAnd(keep_dims=True), [boolean(3, 4), i64(1)], constant=(1,), opsets=(13, 18)),
        Case(ReduceLogicalOr(), [boolean(3, 4), i64(0)], constant=(1,)),
        Case(CumSum(), [f32(3, 4), np.asarray(1, np.int32)], constant=(1,), tolerance=PATTERN),
        Case(CumSum(exclusive=True, reverse=True), [i32(3, 4)], note="no-axis"),
        Case(TopK1(axis=1, mode="max", sort="value"), [f32(3, 6), i64(3).reshape(())], constant=(1,)),
        Case(TopK3(axis=0, mode="min", sort="value", index_element_type=ElementType.I64),
             [f32(5, 2), np.asarray(2, np.int32)], constant=(1,)),
        Case(TopK11(axis=-1, mode="max", sort="value", stable=True), [np.asarray([3, 1, 3, 2, 1], np.float32),
                                                                       i64(5).reshape(())], constant=(1,),
             note="ties"),
        Case(TopK11(axis=1, mode="min", sort="index", index_element_type=ElementType.I32),
             [f32(3, 7), i64(4).reshape(())], constant=(1,), note="by-index"),
        Case(TopK3(axis=0, mode="max", sort="none"), [f32(6, 2), i64(3).reshape(())], constant=(1,), note="none"),
    ]
    return cases


def matrix_cases() -> list[Case]:
    return [
        Case(MatMul(), [f32(2, 3, 4), f32(4, 5)], constant=(1,), tolerance=None),
        Case(MatMul(transpose_a=True, transpose_b=True), [f32(2, 4, 3), f32(5, 4)], note="transposed"),
        Case(MatMul(transpose_a=True), [f32(4), f32(4, 2)], note="1d"),
        Case(Einsum(equation="ij,jk->ik"), [f32(2, 3), f32(3, 4)]),
        Case(ScaledDotProductAttention(), [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 6)], tolerance=PATTERN),
        Case(ScaledDotProductAttention(causal=True), [f32(1, 2, 4, 4), f32(1, 2, 4, 4), f32(1, 2, 4, 3),
                                                      f32(1), np.asarray(0.3, np.float32)], tolerance=PATTERN,
             note="causal-scale"),
        Case(ScaledDotProductAttention(), [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 6),
                                           np.asarray([[True] * 5, [True, False] * 2 + [True], [False] * 4 + [True]])],
             tolerance=PATTERN, note="bool-mask"),
        Case(ScaledDotProductAttention(), [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 6), f32(3, 5)], tolerance=PATTERN,
             note="float-mask"),
    ]


def type_cases() -> list[Case]:
    return [
        Case(Convert(destination_type=ElementType.I32), [f32(3, 4, low=-100, high=100)], note="f32-i32"),
        Case(Convert(destination_type=ElementType.F32), [f32(3, 4).astype(np.float16)], constant=(0,),
             note="f16-const"),
        Case(Convert(destination_type=ElementType.BOOLEAN), [np.asarray([0.0, 1.5, -2.0], np.float32)], note="bool"),
        Case(ConvertLike(), [i32(3), f32(1)]),
    ]


def normalization_cases() -> list[Case]:
    return [
        Case(LRN(alpha=1e-4, beta=0.75, bias=1.0, size=5), [f32(1, 7, 3, 3), i64(1)], constant=(1,),
             tolerance=PATTERN, note="odd"),
        Case(LRN(alpha=0.5, beta=0.75, bias=2.0, size=4), [f32(1, 7, 3, 3), i64(1)], constant=(1,),
             tolerance=PATTERN, note="even"),
        Case(BatchNormInference(epsilon=1e-3), [f32(3, low=0.5), f32(3), f32(2, 3, 4, 4), f32(3),
                                                f32(3, low=0.5, high=2)], constant=(0, 1, 3, 4)),
        Case(BatchNormInference5(epsilon=1e-3), [f32(2, 3, 4), f32(3, low=0.5), f32(3), f32(3),
                                                 f32(3, low=0.5, high=2)], constant=(1, 2, 3, 4)),
        Case(MVN(eps=1e-6, across_channels=True), [f32(2, 3, 4, 4)], opsets=(13, 18), tolerance=PATTERN),
        Case(MVN6(normalize_variance=True, eps=1e-3, eps_mode="outside_sqrt"), [f32(2, 3, 4), i64(-1)],
             constant=(1,), tolerance=PATTERN, note="outside"),
        Case(MVN6(normalize_variance=False, eps=1e-3, eps_mode="inside_sqrt"), [f32(2, 3, 4), i64(1, 2)],
             constant=(1,), tolerance=PATTERN, note="center-only"),
        Case(NormalizeL2(eps=1e-6, eps_mode="add"), [f32(2, 3, 4), i64(1)], constant=(1,), tolerance=PATTERN),
        Case(NormalizeL2(eps=10.0, eps_mode="max"), [f32(2, 3, 4), i64(1, 2)], constant=(1,), tolerance=PATTERN,
             note="max"),
    ]


def movement_cases() -> list[Case]:
    data = f32(2, 3, 4)
    return [
        Case(Reshape(special_zero=True), [data, i64(0, -1)], constant=(1,), note="special-zero"),
        Case(Reshape(special_zero=False), [data, np.asarray([4, 6], np.int32)], constant=(1,), note="i32"),
        Case(Reshape(special_zero=False), [f32(0, 3), i64(3, 0)], constant=(1,), note="zero-dim"),
        Case(Reshape(special_zero=True), [data, np.asarray([0, 12], np.int32)], note="computed-i32"),
        Case(Squeeze(), [f32(1, 3, 1)], note="all"),
        Case(Squeeze(), [f32(1, 3, 1), np.asarray(-1, np.int32)], constant=(1,), note="axis"),
        Case(Squeeze15(allow_axis_skip=True), [f32(1, 3, 1), i64(0, 1)], constant=(1,)),
        Case(Unsqueeze(), [data, i64(0, -1)], constant=(1,)),
        Case(ShapeOf1(), [data]), Case(ShapeOf3(output_type=ElementType.I32), [data]),
        Case(Concat(axis=-1), [data, f32(2, 3, 2)]),
        Case(Split(num_splits=3), [data, i64(1).reshape(())], constant=(1,), opsets=(13, 18)),
        Case(VariadicSplit(), [data, i64(2).reshape(()), i64(1, -1)], constant=(1, 2)),
        Case(Transpose(), [data, i64(2, 0, 1)], constant=(1,)),
        Case(Transpose(), [data, np.zeros(0, np.int64)], constant=(1,), note="reverse"),
        Case(ShuffleChannels(axis=1, group=3), [f32(2, 6, 2, 2)]),
        Case(ShuffleChannels(axis=-1, group=2), [f32(2, 3, 4)], note="last-axis"),
        Case(DepthToSpace(mode="blocks_first", block_size=2), [f32(1, 8, 2, 3)], note="blocks-first"),
        Case(DepthToSpace(mode="depth_first", block_size=2), [f32(1, 8, 2, 3)], note="depth-first"),
        Case(SpaceToDepth(mode="blocks_first", block_size=2), [f32(1, 2, 4, 6)]),
        Case(Gather(), [data, i64(2, 0, 1), i64(1)], constant=(2,)),
        Case(Gather7(), [data, np.asarray([[3, 0]], np.int32), i64(-1)], constant=(2,)),
        Case(Gather8(), [data, i64(-1, 0), i64(0)], constant=(2,), note="negative"),
        Case(GatherElements(axis=1), [data, RNG.integers(0, 3, (2, 2, 4)).astype(np.int64)]),
        Case(GatherND(), [data, i64(1, 2, 0, 1).reshape(2, 2)]),
        Case(GatherND8(batch_dims=1), [data, i64(1, 2).reshape(2, 1)], note="batch"),
        Case(ScatterNDUpdate3(), [data, i64(1, 0).reshape(2, 1), f32(2, 3, 4)]),
        Case(ScatterNDUpdate15(reduction="sum"), [data, i64(1, 1).reshape(2, 1), f32(2, 3, 4)], note="sum"),
        Case(ScatterElementsUpdate3(), [data, np.asarray([[[1, 0, 2, 1]]], np.int64), f32(1, 1, 4), i64(1)],
             constant=(3,)),
        Case(ScatterElementsUpdate12(reduction="max"), [data, np.asarray([[[1, 1, 2, 1]]], np.int64), f32(1, 1, 4),
                                                        i64(1)], constant=(3,), note="max"),
        Case(Slice(), [data, i64(-1, 0), i64(-100, 4), i64(-1, 2), i64(1, 2)], constant=(1, 2, 3, 4)),
        Case(Slice(), [data, i64(1), i64(3), i64(1)], note="inputs"),
        Case(Slice(), [data, np.asarray([2, 0], np.int32), np.asarray([0, 3], np.int32), np.asarray([-1, 2], np.int32),
                       np.asarray([2, 1], np.int32)], note="inputs-i32"),
        Case(StridedSlice(begin_mask=(0, 1, 0), end_mask=(1, 0, 0), new_axis_mask=(0, 0, 1)),
             [data, i64(1, 0, 0), i64(0, 2, 0), i64(1, 1, 1)], constant=(1, 2, 3),
             note="new-axis"),
        Case(StridedSlice(begin_mask=(0, 0, 0), end_mask=(0, 0, 0), shrink_axis_mask=(1, 0, 0),
                          ellipsis_mask=(0, 1, 0)),
             [data, i64(-1, 0, 1), i64(0, 0, 3), i64(1, 1, -1)], constant=(1, 2, 3), note="shrink-ellipsis"),
        Case(StridedSlice(begin_mask=(1, 1, 1), end_mask=(1, 1, 1)), [data, i64(0, 0, 0), i64(0, 0, 0),
                                                                      i64(1, -1, -2)], constant=(1, 2, 3),
             note="reversed"),
        Case(Reverse(mode="index"), [data, i64(0, 2)], constant=(1,)),
        Case(Reverse(mode="mask"), [data, np.asarray([False, True, False])], constant=(1,), note="mask"),
        Case(Tile(), [data, i64(2, 1)], constant=(1,), note="short"),
        Case(Tile(), [f32(2, 3), i64(2, 1, 3)], constant=(1,), note="long"),
        Case(Pad(pad_mode="constant"), [data, i64(0, 1, 2), i64(1, 0, 1), np.asarray(7, np.float32)],
             constant=(1, 2)),
        Case(Pad12(pad_mode="reflect"), [data, i64(0, 1, -1), i64(1, 1, 2)], constant=(1, 2), note="reflect"),
        Case(Pad12(pad_mode="edge"), [data, i64(0, 0, 2), i64(1, 2, 0)], note="edge-inputs"),
        Case(Broadcast(mode="numpy"), [f32(3, 1), i64(2, 3, 4)], constant=(1,)),
        Case(Broadcast3(mode="bidirectional"), [f32(3, 1), i64(2, 1, 4)], constant=(1,), note="bidirectional"),
        Case(Broadcast3(mode="explicit"), [f32(3), i64(2, 3, 4), i64(1)], constant=(1, 2), note="explicit"),
        Case(Unique(), [np.asarray([3, 1, 3, 2, 1, 5], np.int32)], note="sorted"),
        Case(Unique(sorted=False, index_element_type=ElementType.I32, count_element_type=ElementType.I32),
             [np.asarray([[3, 1], [3, 1], [0, 2]], np.float32), i64(0).reshape(())], constant=(1,),
             note="rows-first-occurrence"),
    ]


def generation_cases() -> list[Case]:
    data = f32(2, 3, 4)
    return [
        Case(Range(), [np.asarray(v, np.int32) for v in (2, 11, 3)], note="i32"),
        Case(Range(), [np.asarray(v, np.float32) for v in (0.5, -3.1, -0.7)], note="f32"),
        Case(Range4(output_type=ElementType.F32), [np.asarray(1, np.int64), np.asarray([7.5], np.float32),
                                                   np.asarray(0.25, np.float32)], note="mixed"),
        Case(Range4(output_type=ElementType.I64), [np.asarray(v, np.float32) for v in (1.7, 9.2, 2.9)],
             constant=(0, 1, 2), note="truncated"),
        Case(NonZero(), [np.asarray([[0, 1.5, 0], [2, 0, -1]], np.float32)]),
        Case(NonZero(output_type=ElementType.I32), [boolean(3, 4)], note="i32"),
        Case(OneHot1(axis=-1), [i64(0, 2, -1, 5, 1), i64(4).reshape(()), np.asarray(5, np.float32),
                                np.asarray(-1, np.float32)], constant=(1,)),
        Case(OneHot16(axis=0, negative_indices_mode="normalize"), [i64(0, 2, -1, 3), i64(4).reshape(()),
                                                                   np.asarray(5, np.float32),
                                                                   np.asarray(-1, np.float32)], constant=(1,)),
        Case(Eye(output_type=ElementType.F32), [i64(3), i64(4), i64(1)], constant=(0, 1, 2)),
        Case(Eye(output_type=ElementType.I32), [i64(3).reshape(()), np.asarray(2, np.int32), i64(-1), i64(2)],
             constant=(2,), note="batch"),
        Case(Bucketize(), [f32(3, 4), np.asarray([-1, 0, 0.5, 2], np.float32)], note="right"),
        Case(Bucketize(with_right_bound=False, output_type=ElementType.I32),
             [np.asarray([-1, 0, 0.25, 0.5, 3], np.float32), np.asarray([-1, 0, 0.5, 2], np.float32)], note="left"),
        Case(Gather8(batch_dims=1), [data, RNG.integers(0, 4, (2, 5)).astype(np.int64), i64(2)], constant=(2,),
             note="batch-dims"),
        Case(Gather8(batch_dims=1), [data, RNG.integers(0, 3, (2, 2)).astype(np.int64), i64(1)], constant=(2,),
             note="batch-dims-at-axis"),
        Case(Gather8(batch_dims=-1), [f32(2, 3, 4, 2), RNG.integers(0, 2, (2, 3, 2)).astype(np.int32), i64(-1)],
             constant=(2,), note="negative-batch-dims"),
        Case(ScatterUpdate(), [data, i64(1, 0), f32(2, 2, 4), i64(1)], constant=(3,)),
        Case(ScatterUpdate(), [data, np.asarray([1], np.int32), f32(1, 3, 4), i64(0)], constant=(3,), note="axis-0"),
        Case(Roll(), [data, i64(1, -5), i64(2, 0)], constant=(1, 2)),
        Case(Roll(), [data, np.asarray(2, np.int32), i64(1, 1)], constant=(1, 2), note="scalar-shift"),
        Case(Col2Im(strides=(2, 2), pads_begin=(1, 0), pads_end=(1, 0)), [f32(1, 8, 6), i64(4, 4), i64(2, 2)],
             constant=(1, 2)),
        Case(Col2Im(), [f32(4, 9), i64(4, 4), i64(2, 2)], constant=(1, 2), note="unbatched"),
    ]


def image_cases() -> list[Case]:
    image = f32(1, 2, 5, 6)

    def v11(**attributes):
        return Interpolate11(**attributes)

    cases = []
    for mode, transform, extra in (
        ("nearest", "asymmetric", {"nearest_mode": "floor"}),
        ("nearest", "half_pixel", {"nearest_mode": "round_prefer_ceil"}),
        ("nearest", "tf_half_pixel_for_nn", {"nearest_mode": "ceil"}),
        ("linear_onnx", "half_pixel", {}),
        ("linear_onnx", "align_corners", {}),
        ("linear_onnx", "pytorch_half_pixel", {}),
        ("linear", "half_pixel", {}),
        ("linear", "asymmetric", {}),
        ("cubic", "asymmetric", {"cube_coeff": -0.5}),
    ):
        op = v11(mode=mode, coordinate_transformation_mode=transform, shape_calculation_mode="sizes", **extra)
        cases.append(Case(op, [image, i64(9, 4), i64(2, 3)], constant=(1, 2), opsets=(13, 18),
                          tolerance=CUBIC if mode == "cubic" else PATTERN, note=f"{mode}-{transform}"))
    cases += [
        Case(v11(mode="linear_onnx", shape_calculation_mode="scales"), [image, np.asarray([2.0, 0.5], np.float32),
                                                                        i64(2, 3)], constant=(1, 2),
             opsets=(13, 18), tolerance=PATTERN, note="scales"),
        Case(v11(mode="nearest", shape_calculation_mode="sizes", pads_begin=(0, 0, 1, 0), pads_end=(0, 0, 0, 2)),
             [image, i64(1, 2, 4, 4)], constant=(1,), note="padded-all-axes"),
        Case(Interpolate1(axes=(2, 3), mode="linear"), [image, i64(9, 4)], constant=(1,), tolerance=PATTERN,
             note="v1-linear-asymmetric"),
        Case(Interpolate1(axes=(0, 1, 2, 3), mode="linear"), [image, i64(1, 2, 8, 3)], constant=(1,), opsets=(13, 18),
             tolerance=PATTERN, note="v1-linear-half-pixel"),
        Case(Interpolate1(axes=(2, 3), mode="cubic", align_corners=True), [image, i64(7, 3)], constant=(1,),
             tolerance=CUBIC, note="v1-cubic-align"),
        Case(Interpolate4(mode="cubic", shape_calculation_mode="scales"),
             [image, i64(1, 1), np.asarray([1.5, 2.0], np.float32), i64(2, 3)], constant=(1, 2, 3),
             tolerance=CUBIC, note="v4-scales"),
    ]
    return cases


def sparse_cases() -> list[Case]:
    table = f32(5, 3)
    return [
        Case(EmbeddingBagPackedSum(), [table, i64(0, 2, 2, 4, 1, 0).reshape(3, 2)], tolerance=PATTERN),
        Case(EmbeddingBagPackedSum(), [table, np.asarray([[1, 3, 3]], np.int32), f32(1, 3)], tolerance=PATTERN,
             note="weights"),
        Case(EmbeddingBagPacked(reduction="mean"), [f32(4, 2, 2), i64(3, 1, 0, 0).reshape(2, 2)], tolerance=PATTERN,
             note="mean"),
        Case(EmbeddingBagOffsetsSum(), [table, i64(4, 0, 2, 2, 1), i64(1, 3, 3)], tolerance=PATTERN,
             note="empty-bag-and-unbagged-first"),
        Case(EmbeddingBagOffsetsSum(), [table, i64(4, 0, 2, 2, 1), i64(0, 2, 2), i64(3).reshape(()), f32(5)],
             constant=(3,), tolerance=PATTERN, note="default-weights"),
        Case(EmbeddingBagOffsets(reduction="mean"), [table, np.asarray([4, 0, 2, 2], np.int32),
                                                     np.asarray([0, 1, 1], np.int32), np.asarray(0, np.int32)],
             constant=(3,), tolerance=PATTERN, note="mean-default"),
        Case(EmbeddingSegmentsSum(), [table, i64(0, 3, 3, 1), i64(0, 0, 2, 2), i64(4).reshape(())], constant=(3,),
             tolerance=PATTERN),
        Case(EmbeddingSegmentsSum(), [table.astype(np.float16), i64(0, 3, 3, 1), i64(3, 0, 2, 2),
                                      i64(5).reshape(()), i64(1).reshape(()), f32(4).astype(np.float16)],
             constant=(3, 4), tolerance=PATTERN, note="f16-default-weights"),
    ]


def pattern_cases() -> list[Case]:
    """Ops ONNX has no single node for: their exported patterns."""
    data = f32(2, 3, 4)
    sorted_rows = np.sort(f32(2, 3, 5), axis=-1)
    sorted_rows[0, 0, 1:3] = sorted_rows[0, 0, 1]  # ties: left and right modes differ there
    quantized = np.round(f32(2, 3, 4, low=-2, high=2) * 4) / 4  # values on the levels: exact ties to round
    return [
        Case(ReverseSequence(batch_axis=0, seq_axis=1), [data, i64(3, 1)], note="0-1"),
        Case(ReverseSequence(batch_axis=2, seq_axis=0), [data, np.asarray([2, 0, 1, 2], np.int32)], note="2-0-i32"),
        Case(ReverseSequence(batch_axis=1, seq_axis=0), [data, i64(1, 2, 0)], constant=(1,), note="1-0"),
        Case(GRN(bias=0.5), [f32(2, 3, 4, 4)], tolerance=PATTERN),
        Case(GroupNormalization(num_groups=2, epsilon=1e-5), [f32(2, 4, 3, 3), f32(4), f32(4)], tolerance=PATTERN),
        Case(GroupNormalization(num_groups=3, epsilon=0.1), [f32(1, 3, 5), f32(3), f32(3)], constant=(1, 2),
             opsets=(13, 18), tolerance=PATTERN, note="3d-const"),
        Case(FakeQuantize(levels=256), [f32(2, 3, 4), np.float32(-1), np.float32(1.5), np.float32(0),
                                        np.float32(255)], constant=(1, 2, 3, 4), note="u8-range"),
        Case(FakeQuantize(levels=5), [quantized, f32(1, 3, 1, low=-2, high=-1), f32(1, 3, 1, low=1, high=2),
                                      f32(1, 3, 1), f32(1, 3, 1)], note="per-channel-ties"),
        Case(FakeQuantize(levels=3), [np.asarray([-2, -1, 0, 0.5, 1, 3, np.nan], np.float32), np.float32(1),
                                      np.float32(-1), np.float32(-3), np.float32(3)], constant=(1, 2, 3, 4),
             note="inverted-range"),
        Case(SpaceToBatch(), [f32(2, 3, 4, 5), i64(1, 1, 2, 3), i64(0, 0, 1, 0), i64(0, 0, 1, 1)],
             constant=(1, 2, 3)),
        Case(BatchToSpace(), [f32(12, 2, 3, 2), i64(1, 2, 3, 2), i64(0, 1, 0, 0), i64(0, 0, 2, 1)],
             constant=(1, 2, 3)),
        Case(BatchToSpace(), [f32(4, 3, 2), i64(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)], constant=(1, 2, 3),
             note="uncropped"),
        Case(SliceScatter(), [data, f32(2, 1, 2), i64(0, -1), i64(2, -5), i64(2, -2), i64(1, 2)],
             constant=(2, 3, 4, 5)),
        Case(SliceScatter(), [i32(5, 3), i32(2, 3), i64(1), i64(4), i64(2)], constant=(2, 3, 4), note="i32-no-axes"),
        Case(SearchSorted(), [sorted_rows, f32(2, 3, 4)], note="left"),
        Case(SearchSorted(right_mode=True, output_type=ElementType.I32),
             [sorted_rows, np.repeat(sorted_rows[..., 1:2], 3, axis=-1)], note="right-ties-i32"),
        Case(SearchSorted(), [np.sort(f32(6)), f32(2, 3)], note="1d-sequence"),
        Case(SegmentMax(fill_mode="ZERO"), [f32(5, 2), i64(0, 0, 2, 2, 3)], note="zero"),
        Case(SegmentMax(fill_mode="LOWEST"), [np.asarray([[1, np.nan], [np.nan, np.nan], [2, 3]], np.float32),
                                             np.asarray([1, 1, 3], np.int32), np.asarray(5, np.int32)],
             constant=(2,), note="lowest-nan-count"),
        Case(SegmentMax(fill_mode="zero"), [i32(6), i64(0, 1, 1, 2, 4, 4), np.asarray(3, np.int64)], constant=(1, 2),
             note="dropped-rows-i32"),
        Case(ReorgYolo(stride=(2, 2)), [f32(2, 8, 4, 6)]),
        Case(GatherTree(), [RNG.integers(0, 9, (5, 3, 4)).astype(np.int32), RNG.integers(0, 4, (5, 3, 4)).astype(
            np.int32), np.asarray([5, 3, -1], np.int32), np.asarray(2, np.int32)], note="i32"),
        Case(GatherTree(), [RNG.integers(0, 5, (4, 2, 3)).astype(np.float32), RNG.integers(0, 3, (4, 2, 3)).astype(
            np.float32), np.asarray([9, 0], np.float32), np.asarray(1, np.float32)], constant=(3,), note="f32"),
        Case(CTCGreedyDecoder(), [np.round(f32(6, 3, 4)), np.asarray([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1],
                                                                      [1, 1, 1], [1, 1, 1]], np.float32)],
             note="merged-ties"),
        Case(CTCGreedyDecoder(ctc_merge_repeated=False), [f32(5, 2, 3), np.ones((5, 2), np.float32)], note="kept"),
        Case(CTCGreedyDecoderSeqLen(), [np.round(f32(3, 6, 4)), np.asarray([6, 3, 0], np.int32)], note="default-blank"),
        Case(CTCGreedyDecoderSeqLen(merge_repeated=False, classes_index_type=ElementType.I64),
             [f32(2, 5, 3), np.asarray([5, 2], np.int64), np.asarray([0], np.int32)], constant=(2,), note="blank-0"),
        *(Case(ExtractImagePatches(sizes=(2, 3), strides=(2, 1), rates=(1, 2), auto_pad=pad), [f32(2, 3, 5, 7)],
               note=pad) for pad in ("valid", "same_upper", "same_lower")),
        Case(RegionYolo(anchors=(1.0, 2.0), axis=1, end_axis=3, coords=4, classes=3, num=2, do_softmax=True),
             [f32(2, 16, 3, 4)], note="v2"),
        Case(RegionYolo(anchors=(), axis=1, end_axis=3, coords=4, classes=2, num=6, do_softmax=False, mask=(0, 1, 2)),
             [f32(1, 21, 2, 3)], note="v3"),
        Case(NV12toRGB(), [u8(2, 4, 6, 1), u8(2, 2, 3, 2)], note="two-planes-u8"),
        Case(NV12toBGR(), [f32(1, 6, 4, 1, low=0, high=255)], note="one-plane-f32"),
        Case(I420toBGR(), [u8(1, 4, 4, 1), u8(1, 2, 2, 1), u8(1, 2, 2, 1)], note="three-planes-u8"),
        Case(I420toRGB(), [u8(2, 9, 6, 1)], note="one-plane-u8"),
        Case(AdaptiveAvgPool(), [f32(2, 3, 7, 5), i64(3, 2)], constant=(1,), note="2d"),
        Case(AdaptiveAvgPool(), [f32(1, 2, 9), i64(4)], constant=(1,), opsets=(13, 18), note="1d"),
        Case(AdaptiveMaxPool(), [f32(2, 3, 7, 5), i64(3, 2)], constant=(1,), note="2d"),
        Case(AdaptiveMaxPool(index_element_type="i32"), [np.round(f32(1, 2, 3, 4, 5)), np.asarray([2, 3, 2], np.int32)],
             constant=(1,), opsets=(13, 18), note="3d-ties-i32"),
    ]


CASES = (unary_cases() + binary_cases() + activation_cases() + convolution_cases() + reduction_cases()
         + matrix_cases() + type_cases() + normalization_cases() + movement_cases() + generation_cases()
         + image_cases() + sparse_cases() + pattern_cases())


def one_op_model(case: Case) -> tuple[ir.Model, dict[str, np.ndarray]]:
    """Parameters for the inputs (Consts for ``case.constant``), the op named 'op', a Result per output."""
    model = ir.Model("one_op")
    ports, feeds = [], {}
    for index, array in enumerate(case.inputs):
        element_type = ElementType.from_numpy(array.dtype)
        if index in case.constant:
            ports.append(model.const(array, element_type, name=f"c{index}"))
        else:
            ports.append(model.parameter(f"in{index}", list(array.shape), element_type))
            feeds[f"in{index}"] = array
    node = model.add_node(case.op, "op", ports)
    for index in range(node.num_outputs):
        model.result(ir.OutputPort(node.id, index), name=f"out{index}")
    return model, feeds


def bound(case: Case) -> Tolerance:
    """Exact for an exact op; the op's row widened to at least 2 ULP or 1 eps otherwise; or the case's own."""
    if case.tolerance is not None:
        return case.tolerance
    own = case.op.tolerance
    if own.is_exact:
        return EXACT
    return Tolerance(ulp=max(own.ulp, 2), eps=max(own.eps, 1.0), sum_eps=own.sum_eps)


def magnitudes(case: Case, feeds_and_consts: list[np.ndarray], count: int) -> list[np.ndarray | None]:
    if not case.op.tolerance.sum_eps:
        return [None] * count
    wide = [np.abs(x.astype(np.float64)) if x.dtype.kind == "f" else x for x in feeds_and_consts]
    with np.errstate(all="ignore"):
        return [np.asarray(m, np.float64) for m in case.op.evaluate(wide)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_onnxruntime_computes_irgraphs_values(case: Case):
    check_case(case)


def check_case(case: Case) -> None:
    """Export ``case`` at each of its opsets and compare onnxruntime's outputs with irgraph's."""
    from tests.ops.differential import ORACLE, assert_values_close

    for opset in case.opsets:
        model, feeds = one_op_model(case)
        ours = ir.run(model, feeds)
        proto = ir.export_onnx(model, opset=opset)
        assert "op" in {node.name for node in proto.graph.node}, "the layer name names its ONNX node"
        theirs = onnxruntime_run(proto, feeds)
        extents = magnitudes(case, case.inputs, len(ours))
        for (name, value), extent in zip(ours.items(), extents, strict=True):
            try:
                assert_values_close(value, theirs[name], bound(case), f"{case.id} opset {opset} {name}", extent)
            except AssertionError as err:  # the harness names its oracle; here it is onnxruntime
                raise AssertionError(str(err).replace(ORACLE, ORT)) from None


COVERED_ELSEWHERE = {
    If: "test_onnx_export_sub_graphs.py, against OpenVINO",
    Loop: "test_onnx_export_sub_graphs.py, on the sub-graph corpus and built Loops",
    TensorIterator: "test_onnx_export_sub_graphs.py, on the sub-graph corpus and built TensorIterators",
    **{op_class: "test_onnx_export_recurrent.py, generated configurations" for op_class in (
        GRUCell, GRUSequence, LSTMCell1, LSTMCell4, LSTMSequence, RNNCell, RNNSequence)},
    **{op_class: "test_onnx_export_nms.py, generated configurations" for op_class in (
        NonMaxSuppression, NonMaxSuppression1, NonMaxSuppression3, NonMaxSuppression4, NonMaxSuppression5,
        MulticlassNms8, MulticlassNms, MatrixNms)},
    **{op_class: "test_prior_boxes_fold_into_their_boxes below" for op_class in (
        PriorBox, PriorBox8, PriorBoxClustered)},
    **{op_class: "test_every_refusal_names_its_reason below" for op_class in (
        ReadValue3, ReadValue6, Assign3, Assign6, RandomUniform, Multinomial, Inverse)},
    **{op_class: "test_onnx_export_roi.py" for op_class in (
        GridSample, ROIAlign3, ROIAlign9, ROIPooling, ROIAlignRotated, PSROIPooling)},
    **{op_class: "test_onnx_export_signals.py, against onnx.reference and OpenVINO too" for op_class in (
        DFT, IDFT, RDFT, IRDFT, STFT, DeformableConvolution, DeformableConvolution8)},
}


def test_every_rule_has_a_case():
    tested = {type(case.op) for case in CASES} | set(COVERED_ELSEWHERE)
    missing = sorted(op_class.__name__ for op_class in RULES if op_class not in tested)
    assert missing == []


# ------------------------------------------------------------------------------------ refusals
def test_every_unexportable_layer_is_named_in_one_message():
    """Two custom layers (no rule) and, once those are gone, two refused by their rules: each error
    lists every such layer with its type and count, never only the first."""
    m = ir.Model("mixed")
    x = m.parameter("x", [1, 4, 4, 4], "f32")
    for name in ("c1", "c2"):
        op = OpaqueOp(op_type="Custom", op_version="extension",
                      declared_outputs=(TensorType(ElementType.F32, Shape.of([1, 4, 4, 4])),))
        x = ir.OutputPort(m.add_node(op, name, [x]).id, 0)
    m.result(x, name="y")
    with pytest.raises(ConversionError, match=r"^2 layers cannot be exported to ONNX \(no export rule\): Custom "
                                              r"\(extension\) x2: 'c1', 'c2' \("):
        ir.export_onnx(m)

    m = ir.Model("refused")
    x = m.parameter("x", [1, 4, 4, 4], "f32")
    d2s = m.add_node(SpaceToDepth(mode="depth_first", block_size=2), "s2d", [x])
    pooled = [m.add_node(AvgPool(strides=(2, 2), kernel=(1, 1), pads_begin=(0, 0), pads_end=(0, 0),
                                 rounding_type="ceil"), f"pool{i}", [x]) for i in range(2)]
    m.result(ir.OutputPort(d2s.id, 0), name="a")
    for i, node in enumerate(pooled):
        m.result(ir.OutputPort(node.id, 0), name=f"p{i}")
    with pytest.raises(ConversionError) as caught:
        ir.export_onnx(m)
    ceil = ("pads [0, 0] + [1, 1] not smaller than the kernel [1, 1]: onnxruntime refuses them, and an explicit "
            "Pad would move the indices or the divisor")
    assert str(caught.value) == (
        f"3 layers cannot be exported to ONNX: AvgPool x2 (layers 2 'pool0', 3 'pool1': {ceil}); "
        "SpaceToDepth x1 (layer 1 's2d': SpaceToDepth depth_first has no ONNX form (ONNX orders the blocks first))")


def test_interpolate_modes_without_an_exact_resize_form_are_refused():
    m = ir.Model("resize")
    x = m.parameter("x", [1, 1, 8, 9], "f32")
    sizes, axes = m.const(i64(3, 4)), m.const(i64(2, 3))
    for name, attributes in (("aa", {"mode": "linear", "antialias": True}), ("pillow", {"mode": "bilinear_pillow"}),
                             ("simple", {"mode": "nearest", "nearest_mode": "simple"})):
        node = m.add_node(Interpolate11(shape_calculation_mode="sizes", **attributes), name, [x, sizes, axes])
        m.result(ir.OutputPort(node.id, 0), name=f"y_{name}")
    with pytest.raises(ConversionError, match=r"^3 layers cannot be exported to ONNX: Interpolate x3 \(layer 3 'aa': "
                                              r"antialias has no exact ONNX Resize form .*; layer 5 'pillow': mode "
                                              r"bilinear_pillow has no .*; layer 7 'simple': nearest_mode simple"):
        ir.export_onnx(m)


def test_scatter_reductions_are_refused_below_the_opset_that_has_them():
    case = Case(ScatterNDUpdate15(reduction="max"), [f32(2, 3), i64(1, 1).reshape(2, 1), f32(2, 3)])
    model, _ = one_op_model(case)
    with pytest.raises(ConversionError, match=r"layer 3 'op': ONNX ScatterND takes reduction 'max' from opset 18\)$"):
        ir.export_onnx(model, opset=17)
    assert ir.export_onnx(model, opset=18).graph.node[0].op_type == "ScatterND"


def test_dilated_average_pooling_is_refused_below_the_opset_that_has_it():
    case = Case(AvgPool16(strides=(1, 1), kernel=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), dilations=(2, 2),
                          exclude_pad=True), [f32(1, 1, 5, 5)])
    model, _ = one_op_model(case)
    with pytest.raises(ConversionError, match=r"layer 1 'op': dilations \[2, 2\]: ONNX's AveragePool takes dilations "
                                              r"from opset 19\)$"):
        ir.export_onnx(model, opset=18)
    assert ir.export_onnx(model, opset=19).graph.node[0].op_type == "AveragePool"


def test_a_type_the_onnx_op_does_not_take_is_refused_by_its_schema():
    m = ir.Model("int-sigmoid")
    x = m.parameter("x", [3], "i32")
    m.result(ir.OutputPort(m.add_node(Sigmoid(), "sig", [x]).id, 0), name="y")
    with pytest.raises(ConversionError, match=r"layer 1 'sig': ONNX Sigmoid-13 \(opset 18\) does not take i32 "
                                              r"tensors; it takes bfloat16, double, float, float16"):
        ir.export_onnx(m)


def test_fold_decompression_turns_f16_weights_and_their_convert_into_one_f32_initializer():
    case = Case(Convert(destination_type=ElementType.F32), [f32(3).astype(np.float16)], constant=(0,))
    model, _ = one_op_model(case)
    kept = ir.export_onnx(model)
    assert [(n.op_type, list(n.input), list(n.output)) for n in kept.graph.node] == [("Cast", ["c0"], ["out0"])]
    assert onnx.numpy_helper.to_array(kept.graph.initializer[0]).dtype == np.float16
    folded = ir.export_onnx(model, fold_decompression=True)
    assert not folded.graph.node
    (weights,) = folded.graph.initializer
    assert weights.name == "out0"
    assert onnx.numpy_helper.to_array(weights).tolist() == case.inputs[0].astype(np.float32).tolist()


def test_a_layer_of_an_op_added_by_version_is_named_in_the_refusal():
    """Ops registered with ``introduced`` (their opsets a tuple) are refused by name like any other layer without a
    rule, not with an AttributeError: a custom op class registered that way here."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Doubling(Identity):
        type_name = "Doubling"
        introduced = 3

    model = ir.Model("m")
    x = model.parameter("x", [2, 3])
    node = model.add_node(Doubling(), "double", [x])
    model.result(ir.OutputPort(node.id, 0), name="y")
    with pytest.raises(ConversionError, match=r"1 layer cannot be exported to ONNX \(no export rule\): "
                                              r"Doubling \(opset3\) x1: 'double'"):
        ir.export_onnx(model)


def test_every_refusal_names_its_reason():
    """State, other generators' numbers and the missing inverse: one message, each reason said once (once for the
    ReadValue and the Assign that share it)."""
    model = ir.Model("refused")
    x = model.parameter("x", [2, 2])
    shape = model.const(i64(2, 2))
    layers = [
        model.add_node(ReadValue6(variable_id="v", variable_type=ElementType.F32, variable_shape=Shape.of([2, 2])),
                       "read", [x]),
        model.add_node(RandomUniform(output_type=ElementType.F32, op_seed=1, global_seed=2), "noise",
                       [shape, model.const(np.float32(0)), model.const(np.float32(1))]),
        model.add_node(Inverse(), "inverse", [x]),
        model.add_node(Multinomial(convert_type=ElementType.I64, with_replacement=True, log_probs=False), "draw",
                       [model.const(np.asarray([[0.5, 0.5]], np.float32)), model.const(np.asarray([3], np.int64))]),
        model.add_node(MulticlassNms(nms_eta=0.5), "multiclass", [model.const(np.zeros((1, 2, 4), np.float32)),
                                                                  model.const(np.zeros((1, 1, 2), np.float32))],
                       num_outputs=3),
    ]
    model.add_node(Assign6(variable_id="v"), "write", [ir.OutputPort(layers[0].id, 0)])
    for node in layers:
        model.result(ir.OutputPort(node.id, 0), name=f"y_{node.name}")
    with pytest.raises(ConversionError) as caught:
        ir.export_onnx(model)
    message = str(caught.value)
    assert message.startswith("6 layers cannot be exported to ONNX: Assign x1, ReadValue x1 (layers ")
    assert message.count("a stateful model's variables (ReadValue/Assign) have no ONNX form") == 1
    for part in ("MulticlassNms x1 (layer", "nms_eta 0.5 lowers the threshold",
                 "export it stateless (ir-convert --stateless, export_onnx(..., stateless=True))",
                 "RandomUniform x1 (layer", "Multinomial x1 (layer",
                 "ONNX's RandomUniform draws other numbers than OpenVINO's generator for the same seeds",
                 "Inverse x1 (layer", "ai.onnx has no matrix inverse"):
        assert part in message, part


@pytest.mark.parametrize("op", [
    PriorBox(min_size=(2.0,), max_size=(5.0,), aspect_ratio=(2.0,), flip=True, clip=True,
             variance=(0.1, 0.2, 0.3, 0.4)),
    PriorBox8(min_size=(2.0, 3.0), aspect_ratio=(1.5,), min_max_aspect_ratios_order=False, offset=0.5),
    PriorBoxClustered(width=(1.0, 2.5), height=(2.0, 1.5), step=4.0, variance=(0.1,)),
], ids=lambda op: op.title())
def test_prior_boxes_fold_into_their_boxes(op):
    """Constant sizes, or sizes sliced from the shapes of static tensors (SSD's form): the exported model is irgraph's
    boxes as one initializer; sizes that depend on the run are refused."""
    model = ir.Model("priors")
    sizes = [model.const(i64(3, 4), name="output_size"), model.const(i64(12, 16), name="image_size")]
    node = model.add_node(op, "priors", sizes)
    model.result(ir.OutputPort(node.id, 0), name="boxes")
    proto = ir.export_onnx(model)
    assert not proto.graph.node
    (boxes,) = proto.graph.initializer
    assert boxes.name == "boxes"
    expected = ir.run(model, {})["boxes"]
    np.testing.assert_array_equal(onnx.numpy_helper.to_array(boxes), expected)
    np.testing.assert_array_equal(onnxruntime_run(proto, {})["boxes"], expected)

    model = ir.Model("ssd")  # the sizes as SSD IRs compute them: shapes of static tensors, sliced
    feature, image = model.parameter("feature", [1, 8, 3, 4]), model.parameter("image", [1, 3, 12, 16])
    sizes = []
    for tensor in (feature, image):
        shape = ir.OutputPort(model.add_node(ShapeOf3(), None, [tensor]).id, 0)
        sizes.append(ir.OutputPort(model.add_node(StridedSlice(begin_mask=(0,), end_mask=(1,)), None, [
            shape, model.const(i64(2)), model.const(i64(0)), model.const(i64(1))]).id, 0))
    node = model.add_node(op, "priors", sizes)
    model.result(ir.OutputPort(node.id, 0), name="boxes")
    proto = ir.export_onnx(model)
    assert [i.name for i in proto.graph.input] == ["feature", "image"] and proto.graph.output[0].name == "boxes"
    feeds = {"feature": f32(1, 8, 3, 4), "image": f32(1, 3, 12, 16)}
    np.testing.assert_array_equal(onnxruntime_run(proto, feeds)["boxes"], expected)

    model = ir.Model("computed")
    image_size = model.parameter("image_size", [2], "i64")
    node = model.add_node(op, "priors", [model.const(i64(3, 4)), image_size])
    model.result(ir.OutputPort(node.id, 0), name="boxes")
    with pytest.raises(ConversionError, match=r"layer \d+ 'priors': .* is folded into its boxes at export, which needs "
                                              r"both sizes \(inputs 0 and 1\) computed from Consts and static shapes"):
        ir.export_onnx(model)


def test_max_pool_indices_nothing_reads_are_not_computed():
    """YOLO's MaxPool-14 counts its (unread) indices from axis 2, which ONNX cannot: only the values export."""
    model = ir.Model("pool")
    x = model.parameter("x", [1, 2, 6, 6])
    node = model.add_node(MaxPool14(strides=(2, 2), kernel=(2, 2), pads_begin=(0, 0), pads_end=(0, 0),
                                    dilations=(1, 1), axis=2), "pool", [x])
    model.result(ir.OutputPort(node.id, 0), name="y")
    proto = ir.export_onnx(model)
    (pool,) = proto.graph.node
    assert pool.op_type == "MaxPool" and list(pool.output) == ["y"]
    feeds = {"x": f32(1, 2, 6, 6)}
    np.testing.assert_array_equal(onnxruntime_run(proto, feeds)["y"], ir.run(model, feeds)["y"])
    model.result(ir.OutputPort(node.id, 1), name="where")
    with pytest.raises(ConversionError, match=r"MaxPool indices counted from axis 2 have no ONNX form"):
        ir.export_onnx(model)


def test_interpolate1_nearest_is_refused_as_openvino_runs_it_simple():
    """Interpolate-1 nearest runs with nearest_mode simple (transform_v0_to_v4), which ONNX Resize cannot round."""
    model, _ = one_op_model(Case(Interpolate1(axes=(2, 3), mode="nearest"), [f32(1, 1, 4, 4), i64(8, 8)],
                                 constant=(1,)))
    with pytest.raises(ConversionError, match=r"layer \d+ 'op': nearest_mode simple has no ONNX Resize form"):
        ir.export_onnx(model)


def test_exportable_ops_leave_out_the_ops_whose_rule_always_refuses():
    from irgraph.io.onnx.exporter import exportable_ops

    names = exportable_ops()
    assert {"Loop-5", "TensorIterator-1", "LSTMSequence-5", "NonMaxSuppression-9", "Const-1"} <= set(names)
    refusing = {"ReadValue-6", "Assign-6", "RandomUniform-8", "Multinomial-13", "Inverse-14"}
    assert not refusing & set(names)
