"""The home's `outbox.key` checked against the record at the start of every run that may use it.

`pbem poll` (`pbem.app.cron`) and every command that changes the home (`pbem.cli.common.checked`) first ask the
record whether the key file in the home is its own (`pbem.record.outbox_key`: a check value of the key, kept in
the record).  Another home's key file (a database restored beside the wrong one, a key file copied from another
home) stops the run before anything is done, in one line that says what to put back, or how to go on without
it; before, such a run sealed the players' codes under a key that opened none of the mails already waiting,
which then went out redacted.  A key file that is gone stops the run the same way when the record shows it had
one (its check value, or mail sealed with it waiting): a first run has neither, and makes the key with its first
sealed mail, but a home whose key was lost cannot send the mail sealed with it, and a run that made a new key went
on sending it redacted without a word on the terminal (the log had one).  `pbem poll --new-outbox-key` says the key
is lost for good: the record forgets the old key's value, so that the key the home makes next is its own.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pbem.engine.words import count
from pbem.home.logs import TOLD
from pbem.mail.outbound.sealed import KEY_FILE, held
from pbem.record import outbox_key
from pbem.record.sealing import Unsealable

log = logging.getLogger("pbem")


FORGET = "pbem poll --new-outbox-key"  # what the moderator runs once when the record's key is lost for good
LOSE = (
    "pbem then makes a new one, and mails sealed with the lost one go out with the players' codes redacted "
    "(`pbem game code` gives a player a new code); nothing was done"
)


def _damaged(database_url: str, path: Path, why: str) -> str | None:
    """A key file that holds no key (edited, cut short, a folder or a FIFO in its place) in a home whose record had
    a key (its check value, or sealed mail waiting): the run stops, as for a missing one (months7: it went on, and
    every sealed mail waiting went out with its player's code redacted, a warning in the log only).  None for a
    record that had no key: the first mail sealed stops the run in one line (`pbem.app.poll`), nothing lost."""
    found = outbox_key.belongs(database_url, None)
    if found.state != "lost":
        return None
    kept = "keeps the check value of its outbox.key"
    if found.waiting:
        kept = f"holds {count(found.waiting, 'mail')} waiting to be sent sealed with its outbox.key"
    return (
        f"{why.rstrip('.')}; this database {kept}: put back the outbox.key saved with this database (`pbem backup` "
        f"saves them together), or, if that key is lost, move {path} aside and run once: {FORGET}: " + LOSE
    )


def refusal(database_url: str, home: Path, forget: bool = False, told: list[str] | None = None) -> str | None:
    """Why no run may use the home's key file with this record (one line), or None; the record's check value
    written when it has none.  A key file that holds no key is left to the run (`pbem.mail.outbound.sealed`).
    `forget` (`pbem poll --new-outbox-key`): a key gone for good is let go, the record forgetting its value; what
    the option did, or that it had nothing to do, is appended to `told` (the run's notes: walk8, it printed only
    "nothing to do: no new mail, nothing queued or due", the same whether it forgot a key or found it in place)."""
    path = Path(home) / KEY_FILE
    try:
        key = held(home)
    except Unsealable as exc:  # a key file that holds no key: as a lost one, when the record shows it had one
        return _damaged(database_url, path, str(exc))
    found = outbox_key.belongs(database_url, key, forget=forget and key is None)
    sealed = f"{count(found.waiting, 'mail')} waiting to be sent {'is' if found.waiting == 1 else 'are'} sealed"
    if found.state == "forgot":
        said = (
            f"--new-outbox-key: the key file {path} is lost: the record forgot its check value, and the next mail "
            f"sealed makes a new key; {sealed} with the lost one: they go out with the players' codes redacted "
            "(`pbem game code` gives a player a new code)"
        )
        log.warning("%s", said, extra=TOLD if told is not None else {})
        if told is not None:
            told.append(said)
        return None
    if forget and told is not None and found.state in ("same", "kept", "none"):
        told.append(
            f"--new-outbox-key: nothing was forgotten: the key file {path} is in place and is this database's"
            if key is not None
            else "--new-outbox-key: nothing was forgotten: this database keeps no outbox.key and no sealed mail waits"
        )
    why = f" ({sealed} with that one)" if found.waiting else ""
    lose = LOSE
    if found.state == "lost":  # a first run has no key and nothing to open with one: this record had one
        kept = "keeps the check value of its outbox.key"
        if found.waiting:
            kept = f"holds {count(found.waiting, 'mail')} waiting to be sent sealed with its outbox.key"
        return (
            f"the key file {path} is missing, and this database {kept}: put back the outbox.key saved with this "
            f"database (`pbem backup` saves them together), or, if that key is lost, run once: {FORGET}: " + lose
        )
    if found.state != "other":
        return None
    return (
        f"the key file {path} is not this database's: the database was used with another outbox.key{why}; put back "
        f"the outbox.key saved with this database (`pbem backup` saves them together), or, if that key is lost, move "
        f"{path} aside and run once: {FORGET}: " + lose
    )
