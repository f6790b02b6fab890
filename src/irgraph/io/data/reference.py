"""A reference to compare a run with: an ``.npz`` whose members are read only when compared, or arrays read."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from irgraph.io.data.npz import NpzArchive, load_member

__all__ = ["Reference"]


class Reference(Mapping[str, np.ndarray]):
    """A reference .npz whose members are read only when compared (names known up front), or arrays read.

    A member that cannot be read raises IrIOError (from :func:`irgraph.io.data.npz.load_member`) when it is looked up.
    """

    def __init__(self, archive: NpzArchive | None, arrays: Mapping[str, np.ndarray] | None = None) -> None:
        self.archive = archive
        self.arrays = arrays
        members = arrays if arrays is not None else archive
        if members is None:
            raise ValueError("a Reference reads an archive or holds arrays: give one")
        self._members: Mapping[str, np.ndarray] = members  # iterated and counted; read through __getitem__

    def __getitem__(self, key: str) -> np.ndarray:
        if self.arrays is not None:
            return self.arrays[key]
        assert self.archive is not None
        if key not in self.archive:
            raise KeyError(key)
        return load_member(self.archive, key, self.archive.element_limit)

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def close(self) -> None:
        """Close the archive (if any)."""
        if self.archive is not None:
            self.archive.close()
