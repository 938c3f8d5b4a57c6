"""Issue 25: fairness that holds against the moderator.  Each test plays a real game (pbem.cli.demo), performs one
attack of the issue as a dishonest moderator (or a curious player) would, and shows the check that now catches it.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.history.export import verify
from pbem.home.app import Home
from pbem.trust import chain
from pbem.trust.canonical import MAX_BYTES, BadJson, canonical, load_export
from tests.conftest import Clock

pytestmark = pytest.mark.xdist_group("fairness")  # a unit per module, not one for all


@pytest.fixture(scope="module")
def played() -> dict:
    """A finished three-player game of House of Habsburg: the moderator's export (the seeded game the history
    tests play too, played once per test run: `seeded_export`)."""
    from tests.test_history_golden import seeded_export

    return {"doc": seeded_export("habsburg")}


def _rechain(doc: dict) -> dict:
    """Recompute every hash and the head, as a moderator who rewrites the whole chain can."""
    rows = chain.sequence(doc["orders"], doc["events"])
    head = doc["seed_commitment"]
    for row in rows:
        head = chain.link(head, chain.entry_of(row))
        row["hash"] = head
    doc["chain"] = dict(doc["chain"], head=head, entries=len(rows))
    return doc


def _refused(doc: dict, *words: str) -> str:
    v = verify(doc)
    assert not v.ok, "verify passed a tampered export"
    assert all(w in v.problem for w in words), v.problem
    return v.problem


def _cli_verify(path: Path, *more: str):
    from pbem.cli import app

    return CliRunner().invoke(app, ["verify", str(path), *more])


# ------------------------------------------------------------------ 1. verify reads strictly, checks every field


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 1000 + "]" * 1000, "nests 1000 levels deep"),
        ('{"format": "pbem-history", "format": "other"}', "appears twice"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": 9007199254740993}', "outside the range RFC 8785"),
        ('{"a": [1, 2', "not valid JSON"),
        (b'{"a": "\xff"}', "not UTF-8"),
    ],
)
def test_hostile_json_is_refused_in_one_line(text: str | bytes, words: str, tmp_path: Path) -> None:
    with pytest.raises(BadJson, match=words):
        load_export(text)
    path = tmp_path / "bad.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    res = _cli_verify(path)
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1, res.output


def test_an_oversized_export_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(BadJson, match="more than the"):
        load_export(" " * (MAX_BYTES + 1))


def test_canonical_json_is_rfc_8785_and_keeps_every_chained_hash(played) -> None:
    """The chain hashes of a real export are those of RFC 8785: the format version need not change."""
    doc = played["doc"]
    import rfc8785

    rows = chain.sequence(doc["orders"], doc["events"])
    for row in rows:
        entry = chain.entry_of(row)
        assert canonical(entry) == rfc8785.dumps(entry)
        legacy = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        assert canonical(entry) == legacy
    assert verify(doc).ok


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.__setitem__("version", True), "version must be int"),
        (lambda d: d["game"].__setitem__("over", "yes"), "over must be bool"),
        (lambda d: d.__setitem__("comment", "trust me"), "'comment', which this pbem does not know"),
        (lambda d: d["events"][3].__setitem__("note", "x"), "'note', which this pbem does not know"),
        (lambda d: d["orders"][0].__setitem__("lines", [1]), "every line of orders[1] must be text"),
    ],
)
def test_fields_of_the_wrong_type_or_unknown_fields_are_refused(played, edit, words: str) -> None:
    doc = copy.deepcopy(played["doc"])
    edit(doc)
    _refused(doc, words)


def test_an_edited_final_view_is_refused(played) -> None:
    doc = copy.deepcopy(played["doc"])
    sections = doc["final_view"]["sections"]
    sections.append(copy.deepcopy(sections[0]))
    _refused(doc, "final view")


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.__setitem__("finished", "2027-01-01T00:00:00+00:00"), "said to end at"),
        (lambda d: d["game"].__setitem__("created", "2099-01-01T00:00:00+00:00"), "said to be created at"),
        (lambda d: d["players"][1].__setitem__("seat", 0), "seat order"),
        (lambda d: d["messages"].append(copy.deepcopy(d["messages"][0])), "listed twice"),
    ],
)
def test_unchained_fields_that_disagree_with_the_chain_are_refused(played, edit, words: str) -> None:
    doc = copy.deepcopy(played["doc"])
    edit(doc)
    _refused(doc, words)


def test_a_chainless_or_legacy_marked_export_with_a_fake_event_is_refused(played, tmp_path: Path) -> None:
    """Issue 25: verify trusted its own downgrade paths: stripping the chain let a fake press event in."""
    doc = copy.deepcopy(played["doc"])
    fake = {
        "seq": len(doc["events"]) + 1,
        "input_seq": len(doc["orders"]),
        "at": doc["events"][-1]["at"],
        "kind": "press",
        "text": "Alice conceded the game to Bob.",
        "visibility": "public",
        "data": {},
    }
    doc["events"].append(fake)
    del doc["chain"]
    for row in doc["orders"] + doc["events"]:
        row.pop("hash", None)
    _refused(doc, "no hash chain", "--legacy")
    path = tmp_path / "downgraded.json"
    path.write_text(json.dumps(doc))
    res = _cli_verify(path)
    assert res.exit_code == 1 and "no hash chain" in res.output and "verification passed" not in res.output


def test_a_revealed_weak_seed_is_warned_about_even_when_not_marked(played) -> None:
    """Issue 25: verify was silent on a revealed seed weaker than pbem's own rule (the demo's seed is a name)."""
    v = verify(copy.deepcopy(played["doc"]))
    assert v.ok and any(n.startswith("WARNING: the revealed seed is weaker") for n in v.notes), v.notes


# ------------------------------------------------------------------ secret inputs are salted


def test_every_input_is_salted_so_bracketing_receipts_reveal_nothing(played) -> None:
    """Issue 25: an input that produces no event was chained without a salt: with the heads before and after it
    (two receipts in another player's mail) its lines could be confirmed by guessing.  Now each carries a salt the
    seed gives; a guess without the seed no longer reproduces the head."""
    doc = copy.deepcopy(played["doc"])
    rows = chain.sequence(doc["orders"], doc["events"])
    at = {id(r): i for i, r in enumerate(rows)}
    order = doc["orders"][len(doc["orders"]) // 2]
    assert order["salt"] == chain.input_salt(doc["seed"], order["seq"])
    i = at[id(order)]
    before = rows[i - 1]["hash"] if i else doc["seed_commitment"]
    guess = chain.input_entry(
        order["seq"], order["kind"], order["player"], order["lines"], order["message_id"], order["at"]
    )
    assert chain.link(before, guess) != order["hash"]  # the right guess, unsalted: no match
    order["salt"] = "0" * 32
    _refused(_rechain(doc), f"the salt of input {order['seq']}")
    doc = copy.deepcopy(played["doc"])
    del doc["orders"][5]["salt"]
    _refused(_rechain(doc), f"input {doc['orders'][5]['seq']} carries no salt")


# ------------------------------------------------------------------ an abandoned game reveals its seed


def test_an_abandoned_game_reveals_its_seed_and_verifies_up_to_the_abandon(tmp_path: Path) -> None:
    from pbem.app.control import abandon
    from pbem.cli.demo import run
    from pbem.history.export import build
    from pbem.home import config as config_mod
    from pbem.record.db import session
    from pbem.record.store import game_by_name

    clock = Clock()
    r = run("dynasties", 3, "fair-abandon", tmp_path / "home", clock=clock, max_polls=4)
    assert not r.verified
    cfg = config_mod.load(tmp_path / "home" / "pbem.toml")
    abandon(Home.of(cfg), r.game, clock())
    with session(cfg.database_url) as s:
        game = game_by_name(s, r.game)
        assert game is not None
        public = build(s, game, public=True)
    assert public["game"]["abandoned"] is True and public["seed"] and public["orders"]
    v = verify(public)
    assert v.ok, v.problem
    assert any("abandoned: proven up to entry" in c for c in v.checked)
    public["events"] = public["events"][:-1]  # the abandon event cut off: the claim is refused
    _refused(_rechain(public), "not the moderator's abandon")


# ------------------------------------------------------------------ 2. one history for everyone: signed receipts


def _box(sent: Path, address: bytes, into: Path, edit=None) -> Path:
    """The mails the moderator sent to `address`, as that player's Maildir (`edit` may change each raw mail)."""
    import mailbox
    import re

    src = mailbox.Maildir(str(sent), factory=None, create=False)
    box = mailbox.Maildir(str(into), factory=None, create=True)
    for key in src.iterkeys():
        raw = src.get_bytes(key)
        if re.search(rb"^To: .*<" + re.escape(address) + rb">", raw, re.M):
            box.add(edit(raw) if edit else raw)
    return into


@pytest.fixture(scope="module")
def split_game(tmp_path_factory, request) -> dict:
    """A copied home run as two records (the same seed and the same game key), one per player: Alice's copy and
    Bob's copy part at Alice's third order and end differently."""
    from pbem.cli.demo import run
    from pbem.trust import signing
    from tests.test_verify_mail import _one_different_order

    root = tmp_path_factory.mktemp("split")
    key = signing.new_key()
    mp = pytest.MonkeyPatch()
    mp.setattr(signing, "new_key", lambda: key)  # the copy of the home holds the same key
    try:
        a = run("italian-wars", 2, "split-seed", root / "a", clock=Clock())
        b = run("italian-wars", 2, "split-seed", root / "b", clock=Clock(), style=_one_different_order())
    finally:
        mp.undo()
    alice = _box(a.home / "mail" / "sent", b"alice@players.example", root / "alice")
    bob = _box(b.home / "mail" / "sent", b"bob@players.example", root / "bob")
    return {"a": a, "b": b, "alice": alice, "bob": bob, "root": root, "key": key}


def test_the_export_and_every_receipt_are_signed_by_the_game_key(split_game) -> None:
    from pbem.trust import signing

    doc = json.loads(split_game["a"].export.read_text())
    fp = signing.fingerprint(doc["game"]["key"])
    v = verify(doc)
    assert v.ok and any(f"signed by the game key, fingerprint {fp}" in c for c in v.checked), v
    from email import message_from_bytes, policy

    first = [
        message_from_bytes(p.read_bytes(), policy=policy.default)
        for p in (split_game["alice"] / "new").iterdir()
        if b"X-Pbem-Commitment" in p.read_bytes()
    ]
    assert first and all("X-Pbem-Signature" in m for m in first)
    body = first[0].get_body(("plain",))
    assert body is not None and fp in body.get_content(), body
    edited = copy.deepcopy(doc)
    edited["game"]["options"] = {"variant": "short"}  # outside the chain: bound by the signature
    _refused(edited, "fields outside the chain", "edited")
    edited = copy.deepcopy(doc)
    del edited["signature"]
    _refused(edited, "not signed")


def test_two_players_shown_different_histories_find_out_from_their_mailboxes(split_game) -> None:
    """Issue 25: each player's own `verify --mail` passed on their own record.  Now the signed heads of both
    mailboxes are compared: different heads at one position, both signed by the game key, are proof."""
    code_a = _cli_verify(split_game["a"].export, "--mail", str(split_game["alice"]))
    assert code_a.exit_code == 0, code_a.output  # Alice alone sees nothing wrong with her record
    res = _cli_verify(split_game["a"].export, "--mail", str(split_game["alice"]), "--mail", str(split_game["bob"]))
    assert res.exit_code == 1, res.output
    assert "SPLIT HISTORY" in res.output and "both signed by the game key" in res.output, res.output
    assert "MISMATCH" in res.output  # Bob's signed heads are not on the export's chain either


def test_a_made_up_mail_cannot_make_an_honest_export_fail(split_game, tmp_path: Path) -> None:
    """Issue 25: receipts were not authenticated, so a player could make up a mail with a wrong head and claim
    the honest export failed.  An unsigned (or altered) receipt is now reported and not trusted."""
    import mailbox

    box = tmp_path / "alice"
    import shutil

    shutil.copytree(split_game["alice"], box)
    md = mailbox.Maildir(str(box), factory=None, create=False)
    raw = md.get_bytes(sorted(md.keys())[-1])
    forged = raw.replace(b"X-Pbem-Record: ", b"X-Pbem-Record: 3 " + b"ab" * 32 + b"\nX-Old-Record: ", 1)
    md.add(forged)
    res = _cli_verify(split_game["a"].export, "--mail", str(box))
    assert res.exit_code == 0, res.output
    assert "not signed by the game key" in res.output and "not trusted" in res.output


def test_an_invisible_character_in_the_game_tag_hides_no_signed_mail(split_game, tmp_path: Path) -> None:
    """Issue 25: --mail skipped mails whose game tag held a zero-width character; a signed receipt is about the
    game whatever its subject says."""
    zw = "\u200b".encode()

    def hide(raw: bytes) -> bytes:
        return raw.replace(b"[pbem ", b"[pbem" + zw + b" ", 1) if b"Subject: =?" not in raw else raw

    bob = _box(split_game["b"].home / "mail" / "sent", b"bob@players.example", tmp_path / "bob", hide)
    res = _cli_verify(split_game["a"].export, "--mail", str(bob))
    assert res.exit_code == 1 and "MISMATCH" in res.output, res.output


@pytest.mark.parametrize("seed", ["split-seed", "another-seed"])
def test_a_record_under_another_key_is_named_by_its_fingerprint(split_game, tmp_path: Path, seed: str) -> None:
    """A second record made for one player (a new game, from the same seed or another) has its own key: none of
    the player's receipts is signed by the export's key, and verify says, as one mismatch, which key and
    commitment the mail carries and which the export has; not that the mail carries no receipt or commitment."""
    from pbem.trust import signing

    other = run_demo(seed, tmp_path / "other")
    doc = json.loads(other.export.read_text())
    res = _cli_verify(other.export, "--mail", str(split_game["alice"]))
    assert res.exit_code == 1, res.output
    mine = signing.fingerprint(signing.public_key(split_game["key"]))
    theirs = signing.fingerprint(doc["game"]["key"])
    mailed = json.loads(split_game["a"].export.read_text())["seed_commitment"]
    line = next(x for x in res.output.splitlines() if x.startswith("MISMATCH"))
    assert f"your mail is signed by the game key {mine} and commits to the seed {mailed[:16]}" in line, line
    assert f"this export has the key {theirs} and the commitment {doc['seed_commitment'][:16]}" in line, line
    assert "it is another game" in line
    assert "carries a record receipt" not in res.output and "no mail states the seed commitment" not in res.output


def test_a_re_keyed_rewritten_history_cannot_disown_the_receipts_of_the_invitations_key(split_game, tmp_path: Path):
    """Red team (redteam branch): pbem never changes a game's key, but the moderator holds the record.  He re-keys the
    game, publishes another history from the same seed (replayed exactly, so `pbem verify` passes) signed by the new
    key, and mails each player one report under the new key with its head.  `verify --mail` then trusted only the
    export's key: the 30-odd receipts signed by the key of the invitation were "not trusted, not checked" (a note),
    and it passed.  Receipts for the game signed by two keys are now a mismatch naming both fingerprints."""
    import mailbox
    from datetime import UTC, datetime

    from pbem.mail.outbound.compose import Body, Envelope, compose
    from pbem.mail.outbound.outgoing import Receipt
    from pbem.trust import signing

    forged = json.loads(split_game["b"].export.read_text())  # Bob's copy: another history from the same seed
    new_key = signing.new_key()
    forged["game"]["key"] = signing.public_key(new_key)
    forged["signature"] = signing.export_signature(new_key, forged)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert verify(forged).ok  # the rewritten history itself is sound: only the players' mail can tell
    box = tmp_path / "alice"
    shutil.copytree(split_game["alice"], box)
    receipt = Receipt(
        forged["chain"]["entries"],
        forged["chain"]["head"],
        game=forged["game"]["name"],
        header=signing.header_of_export(forged),
        key=new_key,
    )
    envelope = Envelope(
        sender="moderator@pbem.example",
        sender_name="pbem",
        to="alice@players.example",
        to_name="Alice",
        message_id="<pbem.correction@pbem.example>",
        when=datetime(2030, 1, 1, tzinfo=UTC),
        extra=receipt.headers(),
    )
    mailbox.Maildir(str(box), factory=None, create=False).add(
        compose(envelope, Body(f"[pbem {forged['game']['name']}] The final record", "Game over.\n"))
    )
    res = _cli_verify(path, "--mail", str(box))
    assert res.exit_code == 1, res.output
    old = signing.fingerprint(signing.public_key(split_game["key"]))
    line = next(x for x in res.output.splitlines() if x.startswith("MISMATCH") and "two keys" in x)
    assert old in line and signing.fingerprint(forged["game"]["key"]) in line, line
    assert "invitation" in line, line


def run_demo(seed: str, home: Path):
    from pbem.cli.demo import run

    return run("italian-wars", 2, seed, home, clock=Clock())


# ------------------------------------------------------------------ 3. a player's outbox is evidence


def _sent_box(home: Path, address: bytes, into: Path) -> Path:
    """What the player sent: the moderator's processed inbound mail from `address`, as their Sent Maildir."""
    import mailbox
    import re

    src = mailbox.Maildir(str(home / "mail" / "processed"), factory=None, create=False)
    box = mailbox.Maildir(str(into), factory=None, create=True)
    for key in src.iterkeys():
        raw = src.get_bytes(key)
        if re.search(rb"^From: .*" + re.escape(address), raw, re.M):
            box.add(raw)
    return into


def test_the_players_sent_folder_catches_substituted_invented_and_dropped_orders(split_game, tmp_path: Path) -> None:
    """Issue 25: a substituted, an invented and a dropped order passed verify and verify --mail (the export's inputs
    are whatever the moderator recorded).  The player's own Sent folder shows all three."""
    import mailbox

    from pbem.trust.receipts import read_folder
    from pbem.trust.sent import check_sent

    a = split_game["a"]
    sent = _sent_box(a.home, b"alice@players.example", tmp_path / "alice-sent")
    res = _cli_verify(a.export, "--sent", str(sent))
    assert res.exit_code == 0 and "applied as written" in res.output, res.output
    doc = json.loads(a.export.read_text())
    theirs = [o for o in doc["orders"] if o["player"] == "Alice" and o["kind"] == "orders"]
    assert len(theirs) >= 3

    substituted = copy.deepcopy(doc)
    victim = next(o for o in substituted["orders"] if o["seq"] == theirs[1]["seq"])
    victim["lines"] = ["DISCARD Ditch"] if victim["lines"] != ["DISCARD Ditch"] else ["PASS"]
    c = check_sent(substituted, read_folder(sent))
    assert not c.ok and any(
        p.startswith("SUBSTITUTED") and f"input {victim['seq']}: {victim['lines'][0]}" in p for p in c.problems
    )

    dropped = copy.deepcopy(doc)
    mid = theirs[2]["message_id"]
    dropped["messages"] = [m for m in dropped["messages"] if m["message_id"] != mid]
    c = check_sent(dropped, read_folder(sent))
    assert not c.ok and any(p.startswith("DROPPED") and mid.strip("<>").lower() in p for p in c.problems), c.problems

    md = mailbox.Maildir(str(sent), factory=None, create=False)  # the invented one: she never sent it
    for key in md.iterkeys():
        if theirs[0]["message_id"].encode() in md.get_bytes(key):
            md.remove(key)
    res = _cli_verify(a.export, "--sent", str(sent))
    assert res.exit_code == 1 and f"INVENTED: input {theirs[0]['seq']}" in res.output, res.output


def test_sent_is_given_once_per_folder_and_a_mail_in_two_of_them_is_read_once(split_game, tmp_path: Path) -> None:
    """fairness25: a player who wrote from two addresses (a seat moved with ADDRESS) gives both Sent folders, each
    with its own --sent, instead of copying one into the other; a mail in both (one client, two accounts) is one."""
    import mailbox

    a = split_game["a"]
    whole = _sent_box(a.home, b"alice@players.example", tmp_path / "alice-sent")
    parts = [mailbox.Maildir(str(tmp_path / f"part{n}"), factory=None, create=True) for n in range(2)]
    for n, key in enumerate(sorted(mailbox.Maildir(str(whole), factory=None, create=False).iterkeys())):
        parts[n % 2].add(mailbox.Maildir(str(whole), factory=None, create=False).get_bytes(key))
    one, two = str(tmp_path / "part0"), str(tmp_path / "part1")
    res = _cli_verify(a.export, "--sent", one, "--sent", two)
    assert res.exit_code == 0 and "applied as written" in res.output, res.output
    res = _cli_verify(a.export, "--sent", str(whole), "--sent", one)
    assert res.exit_code == 0 and "applied as written" in res.output, res.output
    res = _cli_verify(a.export, "--sent", one)
    assert res.exit_code == 1 and "INVENTED" in res.output, res.output


def test_a_mail_the_moderator_held_back_past_a_deadline_is_shown_by_the_players_sent_folder(
    split_game, tmp_path
) -> None:
    """Red team: a moderator who sits on a player's mail until the deadline has applied the defaults, then records
    it as arrived late, passed every check (the arrival time is his word).  The player's Sent copy carries when
    it was sent: sent more than an hour before a deadline input and recorded after it is HELD BACK; a mail a few
    minutes in transit across a deadline is not."""
    from datetime import datetime, timedelta
    from email.utils import format_datetime

    from pbem.trust.receipts import read_folder
    from pbem.trust.sent import check_sent

    a = split_game["a"]
    doc = json.loads(a.export.read_text())
    target = [o for o in doc["orders"] if o["player"] == "Alice" and o["kind"] == "orders"][1]
    at = datetime.fromisoformat(target["at"])
    mid = target["message_id"].encode()

    def dated(raw: bytes) -> bytes:
        eol = b"\r\n" if b"\r\n" in raw[:200] else b"\n"
        return (b"Date: " + format_datetime(at - timedelta(minutes=5)).encode() + eol + raw) if mid in raw else raw

    raws = [dated(r) for r in read_folder(_sent_box(a.home, b"alice@players.example", tmp_path / "sent"))]
    assert sum(mid in r for r in raws) == 1
    assert check_sent(doc, raws).ok  # honest: sent five minutes before it arrived, no deadline between

    def held(deadline_after: timedelta, arrived_after: timedelta) -> list[str]:
        forged = copy.deepcopy(doc)
        forged["orders"].append(
            {"seq": 10_000, "kind": "deadline", "player": "", "lines": [], "message_id": "",
             "at": (at + deadline_after).isoformat()}
        )  # fmt: skip
        rec = next(m for m in forged["messages"] if m["message_id"] == target["message_id"])
        rec["received"] = (at + arrived_after).isoformat()
        return check_sent(forged, raws).problems

    problems = held(timedelta(hours=2), timedelta(hours=3))
    assert any(p.startswith("HELD BACK") and "input 10000" in p and "2.1 hours before" in p for p in problems), problems
    assert not any(p.startswith("HELD BACK") for p in held(timedelta(minutes=10), timedelta(minutes=20)))


# ------------------------------------------------------------------ 5. a missing contribution to the deal is stated


def test_a_deal_without_a_players_salt_is_stated_by_verify(tmp_path: Path) -> None:
    """Issue 25: a JOIN without a salt (or a player who never joined) left the deal to the others' salts, and a deal
    with no salt at all to the moderator's seed alone; verify accepted both silently.  Now it says so."""
    from pbem.cli.demo import run

    r = run("habsburg", 3, None, tmp_path / "home", clock=Clock(), join_salts={"Alice": "my own words", "Bob": ""})
    doc = json.loads(r.export.read_text())
    v = verify(doc)
    assert v.ok, v.problem
    warning = next(n for n in v.notes if n.startswith("WARNING: the deal has no contribution from"))
    assert "Bob (no salt)" in warning and "Carol (no salt)" in warning and "Alice" not in warning
    assert "only the other players' salts" in warning
