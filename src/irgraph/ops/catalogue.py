"""The op catalogue: every op type and version of OpenVINO's opsets 1-16, and what a layer's type is.

The data (``_catalogue_data.py``) is generated from OpenVINO's own opset tables by
``tests/oracle/make_catalogue.py``. A layer's ``type`` and ``version`` are one of:

- a **standard** op: ``version="opsetN"`` names an opset of the catalogue that contains the type
  (case-insensitively, as OpenVINO's reader matches types); it resolves to the version that opset
  holds (``MaxPool`` in ``opset9`` is MaxPool-8); OpenVINO's reader also takes MVN, ROIPooling and
  ReorgYolo in ``opset1`` and eight ops marked ``experimental`` or ``extension`` (:func:`reader_opset`);
- an **invalid** type: the named opset exists but does not contain the type (OpenVINO 2026.4.1
  refuses the model: "Opset opset1 doesn't contain the operation with type: FooBarOp");
- a **custom** op: any other ``version`` (``extension``, a private opset, an opset newer than the
  catalogue): OpenVINO reads it only with an extension loaded; irgraph keeps it as it is.
"""

from __future__ import annotations

import enum
import functools
import keyword
import re

from irgraph.core.records import Record
from irgraph.ops import _catalogue_data as _data

OPSETS: range = _data.OPSETS
"""The opsets the catalogue covers."""
OPENVINO_VERSION: str = _data.OPENVINO_VERSION
"""The OpenVINO release whose tables the catalogue was generated from."""

IR_SPELLING = {"Constant": "Const", "PRelu": "PReLU", "Relu": "ReLU", "Softmax": "SoftMax"}
"""Types OpenVINO's serializer writes under another name (its reader takes both; ``Const`` only exactly)."""

_MODULE_NAMES = {
    "Constant": "const", "Col2Im": "col2im", "IsNaN": "is_nan",
    "ExperimentalDetectronTopKROIs": "experimental_detectron_top_k_rois",
}
"""Constant's module is named after its IR spelling; the rule below splits three types badly."""


@functools.cache
def _word_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # Compiled on first use: compiling look-behinds costs milliseconds at import.
    return (re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"),
            re.compile(r"(?<=[A-Z0-9])to(?=[A-Z])"))


def module_name(type_name: str) -> str:
    """The op module's name for an IR type: snake case, ``to`` as a word between upper-case runs.

    ``MaxPool`` -> ``max_pool``, ``ReduceL2`` -> ``reduce_l2``, ``NV12toRGB`` -> ``nv12_to_rgb``,
    ``NMSRotated`` -> ``nms_rotated``, ``Const`` -> ``const``; three exceptions (``IsNaN`` -> ``is_nan``).
    """
    if type_name in _MODULE_NAMES:
        return _MODULE_NAMES[type_name]
    if _plain_words(type_name):  # the patterns' result, without compiling them (most types: every start-up's)
        name = "".join("_" + char if position and char.isupper() else char
                       for position, char in enumerate(type_name)).lower()
    else:
        word_start, to = _word_patterns()
        name = word_start.sub("_", to.sub("_to_", type_name)).replace("__", "_").lower()
    return name + "_" if keyword.iskeyword(name) else name  # If -> if_


def _plain_words(type_name: str) -> bool:
    """Whether ``type_name`` is ASCII letters and digits without "to" or two capitals in a row: the patterns of
    module_name then start a word at every capital but the first (each follows a lower-case letter or digit)."""
    pairs = zip(type_name[:-1], type_name[1:], strict=True)
    return (type_name.isascii() and type_name.isalnum() and "to" not in type_name
            and not any(first.isupper() and second.isupper() for first, second in pairs))


CONTROL_FLOW = frozenset({"If", "Loop", "TensorIterator"})
"""Types defined by sub-graph bodies: their modules are in CONTROL_FLOW_PACKAGE, which may see the graph."""
CONTROL_FLOW_PACKAGE = "irgraph.control_flow"

