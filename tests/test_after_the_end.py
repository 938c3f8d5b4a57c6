"""After a game ends: the final report asks for nothing, and a player's reply to it is told the game is over.

Found by trying the product: every final report still ended "Reply to this message with your orders" (and its
first line had a double full stop), and "Thanks, good game!" in reply to it was answered "No orders were
found in your message. Send HELP for the order syntax". Played by the demo's bots on the embedded defaults.
"""

from __future__ import annotations

from pathlib import Path

from pbem.cli.demo import run as demo
from pbem.home import config as config_mod
from tests.conftest import body_of, deliver, sent_mail


def test_a_reply_to_the_final_report_is_told_the_game_is_over(tmp_path: Path) -> None:
    from datetime import UTC, datetime
    from email.message import EmailMessage
    from email.utils import make_msgid

    from tests.conftest import Clock
    from tests.test_moderator import run_poll

    demo("italian-wars", 2, "after-the-end", tmp_path / "d")
    cfg = config_mod.load(tmp_path / "d" / "pbem.toml")
    seen: set[str] = set()
    finals = [m for m in sent_mail(cfg, seen) if str(m["Subject"]).startswith("[pbem italian-wars-demo] Final report")]
    assert finals
    for m in finals:
        text = body_of(m)
        assert "Nothing more is asked of you." in text and ".. " not in text.splitlines()[2]
        assert "Reply to this" not in text and "your orders" not in text
    final = finals[0]
    reply = EmailMessage()
    reply["From"], reply["To"] = str(final["To"]), str(final["From"])
    reply["Subject"] = f"Re: {final['Subject']}"
    reply["Message-ID"] = make_msgid(domain="players.example")
    reply["In-Reply-To"] = reply["References"] = str(final["Message-ID"])
    reply.set_content("Thanks, good game!\n\nAlice\n")
    deliver(cfg, reply.as_bytes())
    run_poll(cfg, Clock(start=datetime.now(UTC)))
    (answer,) = sent_mail(cfg, seen)
    assert "is over; no orders can be applied" in body_of(answer)
    assert "No orders were found" not in body_of(answer)
