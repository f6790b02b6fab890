"""Shared pieces of the command-line tools: parser set-up, error reporting, exit codes, safe I/O.

Every tool's ``main(argv)`` returns an exit code and never raises: 0 success; 1 invalid model,
failed run or comparison mismatch; 2 usage or I/O error; 128 + the signal when interrupted (130
SIGINT, 129 SIGHUP, 143 SIGTERM), with its temporary files removed. Errors are printed as one line
``error: FILE:LINE: message`` on stderr; ``--debug`` adds the traceback.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

import irgraph
from irgraph.core.errors import IrError, IrIOError, Location, MissingDependencyError, printable
from irgraph.core.lazy import lazy_module
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node
from irgraph.io.data import npz
from irgraph.io.data.npz import Expect, NpzArchive

if TYPE_CHECKING:
    import argparse
    import signal as _signal

    from irgraph.io import atomic
else:
    atomic = lazy_module("irgraph.io.atomic")  # a command that writes a file (a plain ir-run writes none)
    # The signal module wraps _signal's functions to hand back enums: building its three enum classes was 0.4 ms
    # of every start-up, and the handlers below need only the numbers (_signal.signal takes back what it returns).
    import _signal

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130



_STOPPING_SIGNAL_NAMES: dict[int, str] = {
    getattr(_signal, name): name for name in ("SIGTERM", "SIGHUP") if hasattr(_signal, name)}
_STOPPING_SIGNALS = tuple(_STOPPING_SIGNAL_NAMES)
"""Signals that end a command as Ctrl-C does (``timeout`` sends SIGTERM, a closed terminal SIGHUP)."""


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, so every ``finally`` and cleanup runs as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(_STOPPING_SIGNAL_NAMES[signum])
        self.signum = signum


class CliError(Exception):
    """A problem the tool reports as one ``error:`` line with an exit code (2 unless told)."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    import argparse  # only a parser calls this, and argparse has then been imported

    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a finite float >= 0."""
    import argparse  # only a parser calls this, and argparse has then been imported

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text}")
    return value


# ------------------------------------------------------------------------------------ running
def run_cli(parser: argparse.ArgumentParser, body: Callable[[argparse.Namespace], int], argv: list[str] | None) -> int:
    """Parse ``argv``, run ``body(args)`` and turn every failure into one ``error:`` line and a code."""
    return run_parsed(lambda: parser.parse_args(argv), body)


def run_parsed(parse: Callable[[], argparse.Namespace], body: Callable[[argparse.Namespace], int]) -> int:
    """:func:`run_cli` with the arguments from ``parse()`` (which may exit as argparse does)."""
    try:
        args = parse()
    except SystemExit as stop:  # --help, --version, usage errors
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    try:
        with _stopped_by_signals():
            return _run(body, args, debug)
    except Stopped as stop:  # between the body's end and the handlers' restore: nothing left to clean up
        return _stopped(stop)


def _run(body: Callable[[argparse.Namespace], int], args: argparse.Namespace, debug: bool) -> int:
    try:
        return body(args)
    except BrokenPipeError:  # stdout closed early (`ir-info --dot model.xml | head`): stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE
    except CliError as err:
        return report(str(err), err.exit_code, debug)
    except MissingDependencyError as err:  # the environment, like a usage error: onnx, openvino, onnxruntime
        return report(str(err), EXIT_USAGE, debug)
    except IrError as err:
        return report(str(err), EXIT_USAGE if isinstance(err, OSError) else EXIT_FAILURE, debug)
    except OSError as err:
        return report(describe_os_error(err), EXIT_USAGE, debug)
    except MemoryError:
        if debug:
            import traceback  # here: only --debug pays for it
            traceback.print_exc(file=sys.stderr)
        # Reported below, outside the handler, whose traceback holds the frames (and data) that filled the memory.
    except KeyboardInterrupt as stop:
        if isinstance(stop, Stopped):
            return _stopped(stop)
        sys.stderr.write("error: interrupted\n")
        return EXIT_INTERRUPTED
    except RecursionError:
        return report("internal error: the model is nested too deeply to process", EXIT_FAILURE, debug)
    except Exception as err:  # noqa: BLE001 - the one place that turns any bug into a clean exit
        return report(f"internal error: {type(err).__name__}: {err}", EXIT_FAILURE, debug)
    # Worded so that nothing reads like a crash: the run was refused, not killed.
    return report("the data does not fit in the memory available to this process (see --max-elements)", EXIT_FAILURE)


def _stopped(stop: Stopped) -> int:
    sys.stderr.write(f"error: stopped by {stop}\n")
    return 128 + stop.signum


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise :class:`Stopped` and SIGINT KeyboardInterrupt (the previous
    handlers come back after).

    The default action of the first two kills the process where it stands, leaving the temporary file
    of an output being written. The first one raises; any later one is ignored, so the cleanup it
    starts finishes. Inside ``atomic.signals_held`` any of them waits for the block's end. Outside the
    main thread (a tool called from a thread) handlers cannot be set and nothing changes.
    """
    def stop(signum: int, frame: object) -> None:
        # Between making a temporary file and listing it, the signal is raised after. Nothing is written before
        # irgraph.io.atomic is imported, and a signal handler does not import it.
        writing = sys.modules.get("irgraph.io.atomic")
        if writing is not None and writing.signal_deferred(signum):
            return
        if signum == _signal.SIGINT:
            raise KeyboardInterrupt
        for number in _STOPPING_SIGNALS:
            _signal.signal(number, _signal.SIG_IGN)
        raise Stopped(signum)

    previous = {}
    try:
        for number in (_signal.SIGINT, *_STOPPING_SIGNALS):
            previous[number] = _signal.signal(number, stop)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for number, handler in previous.items():
            _signal.signal(number, handler)


