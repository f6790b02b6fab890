"""Helpers for the hostile-input tests: IR text builders, file writers, error and CLI assertions.

Every hostile test checks two things: the library call raises the expected :class:`irgraph.IrError`
subclass with a message naming the problem and a location (file, and line where it applies), and
the command-line tool's ``main(argv)`` returns the right exit code with exactly one ``error:``
line on stderr and no traceback.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"

EXIT_FAILURE = 1
EXIT_USAGE = 2


# ------------------------------------------------------------------------------------ IR text
def dims(shape: Iterable[int]) -> str:
    return "".join(f"<dim>{d}</dim>" for d in shape)


def port(port_id: int | str, shape: Iterable[int] = (), precision: str = "FP32", names: str | None = None) -> str:
    named = f' names="{names}"' if names is not None else ""
    return f'<port id="{port_id}" precision="{precision}"{named}>{dims(shape)}</port>'


def layer(
    layer_id: int | str,
    name: str,
    type_name: str,
    *,
    data: dict[str, str] | None = None,
    inputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
    version: str = "opset1",
) -> str:
    """One ``<layer>`` on its own lines (data, input and output each on one line)."""
    lines = [f'\t\t<layer id="{layer_id}" name="{name}" type="{type_name}" version="{version}">']
    if data is not None:
        lines.append("\t\t\t<data " + " ".join(f'{k}="{v}"' for k, v in data.items()) + " />")
    if inputs:
        lines.append("\t\t\t<input>" + "".join(inputs) + "</input>")
    if outputs:
        lines.append("\t\t\t<output>" + "".join(outputs) + "</output>")
    lines.append("\t\t</layer>")
    return "\n".join(lines) + "\n"


def edge(from_layer: int | str, from_port: int | str, to_layer: int | str, to_port: int | str) -> str:
    return f'\t\t<edge from-layer="{from_layer}" from-port="{from_port}" to-layer="{to_layer}" to-port="{to_port}" />\n'


def net(layers: Iterable[str], edges: Iterable[str], version: int = 11, name: str = "hostile") -> str:
    return (
        f'<?xml version="1.0"?>\n<net name="{name}" version="{version}">\n\t<layers>\n'
        + "".join(layers)
        + "\t</layers>\n\t<edges>\n"
        + "".join(edges)
        + "\t</edges>\n</net>\n"
    )


def parameter(layer_id: int, name: str = "x", shape: Sequence[int] = (2, 6), element_type: str = "f32",
              precision: str = "FP32") -> str:
    return layer(layer_id, name, "Parameter", data={"shape": ",".join(map(str, shape)), "element_type": element_type},
                 outputs=[port(0, shape, precision, names=name)])


def const(layer_id: int, name: str, element_type: str, shape: Sequence[int], offset: int, size: int,
          precision: str) -> str:
    return layer(layer_id, name, "Const",
                 data={"element_type": element_type, "shape": ",".join(map(str, shape)), "offset": str(offset),
                       "size": str(size)},
                 outputs=[port(0, shape, precision)])


def result(layer_id: int, name: str, shape: Sequence[int] = (2, 3)) -> str:
    return layer(layer_id, name, "Result", inputs=[port(0, shape)])


def split_model(num_splits: str = "2", axis: int = 1) -> tuple[str, bytes]:
    """The base model: x f32[2,6] -> Split(axis 1, num_splits) -> r0, r1 (IR v11 text, .bin bytes)."""
    xml = net(
        [
            parameter(0),
            const(1, "axis", "i64", (), 0, 8, "I64"),
            layer(2, "split", "Split", data={"num_splits": num_splits},
                  inputs=[port(0, (2, 6)), port(1, (), "I64")],
                  outputs=[port(2, (2, 3), names="y0"), port(3, (2, 3), names="y1")]),
            result(3, "r0"),
            result(4, "r1"),
        ],
        [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(2, 3, 4, 0)],
    )
    return xml, np.int64(axis).tobytes()


# ------------------------------------------------------------------------------------ files
@dataclass
class Files:
    xml: Path
    bin: Path

    @property
    def directory(self) -> Path:
        return self.xml.parent


@pytest.fixture
def write_ir(tmp_path: Path) -> Callable[..., Files]:
    """Write ``model.xml`` (text or bytes) and ``model.bin`` (unless ``weights`` is None) into a fresh folder."""
    counter = [0]

    def write(xml: str | bytes, weights: bytes | None = b"", name: str = "model") -> Files:
        counter[0] += 1
        directory = tmp_path / f"case{counter[0]}"
        directory.mkdir()
        files = Files(directory / f"{name}.xml", directory / f"{name}.bin")
        if isinstance(xml, str):
            files.xml.write_text(xml, encoding="utf-8")
        else:
            files.xml.write_bytes(xml)
        if weights is not None:
            files.bin.write_bytes(weights)
        return files

    return write


def save_npz(path: Path, **arrays: np.ndarray) -> Path:
    np.savez(path, **arrays)
    return path


def good_inputs(directory: Path) -> Path:
    """inputs.npz for the base model (x: f32[2,6])."""
    return save_npz(directory / "inputs.npz", x=np.arange(12, dtype=np.float32).reshape(2, 6))


# ------------------------------------------------------------------------------------ assertions
def expect_error(
    call: Callable[[], object],
    kind: type[ir.IrError],
    message: str,
    *,
    file: Path | str | None = None,
    line: int | None = None,
    layer_id: int | None = None,
) -> ir.IrError:
    """``call()`` raises ``kind`` whose message contains ``message``, located at ``file``/``line``/``layer_id``.

    A location with a file is always required; ``line`` and ``layer_id`` are checked when given.
    """
    with pytest.raises(ir.IrError) as info:
        call()
    err = info.value
    assert isinstance(err, kind), f"expected {kind.__name__}, got {type(err).__name__}: {err}"
    assert message in err.message, f"{message!r} not in {err.message!r}"
    assert "\n" not in str(err), f"error is not one line: {str(err)!r}"
    assert err.location.file, f"no file in the location of {err!r}"
    if file is not None:
        assert err.location.file == os.fspath(file), (err.location.file, os.fspath(file))
    if line is not None:
        assert err.location.line == line, f"line {err.location.line}, expected {line}: {err}"
    if layer_id is not None:
        assert err.location.layer_id == layer_id, f"layer {err.location.layer_id}, expected {layer_id}: {err}"
    return err


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    @property
    def error_lines(self) -> list[str]:
        return [ln for ln in self.err.splitlines() if ln.startswith("error:")]


def run_tool(main: Callable[[list[str]], int], argv: Sequence[str | os.PathLike[str]],
             capsys: pytest.CaptureFixture[str]) -> Outcome:
    capsys.readouterr()
    code = main([os.fspath(a) for a in argv])
    captured = capsys.readouterr()
    return Outcome(code, captured.out, captured.err)


def expect_cli_error(
    main: Callable[[list[str]], int],
    argv: Sequence[str | os.PathLike[str]],
    capsys: pytest.CaptureFixture[str],
    code: int,
    message: str,
) -> Outcome:
    """The tool exits ``code`` with exactly one ``error:`` line on stderr, no traceback, ``message`` shown.

    ``message`` must appear in the error line (ir-validate: in its diagnostics on stdout or the error line).
    """
    outcome = run_tool(main, argv, capsys)
    both = outcome.out + outcome.err
    assert outcome.code == code, f"exit {outcome.code}, expected {code}; stderr: {outcome.err!r}"
    assert "Traceback" not in both, both
    assert len(outcome.error_lines) == 1, f"expected one error line, stderr: {outcome.err!r}"
    assert "internal error" not in outcome.err, outcome.err
    if main.__module__.endswith("ir_validate"):
        assert message in both, f"{message!r} not in {both!r}"
    else:
        assert message in outcome.error_lines[0], f"{message!r} not in {outcome.error_lines[0]!r}"
    return outcome
