"""Per-mail budgets (issue 26): what one mail may ask of pbem is bounded, and over the bound it is refused whole.

Over the real pipeline (`poll.handle`, SQLite) and one `pbem poll` over Maildir: 500 `PRESS TO ALL`
blocks make no press mail, one order line naming a card a thousand times is refused, a 250 KB stranger's
mail of `CODE` lines costs a constant times a plain mail of its size, and a mail stating more codes than
one redaction looks for keeps no body.  Each refusal quotes what was too much and says what is accepted.
"""

from __future__ import annotations

import pytest

from pbem.home.app import Home
from pbem.mail.inbound import budgets
from pbem.mail.inbound.redact import MAX_CODES
from tests.growth import Window
from tests.reliability import killpoints as kp
from tests.reliability.test_hostile_mail import ADDR, CODES, WHEN, World


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("budgets") / "home")


def _last_inbound(world: World) -> tuple[str, str, bytes]:
    return world.con.execute("SELECT outcome, reason, raw FROM inbound_messages ORDER BY id DESC LIMIT 1").fetchone()


def _new_mail(world: World, since: int) -> list[tuple[str, str, bytes]]:
    return world.con.execute(
        "SELECT to_addr, purpose, raw FROM outbox JOIN outbox_mail USING (id) WHERE id > ?", (since,)
    ).fetchall()


def _text(raw: bytes) -> str:
    """The plain text a player reads in one of pbem's mails."""
    from email import policy
    from email.parser import BytesParser

    msg = BytesParser(policy=policy.default).parsebytes(raw)
    body = msg.get_body(("plain",))
    assert body is not None
    return " ".join(body.get_content().split())


def _handle(world: World, raw: bytes):
    from pbem.app import poll as polling

    return polling.handle(Home.of(world.cfg), raw, WHEN)


def _cpu(world: World, raw: bytes, kind: str | None = None) -> float:
    """The CPU seconds this process spends handling `raw` (which must come out as `kind`, if given).  CPU,
    not the clock: a test run beside another one on the same cores is paused at times, and a pause is no cost."""
    t = Window()
    got = _handle(world, raw).kind
    spent = t.close().cpu
    assert kind is None or got == kind, (got, kind)
    return spent


def test_500_press_blocks_make_no_press_mail_and_one_answer(world: World) -> None:
    _, events, last = world.counts()
    lines = [f"CODE {CODES['Alice']}"] + [
        x for k in range(500) for x in ("PRESS TO ALL", f"Spain is weak ({k}).", "END PRESS")
    ]
    r = _handle(world, world.mail(ADDR["Alice"], "hh", lines, mid="<press-500@players.test>"))
    assert r.kind == "rejected"
    mails = _new_mail(world, last)
    assert [(to, purpose) for to, purpose, _ in mails] == [(ADDR["Alice"], "ack")]
    assert world.counts()[1] == events, "a refused mail appended an event"
    text = _text(mails[0][2])
    assert "500 press messages" in text and f"at most {budgets.MAX_PRESS}" in text


def test_press_within_the_budget_is_relayed(world: World) -> None:
    _, _, last = world.counts()
    lines = [f"CODE {CODES['Alice']}"] + [
        x for k in range(budgets.MAX_PRESS) for x in ("PRESS TO ALL", f"Spain is weak ({k}).", "END PRESS")
    ]
    r = _handle(world, world.mail(ADDR["Alice"], "hh", lines, mid="<press-3@players.test>"))
    assert r.kind == "accepted"
    press = [to for to, purpose, _ in _new_mail(world, last) if purpose == "press"]
    assert sorted(press) == sorted([ADDR["Bob"], ADDR["Carol"]] * budgets.MAX_PRESS)


def test_one_order_line_naming_a_card_a_thousand_times_is_refused_quickly(world: World) -> None:
    orders, events, last = world.counts()
    line = "MELD " + " ".join(["holy roman empire"] * 1000)
    mail = world.mail(ADDR["Bob"], "hh", [f"CODE {CODES['Bob']}", line], mid="<cards-1000@players.test>")
    spent = _cpu(world, mail, "rejected")
    assert world.counts()[:2] == (orders, events)
    (to, _, raw), *_ = _new_mail(world, last)
    assert to == ADDR["Bob"]
    assert f"at most {budgets.MAX_ORDER_CHARS}" in _text(raw)
    # the same mail with an ordinary line costs about as much: the refusal costs nothing extra
    plain = world.mail(ADDR["Bob"], "hh", [f"CODE {CODES['Bob']}", "PASS"], mid="<cards-1@players.test>")
    assert spent / max(_cpu(world, plain), 0.01) < 20


def _code_lines(n_bytes: int, seed: int = 1) -> list[str]:
    import random
    import string

    rng = random.Random(seed)
    lines, size = [], 0
    while size < n_bytes:
        line = "CODE " + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(rng.randint(8, 60)))
        lines.append(line)
        size += len(line) + 1
    return lines