def report(message: str, code: int, debug: bool = False) -> int:
    """Print ``error: message`` (one line; with ``debug`` the current traceback first); return ``code``."""
    if debug and sys.exc_info()[0] is not None:
        import traceback  # here: only --debug pays for it
        traceback.print_exc(file=sys.stderr)
    sys.stderr.write(f"error: {one_line(message)}\n")
    return code


def warn(message: str) -> None:
    """Print ``warning: message`` on stderr."""
    sys.stderr.write(f"warning: {one_line(message)}\n")


def note(message: str) -> None:
    """Print ``note: message`` on stderr: a choice irgraph made that the user should know of."""
    sys.stderr.write(f"note: {one_line(message)}\n")


def one_line(text: str) -> str:
    """``text`` on one line and safe for a terminal: :func:`irgraph.core.errors.printable`, spaces trimmed.

    Newlines and tabs are escaped (``\\n``), not flattened: a path or name holding one is shown as it is.
    """
    return printable(str(text)).strip(" ")


def describe_os_error(err: OSError) -> str:
    """``FILE: reason`` for an OSError."""
    reason = err.strerror or str(err) or type(err).__name__
    if err.filename is not None:
        return f"{os.fsdecode(err.filename)}: {reason}"
    return reason


@contextlib.contextmanager
def locating(path: str) -> Iterator[None]:
    """Name ``path`` in any IrError that does not name a file yet."""
    try:
        yield
    except IrError as err:
        err.locate(Location(file=path))
        raise


def require_file(path: str, what: str = "file") -> None:
    """Exit 2 unless ``path`` is an existing regular file."""
    if not os.path.exists(path):
        raise CliError(f"{path}: no such {what}")
    if not os.path.isfile(path):
        raise CliError(f"{path}: not a regular file")


def require_model_files(path: str, weights: str | None) -> None:
    """Exit 2 unless the model file (and the weights file, when given) are existing regular files, and the
    model is not an ONNX file (the tools that read IR say what to run instead of "not well-formed XML")."""
    require_file(path, "model file")
    refuse_onnx(path)
    if weights is not None:
        require_file(weights, "weights file")


ONNX_SUFFIX = ".onnx"


def looks_like_onnx(path: str) -> bool:
    """True for a ``.onnx`` file, or a file whose first bytes are an ONNX ModelProto's (protobuf field 1,
    ``ir_version``, a small varint) and no XML's (``<`` after an optional BOM and white space)."""
    try:
        with open(path, "rb") as file:
            head = file.read(64)
    except OSError:
        return False  # the reader reports it
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"<"):
        return False
    if path.lower().endswith(ONNX_SUFFIX):
        return True
    return len(head) >= 2 and head[0] == 0x08 and 0 < head[1] < 0x80


