"""Filing what the IMAP inbox recorded: MOVE, or COPY and take out; what the server keeps, remembered.

`Filing` is the part of `pbem.mail.transports.imap.ImapInbox` that files messages once the poll has
recorded them (see that module's docstring for when).  Where the server has MOVE, one MOVE per folder.
Otherwise COPY, STORE ``\\Deleted`` and (UID) EXPUNGE, and a message is copied at most once: a server may
take the COPY and refuse the rest.  A refused STORE leaves the copied message in the inbox unflagged; a
refused (or idle) EXPUNGE leaves it flagged ``\\Deleted``.  The flag is its own mark (`fetch` searches
NOT DELETED); the unflagged ones are kept in the poll's `Ledger` (the record, `remember_in`) as
"UIDVALIDITY;UID set", and `fetch` leaves them out too: neither is fetched or copied again.  Once a run
(`tidy`, not in a dry run) one STORE for the unflagged and one EXPUNGE if anything flagged is left
try again to take them out; `left` says what stays, for the moderator (`pbem.app.filing`).

A MOVE or COPY the server refuses for a batch is tried message by message, and one still refused stays in
the inbox unfiled (`unfiled`): nothing was copied, so the next run reads it again, recognises it as
handled and tries again (COPY is all or nothing, RFC 3501 6.4.7).
"""

from __future__ import annotations

import logging
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from pbem.mail.transports.seam import Ledger, Left, one_line

log = logging.getLogger("pbem.mail.transports.imap")
R = TypeVar("R")


class _Refused(Exception):
    """The server answered NO/BAD to one command (the session goes on)."""


def _one_line(exc: BaseException, secret: str | None) -> str:
    return one_line(str(exc) or type(exc).__name__, secret)


def uid_set(uids: set[int]) -> str:
    """`uids` as an IMAP sequence set of ranges ("3:5,9"): a ledger line stays short however many are left."""
    out: list[str] = []
    ordered = sorted(uids)
    start = prev = ordered[0] if ordered else 0
    for uid in [*ordered[1:], None]:
        if uid is not None and uid == prev + 1:
            prev = uid
            continue
        out.append(str(start) if start == prev else f"{start}:{prev}")
        if uid is not None:
            start = prev = uid
    return ",".join(out) if ordered else ""


def parse_uid_set(text: str) -> set[int]:
    """The UIDs of a set `uid_set` wrote (a line it did not write: none)."""
    out: set[int] = set()
    try:
        for part in filter(None, text.split(",")):
            lo, _, hi = part.partition(":")
            first, last = int(lo), int(hi or lo)
            if not 0 < first <= last or last - first > 10_000_000:
                return set()
            out.update(range(first, last + 1))
    except ValueError:
        return set()
    return out


