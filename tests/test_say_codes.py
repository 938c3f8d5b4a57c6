"""A player's code in the moderator's message to every player (`pbem game say`, SAY by mail), in any case.

Found by the moderator's tools brief (judges3): a code of letters only (about a tenth of codes: 8 of the 24 letters
of the codes' 32 characters) typed in lower case or mixed case ("kqxm-abcd", "Kqxm-Abcd") went to every player,
since its shape alone cannot tell it from a word pair of prose ("self-help"); so did a code typed without its
hyphen ("KQXMABCD").  Now every word of the message that a code may be typed as is checked against the game's
players' current codes (`pbem.app.say.codes_of`), for the command and its mail form alike; prose still goes out.
"""

from __future__ import annotations

import random

import pytest

from pbem.app import control, games, moderating
from pbem.app.decision import GameError
from pbem.app.say import say
from pbem.home.app import Home
from pbem.orders.moderator import MAX_CANDIDATES
from pbem.trust.codes import ALPHABET
from tests.conftest import CODES, body_of
from tests.test_moderate_by_mail import MOD_ADDR, acks, command, run

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
LETTERS = [c for c in ALPHABET if c.isalpha()]
PROSE = (
    "Play on: the self-help rule holds, make-sure your mail is sent, see you next week at half-past nine.",
    "Bob's mail bounced (he is told); please be patient until the weekend.",
)


def _typed(code: str, rng: random.Random) -> list[str]:
    """The ways a code of letters only may be typed that its shape alone lets through."""
    bare = code.replace("-", "")
    mixed = "".join(c.lower() if rng.random() < 0.5 else c for c in code)
    mixed = mixed if not mixed.isupper() else mixed[0].lower() + mixed[1:]
    return [code.lower(), code.title(), mixed, bare.lower(), bare]


def test_a_players_code_of_letters_only_is_refused_in_any_case_and_prose_goes_out(home, clock) -> None:
    codes = {**CODES, "Alice": "KQXM-ABCD"}
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="say-codes", clock=clock, codes=codes)
    rng = random.Random("say-letters")
    tried = 0
    for round_ in range(12):
        code = "".join(rng.choice(LETTERS) for _ in range(8))
        code = f"{code[:4]}-{code[4:]}"
        player = PLAYERS[round_ % 3][0]
        clock.advance(minutes=1)
        control.new_player_code(Home.of(home), "hh1", player, clock.now, code=code)  # a code of letters only
        for typed in _typed(code, rng):
            for text in (f"{player}, your code is {typed}; keep it safe.", f"{typed}", f"Note ({typed}) for all"):
                with pytest.raises(GameError, match="shaped like a player's code"):
                    say(Home.of(home), "hh1", text, clock.now)
                tried += 1
    assert tried == 12 * 5 * 3
    for text in PROSE:  # word pairs and long words that are no player's code go out
        assert say(Home.of(home), "hh1", text, clock.now) == ["Alice", "Bob", "Carol"]
    assert say(Home.of(home), "hh1", " ".join(["well-made"] * MAX_CANDIDATES), clock.now)
    with pytest.raises(GameError, match=f"more than {MAX_CANDIDATES} words a player's code could be typed as"):
        say(Home.of(home), "hh1", " ".join(["well-made"] * (MAX_CANDIDATES + 1)), clock.now)


