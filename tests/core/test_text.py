"""core.text: the one spelling of counted nouns in every message."""

from irgraph.core.text import counted, plural


def test_one_takes_the_singular_and_any_other_count_the_plural():
    assert [counted(n, "tensor") for n in (0, 1, 2)] == ["0 tensors", "1 tensor", "2 tensors"]
    assert plural(1, "layer") == "layer" and plural(3, "layer") == "layers"


def test_an_irregular_plural_is_given():
    assert [plural(n, "is", "are") for n in (0, 1, 2)] == ["are", "is", "are"]
    assert counted(2, "Const layer") + " " + plural(2, "has", "have") == "2 Const layers have"
