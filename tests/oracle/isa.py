"""Oracle answers that depend on the processor, and how to tell which one a test is looking at.

openvino 2026.4.1's CPU plugin and onnxruntime 1.31.1's MLAS pick their kernels from the instruction set they
find; a few of those kernels give different numbers (docs/oracles.md lists them). A test that judges by such a
kernel asks here which answer applies, from the oracle's own report where it gives one (the precision the CPU
plugin ran a layer in) and from the CPU's flags otherwise, and accepts that answer by name.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})
"""Linux's names of the x86 extensions whose u8 x s8 dot products accumulate in 32 bits without saturating."""


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as Linux names them (``/proc/cpuinfo``); empty where there is no such file."""
    try:
        text = Path("/proc/cpuinfo").read_text("utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def u8s8_products_saturate() -> bool | None:
    """True where onnxruntime 1.31.1's MLAS multiplies u8 by s8 with ``vpmaddubsw`` (x86 with AVX2 or AVX-512 and
    no VNNI): each sum of two adjacent products saturates to int16. False with VNNI (or AMX int8); None when
    the flags are unknown (not Linux x86)."""
    flags = cpu_flags()
    if "avx2" not in flags:
        return None
    return not (flags & VNNI_FLAGS)


def saturated_pair_sums(products: np.ndarray) -> np.ndarray:
    """The sum over the last axis of ``products`` (int u8 x s8 products) as ``vpmaddubsw`` + ``vpmaddwd`` add
    them: adjacent pairs (0+1, 2+3, ...) each clipped to int16 first."""
    wide = products.astype(np.int64)
    if wide.shape[-1] % 2:
        wide = np.concatenate([wide, np.zeros((*wide.shape[:-1], 1), np.int64)], axis=-1)
    pairs = wide[..., 0::2] + wide[..., 1::2]
    return np.clip(pairs, -(2**15), 2**15 - 1).sum(axis=-1)


def cpu_plugin_float_precision(compiled: Any, layer_type: str) -> str:
    """The floating-point type openvino's CPU plugin ran the (one) layer of ``layer_type`` in, read from the
    compiled model's execution graph (its runtime or output precision, whichever is a float type): ``bf16``
    where the plugin computes bf16 natively (AVX-512 and newer), ``f32`` where it converts bf16 to f32 around
    the layer (AVX2 only, or oneDNN capped at AVX2 by ``ONEDNN_MAX_CPU_ISA``)."""
    found = []
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        if info["layerType"].astype(str) == layer_type:
            precisions = {info[key].astype(str) for key in ("runtimePrecision", "outputPrecisions")}
            found.extend(sorted(precisions & {"bf16", "f16", "f32", "f64"}))
    assert len(found) == 1, f"{layer_type} in the CPU plugin's execution graph: float precisions {found}"
    return found[0]
