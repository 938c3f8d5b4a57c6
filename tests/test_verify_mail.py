"""`pbem verify EXPORT --mail DIR --as PLAYER` on a player's real mail (issue 13).

A short game (Italian Wars, two bots) is played end to end over the Maildir
transport; Alice's received mail is taken from the moderator's `sent` folder
into a Maildir of her own.  Her mail agrees with the true export, and is
refused, naming the mail and the entry, by the export of a different game
played from the same seed with one different order, and by the true export
with one of her orders changed.
"""

from __future__ import annotations

import copy
import json
import mailbox
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.demo import Bot, legal_lines, run
from tests.conftest import Clock

# one worker runs the module: its two games (module fixture) are played once per run, not once per worker
pytestmark = pytest.mark.xdist_group("verify-mail")

SEED = "verify-mail"
CHANGED = 3  # the how-manyth order of Alice the other game changes


def _one_different_order() -> Any:
    """A bot style that plays Alice's CHANGED-th order differently (another legal order), all else the same."""
    sent = {"n": 0}

    def style(bot: Bot, lines: list[str], game: str, moderator: str, reply_to: str | None, report: str) -> bytes:
        plain = Bot(bot.name, bot.address, bot.rng)
        plain.code = bot.code
        if bot.name == "Alice" and lines != ["STATUS"]:
            sent["n"] += 1
            others = [line for line in legal_lines(report) if line not in lines]
            if sent["n"] == CHANGED and others:
                lines = [others[0]]
        return plain.order_mail(lines, game, moderator, reply_to)

    return style


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, Any]:
    from pbem.trust import signing

    root = tmp_path_factory.mktemp("verify-mail")
    key = signing.new_key()
    mp = pytest.MonkeyPatch()
    mp.setattr(signing, "new_key", lambda: key)  # the other game is a copy of the home: the same game key
    try:
        true = run("italian-wars", 2, SEED, root / "true", clock=Clock())
        other = run("italian-wars", 2, SEED, root / "other", clock=Clock(), style=_one_different_order())
    finally:
        mp.undo()
    sent = mailbox.Maildir(str(true.home / "mail" / "sent"), factory=None, create=False)
    alice = mailbox.Maildir(str(root / "alice"), factory=None, create=True)
    for key in sent.iterkeys():
        raw = sent.get_bytes(key)
        if re.search(rb"^To: .*<alice@players\.example>", raw, re.M):
            alice.add(raw)
    return {
        "true": true.export,
        "other": other.export,
        "alice": root / "alice",
        "sent": true.home / "mail" / "sent",
        "home": true.home,
    }


def _verify(export: Path, folder: Path, *extra: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["verify", str(export), "--mail", str(folder), *extra])
    return res.exit_code, res.output


def test_alices_mail_agrees_with_the_true_export(games) -> None:
    code, out = _verify(games["true"], games["alice"], "--as", "Alice")
    assert code == 0, out
    m = re.search(r"ok: (\d+) mails to Alice: (\d+) record heads .*, (\d+) acknowledged inputs unchanged, 1 comm", out)
    assert m and int(m[1]) == int(m[2]) > 10 and int(m[3]) > 3, out
    assert out.rstrip().endswith("verification passed")
    code, out = _verify(games["true"], games["sent"])  # everyone's mail: whose is to be said
    assert code == 2 and "choose one with --as" in out and len(out.strip().splitlines()) == 1  # a usage error
    code, out = _verify(games["true"], games["sent"], "--as", "alice@players.example")
    assert code == 0, out


def test_the_export_of_another_game_from_the_same_seed_is_refused(games) -> None:
    true, other = json.loads(games["true"].read_text()), json.loads(games["other"].read_text())
    assert true["seed_commitment"] == other["seed_commitment"]
    assert true["orders"] != other["orders"]
    alone = CliRunner().invoke(app, ["verify", str(games["other"])])
    assert alone.exit_code == 0, alone.output  # the other export verifies by itself...
    code, out = _verify(games["other"], games["alice"], "--as", "Alice")
    assert code == 1 and "MISMATCH: the mail of " in out  # ...but not against Alice's mail
    first = next(line for line in out.splitlines() if line.startswith("MISMATCH"))
    assert re.search(r'the mail of \w{3}, \d\d \w{3} 2026 [\d:]+ \+0000 "[^"]*\[pbem italian-wars-demo\]', first)
    assert re.search(r"entry \d+, (input|event) \d+ \(", first), first
    assert "ok: SHA-256(seed) equals the commitment" in out


