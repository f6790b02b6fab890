"""ir-info --dot (irgraph.tools.dot) on absurd requests: a --depth far past the model's size draws the model's
reach and stops, instead of counting on to its end."""

from __future__ import annotations

from collections.abc import Iterator

from irgraph.io.xml.reader import read_ir
from irgraph.tools import dot as dot_module
from tests.hostile.conftest import SAMPLES


def test_a_depth_of_a_billion_stops_once_every_reachable_layer_is_found(monkeypatch):
    # Before: 'ir-info --dot --around split --depth 100000000' ran an empty loop 10**8 times (killed after 60 s).
    model = read_ir(SAMPLES / "dml-split-axis2" / "model.xml").model
    rounds = [0]

    def counted(stop: int) -> Iterator[int]:
        for number in range(stop):  # the builtin: the module's name is the one replaced
            rounds[0] += 1
            assert rounds[0] <= len(model) + 1, "the neighbourhood kept counting past every layer"
            yield number

    monkeypatch.setattr(dot_module, "range", counted, raising=False)
    found = dot_module.neighbourhood(model, model.node(3), 10**9)
    assert found == {node.id for node in model}  # the whole model is within reach
