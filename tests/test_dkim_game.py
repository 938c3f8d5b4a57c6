"""Issue 25: evidence the moderator cannot forge.  Real games over Maildir whose players' mails are DKIM-signed by
their provider (a test key; dkimpy signs, the key's TXT record is served from a dict in place of DNS).

pbem checks each player's mail at arrival and keeps the evidence with it; the export carries it; `pbem verify`
re-checks it offline and says per input whether the provider vouches for it.  Then the moderator's attacks, made
while the game is played so that everything else in the record stays consistent: an order recorded as another
legal order than the player's mail gave, a JOIN dropped and forged with a salt of his choosing.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from typer.testing import CliRunner

from pbem.history.export import verify
from pbem.trust import deal as joining
from pbem.trust import vouched
from tests.conftest import Clock

pytestmark = pytest.mark.xdist_group("dkim_game")  # a unit per module, not one for all

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
DER = KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
DNS = {b"s1._domainkey.players.example.": b"v=DKIM1; k=rsa; p=" + base64.b64encode(DER)}
PLAYERS = (b"alice@", b"bob@", b"carol@")


def _dns(name: bytes, timeout: int = 5) -> bytes | None:
    return DNS.get(name)


@dataclass
class Attack:
    """What the dishonest moderator does while the game is played (nothing, for the honest game)."""

    forge_join: str | None = None  # the player whose JOIN he drops and forges, unsigned, with a salt of his own
    substitute: str | None = None  # the player one of whose orders he records as another legal order
    substituted: dict[str, list[str]] = field(default_factory=dict)  # Message-ID -> the lines recorded instead
    wrote: dict[str, list[str]] = field(default_factory=dict)  # Message-ID -> what the player wrote
    html_only: str | None = None  # the player whose replies are HTML only (Outlook's), honestly recorded

    def style(self, bot, lines: list[str], game: str, moderator: str, reply_to: str | None, report_text: str) -> bytes:
        """A player as a signing provider delivers them: a reply in their thread needs no code, a new mail carries
        it.  The forged JOIN is the moderator's: it comes without the provider's signature."""
        from pbem.cli.demo import legal_lines

        forged = bot.name == self.forge_join and lines[:1] == ["JOIN"]
        if forged:
            lines = ["JOIN", "SALT ground by the moderator"]
        msg = EmailMessage()
        msg["From"] = f"{bot.name} <{bot.address}>"
        msg["To"] = moderator
        msg["Subject"] = f"Re: [pbem {game}] orders"
        msg["Date"] = "Mon, 05 Jan 2026 12:00:00 +0000"
        msg["Message-ID"] = make_msgid(domain="players.example")
        if reply_to:
            msg["In-Reply-To"] = reply_to
            msg["References"] = reply_to
        code = [f"CODE {bot.code}"] if bot.code and not reply_to else []
        if bot.name == self.html_only and reply_to:
            divs = "".join(f"<div>{x}</div>" for x in [*code, *lines, "", "sent by a pbem demo bot"])
            msg.set_content(f"<html><body>{divs}</body></html>", subtype="html")
        else:
            msg.set_content("\n".join(code + lines) + "\n\n-- \nsent by a pbem demo bot\n")
        raw = msg.as_bytes()
        mid = msg["Message-ID"].strip("<>")
        others = [x for x in legal_lines(report_text) if x not in lines]
        if bot.name == self.substitute and not self.substituted and reply_to and others:
            self.substituted[mid], self.wrote[mid] = [others[0]], list(lines)
        if forged:
            return raw
        heads = [b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to"]
        if bot.name == self.html_only:  # Outlook's provider signs the MIME fields too, so they are kept
            heads += [b"mime-version", b"content-type", b"content-transfer-encoding"]
        signature: bytes = dkimpy.sign(raw, b"s1", b"players.example", PEM, include_headers=heads)
        return signature + raw

    def scrub(self, real):
        """The moderator's pbem records another legal order than the one the player's mail gives."""

        def scrub(msg, raw, ex, limit):
            msg, raw, ex = real(msg, raw, ex, limit)
            instead = self.substituted.get(msg.message_id.strip("<>"))
            if instead and ex is not None:
                ex = dataclasses.replace(ex, orders=list(instead))
            return msg, raw, ex

        return scrub


def _play(home: Path, attack: Attack):
    from pbem.app import poll
    from pbem.cli.demo import run
    from pbem.trust import dkim

    mp = pytest.MonkeyPatch()
    mp.setattr(dkim, "resolver", _dns)
    mp.setattr(dkim, "_cache", {})
    mp.setattr(poll, "scrub", attack.scrub(poll.scrub))
    salts = {"Alice": "alice's own words", "Bob": "bob", "Carol": "carol"}
    try:
        r = run("habsburg", 3, None, home, clock=Clock(), style=attack.style, join_salts=salts)
    finally:
        mp.undo()
    return r, json.loads(r.export.read_text())


@pytest.fixture(scope="module")
def signed_game(tmp_path_factory):
    r, doc = _play(tmp_path_factory.mktemp("dkim") / "home", Attack())
    return {"r": r, "doc": doc}


@pytest.fixture(scope="module")
def attacked_game(tmp_path_factory):
    attack = Attack(forge_join="Carol", substitute="Bob")
    r, doc = _play(tmp_path_factory.mktemp("dkim-attacked") / "home", attack)
    assert attack.substituted, "the attack found an order to substitute"
    return {"r": r, "doc": doc, "attack": attack}


def _cli_verify(path: Path, *more: str):
    from pbem.cli import app

    return CliRunner().invoke(app, ["verify", str(path), *more])


def _reports(home: Path) -> list[bytes]:
    import mailbox

    sent = mailbox.Maildir(str(home / "mail" / "sent"), factory=None, create=False)
    mails = [sent.get_bytes(k).replace(b"=\n", b"") for k in sent.iterkeys()]
    return [m for m in mails if b"Private report for" in m]


# ------------------------------------------------------------------ the honest game


def test_an_honest_game_with_html_only_replies_is_vouched_for_not_called_substituted(tmp_path: Path) -> None:
    """Bob replies from Outlook, HTML only.  The provider-signed copy was read from its plain part alone: "the signed
    mail says (no orders)", a FAIL against an honest moderator.  Verify reads it as the poll did."""
    r, doc = _play(tmp_path / "home", Attack(html_only="Bob"))
    assert r.verified, r.checked
    bobs = [o for o in doc["orders"] if o["player"] == "Bob" and o["message_id"] and o["kind"] == "orders"]
    assert len(bobs) >= 3
    res = _cli_verify(r.export)
    assert res.exit_code == 0 and "dkim: FAIL" not in res.output and " 0 FAIL" in res.output, res.output
    for o in bobs:
        assert f"input {o['seq']} (Bob): dkim: pass d=players.example" in res.output, res.output
    plain = verify(doc)  # read from the plain part alone, as before: what an HTML-only reply was taken to say
    assert not plain.ok and "the signed mail says (no orders)" in str(plain.problem), plain.problem


