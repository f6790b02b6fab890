"""IrError: one printable line, its location filled from outside, and a copy that crosses a process boundary."""

from __future__ import annotations

import pickle

import pytest

from irgraph.core import errors
from irgraph.core.errors import Location


@pytest.mark.parametrize("kind", [errors.IrError, errors.IrParseError, errors.GraphError, errors.OpError,
                                  errors.ShapeInferenceError, errors.EvaluationError, errors.WeightsError])
def test_an_error_pickles_with_its_printable_message_and_location(kind: type[errors.IrError]) -> None:
    """multiprocessing and concurrent.futures hand errors over pickled: the message is the exception's argument."""
    error = kind("bad \x1b[31m thing", Location(file="m.xml", line=3))
    assert error.args == ("bad \\x1b[31m thing",)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is kind and str(copy) == "m.xml:3: bad \\x1b[31m thing"


def test_locate_fills_only_the_missing_parts() -> None:
    error = errors.OpError("wrong", Location(line=7, layer_id=2))
    error.locate(Location(file="net.xml", line=99, layer_id=5, layer_name="conv", layer_type="Convolution"))
    assert str(error) == "net.xml:7: layer 2 'conv' (Convolution): wrong"
    assert str(errors.OpError("alone")) == "alone"