def test_one_changed_order_in_the_export_is_named(games, tmp_path: Path) -> None:
    doc = json.loads(games["true"].read_text())
    order = [o for o in doc["orders"] if o["player"] == "Alice"][CHANGED - 1]
    forged = copy.deepcopy(doc)
    target = next(o for o in forged["orders"] if o["seq"] == order["seq"])
    target["lines"] = ["DISCARD Papal Troops"] if order["lines"] != ["DISCARD Papal Troops"] else ["PASS"]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    code, out = _verify(path, games["alice"], "--as", "Alice")
    assert code == 1
    first = next(line for line in out.splitlines() if line.startswith("MISMATCH"))
    assert f"acknowledged your orders as input {order['seq']} with hash {order['hash'][:16]}" in first, out
    assert f"input {order['seq']} (Alice: {target['lines'][0]})" in first and "it was changed" in first


def test_each_acknowledgement_carries_the_head_after_its_input_and_that_inputs_events(games) -> None:
    from pbem.trust import chain
    from pbem.trust.receipts import parse_mail, read_folder

    doc = json.loads(games["true"].read_text())
    rows = chain.sequence(doc["orders"], doc["events"])

    def seen(row) -> bool:  # what Alice may see: her inputs, the moderator's, events public or shown to her
        if "lines" in row:
            return row["player"] in ("", "Alice")
        return row["visibility"] == "public" or "Alice" in row["visibility"]

    counted = 0
    last_of = {}  # input seq -> (Alice's count of entries up to its last one she may see, the hash there)
    for row in rows:
        if seen(row):
            counted += 1
            seq = row["seq"] if "lines" in row else row["input_seq"]
            last_of[seq] = (counted, row["hash"])
    acks = [m for m in map(parse_mail, read_folder(games["alice"])) if m.input is not None]
    assert len(acks) > 3
    for m in acks:
        number, digest = m.input
        order = next(o for o in doc["orders"] if o["hash"] == digest)
        seq = order["seq"]
        assert order["player"] == "Alice"
        assert m.record == last_of[seq], (m.subject, seq)  # her receipt counts per reader (issue 26)
        # and so does the input's number: its place among what she may see, not among every player's inputs
        assert number == [r["hash"] for r in rows if seen(r)].index(digest) + 1, (m.subject, number, seq)
    assert any(m.record[1] != m.input[1] for m in acks), "some inputs had events she may see"


def _alices_brackets(games) -> tuple[dict[str, Any], list[tuple[str, list[dict[str, Any]], str, bytes]]]:
    """Each acknowledgement of Alice's that brackets an event hidden from her: (the hash of her input, the
    entries after it up to the mail's head, that head, the mail)."""
    from pbem.trust import chain
    from pbem.trust.receipts import _Chain, parse_mail

    doc = json.loads(games["true"].read_text())
    rows = chain.sequence(doc["orders"], doc["events"])
    where = {("text" in r, r["seq"]): i for i, r in enumerate(rows)}
    out = []
    for key in mailbox.Maildir(str(games["alice"]), factory=None, create=False).iterkeys():
        raw = mailbox.Maildir(str(games["alice"]), factory=None, create=False).get_bytes(key)
        mail = parse_mail(raw)
        if mail.input is None or mail.record is None:
            continue
        at = _Chain.of(doc).position(*mail.record, "Alice")  # her receipt counts what she may see (issue 26)
        seq = next(o["seq"] for o in doc["orders"] if o["hash"] == mail.input[1])  # numbered per reader
        between = rows[where[(False, seq)] + 1 : at]
        if any("text" in r and r["visibility"] != "public" and "Alice" not in r["visibility"] for r in between):
            out.append((mail.input[1], between, mail.record[1], raw))
    return doc, out


def test_the_heads_in_alices_mail_cannot_confirm_a_guess_of_an_event_hidden_from_her(games) -> None:
    """The mail of Alice's own orders carries the hash of her input and the head after the events those orders
    caused, some of them hidden from her (Bob's private draw).  Knowing every other field of those entries,
    even the exact time and the true hidden text, she still cannot confirm the guess: a hidden event's entry
    holds a salt derived from the secret seed, which no mail of hers holds."""
    from pbem.trust import chain

    doc, brackets = _alices_brackets(games)
    assert brackets, "the game should have an acknowledgement of Alice's that brackets a hidden event"
    for start, between, head, raw in brackets:
        hidden = [r for r in between if "text" in r and r["visibility"] != "public" and "Alice" not in r["visibility"]]
        assert all(r["salt"] == chain.entry_salt(doc["seed"], r["seq"]) for r in hidden)
        assert not any(r["salt"].encode() in raw for r in hidden)  # no salt of a hidden event is in her mail
        real = guessed = start
        for r in between:
            real = chain.link(real, chain.entry_of(r))
            guessed = chain.link(guessed, chain.entry_of({k: v for k, v in r.items() if k != "salt"}))
        assert real == head  # the salts are part of the heads she received...
        assert guessed != head  # ...so the true guess, made without them, is not confirmed by any head


