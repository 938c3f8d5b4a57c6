"""Which home a database belongs to: a database restored into another folder or onto another machine is refused.

`pbem.app.clock.restored` compares a database with the marks of its home's polls (`.pbem-last-run`, this
machine's mark of the folder); a home made anew from a backup (another folder, another machine) has no marks, so
a database restored there ran as it stood, and sent again the mails that were waiting in it when it was saved and
that the old home sent since: the ledger of mails sent is the old home's (`pbem.record.sentlog`), and only
`pbem poll --trust-clock` reads one.  So each home keeps a name of its own, `FILE` (`.pbem-home`: random, made by
`pbem init` or the first poll), and the database the name of the home it belongs to (the poll mark
`marks.HOME_ID`, written by `pbem init` into a database that has none, and by a poll that finds none).  A database
naming another home, or a home with no name, is refused by every poll and every command that changes the home,
until `pbem poll --trust-clock` makes it this home's; that run marks sent the mails the ledgers the moderator
added to the home name (the refusal says which).  The whole folder copied (a home moved, `cp -a`) keeps its name:
nothing to refuse, and its ledger came with it.  The cost: one read of a small file and one indexed row a run.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

FILE = ".pbem-home"


def named(home: Path) -> str | None:
    """The home's name (None: none, or a file that holds none)."""
    from pbem.record.files import Unreadable, read_at_most

    try:
        text = read_at_most(Path(home) / FILE, 256).decode("ascii").strip()
    except (OSError, Unreadable, UnicodeDecodeError):
        return None
    return text if text.isalnum() else None


def _name(home: Path) -> str | None:
    """The home's name, made (and kept in `FILE`) when it has none; None when it cannot be kept (a read-only home:
    the check is lost, the run is not, as with the marks of `pbem.app.clock.mark_home`)."""
    import logging

    from pbem.record.files import write_whole

    if (have := named(home)) is not None:
        return have
    made = secrets.token_hex(16)
    try:
        write_whole(Path(home) / FILE, made + "\n", 0o600)
    except OSError as exc:
        logging.getLogger("pbem").warning("%s could not be written: %s", Path(home) / FILE, exc.strerror or exc)
        return None
    return made


@dataclass(frozen=True)
class Whose:
    """The home the database names (`kept`, None: none yet) and this home's own name (`mine`)."""

    kept: str | None
    mine: str | None

    def refusal(self, home: Path) -> str | None:
        """Why no run may use this database in `home` (one line), or None."""
        if self.kept is None or self.kept == self.mine:
            return None
        from pbem.record.sentlog import LEDGER, journal_dir

        ledger = journal_dir(home) / LEDGER
        has = "another home's name" if self.mine is not None else "none"
        return (
            f"the database is not this home's: it belongs to another home folder, and {home / FILE} holds {has} "
            "(a backup restored into another folder or onto another machine?); nothing was done. The mails waiting "
            f"in it when it was saved may have gone out since: first add the ledgers of mails sent to {ledger} "
            "(the backup's sent-ids.ledger, and the old home's outbox-sent/sent-ids.ledger if it can be reached: "
            f"cat FILE >> {ledger}); the mails they name are not sent again. The orders read and the reports sent "
            "since it was saved are not in it: put the mail read since (in the processed folder, arrived after "
            "`taken` in the backup's manifest.json) back into the inbox to have it read again, or tell the players "
            "the game went back. Then, if this is the database to go on with, run once: pbem poll --trust-clock"
        )

    def adopt(self, url: str, home: Path) -> None:
        """Make the database this home's (a first run, a database that named none, `--trust-clock`)."""
        if self.kept is not None and self.kept == self.mine:
            return
        from pbem.record.marks import HOME_ID, remember

        if (mine := _name(home)) is not None:
            remember(url, HOME_ID, mine)


def whose(url: str, home: Path) -> Whose:
    from pbem.record.marks import HOME_ID, recall

    return Whose(recall(url, HOME_ID), named(home))


def claim(url: str, home: Path) -> None:
    """`pbem init`: the home named, and the database made its own unless it names a home already (`init` over a
    database another home made: refused until `--trust-clock`, as a restore is)."""
    from pbem.record.marks import HOME_ID, recall, remember

    mine = _name(home)
    if mine is not None and recall(url, HOME_ID) is None:
        remember(url, HOME_ID, mine)
