"""fairness26's move note, by generator: the new address's folder alone decides where the old provider signs.

fairness26 matched a move checked with the new address's Sent folder alone (a player who lost the old address) by
its ADDRESS CONFIRM, with a note that the request was not looked for: the ``ADDRESS <new>`` line is in the old
address's folder.  But the export can carry it: pbem keeps the DKIM evidence of each mail of a player's about the
game (`pbem.trust.dkim`, the export's ``evidence``, the body too when the mail carried no code), and the request, from
the old address, is signed by the old address's provider, which the moderator cannot sign for.  `asked._vouched`
reads it: a mail of the player's read in the two days before the confirmation, signed whole from another address
than the new one and holding ``ADDRESS <new>``, is the request (no note); every such mail signed whole and none
asking is UNASKED; a mail unsigned, or kept without its body, leaves the note.

Each case is fairness26's (`tests/test_fairness26_move.py`: a marked game, the seed out or not, a move of Alice's seat
confirmed from the new address in the hour, zero to three orders of hers from the old address in the two days, and
an honest ``ADDRESS <new>`` line, none, one naming another address, or one older than the two days), the export
carrying her old provider's signatures of those mails (all whole; the request kept headers only, as if it carried
her code; or none signed), checked with the new address's folder alone.  Counted with
``PBEM_FAIRNESS27_VOUCHED_FULL=1 python3 -m pytest tests/test_fairness27_vouched.py -s -q -n 0`` over 2,000 cases
(seeds 0-1999; the same file runs on ab18255d, where it fails):

* forgeries passing with a note only where the old provider signed every mail of the two days whole: 554 of 554 on
  ab18255d, 0 now (each UNASKED); elsewhere noted, before and now;
* honest moves named: 0 of 763, before and now; of them, those whose request the export holds signed whole are
  decided with no note now (380 of 380; noted on ab18255d), the rest noted as before.

The suite runs 9 cases.
"""

from __future__ import annotations

import base64
import os
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.trust import asked
from pbem.trust.dkim import capture

FULL = os.environ.get("PBEM_FAIRNESS27_VOUCHED_FULL") == "1"
PLAYERS = ["Alice", "Bob", "Carol"]
OLD = "alice@players.test"
NEW = ["alice@new.test", "alice.work@corp.test", "a@b.test"]
SEED = "5eed" * 8
AT = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)
WORD = "482193"
NOTE = "on your ADDRESS CONFIRM alone"


@dataclass
class _Mail:
    message_id: str
    text: str
    sender: str
    subject: str = "[pbem hh1] orders"


@pytest.fixture(scope="module")
def provider() -> dict:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return {"pem": pem, "dns": {b"s1._domainkey.players.test.": b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)}}


def _evidence(provider: dict, m: _Mail, at: datetime, whole: bool) -> dict:
    """The export's evidence of `m`, signed by the old address's provider (`whole`: its body kept)."""
    raw = (
        f"From: Alice <{m.sender}>\r\nTo: pbem@pbem.test\r\nSubject: Re: [pbem hh1] Turn 3\r\n"
        f"Date: {format_datetime(at)}\r\nMessage-ID: <{m.message_id}>\r\n\r\n{m.text}\r\n"
    ).encode()
    sig = dkimpy.sign(
        raw, b"s1", b"players.test", provider["pem"], include_headers=[b"from", b"subject", b"date", b"message-id"]
    )
    ev = capture(sig + raw, lambda name, timeout=5: provider["dns"].get(name), keep_body=whole)
    assert ev is not None and ev.verified
    return ev.to_json(m.message_id)


def _case(provider: dict, seed: int) -> tuple[dict, list[_Mail], str, str]:
    """(the export, the new folder's mails, the shape, how the old provider signed)."""
    rng = random.Random(seed)
    new = rng.choice(NEW)
    ended = rng.random() < 0.5
    shape = rng.choice(["honest", "honest", "no ADDRESS line", "ADDRESS to another", "ADDRESS too old"])
    signs = rng.choice(["whole", "whole", "request headers only", "unsigned"])
    mails: list[tuple[datetime, _Mail]] = []
    for n in range(rng.randint(0, 3)):
        at = AT - timedelta(minutes=rng.randint(61, 2 * 24 * 60 - 1))
        mails.append((at, _Mail(f"o{n}.{seed}@players.test", "PASS", OLD)))
    if shape != "no ADDRESS line":
        to = rng.choice([x for x in NEW if x != new]) if shape == "ADDRESS to another" else new
        hours = rng.randint(49, 96) if shape == "ADDRESS too old" else rng.randint(2, 47)
        mails.append((AT - timedelta(hours=hours), _Mail(f"a.{seed}@players.test", f"ADDRESS {to}", OLD)))
    confirm = _Mail(f"c.{seed}@new.test", f"ADDRESS CONFIRM {WORD}", new)
    mails.append((AT - timedelta(minutes=rng.randint(1, 59)), confirm))
    evidence = [
        _evidence(provider, m, at, not (signs == "request headers only" and m.text.startswith("ADDRESS")))
        for at, m in mails
        if m.sender == OLD and signs != "unsigned"
    ]
    move = {"action": "address", "by": "player", "player": "Alice", "seat": 0}
    move["to"] = asked.moved_to("hh1", WORD, new, asked.address_key(SEED))
    doc = {
        "game": {"name": "hh1", "bindings": 1},
        "players": [{"name": p} for p in PLAYERS],
        "messages": [
            {"message_id": m.message_id, "player": "Alice", "received": at.isoformat()}
            for at, m in sorted(mails, key=lambda x: x[0])
        ],
        "events": [{"seq": 1, "kind": "moderator", "at": AT.isoformat(), "text": "moved", "data": move}],
        "evidence": evidence,
        **({"seed": SEED} if ended else {}),
    }
    window = [m for at, m in mails if m.sender == OLD and at >= AT - timedelta(days=2)]
    decides = signs == "whole" and bool(window)
    return doc, [confirm], shape, "decides" if decides else signs


def count(provider: dict, seeds: range) -> dict[str, int]:
    out = dict.fromkeys(["forged, signed", "forged unnamed", "honest", "honest named", "honest, signed"], 0)
    out |= {"honest noted": 0}
    for seed in seeds:
        doc, mails, shape, signs = _case(provider, seed)
        asks = {m.message_id: asked.requests(m, (), False) for m in mails}
        notes: list[str] = []
        named = asked.unasked(doc, mails, "Alice", asks, notes=notes)
        if shape == "honest":
            out["honest"] += 1
            out["honest named"] += bool(named)
            if signs == "decides":
                out["honest, signed"] += 1
                out["honest noted"] += any(NOTE in n for n in notes)
        elif signs == "decides":
            out["forged, signed"] += 1
            out["forged unnamed"] += not named
    return out


@pytest.mark.parametrize("part", range(3))
def test_a_move_checked_with_the_new_folder_alone_is_decided_by_the_old_providers_signature(
    provider: dict, part: int
) -> None:
    n = 2000 if FULL else 9
    got = count(provider, range(part * n // 3, (part + 1) * n // 3))
    if FULL:
        print(f"fairness27 vouched {part}: {got}")
    assert got["honest named"] == 0, got
    assert got["forged unnamed"] == 0 and got["honest noted"] == 0, got  # (fails on ab18255d)
