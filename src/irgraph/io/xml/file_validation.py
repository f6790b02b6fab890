"""validate_file: the XSD structural pass, then reading, then :func:`irgraph.validate` and the reader's findings."""

from __future__ import annotations

import os
from functools import cache
from importlib import resources

from lxml import etree

from irgraph.analysis.validation import validate
from irgraph.core.diagnostics import Diagnostic, Severity
from irgraph.core.errors import (
    GraphError,
    IrError,
    IrIOError,
    IrParseError,
    Location,
    OpError,
    ResourceLimitError,
    ShapeInferenceError,
    WeightsError,
    printable,
)
from irgraph.core.shapes import TensorType
from irgraph.graph import Model
from irgraph.io.xml import security
from irgraph.io.xml.layers import non_negative
from irgraph.io.xml.reader import SUPPORTED_VERSIONS, ReadResult, read_ir
from irgraph.io.xml.security import XmlDocument, load_xml

__all__ = ["schema_for", "validate_file"]

_CODES: tuple[tuple[type[IrError], str], ...] = (
    (IrIOError, "io"),
    (WeightsError, "weights"),
    (IrParseError, "parse"),
    (GraphError, "graph"),
    (OpError, "op"),
    (ShapeInferenceError, "op"),
    (ResourceLimitError, "resource-limit"),
)


def validate_file(
    path: str | os.PathLike[str], weights: str | os.PathLike[str] | None = None
) -> list[Diagnostic]:
    """Every problem of an IR file: schema errors (with lines), a reader error, or graph/op findings.

    Order: the XSD pass (schema chosen by ``<net version>``; its errors have code ``schema``), then
    reading (a reader error becomes one error diagnostic with its location, and stops there), then
    :func:`irgraph.validate` plus what the reader tolerated (unknown elements, oversized Const
    ``size``, v10-ignored rt_info, input ports whose declared type contradicts inference). The file
    is read before the XSD pass runs: a file past one of the reader's bounds gets that one error and
    no XSD pass, which can cost far more (2.7 million rt_info schema errors: 58 s and 2.4 GiB in libxml2).
    """
    name = os.fspath(path)
    try:
        document = load_xml(name, parse=False)
    except IrError as err:
        return [_from_error(err, name)]
    try:
        outcome: ReadResult | IrError = read_ir(name, weights, document=document)
    except IrError as err:
        outcome = err
    if isinstance(outcome, ResourceLimitError):
        return [_from_error(outcome, name)]
    try:
        if security.parse_size(document.data)[2] > security.MAX_PARSE_BYTES:
            # The schema needs an lxml tree; the reader reads such a file without one if it can.
            limit = security.MAX_PARSE_BYTES >> 20
            found = [Diagnostic("schema", Severity.WARNING, f"the file is too large for an XML tree within irgraph's "
                                f"{limit} MiB parse limit: the schema pass is skipped", Location(file=name))]
        else:
            found = _schema_pass(document)
    except IrError as err:
        if "Excessive depth" not in err.message:
            return [_from_error(err, name)]
        # The reader parses bodies nested past libxml2's depth limit one by one; the schema needs one tree.
        found = [Diagnostic("schema", Severity.WARNING, "sub-graph bodies nest deeper than one XML parse allows "
                            "(256 elements): the schema pass is skipped", Location(file=name))]
    if isinstance(outcome, IrError):
        found.append(_from_error(outcome, name))
        return found
    found.extend(validate(outcome.model))
    found.extend(outcome.findings)
    found.extend(_declared_inputs(outcome.model))
    return found


def schema_for(version: int) -> etree.XMLSchema:
    """The structural schema of IR ``version`` (10 or 11), shipped as irgraph/schemas/ir-v{N}.xsd."""
    return _load_schema(version)


@cache
def _load_schema(version: int) -> etree.XMLSchema:
    text = resources.files("irgraph").joinpath("schemas").joinpath(f"ir-v{version}.xsd").read_bytes()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.XMLSchema(etree.fromstring(text, parser))


def _schema_pass(document: XmlDocument) -> list[Diagnostic]:
    root = document.root  # parse errors (an IrParseError is a ValueError too) go to the caller
    try:
        version = non_negative(root.get("version") or "")
    except ValueError:
        return []  # the reader reports a wrong version with a clearer message
    if document.root.tag != "net" or version not in SUPPORTED_VERSIONS:
        return []  # the reader reports a wrong root or version with a clearer message
    schema = schema_for(version)
    if schema.validate(document.root.getroottree()):
        return []
    found = []
    for entry in schema.error_log:
        line = entry.line if entry.line > 0 else None
        if line is not None and entry.path:
            # libxml2 caps line numbers at 65535; the node's path finds the exact one.
            matches = document.root.getroottree().xpath(entry.path)
            if matches and isinstance(matches[0], etree._Element):
                line = document.line(matches[0]) or line
        message = printable(entry.message)  # libxml2 quotes the offending value, newlines included
        found.append(Diagnostic("schema", Severity.ERROR, message, Location(file=document.path, line=line)))
    return found


def _from_error(err: IrError, name: str) -> Diagnostic:
    code = next((code for kind, code in _CODES if isinstance(err, kind)), "error")
    location = err.location.with_file(name)
    if location.line is None:  # a problem of the whole file (empty, unreadable, no <net>): its first line
        location = location.replace(line=1)
    return Diagnostic(code, Severity.ERROR, err.message, location)


def _declared_inputs(model: Model) -> list[Diagnostic]:
    """Input ports whose declared precision or dims contradict the producer's inferred type.

    Reported only when they also differ from what the producer declares, so one wrong output port
    (already reported by :func:`irgraph.validate`) does not produce a second warning per consumer.
    """
    found = []
    for node in model:
        for index, source in enumerate(model.input_sources(node)):
            declared = node.inputs[index].declared_type
            if source is None or declared is None:
                continue
            produced = model.node(source.node_id).outputs[source.index]
            inferred = produced.type
            if inferred is None or declared == produced.declared_type:
                continue
            if not declared.element_type.is_dynamic and declared.element_type != inferred.element_type:
                found.append(Diagnostic(
                    "declared-type", Severity.WARNING,
                    f"input {index} declares precision {declared.element_type.precision} but receives "
                    f"{inferred.element_type}", node.location,
                ))
            if _contradicts(declared, inferred):
                found.append(Diagnostic(
                    "declared-shape", Severity.WARNING,
                    f"input {index} declares dims {declared.shape} but receives {inferred.shape}", node.location,
                ))
    return found


def _contradicts(declared: TensorType, inferred: TensorType) -> bool:
    if declared.shape.rank_is_dynamic or inferred.shape.rank_is_dynamic:
        return False
    if declared.shape.rank != inferred.shape.rank:
        return True
    return any(d.is_static and i.is_static and d != i for d, i in zip(declared.shape, inferred.shape, strict=True))