OPSET1_LATECOMERS = frozenset({"MVN", "ROIPooling", "ReorgYolo"})
"""Types OpenVINO's opset1 table lacks ("Missing in opset1") that its IR reader still takes with
``version="opset1"``, from opset2 (the type spelled exactly so)."""
EXPERIMENTAL_IN_OPSET6 = frozenset({
    "ExperimentalDetectronDetectionOutput", "ExperimentalDetectronGenerateProposalsSingleImage",
    "ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronROIFeatureExtractor",
    "ExperimentalDetectronTopKROIs", "GRUCell", "RNNCell", "Proposal",
})
"""Types OpenVINO's IR reader takes from opset6 when a layer says ``version="experimental"`` or
``"extension"`` (the type spelled exactly so), as IRs written before those ops joined an opset do."""


def reader_opset(type_name: str, version: str) -> str:
    """The opset OpenVINO's IR reader looks ``type_name`` up in for a layer's ``version``: the version
    itself, but for OPSET1_LATECOMERS and EXPERIMENTAL_IN_OPSET6 (OpenVINO 2026.4.1's ir_deserializer)."""
    if version == "opset1" and type_name in OPSET1_LATECOMERS:
        return "opset2"
    if version in ("experimental", "extension") and type_name in EXPERIMENTAL_IN_OPSET6:
        return "opset6"
    return version


def opset_number(version: str) -> int | None:
    """N for a ``version`` that names an opset exactly as OpenVINO spells it (``opset8``), else None.

    OpenVINO's reader compares the text as is: ``Opset8``, `` opset8`` and ``opset08`` name no opset.
    """
    digits = version[len("opset"):]
    if not version.startswith("opset") or not (digits.isascii() and digits.isdigit()) or digits[0] == "0":
        return None
    return int(digits)


def _spans(text: str) -> tuple[int, ...]:
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return tuple(numbers)


class OpVersion(Record):
    """One version of one op type: ``MaxPool`` ``opset8`` (MaxPool-8), in opsets 8 to 13."""

    __slots__ = ("type_name", "version", "category", "opsets")

    type_name: str
    """OpenVINO's type name (``Constant``; IR files spell it :attr:`ir_name`)."""
    version: str
    """OpenVINO's version id: the opset that introduced this version (``opset8``)."""
    category: str
    """The op spec folder (``pooling``): the package its module lives in."""
    opsets: tuple[int, ...]
    """The opsets containing this version."""

    def __init__(self, type_name: str, version: str, category: str, opsets: tuple[int, ...]) -> None:
        object.__setattr__(self, "type_name", type_name)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "opsets", opsets)

    @property
    def introduced(self) -> int:
        """The number of :attr:`version` (8 for ``opset8``)."""
        return int(self.version[len("opset"):])

    @property
    def ir_name(self) -> str:
        """The type as OpenVINO writes it in IR (``Const`` for ``Constant``)."""
        return IR_SPELLING.get(self.type_name, self.type_name)

    @property
    def title(self) -> str:
        """``MaxPool-8``."""
        return f"{self.ir_name}-{self.introduced}"

    @property
    def package(self) -> str:
        """The package of the type's module: ``irgraph.ops.pooling``, or ``irgraph.control_flow`` for the ops
        defined by sub-graph bodies, whose classes see the graph (ops never do)."""
        return CONTROL_FLOW_PACKAGE if self.type_name in CONTROL_FLOW else f"irgraph.ops.{self.category}"

    @property
    def module(self) -> str:
        """The module implementing the type's versions: ``irgraph.ops.pooling.max_pool``."""
        return f"{self.package}.{module_name(self.type_name)}"

    @property
    def modules(self) -> tuple[str, ...]:
        """:attr:`module`, then the module named after the IR spelling when it differs (``soft_max``)."""
        spelled = f"{self.package}.{module_name(self.ir_name)}"
        return (self.module,) if spelled == self.module else (self.module, spelled)


def _type_then_version(entry: OpVersion) -> tuple[str, int]:
    return entry.type_name, entry.introduced


@functools.cache
def all_versions() -> tuple[OpVersion, ...]:
    """Every catalogued op version, sorted by type and version (MaxPool-8 before MaxPool-14)."""
    entries = (entry for key in _rows_by_type() for entry in _of_type(key))
    return tuple(sorted(entries, key=_type_then_version))


@functools.cache
def _rows_by_type() -> dict[str, list[tuple[str, str, str, str]]]:
    found: dict[str, list[tuple[str, str, str, str]]] = {}
    for row in _data.OPS:
        found.setdefault(row[0].lower(), []).append(row)
    return found


