"""`pbem verify --sent` tells a refused mail's lines as the mail's answer did (replies3).

The acknowledgement quotes the lines refused for one reason together and says the reason once ("why (these 3
lines)"); `pbem verify --sent` listed the record's reason, one "'line': why" per refused line, so the same long
reason three times over and, clipped, only the first line.  It now groups them the same way (`sent.grouped`).
For every kind: three lines the intake refuses alike (`tests.app.test_refusals_grouped`), the record's reason of
that refusal, and the player's Sent folder checked against an export holding it.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from pbem import engine as registry
from pbem.trust.sent import check_sent, lines
from tests.app.plain import address
from tests.app.test_refusals_agree import send
from tests.app.test_refusals_grouped import _alike


def _sent(player: str, game: str, body: str) -> tuple[bytes, str]:
    msg = EmailMessage()
    msg["From"] = f"{player} <{address(player)}>"
    msg["To"] = "games@example.org"
    msg["Subject"] = f"[pbem {game}] orders"
    msg["Date"] = "Mon, 30 Nov 2026 21:08:00 +0000"
    msg["Message-ID"] = mid = make_msgid(domain="players.example")
    msg.set_content(body)
    return msg.as_bytes(), mid


@pytest.mark.parametrize("kind", registry.available())
def test_lines_refused_for_one_reason_are_told_together_by_verify_sent(kind: str) -> None:
    g, player, refused, reason = _alike(kind)
    d = send(g, player, refused)
    assert d.outcome == "rejected" and d.reason.count(reason) == 3, d.reason  # the record: once per line
    raw, mid = _sent(player, g.game.name, "\n".join(refused))
    doc = {
        "game": {"name": g.game.name, "kind": kind},
        "players": [{"name": player, "address": address(player)}],
        "messages": [{"message_id": mid, "outcome": "rejected", "reason": d.reason, "player": player}],
        "orders": [],
        "audience": "player",
    }
    c = check_sent(doc, [raw], as_player=player)
    assert c.ok, c.problems
    (told,) = [ln for ln in lines(c) if ln.startswith("refused: ")]
    assert "(these 3 lines)" in told and told.count(reason[:60]) == 1, told
    for line in refused:
        assert repr(line)[:40] in told or "..." in told, (line, told)


def test_grouped_keeps_other_reasons_and_the_count_of_lines_not_shown() -> None:
    from pbem.trust.sent import grouped

    assert grouped("refused: it carried no player code") == "refused: it carried no player code"
    assert grouped("'PASS': game is over") == "'PASS': game is over"
    two = "'A': no; 'B': other"
    assert grouped(two) == two  # no two alike: as recorded
    many = "'A': not asked; waiting for Bob; \"it's B\": not asked; waiting for Bob; 'C': x; and 4 more refused lines"
    assert grouped(many) == (
        "'A', \"it's B\" (these 2 lines): not asked; waiting for Bob; 'C': x; and 4 more refused lines"
    )


@pytest.mark.parametrize("footer", [["Take care,", "Alice"], "disclaimer-orders"])
def test_verify_sent_accepts_lines_pbem_set_aside_and_still_catches_a_substitution(tmp_path, footer) -> None:
    """A reply whose footer or closing starts with an order word is applied without those lines (the intake sets
    them aside, and says so); `pbem verify --sent` read the mail with them and called the honest export
    SUBSTITUTED.  It now says in a note which lines were left out; another order in their place is still caught."""
    import copy

    from pbem.app.reading import mail_reader
    from pbem.history.export import build as export
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import SIGNATURES, _moment, _poll, build, meant

    m = _moment(tmp_path, "dynasties")
    want = meant(m, 2)
    raw = build(m, "gmail-en", ["Hi,", *want], SIGNATURES[footer] if isinstance(footer, str) else footer)
    deliver(m.cfg, raw)
    assert _poll(m.cfg, m.clock).accepted == 1
    with session(m.cfg.database_url) as s:
        doc = export(s, store.game_by_name(s, "g1"))
    received = [x.as_bytes() for x in sent_mail(m.cfg) if x["To"].addresses[0].addr_spec == m.address]
    c = check_sent(doc, [raw], as_player=m.player, read=mail_reader(received))
    assert c.ok, c.problems
    assert any("applied your orders without" in n for n in c.notes), c.notes
    forged = copy.deepcopy(doc)
    other = next(x for x in m.legal if x != want[0])
    (mine,) = [o for o in forged["orders"] if o["player"] == m.player]
    mine["lines"] = [other]
    c = check_sent(forged, [raw], as_player=m.player, read=mail_reader(received))
    assert not c.ok and any(p.startswith("SUBSTITUTED") for p in c.problems), c.problems