class Filing:
    """The filing half of `ImapInbox`, which provides the connection (`_client`, `_errors`) and the folders."""

    _client: Any
    _password: str
    _targets: dict[bool, str]
    use_move: bool | None
    uidvalidity: int | None

    def _errors(self, action: str, refusals: bool = False) -> AbstractContextManager[None]:
        raise NotImplementedError  # `ImapInbox._errors`

    def _filing_state(self) -> None:
        self.unfiled: list[int] = []  # UIDs the server refused to file in this run (left in the inbox)
        self._ledger: Ledger | None = None  # where the copied but unflagged are kept between runs (`remember_in`)
        self._tidy = False
        self._kept = ""  # the ledger's line as read or last written
        self._copied: set[int] = set()  # copied, the server refused to flag them: never fetched or copied again
        self._earlier: set[int] = set()  # those of them copied by an earlier run (`fetch` left them out)
        self._candidates: list[int] = []  # the ledger's, sorted, as `fetch` began (`_recall_start`)
        self._flagged: set[int] = set()  # flagged \Deleted, the server refused to expunge (or kept) them
        self._refusals: dict[str, str] = {}  # "store", "expunge": the server's last refusal
        self.mismatched: list[int] = []  # UIDs whose FETCH answered another message (`ImapInbox._not_its_own`)

    def _move(self, uids: list[int], accepted: bool) -> None:
        """File `uids`; a server that refuses (NO: over quota, a locked folder ...) does not stop reading:
        each is tried alone, and one it still refuses stays in the inbox (recorded already: the next run
        recognises it and tries to file it again), logged and counted in `unfiled`."""
        try:
            self._move_now(uids, accepted)
            return
        except _Refused as exc:
            if len(uids) == 1:
                self._unfiled(uids[0], accepted, exc)
                return
        for uid in uids:
            try:
                self._move_now([uid], accepted)
            except _Refused as exc:
                self._unfiled(uid, accepted, exc)

    def _unfiled(self, uid: int, accepted: bool, exc: Exception) -> None:
        self.unfiled.append(uid)
        target = self._targets[accepted]
        log.warning("the server refused to file message UID %s in %r (%s); it stays in the inbox", uid, target, exc)

    def _move_now(self, uids: list[int], accepted: bool) -> None:
        """MOVE, or COPY and take out (`_take_out`); a refused MOVE or COPY (nothing was filed) raises `_Refused`."""
        target = self._targets[accepted]
        if self.use_move is not False and self._client.has_capability("MOVE"):
            refused = self._try(f"move to {target!r}", lambda: self._client.move(uids, target))
        else:
            refused = self._try(f"copy to {target!r}", lambda: self._client.copy(uids, target))
            if refused is None:
                self._take_out(uids)  # copied: whatever the server refuses now, it is never copied again
                return
        if refused is not None:
            raise _Refused(refused)

    def _try(self, action: str, command: Callable[[], object]) -> str | None:
        """Run one command: None, or the server's refusal of it (a tagged NO or BAD: the session lives) as one
        line.  A lost connection is a TransportError."""
        import imaplib

        try:
            with self._errors(action, refusals=True):
                command()
        except imaplib.IMAP4.error as exc:  # `_errors` let only a refusal through: the rest is a TransportError
            return _one_line(exc, self._password)
        return None

    def _take_out(self, uids: list[int]) -> None:
        """Flag copied `uids` ``\\Deleted`` and expunge them.  What the server refuses stays in the inbox, never
        fetched or copied again: unflagged, kept in `_copied` (and the ledger); flagged, by the flag itself."""
        ranges = uid_set(set(uids))  # a line of every UID of a long ledger passed servers' bounds (Dovecot: 64 KB)
        refused = self._try("store", lambda: self._client.add_flags(ranges, [b"\\Deleted"], silent=True))
        if refused is not None:
            self._copied.update(uids)
            self._refused("store", refused, len(uids), "flag them \\Deleted")
            return
        self._copied.difference_update(uids)
        if self._client.has_capability("UIDPLUS"):
            refused = self._try("expunge", lambda: self._client.uid_expunge(ranges))
        else:
            refused = self._try("expunge", lambda: self._client.expunge())
        if refused is not None:
            self._flagged.update(uids)
            self._refused("expunge", refused, len(uids), "expunge them")

    def _refused(self, command: str, reason: str, count: int, what: str) -> None:
        self._refusals[command] = reason
        log.warning(
            "the server would not %s after copying %d message(s) (%s); they stay in the inbox, not read or copied "
            "again",
            what,
            count,
            reason,
        )

    def tidy(self) -> None:
        """Once a run, after its last message was filed (not in a dry run): try again to take out what is left
        (`_tidy_up`), then keep what still is in the ledger."""
        if self._tidy and self._client is not None:
            self._on_wire(self._tidy_up)
            self._keep()

    def _on_wire(self, fn: Callable[[], R]) -> R:
        raise NotImplementedError  # `ImapInbox._on_wire`

    def _tidy_up(self) -> None:
        """One STORE for what earlier runs copied and could not flag, one EXPUNGE if anything flagged is left,
        and a SEARCH for what still is (at most four commands, however much is left)."""
        earlier = sorted(self._earlier & self._copied)
        if earlier:
            self._take_out(earlier)
        flagged = self._flagged_now()
        if flagged and "expunge" not in self._refusals:  # refused in this run already: not asked twice
            if self._client.has_capability("UIDPLUS"):  # as ranges: a line of every UID passed servers' bounds
                refused = self._try("expunge", lambda: self._client.uid_expunge(uid_set(flagged)))
            else:
                refused = self._try("expunge", lambda: self._client.expunge())
            if refused is not None:
                self._refusals["expunge"] = refused
            else:
                flagged = self._flagged_now()
        self._flagged = flagged

    def _flagged_now(self) -> set[int]:
        """The folder's messages flagged \\Deleted, searched window by window (`ImapInbox._windows`): one SEARCH
        of the whole folder answered with one line of every flagged UID, and a folder whose EXPUNGE the server
        refuses or ignores holds every message pbem filed (costs21)."""
        return {uid for _, _, found in self._windows(("DELETED",)) for uid in found}

    def _windows(self, criteria: tuple[str, ...] = ("NOT", "DELETED")) -> Iterator[tuple[int, int, list[int]]]:
        raise NotImplementedError  # `ImapInbox._windows`

    # -- what is left (`pbem.mail.transports.seam.KeepsFiling`) ------------------

    def remember_in(self, ledger: Ledger, tidy: bool = True) -> None:
        """Keep the messages copied but left unflagged in `ledger` (the record); `tidy`: take out what is left
        once a run (not in a dry run, which changes nothing on the server)."""
        self._ledger, self._tidy = ledger, tidy
        self._kept = ledger.recall()
        self._copied |= self._held()

    def left(self) -> Left:
        """What the server keeps in the inbox of what pbem filed, as this run last saw it."""
        return Left(
            len(self._copied),
            len(self._flagged),
            self._refusals.get("store", ""),
            self._refusals.get("expunge", ""),
            len(self.mismatched),
        )

    def _held(self) -> set[int]:
        """The UIDs the ledger holds of this folder (none once its UIDVALIDITY changed: they are read again,
        recognised as handled, and copied once more)."""
        validity, _, uids = self._kept.partition(";")
        return parse_uid_set(uids) if self.uidvalidity is not None and validity == str(self.uidvalidity) else set()

    def _recall_start(self) -> None:
        """Before `fetch` searches the folder: the ledger's copied messages, looked for window by window
        (`_unfiled_in`)."""
        self._copied |= self._held()
        self._candidates = sorted(self._copied)
        self._earlier = set()

    def _unfiled_in(self, first: int, last: int, found: list[int]) -> list[int]:
        """`found`, a window's UIDs (`first` to `last`), but the ledger's copied messages still in the inbox
        unflagged (`fetch` leaves them out); the ledger's of the window that are gone are forgotten.  Those of
        windows a run did not reach stay in the ledger."""
        lo, hi = bisect_left(self._candidates, first), bisect_right(self._candidates, last)
        if lo == hi:
            return found
        held = set(self._candidates[lo:hi])
        present = held.intersection(found)
        self._copied -= held - present
        self._earlier |= present
        return [u for u in found if u not in present]

    def _keep(self) -> None:
        """Write the ledger when it changed (on the poll's thread: at the end of `fetch`, or at `close`)."""
        if self._ledger is None or not self._tidy:
            return
        line = f"{self.uidvalidity};{uid_set(self._copied)}" if self._copied else ""
        if line != self._kept:
            self._ledger.keep(line)
            self._kept = line
