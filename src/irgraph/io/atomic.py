"""Writing output files safely: the one mechanism every writer (write_model, export_onnx, the CLI) uses.

A destination is checked before anything is written: a directory, FIFO, socket or device node is
never replaced (``check_destination``), and the command-line tools also refuse a destination that
is a file the same command reads (``check_not_read``). Files are then written to temporary files
beside their destinations, flushed and fsynced, renamed into place in the order given, and their
directories fsynced, so a reader sees each file either whole and old or whole and new
(``replace_files``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import BinaryIO

from irgraph.core.errors import IrError, IrIOError, Location

__all__ = ["check_destination", "check_not_read", "output_mode", "replace_files", "same_file", "signal_deferred",
           "signals_held"]

Writer = Callable[[BinaryIO], object]
"""Writes one file's whole content to the open (temporary) file it is given."""

_SPECIAL_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _special_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)"...); None for a regular file or a symbolic link."""
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), None)


def check_destination(path: str | os.PathLike[str]) -> None:
    """Raise IrIOError when ``path`` is something an output must never replace.

    A directory, FIFO, socket or device node is refused, and so is a symbolic link to one (whoever
    names ``/dev/stdout`` or a pipe means the thing, not a new file in place of the link). A
    regular file is replaced; so is a symbolic link to a regular file or to nothing: the link
    itself, never its target. A path that cannot be inspected is left to the write to report.
    """
    path = os.fspath(path)
    try:
        info = os.lstat(path)
    except OSError:
        return
    kind = _special_kind(info.st_mode)
    if kind is None and stat.S_ISLNK(info.st_mode):
        with contextlib.suppress(OSError):
            target_kind = _special_kind(os.stat(path).st_mode)
            if target_kind is not None:
                kind = f"a symbolic link to {target_kind}"
    if kind is not None:
        raise IrIOError(f"is {kind}, not a regular file; refusing to replace it", Location(file=path))


def check_not_read(destination: str | os.PathLike[str], reads: Iterable[tuple[str | os.PathLike[str], str]]) -> None:
    """Raise IrIOError when writing ``destination`` would replace a file the same command reads.

    ``reads`` holds ``(path, role)`` pairs, role as in "the model file" (see ``same_file``).
    """
    for path, role in reads:
        if same_file(destination, path):
            raise IrIOError(f"is {role} {os.fspath(path)}, which this command reads; refusing to overwrite it",
                            Location(file=os.fspath(destination)))


def same_file(destination: str | os.PathLike[str], read: str | os.PathLike[str]) -> bool:
    """True when renaming a new file onto ``destination`` would replace the file ``read`` names.

    That is the same directory entry, compared by resolved paths (whatever path reaches it: ``./a``,
    ``d/../a``, a symlinked directory; whether or not it exists yet), or, where both exist, the same
    inode: a hard link, or the file a read through a symlink reaches. A ``destination`` that is a
    symbolic link to ``read`` is not the same file: the link is replaced and the file it points to
    is never written.
    """
    destination, read = os.fspath(destination), os.fspath(read)
    if _entry(destination) == _entry(read):
        return True
    try:
        mine, theirs = os.lstat(destination), os.stat(read)
    except OSError:  # either one does not exist (yet): no inode to share
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


def _entry(path: str) -> str:
    """The directory entry a rename onto ``path`` replaces: its directory resolved, its own name kept."""
    directory, name = os.path.split(os.path.join(os.getcwd(), path))
    return os.path.join(os.path.realpath(directory), name)


