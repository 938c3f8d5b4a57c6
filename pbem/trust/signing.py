"""The game's signature: one Ed25519 key per game signs every receipt and every export's head.

Each game made since pbem's migration 0012 has its own Ed25519 key (the
`cryptography` package).  Its public half is in every export (`game.key`) and
in every signed mail (``X-Pbem-Key``); its fingerprint (`fingerprint`: the
first 80 bits of SHA-256 of the public key, in groups of four hex digits) is
in the invitation and in the final report, for players to compare by any
other channel.

What is signed is the *statement* of a receipt (`statement`):

    b"pbem-receipt-v1\\n" || RFC 8785 JSON of {"game": name, "header": H, "record": [entries, head],
                                              "input": [seq, hash] or null}

where H (`header`) is SHA-256 over the RFC 8785 JSON of the game's fields that
the chain does not hold: name, kind, options, insecure_seed, the players'
names in seat order and the seed commitment.  A mail carries the signature as
``X-Pbem-Signature`` and H as ``X-Pbem-Game``; an export signs its own head
(`signature` at the top level, "input" null).

So (a) a receipt is authenticated: a mail a player made up carries no valid
signature and is reported, not trusted; (b) the moderator cannot show two
players two histories without signing two different heads at the same position,
and two such signed heads are proof anyone can check (`pbem verify --mail A
--mail B`); (c) options, players and the rest of the header are bound to every
receipt.  What it cannot do: the moderator holds the key, so he can sign any
history he likes; only a signed head a player received and kept pins him down.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from pbem.record import sealing
from pbem.trust.canonical import canonical

KEY_HEADER = "X-Pbem-Key"
GAME_HEADER = "X-Pbem-Game"
SIGNATURE_HEADER = "X-Pbem-Signature"
PREFIX = b"pbem-receipt-v1\n"
PARTIAL_PREFIX = b"pbem-partial-v1\n"


def new_key() -> str:
    """A fresh private key, as 64 hex digits (`games.signing_key` holds it sealed: `pbem.record.sealing`)."""
    raw = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return raw.hex()


@lru_cache(maxsize=1024)
def _key(private_hex: str) -> Ed25519PrivateKey:
    """The key object of a game key (every mail of a poll is signed: loading the key each time cost more than
    the signature)."""
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_hex))


@lru_cache(maxsize=1024)
def public_key(private_hex: str) -> str:
    """The public half of a private key, as 64 hex digits."""
    return _key(private_hex).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def fingerprint(public_hex: str) -> str:
    """What players compare: the first 20 hex digits of SHA-256(public key), in groups of four."""
    digest = hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()[:20]
    return " ".join(digest[i : i + 4] for i in range(0, 20, 4))


def header(
    name: str,
    kind: str,
    options: dict[str, Any],
    insecure_seed: bool,
    players: list[str],
    commitment: str,
    bindings: int = 0,
) -> str:
    """H: SHA-256 of the game's fields outside the chain (see the module docstring); with the game's format mark
    (`bindings`, `pbem.trust.asked.BINDINGS`) when it declares one, so that a game made before it keeps its H and a
    game made since cannot be passed off as one of those (fairness25)."""
    fields = {
        "name": name,
        "kind": kind,
        "options": options,
        "insecure_seed": bool(insecure_seed),
        "players": list(players),
        "seed_commitment": commitment,
    } | ({"bindings": bindings} if bindings else {})
    return hashlib.sha256(canonical(fields)).hexdigest()


def marked(game: dict[str, Any]) -> int:
    """The format mark an export's `game` declares: a whole number of 0 or more (a value of another type: 0, and
    the signed header then differs from the one pbem signed)."""
    value = game.get("bindings", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def header_of_export(doc: dict[str, Any]) -> str:
    g = doc["game"]
    players = [p["name"] for p in doc["players"]]
    return header(
        g["name"], g["kind"], g["options"], g.get("insecure_seed", False), players, doc["seed_commitment"], marked(g)
    )


def statement(game: str, head_of_game: str, entries: int, head: str, input: tuple[int, str] | None = None) -> bytes:
    body = {
        "game": game,
        "header": head_of_game,
        "record": [entries, head],
        "input": None if input is None else [input[0], input[1]],
    }
    return PREFIX + canonical(body)


def sign(private_hex: str, message: bytes) -> str:
    return _key(private_hex).sign(message).hex()


def valid(public_hex: str, message: bytes, signature_hex: str) -> bool:
    """True if `signature_hex` is the key's signature of `message` (False for anything malformed)."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        key.verify(bytes.fromhex(signature_hex), message)
    except (ValueError, InvalidSignature):
        return False
    return True