def test_a_250_kb_strangers_mail_of_code_lines_costs_a_constant_times_a_plain_one(world: World) -> None:
    """It took 62 s and 1.16 GiB; now it is handled like any stranger's mail of its size, and kept without body."""
    size = 240 * 1024
    codes, words = _code_lines(size), ["Hello there, what is this game?"] * (size // 32)
    hostile = [world.mail("mallory@evil.test", "hh", codes, mid=f"<codes-250k-{i}@evil.test>") for i in range(3)]
    plain = [world.mail("eve@evil.test", "hh", words, mid=f"<plain-{i}@x>") for i in range(3)]
    # each the least of three copies (new Message-IDs, so each is read afresh): the machine is shared
    times = [min(_cpu(world, raw, "ignored") for raw in copies) for copies in (hostile, plain)]
    assert times[0] / times[1] < 10, times
    _, _, stored = world.con.execute(
        "SELECT outcome, reason, raw FROM inbound_messages WHERE message_id = '<codes-250k-0@evil.test>'"
    ).fetchone()
    assert b"states more than" in stored and b"CODE " not in stored


def test_a_mail_stating_more_codes_than_one_redaction_looks_for_keeps_no_body(world: World) -> None:
    orders, events, last = world.counts()
    lines = [f"CODE {CODES['Carol']}", "PASS"] + [f"CODE ZZ{i:02d}-QQQQ" for i in range(MAX_CODES + 4)]
    r = _handle(world, world.mail(ADDR["Carol"], "hh", lines, mid="<many-codes@players.test>"))
    assert r.kind == "rejected"
    _, _, stored = _last_inbound(world)
    assert CODES["Carol"].encode() not in stored and b"ZZ00" not in stored
    (to, _, raw), *_ = _new_mail(world, last)
    assert to == ADDR["Carol"] and f"more than {MAX_CODES} different codes" in _text(raw)
    assert world.counts()[:2] == (orders, events)


def test_a_poll_over_maildir_files_every_over_budget_mail_and_moves_on(world: World) -> None:
    press = [f"CODE {CODES['Alice']}"] + [x for k in range(200) for x in ("PRESS TO ALL", f"hi ({k})", "END PRESS")]
    msgs = [
        world.mail(ADDR["Alice"], "hh", press, mid="<poll-press@players.test>"),
        world.mail("mallory@evil.test", "hh", _code_lines(200 * 1024, 2), mid="<poll-codes@evil.test>"),
        world.mail(ADDR["Bob"], "hh", ["MELD " + "spain " * 800], mid="<poll-cards@players.test>"),
    ]
    kp.deliver_in_order(world.cfg, msgs)
    r = kp.run_poll(world.cfg)
    assert r.returncode == 0, r.stderr[-3000:]
    assert kp.inbox_count(world.cfg) == 0
    assert kp.inbox_count(world.cfg, "rejected") >= 3


def test_an_unmarked_autoresponder_stops_being_answered(world: World) -> None:
    from pbem.app import loops

    answered = []
    for n in range(loops.CHATTER_ANSWERED + 3):
        _, _, last = world.counts()
        away = world.mail(ADDR["Carol"], "hh", ["I am away until Monday.", "Regards"], mid=f"<away-{n}@players.test>")
        _handle(world, away)
        answered.append(sum(1 for to, _, _ in _new_mail(world, last) if to == ADDR["Carol"]))
    assert answered == [1] * loops.CHATTER_ANSWERED + [0] * 3, answered
    assert _last_inbound(world)[0] == "ignored"
    _, _, last = world.counts()  # orders (here: a command) are still answered
    _handle(world, world.mail(ADDR["Carol"], "hh", [f"CODE {CODES['Carol']}", "STATUS"], mid="<carol-status@p>"))
    assert any(to == ADDR["Carol"] for to, _, _ in _new_mail(world, last))


def test_made_up_codes_from_a_player_of_another_game_cost_a_bounded_number_of_derivations(world: World) -> None:
    from pbem.app import derivations
    from pbem.trust import codes

    derivations.new_poll()
    try:
        _count_derivations(world, derivations, codes)
    finally:
        derivations.end_poll()


def _count_derivations(world: World, derivations, codes) -> None:
    before = codes.derivations
    for n in range(20):  # Alice plays hh and iw; she names dy (Dave, Erin) with a new made-up code each time
        made_up = f"Q{n:03d}-ZZZZ"
        r = _handle(world, world.mail(ADDR["Alice"], "dy", [f"CODE {made_up}", "PASS"], mid=f"<madeup-{n}@p>"))
        assert r.kind == "rejected"  # told they do not play dy (players15), within their answers budget
    spent = codes.derivations - before
    assert 0 < spent <= derivations.DERIVATIONS_PER_SENDER, spent
    derivations.new_poll()  # the next poll: a new budget
    _handle(world, world.mail(ADDR["Alice"], "dy", ["CODE Q999-ZZZZ", "PASS"], mid="<madeup-next@p>"))
    assert codes.derivations - before == spent + 2
