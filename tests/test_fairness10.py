"""Tenth round of the fairness checks (docs/security.md, "Red team of the fairness checks, tenth round").

What `pbem verify --mail` still took on the moderator's word after the ninth round, in the order of its note: a
"Held orders not applied" notice quoting lines no held message put on file, a "write it as:" hint only in an HTML
part whose transfer encoding split its words, and a deadline's notice of the default it applied (a receipted mail
that answers no message).  Each forgery generator runs over the four games of the ninth round (`tests.test_fairness9`:
a held order the deadline could not apply, a refusal with a hint, the default applied instead) and passed on
cc9d072; the honest mail passes.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.trust.receipts import lines
from tests.test_fairness6 import per_kind
from tests.test_fairness9 import KINDS, NO_LONGER, _game, _notice, _swapped, _verify

pytestmark = pytest.mark.xdist_group("fairness")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return per_kind(tmp_path_factory, "tenth", _game)


def _replaced(mails: list[bytes], k: int, old: str, new: str) -> list[bytes]:
    return [*mails[:k], _swapped(mails[k], old, new), *mails[k + 1 :]]


# ------------------------------------------------------------------ 1. a notice of held lines never on file


def _unfiled(mails: list[bytes], legal: str, asked: list[str]) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with the held_failed notice quoting lines their held message never put on file: another
    legal order (each of up to two), the line of the refused message, and another order quoted under the true one."""
    k = _notice(mails)
    true = f"'{legal}': {NO_LONGER}\n"
    others = [o for o in asked if o != legal][:2]
    lines_ = [*others, f"{legal.split()[0]} Nothing 99"]
    out = [(f"quotes {o}", _replaced(mails, k, true, f"'{o}': {NO_LONGER}\n")) for o in lines_]
    more = f"{true}  '{lines_[0]}': that is not a legal order now\n"
    return [*out, (f"adds {lines_[0]}", _replaced(mails, k, true, more))]


@pytest.mark.parametrize("kind", KINDS)
def test_a_held_failed_notice_quoting_lines_no_held_message_put_on_file_is_named(kind: str, games: Any) -> None:
    """Gap: a "Held orders not applied" notice was compared only with a held message whose lines on file hold every
    line it quotes; one quoting other lines was left out with a note, so the moderator could tell a player that
    orders they never sent (or sent in a refused message) were held and could not be applied.  pbem sends the notice
    only for a held message the deadline left unapplied, quoting its lines on file: with every such message of the
    export acknowledged in the player's mail, a line none of them put on file is named (`pbem.trust.dropped.unfiled`).
    Generator: each game's notice quoting another line three ways (two where one legal line is offered) and with a
    line added."""
    doc, player, mails, legal, asked = games(kind)
    forged = _unfiled(mails, legal, asked)
    assert len(forged) >= 3
    for what, box in forged:
        c = _verify(kind, doc, box, player, legal)
        assert any("no held message of yours put them on file" in p for p in c.problems), (what, lines(c))


@pytest.mark.parametrize("kind", KINDS[:1])
def test_a_notice_whose_held_message_is_not_acknowledged_in_the_folder_is_a_note(kind: str, games: Any) -> None:
    """Without the acknowledgement of the held message (a mail deleted), its lines on file are unknown: the forged
    notice cannot be told from a true one, and a note says so (naming the message), not a problem."""
    doc, player, mails, legal, asked = games(kind)
    _, box = _unfiled(mails, legal, asked)[0]
    box = [raw for raw in box if b"In-Reply-To: <held@" not in raw]
    c = _verify(kind, doc, box, player, legal)
    assert c.ok and any("its acknowledgement is not in this folder" in x for x in c.notes), lines(c)
