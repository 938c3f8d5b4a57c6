"""Issue 23 end to end by real email (pymap + aiosmtpd, and Dovecot + Postfix in the ``dovecot`` tier).

A plain reply with no CODE line is applied; the same reply from another address, a new mail without
the code and a reply naming another seat's mail are refused; a player who answers WATCH gets a report
after every move, one who answers DIGEST only when asked to act.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

from sqlmodel import select

from pbem.cli.demo import legal_lines
from pbem.record import store
from pbem.record.db import session
from pbem.record.models import OrderInput
from tests.mail.conftest import MODERATOR
from tests.mail.test_e2e import World, world  # noqa: F401  (the fixture)


def _reply(w: World, player: str, to: EmailMessage, body: str, sender: str | None = None) -> None:
    msg = EmailMessage()
    msg["From"] = sender or f"{player} <{w.address(player)}>"
    msg["To"] = MODERATOR
    msg["Subject"] = f"Re: {to['Subject']}"
    msg["Message-ID"] = make_msgid(domain="example.test")
    msg["In-Reply-To"] = str(to["Message-ID"])
    msg["References"] = str(to["Message-ID"])
    quoted = "\n".join("> " + ln for ln in to.get_body(preferencelist=("plain",)).get_content().splitlines())
    msg.set_content(f"{body}\n\nOn Mon, 30 Nov 2026 at 21:08, pbem wrote:\n{quoted}\n", cte="quoted-printable")
    w.send_raw(msg.as_bytes(policy=policy.SMTP), msg["From"])  # CRLF: smtplib sends bytes as they are


def _asked(w: World) -> list[str]:
    with session(w.cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        return [r.player for r in loaded.engine.requests(loaded.state) if not r.answered]


def _inputs(w: World) -> int:
    with session(w.cfg.database_url) as s:
        return len(s.exec(select(OrderInput)).all())


def test_a_plain_reply_is_applied_and_forged_or_codeless_mail_is_refused(world: World) -> None:  # noqa: F811
    world.new_game("habsburg", 3)
    world.poll()
    firsts = {p: world.new_mail(p)[-1] for p in ("Alice", "Bob", "Carol")}
    mover = _asked(world)[0]
    other = next(p for p in firsts if p != mover)
    order = legal_lines(firsts[mover][1])[0]
    _reply(world, mover, firsts[mover][0], order, sender="Mallory <mallory@example.test>")
    world.send(f"{mover} <{world.address(mover)}>", order)  # a new mail without the code
    _reply(world, mover, firsts[other][0], order)  # names the mail sent to another seat
    s = world.poll()
    assert (s.accepted, s.rejected, s.ignored) == (0, 2, 1)
    assert _inputs(world) == 0
    assert world.servers.mailbox("mallory@example.test") == []
    _reply(world, mover, firsts[mover][0], order)  # the plain reply, no CODE line
    s = world.poll()
    assert s.accepted == 1 and _inputs(world) == 1
    told = world.new_mail(mover)
    assert any(f"OK   {order}" in text for _, text in told)


def test_watch_gets_every_move_and_digest_only_what_asks_it_to_act(world: World) -> None:  # noqa: F811
    world.new_game("habsburg", 3)
    world.poll()
    firsts = {p: world.new_mail(p)[-1] for p in ("Alice", "Bob", "Carol")}
    order_of_play = _asked(world)
    first = order_of_play[0]
    idle = [p for p in firsts if p != first]
    watcher, digester = idle
    _reply(world, watcher, firsts[watcher][0], "WATCH")
    _reply(world, digester, firsts[digester][0], "DIGEST")
    s = world.poll()
    assert s.accepted == 2
    assert any("WATCH: from now on" in t for _, t in world.new_mail(watcher))
    assert any("DIGEST: from now on" in t for _, t in world.new_mail(digester))
    latest = dict(firsts)
    for _ in range(5):  # five moves, by whoever is asked
        mover = _asked(world)[0]
        lines = legal_lines(latest[mover][1])
        assert lines, latest[mover][1]
        _reply(world, mover, latest[mover][0], lines[0])
        world.poll()
        for p in firsts:
            mail = world.new_mail(p)
            if mail:
                latest[p] = mail[-1]
            if p == mover:
                assert len(mail) == 1, "one mail for the mover: the answer and what comes next together"
            elif p == watcher:
                assert len(mail) == 1, "WATCH: a report after every move"
            elif p == digester:
                assert len(mail) == (1 if digester in _asked(world) else 0), "DIGEST: mail only when asked to act"