def _cli(home: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, [*args[:1], "--config", str(home / "pbem.toml"), *args[1:]])
    return res.exit_code, res.output


def _pruned_copy(games: dict[str, Any], tmp_path: Path) -> Path:
    """A copy of the played game's home (the module's other tests read the original)."""
    import shutil

    return Path(shutil.copytree(games["home"], tmp_path / "home"))


def test_after_a_prune_the_export_verify_and_verify_mail_still_pass(games: dict[str, Any], tmp_path: Path) -> None:
    """`pbem prune` (months2) drops the text of the mails sent in the game once over: the moderator's export is the
    same after it, and `pbem verify` of it and `pbem verify --mail` of Alice's mailbox still pass (neither reads the
    outbox: the chain, the events and the mail read are untouched)."""
    import sqlite3

    home, alice, root = _pruned_copy(games, tmp_path), games["alice"], tmp_path
    sent_bytes = (
        "SELECT count(*), coalesce(sum(length(raw)), 0) FROM outbox JOIN outbox_mail USING (id) WHERE status = 'sent'"
    )
    first = root / "first.json"
    assert _cli(home, "export", "italian-wars-demo", "--moderator", "--output", str(first))[0] == 0
    code, said = _cli(home, "prune", "--older-than", "1d", "--dry-run")
    assert code == 0 and "would drop the text of" in said, said
    with sqlite3.connect(home / "pbem.db") as con:
        mails, before = con.execute(sent_bytes).fetchone()
    code, said = _cli(home, "prune", "--older-than", "1d")
    assert code == 0 and re.search(r"dropped the text of [1-9]\d* sent mail", said) and "pbem prune --vacuum" in said, (
        said
    )
    with sqlite3.connect(home / "pbem.db") as con:
        assert con.execute(sent_bytes).fetchone() == (mails, 0) and before > 0, said
    again = root / "again.json"
    code, said = _cli(home, "export", "italian-wars-demo", "--moderator", "--output", str(again))
    assert code == 0, said
    assert json.loads(again.read_text()) == json.loads(first.read_text())  # the moderator's: every mail read too
    code, said = _verify(again, alice, "--as", "Alice")
    assert code == 0, said
    res = CliRunner().invoke(app, ["verify", str(again)])
    assert res.exit_code == 0, res.output


def test_a_reply_to_a_pruned_final_report_is_told_the_game_is_over(games: dict[str, Any], tmp_path: Path) -> None:
    """The final report's text is gone from the record: a reply quoting it is still known by the Message-ID it
    answers, and told the game is over (its quoted copy read as chatter)."""
    from email.message import EmailMessage
    from email.utils import make_msgid

    from pbem.home import config as config_mod
    from tests.conftest import body_of, deliver, sent_mail
    from tests.test_moderator import run_poll

    home = _pruned_copy(games, tmp_path)
    _cli(home, "prune", "--older-than", "1d")
    cfg = config_mod.load(home / "pbem.toml")
    seen: set[str] = set()
    final = next(m for m in sent_mail(cfg, seen) if "Final report" in str(m["Subject"]) and "alice" in str(m["To"]))
    reply = EmailMessage()
    reply["From"], reply["To"] = str(final["To"]), str(final["From"])
    reply["Subject"] = f"Re: {final['Subject']}"
    reply["Message-ID"] = make_msgid(domain="players.example")
    reply["In-Reply-To"] = reply["References"] = str(final["Message-ID"])
    reply.set_content("Thanks, good game!\n\n> " + "\n> ".join(body_of(final).splitlines()[:20]) + "\n")
    deliver(cfg, reply.as_bytes())
    run_poll(cfg, Clock(start=datetime.now(UTC)))  # (the game's own mail, read by `sent_mail`, is the copy's)
    (answer,) = sent_mail(cfg, seen)
    assert "is over; no orders can be applied" in body_of(answer)