_OF_TYPE: dict[str, tuple[OpVersion, ...]] = {}
"""The entries of each type looked up so far, by lower-case name: a run builds those of its model's few types,
not all ~240 (about 0.4 ms of every start-up)."""


def _of_type(key: str) -> tuple[OpVersion, ...]:
    found = _OF_TYPE.get(key)
    if found is None:
        rows = _rows_by_type().get(key)
        if rows is None:
            return ()  # not kept: a file's unknown type names would grow the table without bound
        entries = (OpVersion(t, v, c, _spans(o)) for t, v, c, o in rows)
        found = _OF_TYPE[key] = tuple(sorted(entries, key=_type_then_version))
    return found


def versions_of(type_name: str) -> tuple[OpVersion, ...]:
    """The catalogued versions of a type as an IR layer may spell it (any case; ``Const``), oldest first."""
    if type_name == "Const":
        type_name = "Constant"
    elif type_name.lower() == "const":
        return ()  # OpenVINO reads "Const" only in this exact spelling ("Constant" in any case)
    return _of_type(type_name.lower())


def find(type_name: str, version: str) -> OpVersion | None:
    """The op version an IR layer's ``type`` and ``version="opsetN"`` resolve to, as OpenVINO resolves them
    (with its reader's exceptions: :func:`reader_opset`)."""
    number = opset_number(reader_opset(type_name, version))
    if number is None:
        return None
    return next((entry for entry in versions_of(type_name) if number in entry.opsets), None)


def opset_contents(number: int) -> tuple[OpVersion, ...]:
    """The op versions opset ``number`` holds."""
    return tuple(entry for entry in all_versions() if number in entry.opsets)


class Kind(enum.Enum):
    """What a layer's type and version are, for irgraph and for OpenVINO."""

    STANDARD = "standard"
    """In the named opset: OpenVINO reads it (irgraph runs it when an op class is registered)."""
    INVALID = "invalid"
    """The named opset is catalogued and lacks the type: OpenVINO refuses the model."""
    CUSTOM = "custom"
    """A version outside the catalogued opsets: an extension's op; kept as it is."""


class Classification(Record):
    """A layer's type and version classified: its kind, the catalogued version it resolves to, why."""

    __slots__ = ("kind", "entry", "message")

    kind: Kind
    entry: OpVersion | None
    message: str

    def __init__(self, kind: Kind, entry: OpVersion | None = None, message: str = "") -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "entry", entry)
        object.__setattr__(self, "message", message)


@functools.lru_cache(maxsize=4096)
def classify(type_name: str, version: str) -> Classification:
    """Classify a layer's ``type``/``version``; ``message`` is OpenVINO's wording for an invalid type."""
    number = opset_number(reader_opset(type_name, version))
    if number is None or number not in OPSETS:
        if versions_of(type_name):
            # OpenVINO 2026.4.1 creates a type of its own opsets only from one of its opsets, and refuses
            # ``Parameter`` with version="wrongOpset" (an extension would have to claim the very type name)
            return Classification(
                Kind.INVALID, None,
                f"Cannot create {type_name} layer from unsupported opset: {version}" + _elsewhere(type_name),
            )
        return Classification(Kind.CUSTOM)
    entry = find(type_name, version)  # "Const" only in this exact spelling, as OpenVINO takes it
    if entry is None:
        return Classification(
            Kind.INVALID, None, f"Opset {version} doesn't contain the operation with type: {type_name}"
            + _elsewhere(type_name),
        )
    return Classification(Kind.STANDARD, entry)


def _elsewhere(type_name: str) -> str:
    known = versions_of(type_name)
    if not known:
        return " (no OpenVINO opset 1-16 has this type)"
    spans = ", ".join(f"{entry.title} in opsets {_span_text(entry.opsets)}" for entry in known)
    return f" ({spans})"


def _span_text(numbers: tuple[int, ...]) -> str:
    parts: list[list[int]] = []
    for number in numbers:
        if parts and parts[-1][1] == number - 1:
            parts[-1][1] = number
        else:
            parts.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


SINK_TYPES = frozenset({"assign"})
"""Types whose layers are sinks (OpenVINO's ``op::Sink``): graph roots like Results (lower case)."""
