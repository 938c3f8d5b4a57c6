"""fairness27's HTML-only guard at its whole size: a move decided by the old provider's signature of an HTML mail.

fairness27 made `pbem.trust.asked._vouched` decide a move checked with the new address's Sent folder alone by the
old address's provider's DKIM signatures in the export (the request, ``ADDRESS <new>``, signed whole), and then left
a signed mail with no plain part to a note (its last fix: an HTML-only request read as text-less would have made an
honest move UNASKED).  Its generator never sent an HTML mail, so the guard was run at no size.  Here the old
address's mail program writes each mail as plain text, as plain text with an HTML alternative, or as HTML only (the
address in the request typed plain or made a ``mailto:`` link as webmail does, each line a ``<div>`` or ended by a
``<br>``, in one mail of three a line of pbem's quoted in a ``<blockquote>``, a SAY asking ``ADDRESS <new>``), and
its provider signs the Content-Type or, as Gmail does, not; everything else as fairness27's cases
(`tests/test_fairness27_vouched.py`: a marked game, zero to three orders of Alice's from the old address in the two
days before the move, an honest ``ADDRESS <new>`` line, none, one naming another address, or one too old; every
mail of the old address signed whole), checked with the new address's folder alone.

What it found: the export's evidence keeps the signed header fields alone, so where the Content-Type was not signed
the signed body was read as plain text (a multipart body's MIME lines, an HTML part's markup); the guard's empty
text never came, and an honest HTML-only request was read as asking nothing: UNASKED.  Now `pbem.trust.dkim._shape`
reads the structure the signed body shows, and `asked._vouched` reads an HTML part's lines as the poll does
(`asked.page`: a ``mailto:`` link is part of its line, a quote is quoted).  Counted with
``PBEM_FAIRNESS28_HTML_FULL=1 python3 -m pytest tests/test_fairness28_html.py -s -q -n 0`` over 2,000 cases (seeds
0-1999; the same file runs on 36ff7173, where it fails):

* honest moves named UNASKED: 191 of 763 on 36ff7173, 0 now;
* honest moves whose request is HTML only, signed whole, left to a note: 194 of 385 on 36ff7173, 0 now (decided);
* forgeries where the old provider signed every mail of the two days whole, one of them HTML only, passing with a
  note: 412 of 831 on 36ff7173, 0 now (each UNASKED).

The same misreading failed `pbem verify` on an honest game: an order input whose HTML-only mail's provider signed no
Content-Type was named SUBSTITUTED (`test_an_honest_html_order_signed_without_its_content_type_is_vouched_for`).

The suite runs 9 cases, 12 mails and 6 edits.
"""

from __future__ import annotations

import base64
import os
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.trust import asked
from pbem.trust.dkim import capture
from tests.test_fairness27_vouched import NOTE, PLAYERS, SEED, WORD, _Mail

FULL = os.environ.get("PBEM_FAIRNESS28_HTML_FULL") == "1"
OLD = "alice@players.test"
NEW = ["alice@new.test", "alice.work@corp.test", "a@b.test"]
AT = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)
CLIENTS = ["plain", "alternative", "html", "html"]


@pytest.fixture(scope="module")
def provider() -> dict:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return {"pem": pem, "dns": {b"s1._domainkey.players.test.": b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)}}


def _page(text: str, rng: random.Random, quoted: str) -> str:
    """`text` as an HTML mail program writes it: each line a <div> or after a <br>, an address a mailto: link."""
    lines = []
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if "@" in rest and rng.random() < 0.5:
            rest = f'<a href="mailto:{rest}">{rest}</a>'
        lines.append(f"{word} {rest}".strip())
    body = "".join(f"<div>{x}</div>" for x in lines) if rng.random() < 0.5 else "<br>\r\n".join(lines) + "<br>"
    if quoted:
        body += f"<blockquote><div>{quoted}</div></blockquote>"
    return f"<html><body>{body}</body></html>"


def _raw(m: _Mail, at: datetime, client: str, rng: random.Random, quoted: str) -> bytes:
    head = (
        f"From: Alice <{m.sender}>\r\nTo: pbem@pbem.test\r\nSubject: Re: [pbem hh1] Turn 3\r\n"
        f"Date: {format_datetime(at)}\r\nMessage-ID: <{m.message_id}>\r\nMIME-Version: 1.0\r\n"
    )
    plain = m.text + ("\r\n\r\n> " + quoted if quoted else "")
    if client == "plain":
        return (head + f"Content-Type: text/plain; charset=utf-8\r\n\r\n{plain}\r\n").encode()
    page = _page(m.text, rng, quoted)
    if client == "html":
        return (head + f"Content-Type: text/html; charset=utf-8\r\n\r\n{page}\r\n").encode()
    return (
        head + 'Content-Type: multipart/alternative; boundary="b1"\r\n\r\n--b1\r\n'
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{plain}\r\n--b1\r\n"
        f"Content-Type: text/html; charset=utf-8\r\n\r\n{page}\r\n--b1--\r\n"
    ).encode()


