"""What a mail about a game is stamped with as `apply` queues it: its thread (a notice answering no message
references the player's first report) and its receipt (where the game's chained record stands, as far as
its reader may see it while the game runs: `pbem.record.reader_view`, read by `apply.prepare`).  Pure: no
statement here."""

from __future__ import annotations

import dataclasses

from pbem.home.policy import Policy
from pbem.mail.outbound.outgoing import Mail, Receipt, thread_root
from pbem.record import store
from pbem.trust import signing

#: The mails that tell a player the input just recorded for them, with its seq and hash (issue 13): the
#: acknowledgement of their orders or JOIN, and at a deadline the notice of their held orders or of the
#: default applied for them.  Each follows its input in the decision's effects.
RECEIPTED = frozenset({"ack", "join_ack", "held_applied", "deadline_applied"})
#: The mails that carry no receipt: the word for a seat's new address goes to an address that plays no seat yet
#: (perhaps a stranger's), and a receipt's count is some reader's view of the record (judges5).
UNRECEIPTED = frozenset({"address_confirm"})


def threaded(policy: Policy, mail: Mail, loaded: store.Loaded | None, secret: bytes) -> Mail:
    """A notice about a game that answers no message references the player's first report (their thread)."""
    if mail.in_reply_to or mail.references or loaded is None:
        return mail
    seat = loaded.seat_for_address(mail.to)
    root = thread_root(policy, seat.thread, secret) if seat is not None else None
    return dataclasses.replace(mail, references=(root,)) if root else mail


def receipt(
    loaded: store.Loaded | None,
    game_id: int | None,
    recorded: tuple[int, str] | None = None,
    reader: str | None = None,
) -> Receipt | None:
    """The loaded game's record as a mail about it is rendered now (None for a mail about no or another game):
    to a player (`reader`) of a game not over, as far as that player may see it (`pbem.record.reader_view`);
    else all of it (the final reports of all players then state the same record, to compare)."""
    if loaded is None or game_id is None or loaded.game.id != game_id or reader == "":
        return None
    assert loaded.head, "the game's chain head is read with it (store.load) or by prepare"
    entries, head = loaded.seq + loaded.event_seq, loaded.head
    if reader is not None and not loaded.over:  # once over, every entry is revealed: all of it
        assert reader in loaded.readers, f"what {reader} may see of the record is read before writing (prepare)"
        entries, head = loaded.readers[reader]
        seen = loaded.last_input_seen.get(reader) if recorded == loaded.last_input else None
        if recorded is not None and seen is not None:  # numbered as the reader's receipts count it, never by
            recorded = (seen, recorded[1])  # every player's inputs (`verify --mail` finds either by its hash)
    return Receipt(entries, head, recorded, **signing.receipt_fields(loaded.game))


def reader(loaded: store.Loaded | None, mail: Mail) -> str | None:
    """The player a mail about the game goes to (None: the moderator or another address, who may see all; "": a mail
    of `UNRECEIPTED`, which `receipt` gives none)."""
    if mail.kind in UNRECEIPTED:
        return ""
    if mail.player:
        return mail.player
    seat = loaded.seat_for_address(mail.to) if loaded is not None else None
    return seat.player if seat is not None else None
