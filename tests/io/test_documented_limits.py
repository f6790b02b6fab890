"""The reader's limits the README states are the ones the code enforces (the README names the constants)."""

from __future__ import annotations

from pathlib import Path

from irgraph.io.xml import rt_info, security

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_states_the_layer_and_rt_info_limits_the_reader_enforces() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert f"the reader takes at most {security.MAX_LAYERS:,} layers" in text
    assert (f"and {rt_info.MAX_RT_INFO_ITEMS:,} rt_info elements and attributes in one `<rt_info>`, "
            f"{rt_info.MAX_RT_INFO_TOTAL:,} in a file") in text