def _evidence(provider: dict, raw: bytes, mid: str, typed: bool) -> dict:
    """The export's evidence of `raw`, signed whole; `typed`: its Content-Type signed too (Gmail's h= names none)."""
    heads = [b"from", b"subject", b"date", b"message-id"] + ([b"mime-version", b"content-type"] if typed else [])
    sig = dkimpy.sign(raw, b"s1", b"players.test", provider["pem"], include_headers=heads)
    ev = capture(sig + raw, lambda name, timeout=5: provider["dns"].get(name), keep_body=True)
    assert ev is not None and ev.verified
    return ev.to_json(mid)


def _case(provider: dict, seed: int) -> tuple[dict, list[_Mail], str, bool, bool]:
    """(the export, the new folder's mails, the shape, whether a mail of the two days is HTML only, whether the
    request is)."""
    rng = random.Random(seed)
    new = rng.choice(NEW)
    ended = rng.random() < 0.5
    shape = rng.choice(["honest", "honest", "no ADDRESS line", "ADDRESS to another", "ADDRESS too old"])
    mails: list[tuple[datetime, _Mail]] = []
    for n in range(rng.randint(0 if shape != "no ADDRESS line" else 1, 3)):
        at = AT - timedelta(minutes=rng.randint(61, 2 * 24 * 60 - 1))
        mails.append((at, _Mail(f"o{n}.{seed}@players.test", "PASS", OLD)))
    if shape != "no ADDRESS line":
        to = rng.choice([x for x in NEW if x != new]) if shape == "ADDRESS to another" else new
        hours = rng.randint(49, 96) if shape == "ADDRESS too old" else rng.randint(2, 47)
        mails.append((AT - timedelta(hours=hours), _Mail(f"a.{seed}@players.test", f"ADDRESS {to}", OLD)))
    confirm = _Mail(f"c.{seed}@new.test", f"ADDRESS CONFIRM {WORD}", new)
    mails.append((AT - timedelta(minutes=rng.randint(1, 59)), confirm))
    evidence, html_window, html_request = [], False, False
    typed = rng.random() < 0.5
    for at, m in mails:
        if m.sender != OLD:
            continue
        client = rng.choice(CLIENTS)
        quoted = f"ADDRESS {new}" if rng.random() < 1 / 3 else ""  # a line of pbem's (a SAY) quoted
        evidence.append(_evidence(provider, _raw(m, at, client, rng, quoted), m.message_id, typed))
        if at >= AT - timedelta(days=2) and client == "html":
            html_window = True
            html_request = html_request or m.text.startswith("ADDRESS")
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
    return doc, [confirm], shape, html_window, html_request


def count(provider: dict, seeds: range) -> dict[str, int]:
    out = dict.fromkeys(["forged, html signed", "forged noted", "honest", "honest named"], 0)
    out |= {"honest, html request": 0, "honest noted": 0}
    for seed in seeds:
        doc, mails, shape, html_window, html_request = _case(provider, seed)
        asks = {m.message_id: asked.requests(m, (), False) for m in mails}
        notes: list[str] = []
        named = asked.unasked(doc, mails, "Alice", asks, notes=notes)
        if shape == "honest":
            out["honest"] += 1
            out["honest named"] += bool(named)
            if html_request:
                out["honest, html request"] += 1
                out["honest noted"] += any(NOTE in n for n in notes)
        elif html_window:
            out["forged, html signed"] += 1
            out["forged noted"] += not named
    return out


