"""Malformed files: empty, truncated, not UTF-8, wrong root, missing <layers> or <edges>, binary garbage,
numbers too long for int64, a directory, a missing path, special files."""

from __future__ import annotations

import os

import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run, ir_validate
from irgraph.core.errors import IrIOError, IrParseError, OpError
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, EXIT_USAGE, expect_cli_error, expect_error, split_model

BASE, BASE_BIN = split_model()
NINES = "9" * 5000  # more digits than Python's int() accepts by default


def _cut(text: str, needle: str) -> bytes:
    return text.encode()[: text.index(needle)]


# (content, error class, message, the text whose line is named, or None for no line)
MALFORMED = {
    "empty": (b"", IrParseError, "the file is empty", None),
    "only-whitespace": (b" \n\t\n", IrParseError, "the file is empty", None),
    "truncated-in-a-tag": (_cut(BASE, 'precision="I64"'), IrParseError, "not well-formed XML", 'precision="I64"'),
    "truncated-after-layers": (_cut(BASE, "\t<edges>"), IrParseError, "not well-formed XML", None),
    "truncated-in-declaration": (b'<?xml version="1.0', IrParseError, "not well-formed XML", None),
    "latin-1-bytes": (BASE.replace('name="hostile"', 'name="caf\xe9"').encode("latin-1"), IrParseError,
                      "the file is not valid UTF-8", '<net name'),
    "utf-16-with-bom": (BASE.encode("utf-16"), IrParseError, "the file is not UTF-8 (it looks like UTF-16", None),
    "utf-16-without-bom": (BASE.encode("utf-16-le"), IrParseError, "the file is not UTF-8", None),
    "utf-32": (BASE.encode("utf-32"), IrParseError, "the file is not UTF-8", None),
    "declared-latin-1": (BASE.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
                         .encode(), IrParseError, "the XML declaration says encoding 'ISO-8859-1'", None),
    "invalid-utf-8-in-a-dim": (BASE.encode().replace(b"<dim>6</dim>", b"<dim>6\xc3</dim>", 1), IrParseError,
                               "the file is not valid UTF-8", "<dim>6</dim>"),
    "utf-8-surrogate": (BASE.encode().replace(b"hostile", b"\xed\xa0\x80"), IrParseError,
                        "the file is not valid UTF-8", "<net name"),
    "nul-byte": (BASE.encode().replace(b"hostile", b"host\x00ile"), IrParseError, "not well-formed XML",
                 "<net name"),
    "wrong-root": (BASE.replace("<net ", "<model ").replace("</net>", "</model>").encode(), IrParseError,
                   "the root element is <model>; an IR file has <net> at its root", "<net name"),
    "namespaced-root": (BASE.replace("<net ", '<net xmlns="urn:x" ').encode(), IrParseError,
                        "the root element is <{urn:x}net>", "<net name"),
    "missing-layers": (BASE.replace("<layers>", "<stages>").replace("</layers>", "</stages>").encode(),
                       IrParseError, "<net> has no <layers> section", "<net name"),
    "missing-edges": (BASE.replace("\t<edges>", "\t<links>").replace("</edges>", "</links>").encode(),
                      IrParseError, "<net> has no <edges> section", "<net name"),
    "missing-version": (BASE.replace(' version="11"', "", 1).encode(), IrParseError,
                        "<net> has no 'version' attribute", "<net name"),
    "unsupported-version": (BASE.replace('version="11"', 'version="7"', 1).encode(), IrParseError,
                            "IR version '7' is not supported", "<net name"),
    "two-roots": ((BASE + BASE.split("\n", 1)[1]).encode(), IrParseError, "Extra content at the end", None),
    "binary-garbage": (bytes(range(256)) * 64, IrParseError, "not well-formed XML", None),
    "nul-bytes": (b"\x00" * 4096, IrParseError, "not well-formed XML", None),
    "zip-archive": (b"PK\x03\x04" + os.urandom(512), IrParseError, "not well-formed XML", None),
    "gzip-file": (b"\x1f\x8b\x08\x00" + bytes(512), IrParseError, "not well-formed XML", None),
    "plain-text": (b"this is not a model\n", IrParseError, "not well-formed XML", None),
    "layer-id-beyond-int64": (BASE.replace('<layer id="2"', f'<layer id="{NINES}"').encode(), IrParseError,
                              "layer 'id' must be at most 9223372036854775807", '<layer id="2"'),
    "dim-beyond-int64": (BASE.replace("<dim>6</dim>", f"<dim>{NINES}</dim>", 1).encode(), IrParseError,
                         "port <dim> must be at most 9223372036854775807", "<dim>6</dim>"),
    "edge-beyond-int64": (BASE.replace('to-port="1"', f'to-port="{NINES}"').encode(), IrParseError,
                          "'to-port' must be at most 9223372036854775807", 'to-port="1"'),
    "attribute-beyond-int64": (BASE.replace('num_splits="2"', f'num_splits="{NINES}"').encode(), OpError,
                               "attribute 'num_splits' must be an integer in the int64 range", '<layer id="2"'),
    "version-of-5000-digits": (BASE.replace('version="11"', f'version="{NINES}"', 1).encode(), IrParseError,
                               "characters omitted", "<net name"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_files_are_refused_with_a_located_one_line_error(case, write_ir, capsys):
    content, kind, message, at = MALFORMED[case]
    files = write_ir(content, BASE_BIN)
    line = line_of(BASE, at) if at else None
    err = expect_error(lambda: ir.read_model(files.xml), kind, message, file=files.xml, line=line)
    assert len(str(err)) < 2500  # a 5000-digit value is not echoed in full
    destination = files.directory / "copy.xml"
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_convert.main, [files.xml, destination], capsys, EXIT_FAILURE, message)
    assert not destination.exists()


def test_ir_validate_reports_a_malformed_file_as_one_located_diagnostic(write_ir, capsys):
    files = write_ir(_cut(BASE, 'precision="I64"'), BASE_BIN)
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, "not well-formed XML")
    line = line_of(BASE, 'precision="I64"')
    assert f"{files.xml}:{line}: error: [parse] not well-formed XML" in outcome.out


