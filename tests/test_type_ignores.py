"""mypy checks every module of src/ (no ``ignore_errors`` override), and each ``# type: ignore`` left names
its error codes and says why on its own line: ``# type: ignore[code]  # why`` (issue 24 item 9)."""

from __future__ import annotations

import re

from tests.test_readme import REPO

_IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)$")


def _ignores() -> list[tuple[str, str]]:
    found = []
    for path in sorted((REPO / "src").rglob("*.py")):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if _IGNORE.search(line):
                found.append((f"{path.relative_to(REPO)}:{number}", line.strip()))
    return found


def test_no_module_is_exempt_from_mypy():
    assert "ignore_errors" not in (REPO / "pyproject.toml").read_text("utf-8")


def test_every_type_ignore_names_its_codes_and_says_why():
    unexplained = []
    for where, line in _ignores():
        match = _IGNORE.search(line)
        assert match is not None
        if match["codes"] is None or not re.match(r"\s*#\s*\S", match["rest"]):
            unexplained.append(f"{where}: {line}")
    assert not unexplained, "\n".join(unexplained)