def replace_files(files: Sequence[tuple[str, Writer]]) -> None:
    """Write every ``(destination, writer)`` to a temporary file beside it, then rename them into place.

    Every destination is checked first (``check_destination``). Each temporary file gets
    ``output_mode``, its content, a flush and an fsync; only when all are complete are they renamed
    over their destinations in the order given (a model's ``.bin`` before its ``.xml``, so a
    reader that sees the new ``.xml`` also finds the new ``.bin``), then each directory is fsynced so
    the renames survive a crash. On any failure the temporary files are removed and existing files
    are untouched. An OSError names the destination it concerns (never a temporary name); an
    IrError from a writer passes through unchanged.
    """
    for path, _ in files:
        check_destination(path)
    temporaries: list[tuple[str, str]] = []
    try:
        for path, write in files:
            with _naming(path):
                _write_temporary(path, write, temporaries)
        with signals_held():  # all renames or none: a model's new .bin never stands beside its old .xml
            for temporary, path in temporaries:
                with _naming(path):
                    os.replace(temporary, path)
    except BaseException:
        for temporary, _ in temporaries:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    for directory, path in {os.path.dirname(os.path.abspath(path)): path for path, _ in files}.items():
        with _naming(path):
            _sync_directory(directory)


_held = {"depth": 0, "pending": 0}
"""How deep inside :func:`signals_held` blocks the program is, and a signal that came meanwhile (0: none)."""


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Let a stopping signal wait until the block ends, then raise it again.

    The tools turn SIGINT, SIGTERM and SIGHUP into exceptions that remove temporary files; their
    handlers ask :func:`signal_deferred` first, so a signal cannot land between creating a
    temporary file and listing it for removal, nor between two renames. (A signal mask would not
    do: the kernel hands a process's signal to any thread that does not block it, BLAS's included.)
    """
    _held["depth"] += 1
    try:
        yield
    finally:
        _held["depth"] -= 1
        pending, _held["pending"] = _held["pending"], 0
        if pending and not _held["depth"]:
            import signal  # a signal came: rare enough not to import the module at every start-up

            signal.raise_signal(pending)  # its handler raises now, outside the block


def signal_deferred(signum: int) -> bool:
    """For a signal handler: True when ``signum`` came inside :func:`signals_held` (it is raised again after)."""
    if not _held["depth"]:
        return False
    _held["pending"] = _held["pending"] or signum
    return True


def _write_temporary(path: str, write: Writer, temporaries: list[tuple[str, str]]) -> None:
    """Add to ``temporaries`` a complete, fsynced temporary copy of ``path``'s new content, beside ``path``
    (listed as soon as it exists, so whoever catches a failure can remove it)."""
    directory, name = os.path.split(os.path.abspath(path))
    with signals_held():
        # A shortened prefix keeps the temporary name legal wherever the destination's name is (255 bytes).
        import tempfile  # here: it imports shutil and random, which a run writing nothing never needs

        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name[:60]}.", suffix=".tmp")
        temporaries.append((temporary, path))
        opened = os.fdopen(handle, "wb")  # owns the descriptor from here (closed even if a held signal raises)
    try:
        with opened as file:
            os.fchmod(file.fileno(), output_mode(path))  # mkstemp made it 0600
            write(file)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _sync_directory(directory: str) -> None:
    """fsync a directory so the renames in it are durable (a no-op where the filesystem cannot)."""
    try:
        handle = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF):
            raise
    finally:
        os.close(handle)


@contextlib.contextmanager
def _naming(path: str):  # noqa: ANN202 - a plain context manager
    """Report an OSError as one about ``path`` (the destination), not about a temporary file or no file."""
    try:
        yield
    except OSError as err:
        if isinstance(err, IrError):
            raise
        raise OSError(err.errno, err.strerror or str(err), path) from err


def output_mode(path: str) -> int:
    """The permissions a new ``path`` gets: those of the regular file it replaces, else 0o666 minus the umask.

    The rule the model writer always kept for ``.xml``/``.bin``, now for every output: rewriting a
    file keeps who may read it (a 0600 model stays private), and a new file gets what a plain
    ``open()`` would give it. setuid, setgid and sticky bits are never carried over to new content.
    """
    with contextlib.suppress(OSError):
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode):
            return stat.S_IMODE(info.st_mode) & 0o777
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where /proc allows (os.umask can only set it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
