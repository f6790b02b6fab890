"""cli._common and ir-run helpers that need no model file: messages, shape specs, .npz writes (the atomic
replace they use is tested in tests/io/test_atomic.py)."""

from __future__ import annotations

import os
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from irgraph.cli import _common as common
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ResourceLimitError
from irgraph.core.shapes import Shape
from irgraph.io.data import npz
from irgraph.tools import feeds
from tests.cli.helpers import files_in, load


def test_one_line_escapes() -> None:
    assert common.one_line("a\nb\r\nc\td") == "a\\nb\\r\\nc\\td"
    assert common.one_line("bell\x07 esc\x1b[31m") == "bell\\x07 esc\\x1b[31m"
    assert common.one_line("  ünïcode  ") == "ünïcode"
    assert common.one_line("c1\x9b bidi\u202e\u2066\u200f\u061c del\x7f") == \
        "c1\\x9b bidi\\u202e\\u2066\\u200f\\u061c del\\x7f"


def test_parse_shape_specs() -> None:
    assert feeds.parse_shape_specs(["a[1,?,1..8]", "b:[2], c [..4,3..]"]) == {
        "a": Shape.parse("1,?,1..8"), "b": Shape.parse("2"), "c": Shape.parse("..4,3..")}
    assert feeds.parse_shape_specs(["s[]"]) == {"s": Shape.parse("")}


def test_merge_shapes() -> None:
    assert Shape.parse("?,2..8").merge(Shape.parse("3,4..10")) == Shape.parse("3,4..8")
    assert Shape.parse("...").merge(Shape.parse("3")) == Shape.parse("3")
    assert Shape.parse("2").merge(Shape.parse("3")) is None
    assert Shape.parse("2").merge(Shape.parse("2,2")) is None


@pytest.mark.parametrize("element_type", [t for t in ElementType if not t.is_dynamic])
def test_random_array_has_the_exact_dtype(element_type: ElementType) -> None:
    array = feeds.random_array(np.random.default_rng(0), element_type, (3, 2))
    assert array.shape == (3, 2)
    if element_type is ElementType.STRING:
        assert array.dtype.kind == "U"
    else:
        assert array.dtype == element_type.numpy_dtype
        assert np.all(np.isfinite(array.astype(np.float64)))


def test_write_npz_atomically_any_key_and_bf16(tmp_path: Path) -> None:
    arrays = {"a,b/c:0": np.arange(3, dtype=np.int64), "bf": np.array([1.5], dtype=ml_dtypes.bfloat16)}
    npz.write_npz(str(tmp_path / "o.npz"), arrays)
    got = load(tmp_path / "o.npz")
    assert list(got) == ["a,b/c:0", "bf"]
    assert got["bf"].dtype == np.dtype("V2") and got["bf"].tobytes() == arrays["bf"].tobytes()
    assert files_in(tmp_path) == ["o.npz"]


def test_write_npz_atomically_cleans_up_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "o.npz"
    target.write_bytes(b"old")
    with pytest.raises(ValueError):
        npz.write_npz(str(target), {"x": np.array([object()], dtype=object)})
    assert target.read_bytes() == b"old"
    assert files_in(tmp_path) == ["o.npz"]


def test_load_npz_refuses_non_npy_members(tmp_path: Path) -> None:
    import zipfile

    with zipfile.ZipFile(tmp_path / "in.npz", "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(common.CliError, match="is not a .npy array"):
        common.load_npz(str(tmp_path / "in.npz"), 100)


def test_load_npz_checks_the_element_budget_before_reading(tmp_path: Path) -> None:
    np.savez(tmp_path / "in.npz", x=np.zeros(10, np.float32))
    with pytest.raises(ResourceLimitError, match="declares 10 elements, above the limit of 5"):
        common.load_npz(str(tmp_path / "in.npz"), 5)


def test_decode_stored() -> None:
    raw = np.array([1.5], dtype=ml_dtypes.bfloat16).view("V2")
    assert npz.decode_stored(raw, ElementType.BF16).dtype == ml_dtypes.bfloat16
    assert npz.decode_stored(raw, ElementType.F16).dtype == np.dtype("V2")  # no silent reinterpretation


def test_describe_os_error() -> None:
    err = FileNotFoundError(2, os.strerror(2), "x.npz")
    assert common.describe_os_error(err) == "x.npz: No such file or directory"