def test_every_signed_input_is_vouched_for_by_the_provider(signed_game) -> None:
    r, doc = signed_game["r"], signed_game["doc"]
    assert r.verified, r.checked
    v = verify(doc)
    assert v.ok, v.problem
    player_inputs = [o for o in doc["orders"] if o["message_id"]]
    assert len(doc["evidence"]) >= len(player_inputs) > 10
    passes = [line for line in v.vouched if ": dkim: pass d=players.example" in line]
    assert len(passes) == len(player_inputs)
    assert sum("headers only" not in line for line in passes) >= len(player_inputs) - 3  # replies keep their text
    assert v.vouched[-1].startswith(f"dkim: {len(player_inputs)} of {len(player_inputs)} player inputs vouched")
    res = _cli_verify(r.export)
    assert res.exit_code == 0 and passes[0] in res.output and v.vouched[-1] in res.output, res.output
    # the deal is stirred by the three JOINs' signatures, and says so
    dealt = next(e for e in doc["events"] if e["kind"] == "salts")
    assert len([s for s in dealt["data"]["signed"] if s]) == 3 and "DKIM signatures" in dealt["text"]


def test_the_honest_signed_deal_warns_nobody(signed_game) -> None:
    r, doc = signed_game["r"], signed_game["doc"]
    v = verify(doc)
    assert not any("WARNING: the deal" in n for n in v.notes)
    assert "every player's JOIN was signed by their provider, and its signature stirred the deal" in v.checked
    reports = _reports(r.home)
    assert reports and not any(b"Warning about the deal" in m for m in reports)