def _special(tmp_path, kind):
    path = tmp_path / "model.xml"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink-loop":
        path.symlink_to(path)
    elif kind == "dangling-symlink":
        path.symlink_to(tmp_path / "gone.xml")
    return path


@pytest.mark.parametrize(
    ("kind", "library_message", "cli_message"),
    [
        ("missing", "cannot read the file: No such file or directory", "no such model file"),
        ("directory", "is a directory, not an IR .xml file", "not a regular file"),
        ("fifo", "is not a regular file", "not a regular file"),
        ("symlink-loop", "Too many levels of symbolic links", "model.xml"),
        ("dangling-symlink", "No such file or directory", "no such model file"),
    ],
)
def test_paths_that_are_not_readable_files_are_io_errors(kind, library_message, cli_message, tmp_path, capsys):
    path = _special(tmp_path, kind)
    err = expect_error(lambda: ir.read_model(path), IrIOError, library_message, file=path)
    assert isinstance(err, OSError) and str(path) in str(err) and str(err).count(str(path)) == 1
    destination = tmp_path / "copy.xml"
    expect_cli_error(ir_run.main, [path], capsys, EXIT_USAGE, cli_message)
    expect_cli_error(ir_validate.main, [path], capsys, EXIT_USAGE, cli_message)
    expect_cli_error(ir_convert.main, [path, destination], capsys, EXIT_USAGE, cli_message)
    assert not destination.exists()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_devices_are_refused_without_being_read(device, capsys):
    expect_error(lambda: ir.read_model(device), IrIOError, "is not a regular file", file=device)
    expect_cli_error(ir_run.main, [device], capsys, EXIT_USAGE, "not a regular file")
    expect_cli_error(ir_validate.main, [device], capsys, EXIT_USAGE, "not a regular file")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files without permission")
def test_an_unreadable_file_is_an_io_error(write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    files.xml.chmod(0)
    try:
        expect_error(lambda: ir.read_model(files.xml), IrIOError, "Permission denied", file=files.xml)
        expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_USAGE, "Permission denied")
        expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_USAGE, "Permission denied")
    finally:
        files.xml.chmod(0o644)