@pytest.mark.parametrize("part", range(3))
def test_a_move_is_decided_by_the_old_providers_signature_of_an_html_mail(provider: dict, part: int) -> None:
    n = 2000 if FULL else 9
    got = count(provider, range(part * n // 3, (part + 1) * n // 3))
    if FULL:
        print(f"fairness28 html {part}: {got}")
    assert got["honest named"] == 0, got
    assert got["forged noted"] == 0 and got["honest noted"] == 0, got  # (fails on 36ff7173)


#: Habsburg order mails a player writes (each a reply: no code, so the export keeps its body).
ORDERS = ["NO EVENT", "PASS", "NO EVENT\nPASS", "MELD Maria Theresa Austria Archduke\nNO EVENT"]


def substituted(provider: dict, seeds: range) -> dict[str, int]:
    """`pbem verify`'s DKIM check of an honest order input (`pbem.trust.vouched._problem`, the poll's reading of the
    signed mail), its mail written by each mail program with its Content-Type signed or not: how many are named
    SUBSTITUTED (the signed body read as plain text: an HTML-only mail's markup read as no orders)."""
    from pbem.app.reading import named_reader
    from pbem.trust import vouched

    words = ("NO", "PASS", "MELD")
    out = {"cases": 0, "html, type unsigned": 0, "named": 0}
    for seed in seeds:
        rng = random.Random(seed)
        client, typed, text = rng.choice(CLIENTS), rng.random() < 0.5, rng.choice(ORDERS)
        m = _Mail(f"o{seed}@players.test", text, OLD)
        raw = _raw(m, AT, client, rng, "")
        entry = _evidence(provider, raw, m.message_id, typed)
        o = {"seq": 3, "kind": "orders", "player": "Alice", "lines": text.splitlines(), "message_id": m.message_id}
        why, _ = vouched._problem(o, entry, OLD, ("[pbem hh1]", words, set()), named_reader([]), [])
        out["cases"] += 1
        out["html, type unsigned"] += client == "html" and not typed
        out["named"] += bool(why)
    return out


def test_an_honest_html_order_signed_without_its_content_type_is_vouched_for(provider: dict) -> None:
    """Counted with ``PBEM_FAIRNESS28_HTML_FULL=1`` over 600 mails: named SUBSTITUTED (`pbem verify` failing an
    honest game) 153 of 600 on 36ff7173 (all 144 HTML-only mails whose provider signed no Content-Type, and 9
    multipart ones whose HTML part's lines were read as orders too), 0 now."""
    got = substituted(provider, range(600 if FULL else 12))
    if FULL:
        print(f"fairness28 html substituted: {got}")
    assert got["named"] == 0, got  # (fails on 36ff7173)


def _edited(provider: dict, seed: int) -> tuple[dict, list[_Mail], str]:
    """A forged move (no request of Alice's) whose new address she gives alone, and the moderator's edit of the
    evidence of her HTML reply (Thunderbird's: a plain-text mail quoted in a ``<pre>``, its lines as they were) that
    quotes his SAY asking ``ADDRESS <new>``: none, or a Content-Type text/plain added above or below the kept fields."""
    rng = random.Random(seed)
    new, typed = rng.choice(NEW), rng.random() < 0.5
    edit = rng.choice(["none", "above", "below"])
    reply = _Mail(f"r.{seed}@players.test", "PASS", OLD)
    at = AT - timedelta(hours=rng.randint(2, 47))
    page = (
        '<html><body><div>PASS</div><blockquote type="cite"><pre class="moz-quote-pre" wrap="">'
        f"The moderator says: to keep your seat, write\r\nADDRESS {new}\r\n</pre></blockquote></body></html>"
    )
    head = (
        f"From: Alice <{OLD}>\r\nTo: pbem@pbem.test\r\nSubject: Re: [pbem hh1] Turn 3\r\nDate: {format_datetime(at)}"
        f"\r\nMessage-ID: <{reply.message_id}>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
    )
    entry = _evidence(provider, (head + page + "\r\n").encode(), reply.message_id, typed)
    if edit != "none":
        kept = base64.b64decode(entry["headers"])
        added = b"Content-Type: text/plain\r\n"
        entry["headers"] = base64.b64encode(added + kept if edit == "above" else kept + added).decode()
    confirm = _Mail(f"c.{seed}@new.test", f"ADDRESS CONFIRM {WORD}", new)
    move = {"action": "address", "by": "player", "player": "Alice", "seat": 0}
    move["to"] = asked.moved_to("hh1", WORD, new, asked.address_key(SEED))
    doc = {
        "game": {"name": "hh1", "bindings": 1},
        "players": [{"name": p} for p in PLAYERS],
        "messages": [
            {"message_id": reply.message_id, "player": "Alice", "received": at.isoformat()},
            {"message_id": confirm.message_id, "player": "Alice", "received": (AT - timedelta(minutes=5)).isoformat()},
        ],
        "events": [{"seq": 1, "kind": "moderator", "at": AT.isoformat(), "text": "moved", "data": move}],
        "evidence": [entry],
        "seed": SEED,
    }
    return doc, [confirm], f"{edit}, type {'signed' if typed else 'unsigned'}"


def test_a_forged_move_is_not_vouched_for_by_a_quoted_line_or_an_edited_content_type(provider: dict) -> None:
    """A dishonest moderator's edit of the SQLite file: a Content-Type added to the kept evidence of an HTML reply
    whose provider signed none (or above the one it signed) makes its body read as plain text, where the line the
    player quoted from his SAY stands alone.  Counted with ``PBEM_FAIRNESS28_HTML_FULL=1`` over 300 cases: the forged
    move passing in silence (vouched for by the quote) 187 of 300 on 36ff7173 (all 136 whose provider signed no
    Content-Type, edited or not: 38 with no edit at all; and 51 with one added above a signed one), 0 now (UNASKED
    where nothing was edited, a note where the evidence no longer holds: `dkim._unsigned`)."""
    silent = {}
    for seed in range(300 if FULL else 6):
        doc, mails, shape = _edited(provider, seed)
        asks = {m.message_id: asked.requests(m, (), False) for m in mails}
        notes: list[str] = []
        named = asked.unasked(doc, mails, "Alice", asks, notes=notes)
        silent[shape] = silent.get(shape, 0) + (not named and not notes)
    if FULL:
        print(f"fairness28 html edited: {silent}")
    assert not any(silent.values()), silent  # (fails on 36ff7173)