def test_evidence_edited_to_match_a_substitution_fails_the_signature(signed_game) -> None:
    doc = copy.deepcopy(signed_game["doc"])
    victim = next(o for o in doc["orders"] if o["kind"] == "orders" and o["player"] == "Carol" and o["message_id"])
    ev = next(e for e in doc["evidence"] if e["message_id"] == victim["message_id"] and e["body"])
    body = base64.b64decode(ev["body"]).decode()
    ev["body"] = base64.b64encode(body.replace(victim["lines"][0], "PASS").encode()).decode()
    found = vouched.check(doc)
    assert any(
        f.startswith(f"input {victim['seq']} (Carol): the provider's signature does not hold") for f in found.failures
    )


def test_dropping_the_evidence_leaves_the_input_unsigned_and_named(signed_game) -> None:
    doc = copy.deepcopy(signed_game["doc"])
    victim = next(o for o in doc["orders"] if o["kind"] == "orders" and o["player"] == "Alice" and o["message_id"])
    doc["evidence"] = [e for e in doc["evidence"] if e["message_id"] != victim["message_id"]]
    v = verify(doc)
    assert v.ok, v.problem  # an unsigned input is no proof of forgery: but it is said, and Alice is warned
    assert f"input {victim['seq']} (Alice): dkim: unsigned" in v.vouched
    assert any(n.startswith("WARNING: Alice's provider signed") and str(victim["seq"]) in n for n in v.notes)


def test_a_code_in_a_signed_header_leaves_the_input_unsigned_not_failed(signed_game) -> None:
    """A player who wrote their code in the subject: pbem kept none of the signed fields (they held the code)."""
    doc = copy.deepcopy(signed_game["doc"])
    victim = next(o for o in doc["orders"] if o["kind"] == "orders" and o["player"] == "Alice" and o["message_id"])
    ev = next(e for e in doc["evidence"] if e["message_id"] == victim["message_id"])
    ev["headers"], ev["body"] = "", None
    v = verify(doc)
    assert v.ok, v.problem
    assert (
        f"input {victim['seq']} (Alice): dkim: unsigned (its signed header fields held the player's code: not kept)"
        in v.vouched
    )


def test_evidence_moved_to_another_input_is_named(signed_game) -> None:
    doc = copy.deepcopy(signed_game["doc"])
    mine = [o for o in doc["orders"] if o["kind"] == "orders" and o["player"] == "Bob" and o["message_id"]]
    ev = next(e for e in doc["evidence"] if e["message_id"] == mine[1]["message_id"])
    ev["message_id"] = mine[0]["message_id"]
    doc["evidence"] = [e for e in doc["evidence"] if e is ev or e["message_id"] != mine[0]["message_id"]]
    found = vouched.check(doc)
    assert any(f.startswith(f"input {mine[0]['seq']} (Bob): the signed Message-ID") for f in found.failures)