def listing(doc: dict[str, Any]) -> str:
    """What a partial export (version 2: a player's or the public export of a game in progress) lists, as one
    digest: SHA-256 of the RFC 8785 JSON of its `audience`, `orders` and `events`.  Its entries' hashes cannot be
    recomputed before the seed is revealed (their salts are left out), so the signature binds them instead: a
    listing the moderator signed and the final chain later contradicts is proof against him (`pbem verify FINAL
    --earlier PARTIAL`)."""
    body = {"audience": doc["audience"], "orders": doc["orders"], "events": doc["events"]}
    return hashlib.sha256(canonical(body)).hexdigest()


def view_of(doc: dict[str, Any]) -> str:
    """A partial export's `final_view` (the position its reader is shown, their hand and secrets included) as one
    digest: SHA-256 of its RFC 8785 JSON.  Signed with the listing since branch `fairness6`: before, a moderator
    could hand a player an export whose listing was signed and whose position was anything he liked."""
    return hashlib.sha256(canonical(doc.get("final_view"))).hexdigest()


def partial_statement(
    game: str, head_of_game: str, entries: int, head: str, listed: str, view: str | None = None
) -> bytes:
    """What a partial export's signature signs: its reader's record position and head, its listing's digest and
    its final view's (`view_of`; None: an export made before the view was signed, whose statement has no such
    field), under a prefix of its own (a receipt's signature cannot be passed off as one, nor one as a
    receipt's)."""
    body = {"game": game, "header": head_of_game, "record": [entries, head], "listed": listed}
    return PARTIAL_PREFIX + canonical(body if view is None else {**body, "view": view})


def export_signature(private_hex: str, doc: dict[str, Any], partial: bool = False) -> dict[str, Any]:
    """The export's own signed head: `signature` at the top level of the export; of a `partial` export (version 2)
    its listing too (`listing`)."""
    entries, head = doc["chain"]["entries"], doc["chain"]["head"]
    h = header_of_export(doc)
    if partial:
        listed, view = listing(doc), view_of(doc)
        signed = partial_statement(doc["game"]["name"], h, entries, head, listed, view)
        return {
            "entries": entries,
            "head": head,
            "header": h,
            "listed": listed,
            "view": view,
            "sig": sign(private_hex, signed),
        }
    return {
        "entries": entries,
        "head": head,
        "header": h,
        "sig": sign(private_hex, statement(doc["game"]["name"], h, entries, head)),
    }


def private_of(game: Any) -> str | None:
    """The game row's private key, hex (None if it has none): unsealed with the home's wrapping key
    (`pbem.record.sealing`); a key stored in clear by an older pbem is read as it is."""
    stored = getattr(game, "signing_key", None)
    return sealing.unseal(stored, game.name) if stored else None


def receipt_fields(game: Any) -> dict[str, Any]:
    """What `pbem.mail.outbound.outgoing.Receipt` needs to sign for the game row `game` ({} if it has no key)."""
    stored = getattr(game, "signing_key", None)
    if not stored:
        return {}
    fields = _receipt_fields(
        game.name,
        game.kind,
        game.options_json,
        bool(game.insecure_seed),
        game.players_json,
        game.seed_commitment,
        stored,
        int(getattr(game, "bindings", 0) or 0),
    )
    return dict(fields)


@lru_cache(maxsize=1024)
def _receipt_fields(
    name: str,
    kind: str,
    options_json: str,
    insecure_seed: bool,
    players_json: str,
    commitment: str,
    stored: str,
    bindings: int = 0,
) -> tuple[tuple[str, Any], ...]:
    """`receipt_fields` of one game row, worked out once (every mail about the game signs with them: unsealing
    the key and hashing the header was a tenth of a report's appending)."""
    key = sealing.unseal(stored, name)
    if not key:
        return ()
    import json

    h = header(name, kind, json.loads(options_json), insecure_seed, json.loads(players_json), commitment, bindings)
    return (("game", name), ("header", h), ("key", key)) + ((("bindings", bindings),) if bindings else ())


#: The X-Pbem-Bindings header of the mails that state the seed commitment (the invitation, the first report): which
#: checks of `pbem verify --sent` the game's entries promise, by its format mark (`pbem.trust.asked.BINDINGS`), which
#: the header H every receipt signs holds (fairness26: a game without the mark said nothing of it to its players).
PROMISES = {
    0: "0 (none declared: a resignation, a player's move and a wait are checked by what each entry carries)",
    1: "1 (a resignation names its word, a player's move its keyed address binding, a wait who set each absence)",
}


def promised(bindings: int) -> str:
    """The X-Pbem-Bindings header's value for the format mark `bindings` (`PROMISES`)."""
    return PROMISES.get(bindings, f"{bindings}")


def headers_for(
    game: str, head_of_game: str, private_hex: str, entries: int, head: str, input: tuple[int, str] | None
) -> tuple[tuple[str, str], ...]:
    """The signature headers of one mail's receipt."""
    sig = sign(private_hex, statement(game, head_of_game, entries, head, input))
    return ((KEY_HEADER, public_key(private_hex)), (GAME_HEADER, head_of_game), (SIGNATURE_HEADER, sig))
