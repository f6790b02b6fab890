"""Opening untrusted input files safely: regular files only, never read past the size they report.

DESIGN.md section 7: a path given as a model, ``.bin``, ``.npy``, ``.npz`` or ``.onnx`` may name (or
be a symlink to) a FIFO, a socket, a device such as ``/dev/zero``, or a procfs file such as
``/proc/self/environ``, which reports size 0 and yet has content. So a file is opened without
blocking (``O_NONBLOCK``: opening a FIFO never waits for a writer), the *opened* descriptor is
checked with ``fstat`` (checking the path first would race with a rename), and every read is
bounded by the size ``fstat`` reported: a procfs file reads as empty.
"""

from __future__ import annotations

import errno
import io
import os
import stat

__all__ = ["NotARegularFileError", "SizedReader", "open_regular", "read_range"]

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotARegularFileError(OSError):
    """The path names a directory, FIFO, socket or device: only regular files are read."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refusal(path: str, mode: int) -> OSError:
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, "Is a directory", path)
    return NotARegularFileError(errno.EINVAL, f"not a regular file (it is {_kind(mode)})", path)


def open_regular(path: str | os.PathLike[str]) -> tuple[int, int]:
    """Open ``path`` read-only; return ``(descriptor, size)``. The caller closes the descriptor.

    Raises an OSError: IsADirectoryError for a directory, NotARegularFileError (``strerror``
    "not a regular file (it is a FIFO)" and so on) for anything else that is not a regular file,
    or the error ``os.open`` gave.
    """
    name = os.fspath(path)
    try:
        descriptor = os.open(name, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP, errno.ENODEV):  # a socket, or a device without a driver
            try:
                mode = os.stat(name).st_mode
            except OSError:
                raise exc from None
            if not stat.S_ISREG(mode):
                raise _refusal(name, mode) from None
        raise
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise _refusal(name, info.st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, info.st_size


def read_range(descriptor: int, offset: int, size: int, path: str) -> bytearray:
    """Exactly ``size`` bytes at ``offset``, in a new buffer (callers keep ranges inside the reported size).

    A file that ends early (it shrank, or is a procfs/sysfs file reporting a size it does not
    have) raises an OSError naming ``path`` rather than returning short data.
    """
    buffer = bytearray(size)
    view = memoryview(buffer)
    done = 0
    while done < size:
        got = _pread_into(descriptor, view[done:], offset + done)
        if got == 0:
            raise OSError(errno.EIO, f"the file ended at byte {offset + done}, before the size it reports", path)
        done += got
    return buffer


def _pread_into(descriptor: int, view: memoryview, offset: int) -> int:
    preadv = getattr(os, "preadv", None)
    if preadv is not None:
        return preadv(descriptor, [view], offset)
    os.lseek(descriptor, offset, os.SEEK_SET)  # no positional reads (Windows): seek, then read
    data = os.read(descriptor, len(view))
    view[: len(data)] = data
    return len(data)


class SizedReader(io.RawIOBase):
    """A seekable read-only stream over ``[0, size)`` of a descriptor: nothing past ``size`` is ever read.

    It owns the descriptor (closed with the stream). Wrap it in ``io.BufferedReader`` for speed.
    """

    def __init__(self, descriptor: int, size: int, path: str) -> None:
        super().__init__()
        self._descriptor = descriptor
        self._size = size
        self._position = 0
        self.name = path

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SizedReader:
        """Open a regular file (see :func:`open_regular`)."""
        descriptor, size = open_regular(path)
        return cls(descriptor, size, os.fspath(path))

    @property
    def size(self) -> int:
        """The size ``fstat`` reported when the file was opened."""
        return self._size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._descriptor

    def readinto(self, buffer) -> int:
        if self.closed:  # as io's files say; a pread would read whatever file now holds the descriptor's number
            raise ValueError("I/O operation on closed file")
        view = memoryview(buffer).cast("B")
        count = min(len(view), self._size - self._position)
        if count <= 0:
            return 0
        got = _pread_into(self._descriptor, view[:count], self._position)
        self._position += got
        return got

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._position, os.SEEK_END: self._size}.get(whence)
        if base is None:
            raise ValueError(f"invalid whence {whence}")
        position = base + offset
        if position < 0:
            raise OSError(errno.EINVAL, "Invalid argument", self.name)
        self._position = position
        return position

    def tell(self) -> int:
        return self._position

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._descriptor)
            finally:
                super().close()