def refuse_onnx(path: str) -> None:
    """Exit 2 with what to run when ``path`` is an ONNX model where an IR ``.xml`` is expected."""
    if not looks_like_onnx(path):
        return
    stem = os.path.splitext(path)[0]
    source = path if path.lower().endswith(ONNX_SUFFIX) else f"{stem}.onnx"
    import shlex  # only for this message

    rename = "" if source == path else f"name it {shlex.quote(source)} and "
    raise CliError(f"{path}: this is an ONNX model, not OpenVINO IR (.xml); {rename}convert it first: "
                   f"ir-convert {shlex.quote(source)} {shlex.quote(stem + '.xml')}")


def read_model(path: str, weights: str | None = None, element_limit: int = DEFAULT_ELEMENT_LIMIT) -> Model:
    """``irgraph.read_model`` with exit-2 checks for missing files and the file named in every error."""
    require_model_files(path, weights)
    with locating(path):
        return irgraph.read_model(path, weights, element_limit=element_limit)


def weights_path(model_path: str, weights: str | None) -> str:
    """The .bin a model reads: ``weights`` when given, else the .xml's name with ``.bin``."""
    return weights if weights is not None else os.path.splitext(model_path)[0] + ".bin"


# ------------------------------------------------------------------------------------ models
def tensor_type_of_output(model: Model, result: Node) -> TensorType | None:
    """The type flowing into a Result: inferred when known, else what the file declared (also for the
    dims of a rank inference cannot know: without its .bin, a Reshape's target is unknown)."""
    declared = result.inputs[0].declared_type if result.inputs else None
    source = model.input_sources(result)[0] if result.num_inputs else None
    inferred = model.output_type(source) if source is not None else None
    if inferred is None or declared is None:
        return inferred or declared
    if inferred.shape.rank_is_dynamic:
        return TensorType(inferred.element_type, declared.shape)
    return inferred


# ------------------------------------------------------------------------------------ arrays
# The .npz helpers live in the library (irgraph.io.data.npz). Unreadable data files raise IrIOError there,
# which run_cli reports with exit 2 like any I/O error.


@contextlib.contextmanager
def data_file() -> Iterator[None]:
    """An unreadable data file (IrIOError from irgraph.io.data.npz) is a CliError, exit 2."""
    try:
        yield
    except IrIOError as err:
        raise CliError(str(err)) from None


def load_npy(path: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
    """One untrusted .npy file: header checked (and ``expect``-ed) before reading data, never unpickled. Exit 2."""
    with data_file():
        return npz.load_npy(path, element_limit, expect)


def open_npz(path: str, element_limit: int) -> NpzArchive:
    """An untrusted .npz with its member names checked (see NpzArchive); read members with ``load_member``."""
    with data_file():
        return npz.open_npz(path, element_limit)


def load_member(archive: NpzArchive, key: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
    """Member ``key`` of ``archive``: header checked (and ``expect``-ed) before it is inflated. Errors exit 2."""
    with data_file():
        return npz.load_member(archive, key, element_limit, expect)


def load_npz(path: str, element_limit: int) -> dict[str, np.ndarray]:
    """Every array of an untrusted .npz, by key (see irgraph.io.data.npz.load_npz); unreadable files exit 2."""
    with data_file():
        return npz.load_npz(path, element_limit)


def check_output(path: str, reads: Sequence[tuple[str, str]] = ()) -> None:
    """Exit 2, before anything is read or computed, when ``path`` cannot or must not be written.

    Its directory must exist; it must not be a directory, FIFO, socket or device node (nor a
    symlink to one); and it must not be any of the files this command reads: ``reads`` holds
    ``(path, role)`` pairs, role as in "the model file" (same entry, same resolved path or a hard link).
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CliError(f"{path}: directory {directory} does not exist")
    atomic.check_destination(path)
    atomic.check_not_read(path, reads)

