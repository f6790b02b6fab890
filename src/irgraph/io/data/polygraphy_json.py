"""Polygraphy's JSON data files: input feeds (``polygraphy run --save-inputs``) and run results (``--save-outputs``).

Polygraphy (NVIDIA TensorRT's tools/Polygraphy, ``polygraphy/json/serde.py``) writes a NumPy array as
``{"array": BASE64, "polygraphy_class": "ndarray"}`` where BASE64 is the array saved as ``.npy``
(``np.save``, never pickled). Input files are a list of iterations, each an object mapping input
names to arrays. Run results are ``{"lst": [[RUNNER, [ITERATION, ...]], ...], "polygraphy_class":
"RunResults"}`` where an ITERATION is ``{"outputs": {NAME: ARRAY}, "runtime": SECONDS, "runner_name":
RUNNER, "polygraphy_class": "IterationResult"}`` and each output array is wrapped as ``{"values":
ARRAY, "polygraphy_class": "LazyArray"}`` (older versions: the bare array, or ``LazyNumpyArray``).

Reading is untrusted: the file must be a regular file, arrays are decoded from strict base64 and
read as ``.npy`` with every header checked before its data (:func:`irgraph.io.data.npz.read_npy`), so no
pickle is ever loaded and the element budget holds.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from irgraph.core.errors import IrIOError, Location
from irgraph.core.lazy import lazy_module, lazy_pattern
from irgraph.io import atomic
from irgraph.io.data import npz
from irgraph.io.regular_file import SizedReader

# Imported when a Polygraphy file is read or written (ir-run imports this module for its options).
if TYPE_CHECKING:
    import base64
    import binascii
    import json
else:
    base64, binascii, json = lazy_module("base64"), lazy_module("binascii"), lazy_module("json")

__all__ = ["TYPE_MARKER", "decode_array", "read_arrays", "read_iterations", "write_inputs", "write_outputs"]

TYPE_MARKER = "polygraphy_class"
_LEGACY_MARKER = "polygraphy_serialized_json_type"
_LAZY = ("LazyArray", "LazyNumpyArray")
RUNNER_NAME = "irgraph-runner"
"""The runner name irgraph writes into run results."""


def read_iterations(path: str) -> list[dict[str, bytes]]:
    """The iterations of a Polygraphy JSON file as ``{name: .npy bytes}`` (arrays are not decoded yet).

    Takes an inputs file (a list of feeds, or one feed) or run results (the first runner's
    iterations, their outputs). Raises IrIOError for anything else.
    """
    document = _load(path)
    if isinstance(document, dict) and document.get(TYPE_MARKER) == "RunResults":
        runs = document.get("lst")
        if not isinstance(runs, list) or not runs:
            raise _bad(path, "its RunResults holds no runner")
        first = runs[0]
        if not (isinstance(first, list) and len(first) == 2 and isinstance(first[1], list)):
            raise _bad(path, "its RunResults entry is not [runner name, iterations]")
        iterations = [item.get("outputs") if isinstance(item, dict) else None for item in first[1]]
    elif isinstance(document, list):
        iterations = document
    elif isinstance(document, dict):
        iterations = [document]
    else:
        raise _bad(path, "it is neither a list of feeds nor Polygraphy run results")
    decoded = []
    for number, iteration in enumerate(iterations):
        if not isinstance(iteration, dict):
            raise _bad(path, f"iteration {number} is not an object of named arrays")
        decoded.append({str(name): _npy_bytes(path, name, value) for name, value in iteration.items()
                        if name not in (TYPE_MARKER, _LEGACY_MARKER)})
    return decoded


def decode_array(path: str, name: str, data: bytes, element_limit: int, expect: npz.Expect | None = None,
                 ) -> np.ndarray:
    """One array of a Polygraphy JSON file from its ``.npy`` bytes: header checked before the data is read."""
    with npz.reading(path, "JSON"):
        return npz.read_npy(io.BytesIO(data), len(data), f"array {name!r}", element_limit, expect, exact=True)


def read_arrays(path: str, element_limit: int) -> list[dict[str, np.ndarray]]:
    """Every iteration of a Polygraphy JSON file with its arrays decoded."""
    return [{name: decode_array(path, name, data, element_limit) for name, data in iteration.items()}
            for iteration in read_iterations(path)]


MAX_JSON_BYTES = 2**30
"""Largest Polygraphy JSON file read (1 GiB, checked before reading): base64 text costs 4/3 of the data and the
parsed document several times its size; larger data belongs in an .npz."""

_JSON_START = lazy_pattern(rb"\A(?:\xef\xbb\xbf)?[ \t\r\n]*[\[{][ \t\r\n]*[\[{\"\]}]")
"""How every Polygraphy JSON file starts: a list or object, then a list, object, key or its end."""


def _load(path: str) -> Any:
    npz.require_file(path, "file")
    with npz.reading(path, "JSON"):
        with io.BufferedReader(SizedReader.open(path)) as stream:
            size = stream.raw.size
            if _JSON_START.match(stream.peek(64)[:64]) is None:
                raise _bad(path, "it does not start as one does (a JSON list or object of named arrays)")
            if size > MAX_JSON_BYTES:
                raise _bad(path, f"it is {size} bytes; irgraph reads Polygraphy JSON files of at most "
                                 f"{MAX_JSON_BYTES} bytes (save larger data as .npz)")
            text = stream.read(size)
        try:
            return json.loads(text, object_pairs_hook=_unique_keys)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ValueError(f"not JSON: {err}") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (json keeps the last of two silently: a feed would vanish)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return found


def _npy_bytes(path: str, name: object, value: object) -> bytes:
    """The .npy bytes of one encoded array (unwrapping Polygraphy's LazyArray)."""
    if isinstance(value, dict) and value.get(TYPE_MARKER) in _LAZY and "values" in value:
        value = value["values"]
    if not (isinstance(value, dict) and value.get(TYPE_MARKER, "ndarray") == "ndarray" and "array" in value
            and isinstance(value["array"], str)):
        raise _bad(path, f"{name!r} is not an encoded array ({{\"array\": BASE64, \"{TYPE_MARKER}\": \"ndarray\"}})")
    try:
        return base64.b64decode(value["array"].encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise _bad(path, f"array {name!r} is not valid base64") from None


def _bad(path: str, reason: str) -> IrIOError:
    return IrIOError(f"cannot read the Polygraphy JSON file: {reason}", Location(file=path))


# ------------------------------------------------------------------------------------ writing
def _encode(array: np.ndarray) -> dict[str, str]:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, npz.to_stored(np.asarray(array)), allow_pickle=False)
    return {"array": base64.b64encode(buffer.getvalue()).decode("ascii"), TYPE_MARKER: "ndarray"}


def _write(path: str, document: object) -> None:
    def write(stream: IO[bytes]) -> None:
        stream.write(json.dumps(document, indent=4).encode("utf-8"))

    atomic.replace_files([(path, write)])


def write_inputs(path: str, iterations: Sequence[Mapping[str, np.ndarray]]) -> None:
    """Write feeds as ``polygraphy run --save-inputs`` does (a list of iterations), atomically."""
    _write(path, [{name: _encode(array) for name, array in feeds.items()} for feeds in iterations])


def write_outputs(path: str, outputs: Mapping[str, np.ndarray], runtime: float | None = None,
                  runner_name: str = RUNNER_NAME) -> None:
    """Write one iteration's outputs as ``polygraphy run --save-outputs`` does (RunResults), atomically."""
    iteration = {
        "outputs": {name: {"values": _encode(array), TYPE_MARKER: "LazyArray"} for name, array in outputs.items()},
        "runtime": runtime, "runner_name": runner_name, TYPE_MARKER: "IterationResult",
    }
    _write(path, {"lst": [[runner_name, [iteration]]], TYPE_MARKER: "RunResults"})
