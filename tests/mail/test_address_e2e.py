"""ADDRESS by real email (`pbem.app.addresses`): a player moves their seat to a new address and plays from it.

Over each real server pair (pymap + aiosmtpd; Dovecot + Postfix in the tier marked ``dovecot``): players send
with smtplib and read their mailboxes over IMAP, pbem polls over IMAP and sends over SMTP.  Bob asks from his
registered address, the word reaches the new one (Dave's mailbox stands for Bob's new one), a reply from there
moves the seat, and Bob's next orders come from the new address; the old one gets the notice of the move and
nothing after it.
"""

from __future__ import annotations

import re

from pbem.cli.demo import demo_code, legal_lines
from pbem.record import store
from pbem.record.db import session
from tests.mail.test_e2e import World, world  # noqa: F401  (the fixture, over each server pair)
from tests.mail.test_moderator_tools_e2e import Moderated

NEW = "dave@example.test"  # a mailbox of the test servers no seat of the game has


def _subjects(mails) -> list[str]:
    return [str(m["Subject"]) for m, _ in mails]


def test_a_seat_moved_by_mail_plays_from_its_new_address_and_the_old_one_hears_no_more(world: World) -> None:  # noqa: F811
    w, m = world, Moderated(world)
    w.new_game("italian-wars", 2)
    m.poll()
    w.new_mail("Alice")
    (invitation,) = [t for _, t in w.new_mail("Bob")]
    code = demo_code("e2e", "Bob")

    w.send("Bob <bob@example.test>", f"CODE {code}\nADDRESS {NEW}")
    m.poll()
    (asked,) = w.new_mail("Bob")
    assert "Nothing is changed yet" in asked[1], asked[1]
    ((word_mail, word_text),) = w.new_mail("Dave")
    assert code not in word_text and "Bob" in str(word_mail["Subject"])
    word = re.search(r"ADDRESS CONFIRM (\d{6})", word_text).group(1)

    reply = {"subject": f"Re: {word_mail['Subject']}", "In_Reply_To": str(word_mail["Message-ID"])}
    w.send(f"Bob <{NEW}>", f"ADDRESS CONFIRM {word}", **reply)
    m.poll()
    with session(w.cfg.database_url) as s:
        seats = {st.player: st.address for st in store.current_seats(s, store.game_by_name(s, "g1").id)}
    assert seats == {"Alice": "alice@example.test", "Bob": NEW}
    (old,) = w.new_mail("Bob")
    assert f"gets its mail at {NEW} from now on" in old[1], old[1]
    (new,) = w.new_mail("Dave")
    assert "This address now plays Bob" in new[1], new[1]
    assert m.moderators_mail("[pbem g1] Bob moved to dave@example.test") is not None

    order = legal_lines(invitation)[0]  # Bob plays on from the new address, with the same code
    w.send(f"Bob <{NEW}>", f"CODE {code}\n{order}")
    w.send("Alice <alice@example.test>", f"CODE {demo_code('e2e', 'Alice')}\nDISCARD NONE")
    assert m.poll().accepted == 2
    moved_on = _subjects(w.new_mail("Dave"))
    assert any("your orders" in x for x in moved_on) and any("Bob to act" in x for x in moved_on), moved_on
    assert w.new_mail("Bob") == [], "the old address gets nothing after the notice of the move"
