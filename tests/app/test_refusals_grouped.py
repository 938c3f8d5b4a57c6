"""Lines refused for the same reason are told once (found by the players' testers: three lines another step's,
each answered with the same long reason and the same list of what would be accepted, three times over).

For every kind, at a bot-played moment, three lines refused alike are sent in one message: the reply quotes each
of them, and gives the reason and the accepted forms once."""

from __future__ import annotations

import dataclasses

import pytest
from markupsafe import escape

from pbem import engine as registry
from pbem.app import refusals
from pbem.render.templates import render_mail
from tests.app.plain import loaded
from tests.app.test_refusals_agree import acknowledgement, send, states


def _alike(kind: str):
    """(game, player, three lines the intake refuses for one reason with the same accepted forms, that reason)."""
    eng = registry.get(kind)
    found, seen, players = states(kind)
    g0 = loaded(kind, players)
    for st in found:
        for p in players:
            by_reason: dict[tuple, list[str]] = {}
            for line in seen:
                out = refusals.worded(eng, st, p, eng.apply(st, p, [line]))
                if not out.accepted:
                    [r] = out.lines
                    by_reason.setdefault((r.reason, r.legal), []).append(line)
            for (reason, legal), lines in by_reason.items():
                if len(lines) >= 3 and legal and "waiting for" not in reason:
                    return dataclasses.replace(g0, state=st), p, lines[:3], reason
    raise AssertionError(f"{kind}: no three lines refused alike")


@pytest.mark.parametrize("kind", registry.available())
def test_three_lines_refused_for_one_reason_are_quoted_each_and_told_once(kind: str) -> None:
    g, player, lines, reason = _alike(kind)
    d = send(g, player, lines)
    ack = acknowledgement(d)
    assert d.outcome == "rejected" and ack is not None
    mail = render_mail("ack", {**ack, "moderator": "M", "record": None, "player": player})
    for text in (mail.text, mail.html):
        body = text.split("Still awaited")[0]
        for line in lines:
            assert f'"{line}"' in body or f"<code>{escape(line)}</code>" in body, (kind, line, body)
    text = mail.text.split("Still awaited")[0]
    assert text.count(reason) == 1, (kind, reason, text)
    assert text.count("what would be accepted:") == 1, (kind, text)
    assert "these 3 lines" in text, text
    assert mail.html.count(str(escape(reason))) == 1, (kind, mail.html)