def test_a_signed_joins_contribution_cannot_be_replaced_or_left_out(signed_game) -> None:
    """The contribution of a signed JOIN is SHA-256 of its signature: a DKIM line of the moderator's own, or a JOIN
    stripped of it (so that its salt, which he can grind, counts instead), is named."""
    edits = (
        lambda lines: [x if not x.startswith("DKIM ") else "DKIM " + "ab" * 32 for x in lines],
        lambda lines: [x for x in lines if not x.startswith("DKIM ")],
    )
    for edit in edits:
        doc = copy.deepcopy(signed_game["doc"])
        join = next(o for o in doc["orders"] if o["kind"] == "join" and o["player"] == "Carol")
        join["lines"] = edit(join["lines"])
        found = vouched.check(doc)
        assert any(f.startswith(f"input {join['seq']} (Carol): the signed JOIN") for f in found.failures), found


# ------------------------------------------------------------------ the dishonest moderator's game


def test_an_order_substituted_by_the_moderator_is_named_by_verify(attacked_game) -> None:
    """The moderator's pbem recorded another legal order than Bob's mail gave: the record is consistent (chain,
    replay, signatures all hold), but Bob's provider signed what Bob wrote, and verify names the input."""
    r, doc, attack = attacked_game["r"], attacked_game["doc"], attacked_game["attack"]
    ((mid, instead),) = attack.substituted.items()
    victim = next(o for o in doc["orders"] if o["message_id"] and o["message_id"].strip("<>") == mid)
    assert victim["lines"] == instead and victim["player"] == "Bob"
    v = verify(doc)
    assert not v.ok and v.problem.startswith(f"the DKIM evidence of input {victim['seq']} (Bob): SUBSTITUTED")
    assert f"the signed mail says {'; '.join(attack.wrote[mid])}, the input applied {instead[0]}" in v.problem
    res = _cli_verify(r.export)
    assert res.exit_code == 1 and f"input {victim['seq']} (Bob): dkim: FAIL SUBSTITUTED" in res.output, res.output
    assert "verification FAILED: the DKIM evidence of input" in res.output


def test_a_join_forged_to_grind_the_deal_is_stated_in_the_reports_and_by_verify(attacked_game) -> None:
    """The moderator dropped Carol's JOIN and forged one with a salt of his choosing.  He cannot make her
    provider's signature, so nothing from Carol that he could not choose went into the deal: the report listing the
    salts says so to every player, and so does the final report (notices2: not every report between, where it was
    news no more); verify says it too, and as her provider signed her other mails, names the JOIN."""
    r, doc = attacked_game["r"], attacked_game["doc"]
    v = verify(doc)
    assert any(n.startswith("WARNING: the deal: Carol's JOIN was not signed by their provider") for n in v.notes)
    join = next(o for o in doc["orders"] if o["kind"] == "join" and o["player"] == "Carol")
    assert f"input {join['seq']} (Carol): dkim: unsigned" in v.vouched
    assert any(n.startswith("WARNING: Carol's provider signed") and f"not input {join['seq']}" in n for n in v.notes)
    dealt = [m for m in _reports(r.home) if b"Joining" not in m.split(b"\n\n", 1)[1][:200]]
    told = [m for m in dealt if b"Carol's JOIN was not signed by their provider" in m]
    news = [
        m
        for m in dealt
        if b"The deal: nobody chose it." in m or "Final report" in str(message_from_bytes(m)["Subject"])
    ]
    assert len(dealt) > 10 and len(news) >= len(PLAYERS) and told == news, (len(told), len(news), len(dealt))
    addressed = " ".join(str(message_from_bytes(m)["To"]).lower() for m in told)
    assert all(a.decode() in addressed for a in PLAYERS), addressed[:200]


def test_a_join_line_typed_by_a_player_is_no_contribution() -> None:
    assert joining.signature_line(["DKIM " + "0" * 64]) == "0" * 64
    _, results = joining.read_join(["JOIN", "DKIM " + "0" * 64, "SALT x"])
    assert not all(r.ok for r in results)  # only pbem's line, last, counts
