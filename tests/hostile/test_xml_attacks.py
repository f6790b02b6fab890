"""XML attacks: DOCTYPE with external entities, entity expansion, XInclude, an external DTD, deep nesting,
huge attributes. Every one is refused with one located line; no local file and no network is ever read."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest
from lxml import etree

import irgraph as ir
from irgraph.cli import ir_convert, ir_run, ir_validate
from irgraph.core.errors import IrParseError
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, expect_cli_error, expect_error, good_inputs, split_model

SECRET = "TOP-SECRET-7c1e9a"


class _Trap:
    """A loopback HTTP server standing in for the network: it counts every request it gets."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        trap = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                trap.hits.append(self.path)
                body = f'<!ENTITY leak "{SECRET}">'.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


@pytest.fixture
def network() -> Iterator[_Trap]:
    trap = _Trap()
    yield trap
    trap.server.shutdown()
    trap.server.server_close()


def _attacks(secret_path: str, base: str) -> dict[str, tuple[str, str]]:
    """name -> (model text, the line the refusal must name as text to find)."""
    xml, _ = split_model()
    head = '<?xml version="1.0"?>\n'
    body = xml.removeprefix(head)
    return {
        "external-entity-in-attribute": (
            head + f'<!DOCTYPE net [<!ENTITY xxe SYSTEM "file://{secret_path}">]>\n'
            + body.replace('name="hostile"', 'name="&xxe;"'), "<!DOCTYPE"),
        "external-entity-in-dim": (
            head + f'<!DOCTYPE net [<!ENTITY xxe SYSTEM "{secret_path}">]>\n'
            + body.replace("<dim>6</dim>", "<dim>&xxe;</dim>", 1), "<!DOCTYPE"),
        "parameter-entity": (
            head + f'<!DOCTYPE net [<!ENTITY % remote SYSTEM "{base}/evil.dtd"> %remote;]>\n' + body, "<!DOCTYPE"),
        "entity-expansion": (
            head + "<!DOCTYPE net [<!ENTITY a \"aaaaaaaaaa\">"
            + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
            + "]>\n" + body.replace('name="hostile"', 'name="&i;"'), "<!DOCTYPE"),
        "external-dtd": (head + f'<!DOCTYPE net SYSTEM "{base}/model.dtd">\n' + body, "<!DOCTYPE"),
        "public-dtd": (
            head + f'<!DOCTYPE net PUBLIC "-//X//DTD IR//EN" "{base}/public.dtd">\n' + body, "<!DOCTYPE"),
        "entity-without-doctype": (body.replace("<layers>", '<layers><!ENTITY x "y">', 1), "<!ENTITY"),
        "xinclude-local-file": (
            xml.replace("\t<layers>", f'\t<layers xmlns:xi="http://www.w3.org/2001/XInclude">'
                        f'<xi:include href="{secret_path}" parse="text"/>', 1), "XInclude"),
        "xinclude-network": (
            xml.replace("\t<layers>", f'\t<layers xmlns:xi="http://www.w3.org/2003/XInclude">'
                        f'<xi:include href="{base}/layers.xml"/>', 1), "XInclude"),
    }


ATTACKS = list(_attacks("/secret", "http://x"))


@pytest.mark.parametrize("attack", ATTACKS)
def test_doctype_entities_dtds_and_xinclude_are_refused_without_reading_anything(
    attack, tmp_path, write_ir, network, capsys
):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    xml, marker = _attacks(str(secret), network.base)[attack]
    files = write_ir(xml, split_model()[1])
    refused = "XInclude" if marker == "XInclude" else "DOCTYPE or entity declaration"
    err = expect_error(lambda: ir.read_model(files.xml), IrParseError, refused, file=files.xml,
                       line=line_of(xml, marker))
    assert SECRET not in str(err)
    inputs = good_inputs(files.directory)
    output = files.directory / "out.npz"
    for main, argv in (
        (ir_run.main, [files.xml, "--inputs", inputs, "--output", output]),
        (ir_validate.main, [files.xml]),
        (ir_convert.main, [files.xml, files.directory / "copy.xml"]),
    ):
        outcome = expect_cli_error(main, argv, capsys, EXIT_FAILURE, refused)
        assert SECRET not in outcome.out + outcome.err
    assert not output.exists() and not (files.directory / "copy.xml").exists()
    time.sleep(0.05)  # a request in flight would have arrived by now
    assert network.hits == []


def test_ir_validate_names_the_line_of_the_doctype(tmp_path, write_ir, capsys):
    xml = split_model()[0].replace("<net ", '<!DOCTYPE net [<!ENTITY e "x">]>\n<net ', 1)
    files = write_ir(xml, split_model()[1])
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, "DOCTYPE")
    assert f"{files.xml}:2: error: [parse]" in outcome.out


# Every libxml2 refuses element 257. The message names the limit (256) in libxml2 2.12.3 (bundled by
# lxml 5.0.0) and 2.14.6 (lxml 6.1.3), but the depth reached (257) in 2.13.8 (lxml 5.4.0).
TOO_DEEP = f"Excessive depth in document: {257 if (2, 13) <= etree.LIBXML_VERSION < (2, 14) else 256}"


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("nesting-300", lambda x: x.replace("</net>", "<a>" * 300 + "</a>" * 300 + "</net>"), TOO_DEEP),
        ("nesting-100000", lambda x: x.replace("</net>", "<a>" * 100_000 + "</a>" * 100_000 + "</net>"), TOO_DEEP),
        ("huge-attribute", lambda x: x.replace('name="hostile"', 'name="' + "A" * 20_000_000 + '"'),
         "Buffer size limit exceeded"),
        ("huge-dim-text", lambda x: x.replace("<dim>6</dim>", "<dim>" + "6" * 12_000_000 + "</dim>", 1),
         "Text node too long"),
    ],
)
def test_deep_nesting_and_huge_values_hit_parser_limits(name, edit, message, write_ir, capsys):
    xml = edit(split_model()[0])
    files = write_ir(xml, split_model()[1])
    err = expect_error(lambda: ir.read_model(files.xml), IrParseError, "the XML exceeds a parser limit", file=files.xml)
    assert message in err.message and "XML_PARSE_HUGE" not in err.message
    assert err.location.line is not None
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, message)
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)


@pytest.mark.parametrize("where", ["data", "rt_info"])
def test_an_element_with_a_huge_number_of_attributes_is_refused_quickly(where, write_ir, capsys):
    """lxml reads n attribute values in O(n^2) time: 200,000 of them once took 10 minutes."""
    many = " ".join(f'a{i}="1"' for i in range(200_000))
    xml, weights = split_model()
    if where == "data":
        xml = xml.replace('<data num_splits="2"', f'<data num_splits="2" {many}', 1)
        line, tag = line_of(xml, '<layer id="2"'), "<data>"
    else:
        xml = xml.replace("</net>", f"\t<rt_info>\n\t\t<x {many} />\n\t</rt_info>\n</net>")
        line, tag = None, "<x>"
    files = write_ir(xml, weights)
    started = time.monotonic()
    expect_error(lambda: ir.read_model(files.xml), IrParseError, f"{tag} has 20000", file=files.xml, line=line)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, "irgraph reads at most 1000 per element")
    assert time.monotonic() - started < 60  # generous: it takes well under a second