def test_another_games_code_of_letters_only_is_refused_too(home, clock) -> None:
    """The message goes to this game's players; a code of a player of ANOTHER running game, typed in lower case or
    without its hyphen, has no shape that tells it from prose, and was let through: only this game's codes were
    looked for (judges4).  A finished game's codes no longer let anyone act, and are not looked for."""
    others = [("Dora", "dora@players.test"), ("Eve", "eve@players.test"), ("Finn", "finn@players.test")]
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="say-codes", clock=clock, codes=CODES)
    games.create_game(Home.of(home), "habsburg", "hh2", others, seed="say-other", clock=clock, codes=CODES)
    rng = random.Random("say-other-game")
    for round_ in range(6):
        code = "".join(rng.choice(LETTERS) for _ in range(8))
        code = f"{code[:4]}-{code[4:]}"
        clock.advance(minutes=1)
        control.new_player_code(Home.of(home), "hh2", others[round_ % 3][0], clock.now, code=code)
        for typed in _typed(code, rng):
            with pytest.raises(GameError, match="shaped like a player's code"):
                say(Home.of(home), "hh1", f"Dora says hello ({typed}).", clock.now)
    assert say(Home.of(home), "hh1", PROSE[0], clock.now) == ["Alice", "Bob", "Carol"]


def test_the_mail_form_checks_the_players_codes_too(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="say-codes", clock=clock, codes=CODES)
    control.new_player_code(Home.of(home), "hh1", "Bob", clock.now, code="WXYZ-BCDE")
    run(home, clock)
    code = moderating.make_code(Home.of(home), clock.now)
    command(home, code, "SAY Bob, your new code is wxyz-bcde.")
    summary = run(home, clock)
    assert summary.accepted == 0
    (ack,) = acks(m for m in _sent(home) if "Re:" in str(m["Subject"]))
    said = ack.get_body(("plain",)).get_content()
    assert "shaped like a player's code" in said, said
    assert not [m for m in _sent(home) if "to every player" in str(m["Subject"])]
    command(home, code, "SAY The self-help desk is open; play on.")
    assert run(home, clock).accepted == 1
    assert any(
        m["To"].addresses[0].addr_spec != MOD_ADDR for m in _sent(home) if "to every player" in str(m["Subject"])
    )


def _sent(cfg) -> list:
    import mailbox
    from email import policy
    from email.parser import BytesParser

    box = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=False)
    return [BytesParser(policy=policy.default).parsebytes(box.get_bytes(k)) for k in box.iterkeys()]


def test_an_undo_reason_is_checked_for_codes_as_a_message_to_every_player_is(home, clock) -> None:
    """`pbem game undo --why TEXT` (and UNDO TO n WHY text by mail): every player reads the reason in their report,
    and the chained record keeps it; it was not checked at all (judges4): "Bob's code K7QX-2MPD was mistyped" or
    another game's player's code of letters only went to every player.  Now it is refused as SAY refuses such
    text, and nothing is recorded."""
    from pbem.app.undo import undo
    from tests.test_undo import play

    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="say-codes", clock=clock, codes=CODES)
    others = [("Dora", "dora@players.test"), ("Eve", "eve@players.test"), ("Finn", "finn@players.test")]
    games.create_game(Home.of(home), "habsburg", "hh2", others, seed="say-other", clock=clock, codes=CODES)
    control.new_player_code(Home.of(home), "hh2", "Dora", clock.now, code="WXYZ-BCDE")
    play(home, clock, 2)
    for why in ("Bob typed K7QX-2MPD by mistake", "Dora's code wxyz-bcde was misread", f"bad {CODES['Bob']}"):
        with pytest.raises(GameError, match="shaped like a player's code"):
            undo(Home.of(home), "hh1", 1, why, False, clock.now)
    with pytest.raises(GameError, match="control character"):
        undo(Home.of(home), "hh1", 1, "misread\x1b[2J", False, clock.now)
    from tests.test_undo import loaded

    seq = loaded(home).seq
    code = moderating.make_code(Home.of(home), clock.now)
    command(home, code, "UNDO TO 1 WHY Dora typed wxyz-bcde by mistake")  # the mail form alike
    assert run(home, clock).accepted == 0 and loaded(home).seq == seq
    said = [body_of(m) for m in acks(_sent(home)) if "Re:" in str(m["Subject"])]
    assert "shaped like a player's code" in said[-1], said[-1]
    assert undo(Home.of(home), "hh1", 1, "Bob's order was misread; the self-help rule holds", False, clock.now)
