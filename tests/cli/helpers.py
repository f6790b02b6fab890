"""Helpers for the command-line tests: small hand-written IR files, the samples, npz loading."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
SAMPLE_NAMES = sorted(p.name for p in SAMPLES.iterdir() if (p / "model.xml").is_file())


def _dims(shape: list[int]) -> str:
    return "".join(f"<dim>{d}</dim>" for d in shape)


def _port_dims(parameter_shape: str) -> str:
    """Port ``<dim>``s for a Parameter ``shape`` text: static sizes, ``-1`` for anything dynamic."""
    tokens = [t for t in parameter_shape.split(",") if t]
    return _dims([int(t) if t.isdigit() else -1 for t in tokens])


def _net_with_input(name: str, pshape: str, element_type: str, precision: str) -> str:
    """The start of an IR v11 ``<net>`` up to its first layer, the Parameter ``x`` (id 0) of ``pshape``."""
    return f"""<?xml version="1.0"?>
<net name="{name}" version="11">
\t<layers>
\t\t<layer id="0" name="x" type="Parameter" version="opset1">
\t\t\t<data shape="{pshape}" element_type="{element_type}"/>
\t\t\t<output><port id="0" precision="{precision}" names="x">{_port_dims(pshape)}</port></output>
\t\t</layer>
"""


def split_xml(
    *,
    shape: list[int] | None = None,
    parameter_shape: str | None = None,
    element_type: str = "f32",
    precision: str = "FP32",
    num_splits: int = 2,
    op_type: str = "Split",
    op_version: str = "opset1",
    axis: int = 1,
    extra_data: str = "",
) -> tuple[str, bytes]:
    """An IR v11 model ``x -> Split(axis) -> num_splits Results`` (``op_type`` may be unknown)."""
    shape = shape or [2, 6]
    declared = list(shape)
    declared[axis] = -1 if shape[axis] % num_splits else shape[axis] // num_splits
    outputs = "".join(
        f'<port id="{2 + i}" precision="{precision}" names="y{i}">{_dims(declared)}</port>' for i in range(num_splits)
    )
    results = "".join(
        f'\t\t<layer id="{3 + i}" name="r{i}" type="Result" version="opset1">\n'
        f'\t\t\t<input><port id="0" precision="{precision}">{_dims(declared)}</port></input>\n\t\t</layer>\n'
        for i in range(num_splits)
    )
    edges = "".join(
        f'<edge from-layer="2" from-port="{2 + i}" to-layer="{3 + i}" to-port="0"/>' for i in range(num_splits)
    )
    pshape = parameter_shape if parameter_shape is not None else ",".join(map(str, shape))
    xml = _net_with_input("split", pshape, element_type, precision) + f"""\
\t\t<layer id="1" name="axis" type="Const" version="opset1">
\t\t\t<data element_type="i64" shape="" offset="0" size="8"/>
\t\t\t<output><port id="0" precision="I64"/></output>
\t\t</layer>
\t\t<layer id="2" name="split" type="{op_type}" version="{op_version}">
\t\t\t<data num_splits="{num_splits}"{extra_data}/>
\t\t\t<input><port id="0" precision="{precision}">{_dims(shape)}</port><port id="1" precision="I64"/></input>
\t\t\t<output>{outputs}</output>
\t\t</layer>
{results}\t</layers>
\t<edges>
\t\t<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
\t\t<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
\t\t{edges}
\t</edges>
</net>
"""
    return xml, np.int64(axis).tobytes()


def identity_xml(element_type: str, precision: str, shape: list[int]) -> str:
    """An IR v11 model ``x -> Result`` of one element type."""
    return _net_with_input("identity", ",".join(map(str, shape)), element_type, precision) + f"""\
\t\t<layer id="1" name="y" type="Result" version="opset1">
\t\t\t<input><port id="0" precision="{precision}">{_dims(shape)}</port></input>
\t\t</layer>
\t</layers>
\t<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>
"""


def load(path: Path | str) -> dict[str, np.ndarray]:
    """Every array of an .npz."""
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def files_in(directory: Path) -> list[str]:
    """Names in a directory (to check that no temporary file is left)."""
    return sorted(os.listdir(directory))
