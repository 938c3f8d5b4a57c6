"""The answer to a mail pbem cannot read says so in its subject and shows what would be accepted (explore35).

A mail whose text pbem cannot read (a photo of the orders, Outlook's winmail.dat, S/MIME sealed, NUL bytes, a text
too long, a charset that cannot decode it, a text/enriched or calendar part, too many parts) was answered "Re: <its
subject>" with "Send plain text orders, one per line": the only refusal without the verdict in its subject (a phone's
list showed it as one more report), and the only one without the orders that would be accepted, so the player had to
send HELP to learn what to type.  Each shape goes to a real poll (SQLite, Maildir); each answer must carry the verdict
and every order the player may send now.
"""

from __future__ import annotations

import base64

from pbem.app import games
from pbem.app import poll as polling
from pbem.home.app import Home
from pbem.mail.inbound.message import MAX_BODY_CHARS
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from tests.conftest import CODES, body_of, deliver, sent_mail

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
PNG = base64.encodebytes(b"\x89PNG\r\n\x1a\n" + bytes(64)).decode()


def _multipart(*parts: str) -> str:
    inner = "".join(f"--b\r\n{p}\r\n" for p in parts)
    return f'Content-Type: multipart/mixed; boundary="b"\r\n\r\n{inner}--b--\r\n'


SHAPES = {
    "photo": _multipart(f"Content-Type: image/jpeg\r\nContent-Transfer-Encoding: base64\r\n\r\n{PNG}"),
    "winmail.dat": _multipart(
        f'Content-Type: application/ms-tnef; name="winmail.dat"\r\nContent-Transfer-Encoding: base64\r\n\r\n{PNG}'
    ),
    "s/mime sealed": f"Content-Type: application/pkcs7-mime; smime-type=enveloped-data\r\n"
    f"Content-Transfer-Encoding: base64\r\n\r\n{PNG}",
    "nul bytes": "Content-Type: text/plain; charset=utf-8\r\n\r\nNO\x00EVENT\r\n",
    "too long": "Content-Type: text/plain; charset=utf-8\r\n\r\n" + "word " * (MAX_BODY_CHARS // 4),
    "idna charset": "Content-Type: text/plain; charset=idna\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\xff\xfe\r\n",
    "text/enriched": "Content-Type: text/enriched\r\n\r\n<bold>NO EVENT</bold>\r\n",
    "calendar": "Content-Type: text/calendar; method=REQUEST\r\n\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
}


def test_every_unreadable_mail_is_answered_with_its_verdict_and_the_orders_to_send(home, clock) -> None:
    """8 shapes: 8 answers lacked the verdict in the subject and the orders to send on the base commit; 0 now."""
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="explore35", clock=clock, codes=CODES)
    box, sender = MaildirInbox(home.maildir_path), MaildirSender(home.maildir_path)
    polling.poll(Home.of(home, inbox=box, sender=sender, clock=clock))
    seen: set = set()
    first = sent_mail(home, seen)[0]["Subject"]  # "[pbem hh1] Turn 1, Carol to play"
    player = next(name for name, _ in PLAYERS if f"{name} to play" in first)
    for n, (shape, rest) in enumerate(SHAPES.items()):
        head = (
            f"From: {player} <{dict(PLAYERS)[player]}>\r\nTo: moderator@pbem.test\r\nSubject: [pbem hh1] {shape}\r\n"
            f"Message-ID: <unreadable{n}@players.test>\r\nMIME-Version: 1.0\r\n"
        )
        deliver(home, (head + rest).encode("latin-1"))
    polling.poll(Home.of(home, inbox=box, sender=sender, clock=clock))
    answers = {m["In-Reply-To"]: m for m in sent_mail(home, seen)}
    wrong = []
    for n, shape in enumerate(SHAPES):
        m = answers.get(f"<unreadable{n}@players.test>")
        if m is None:
            wrong.append((shape, "no answer"))
            continue
        text = body_of(m)
        if (
            "NOT applied" not in m["Subject"]
            or "could not be read" not in text
            or "What would be accepted" not in text
            or "    NO EVENT\n" not in text
        ):
            wrong.append((shape, m["Subject"], text[:300]))
    assert not wrong, f"{len(wrong)} of {len(SHAPES)} answers lack the verdict or the orders: {wrong[0]}"
