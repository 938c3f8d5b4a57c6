"""The mails a reply read by `pbem verify` may name (`pbem.app.reading.named_reader`, `rereading.named_extractor`).

Each is (its Message-ID, its To address, the mail): the mail's bytes, or, for a folder kept where it is
(`pbem.trust.stored.Stored`: `verify --sent`'s folders, costs28), what reads it again, called only when a reply
names that mail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from pbem.mail.inbound.replies import SentMail

Named = tuple[str, str, bytes | Callable[[], bytes]]


class Answered(Mapping[str, SentMail]):
    """Message-ID -> `SentMail`, each kept mail read again when asked for."""

    def __init__(self, named: Iterable[Named]) -> None:
        self._named = {mid: (to, raw) for mid, to, raw in named}

    def __getitem__(self, mid: str) -> SentMail:
        to, raw = self._named[mid]
        return SentMail(mid, 0, "", to, None, raw if isinstance(raw, bytes) else raw())

    def __contains__(self, mid: object) -> bool:
        return mid in self._named

    def __iter__(self) -> Iterator[str]:
        return iter(self._named)

    def __len__(self) -> int:
        return len(self._named)
