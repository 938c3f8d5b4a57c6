"""A player's Sent folder kept where it is while `pbem verify --sent` reads it: each mail read again when asked.

`pbem verify --sent` held every mail of the folder for the whole check, several readings of each (the raw bytes, the
headers' reading, the mail read as a Sent copy): 0.64 KB a mail of 286 bytes, linear, and each mail's own size
again for a larger one (costs27's figure; costs28).  A folder of .eml files or a Maildir is now read once to check
each file (its size, its parts: `receipts.read_folder`) and kept as each file's name and the SHA-256 of what was
read; each stage that needs a mail reads it again, and a mail that is gone or changed since is named (`NoMail`),
never read as another.  An mbox file is read whole as before (its mails have no file of their own).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import overload


class Gone(Exception):
    """A mail of the folder is gone or changed since it was first read; one sentence."""


class Stored(Sequence[bytes]):
    """The mails of one folder, each as its file's name and the digest of what was read (`read`)."""

    def __init__(self, folder: Path, read: Callable[[Path], bytes]) -> None:
        self.folder, self._read = folder, read
        self.names: list[str] = []
        self.digests = bytearray()  # `DIGEST` bytes a mail, one after another

    def add(self, name: str, raw: bytes) -> None:
        self.names.append(name)
        self.digests += _digest(raw)

    def digest(self, i: int) -> bytes:
        return bytes(self.digests[DIGEST * i : DIGEST * (i + 1)])

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, i: int) -> bytes: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[bytes]: ...

    def __getitem__(self, i: int | slice) -> bytes | Sequence[bytes]:
        if isinstance(i, slice):
            return [self[k] for k in range(len(self))[i]]
        path = self.folder / self.names[i]
        try:
            raw = self._read(path)
        except Exception as exc:  # gone, unreadable, grown past the bound: the check cannot go on with it
            raise Gone(f"{path} cannot be read again: {exc}") from exc
        if _digest(raw) != self.digest(i):
            raise Gone(f"{path} changed while pbem verify read it: give a folder nothing writes to")
        return raw

    def __iter__(self) -> Iterator[bytes]:
        return (self[i] for i in range(len(self)))

    def later(self, i: int) -> Callable[[], bytes]:
        """The `i`th mail, read when called."""
        return _Later(self, i)


class _Later:
    """`Stored.later`: 56 bytes a mail (a `functools.partial` of the bound method took 256)."""

    __slots__ = ("box", "i")

    def __init__(self, box: Stored, i: int) -> None:
        self.box, self.i = box, i

    def __call__(self) -> bytes:
        return self.box[self.i]


def unique(folders: list[Stored]) -> Stored:
    """The mails of `folders` as one, a mail in two of them (the same bytes) once."""
    if len(folders) == 1:
        return folders[0]
    seen: set[bytes] = set()
    out = Stored(Path("/"), folders[0]._read if folders else lambda p: b"")
    for f in folders:
        for i, name in enumerate(f.names):
            if (digest := f.digest(i)) not in seen:
                seen.add(digest)
                out.names.append(str(f.folder / name))
                out.digests += digest
    return out


DIGEST = 16  # bytes of SHA-256 kept a mail: a mail changed since it was read is told from it


def _digest(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()[:DIGEST]
