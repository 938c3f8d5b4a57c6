"""`pbem verify`: what the players' providers vouch for, input by input (issue 25).

The export's `evidence` lists, per message, the DKIM evidence kept at arrival
(`pbem.trust.dkim`).  For every input that names a player's message, one line:

- ``dkim: pass d=DOMAIN`` the provider's signature holds, offline, with the key
  as fetched at arrival; its Message-ID is the input's, its From the player's
  address (when the export states it), its subject names the game; and, when
  the body was kept, the body read as pbem reads orders gives exactly the
  input's lines.  ``(headers only ...)`` when the mail carried a code, whose
  body pbem does not keep: then the lines rest on the player's acknowledgement;
- ``unsigned``: no evidence (the provider does not sign, or the moderator left
  it out: a player whose provider signs knows which);
- ``FAIL ...``: the evidence does not hold or does not match the input.  This is
  what a moderator who substituted an order, or forged a JOIN carrying a
  signature, is caught by; `pbem verify` fails and names the input.

A JOIN's ``DKIM <hex>`` line (its contribution to the deal, `pbem.trust.deal`)
must be SHA-256 of the signature its evidence holds, and a JOIN whose evidence
verifies must carry it.  A player with signed inputs and also unsigned ones is
named: if they did not send that one unsigned, it is not theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem import engine as registry
from pbem.engine.words import count
from pbem.orders.extract import extract
from pbem.trust import deal as joining
from pbem.trust import dkim
from pbem.trust.quote import clip
from pbem.trust.receipts import visible
from pbem.trust.sent import Reader


@dataclass
class Vouched:
    lines: list[str] = field(default_factory=list)  # one per player input
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: str = ""


def _mid(value: object) -> str:
    return "".join(str(value or "").split()).strip("<>").lower()


def _words(doc: dict[str, Any]) -> tuple[str, ...]:
    try:
        words = tuple(registry.get(doc["game"]["kind"]).order_words)
    except registry.UnknownKind:
        words = ()
    return words + joining.ORDER_WORDS


def _as_applied(order: dict[str, Any]) -> list[str]:
    """The lines the player wrote, as the input holds them: a JOIN's pbem-added DKIM line left out, and
    ``JOIN SALT x`` on one line read as JOIN, then SALT x (`pbem.trust.deal.split_join`)."""
    out = []
    for line in order["lines"]:
        if order["kind"] == "join" and joining.signature_line([line]):
            continue
        out.append(line)
    return out


def check(doc: dict[str, Any], read: Reader | None = None) -> Vouched:
    """Re-check the evidence of every player input of `doc` (offline); a signed mail's order lines read by `read`
    (`pbem.trust.sent.Reader`: as the poll read them), else from its plain part."""
    out = Vouched()
    evidence = {_mid(e.get("message_id")): e for e in doc.get("evidence") or [] if isinstance(e, dict)}
    addresses = {str(p["name"]): str(p.get("address", "")).lower() for p in doc["players"]}
    tag = visible(f"[pbem {doc['game']['name']}]").lower()
    words = _words(doc)
    signed_by: dict[str, list[int]] = {}
    unsigned_by: dict[str, list[int]] = {}
    whole = headers_only = 0
    for o in doc["orders"]:
        if not o.get("message_id") or not o.get("player"):
            continue
        where = f"input {o['seq']} ({clip(str(o['player']))})"
        entry = evidence.get(_mid(o["message_id"]))
        if entry is not None and not entry.get("headers") and not joining.signature_line(o["lines"]):
            unsigned_by.setdefault(o["player"], []).append(o["seq"])  # a code in a signed field: nothing kept
            out.lines.append(f"{where}: dkim: unsigned (its signed header fields held the player's code: not kept)")
            continue
        if entry is None:
            unsigned_by.setdefault(o["player"], []).append(o["seq"])
            if o["kind"] == "join" and joining.signature_line(o["lines"]):
                out.failures.append(f"{where}: its JOIN carries a DKIM contribution but the export keeps no evidence")
                out.lines.append(f"{where}: dkim: FAIL the DKIM contribution has no evidence")
            else:
                out.lines.append(f"{where}: dkim: unsigned")
            continue
        problem, r = _problem(o, entry, addresses.get(o["player"], ""), tag, words, read)
        if problem:
            out.failures.append(f"{where}: {problem}")
            out.lines.append(f"{where}: dkim: FAIL {problem}")
            continue
        signed_by.setdefault(o["player"], []).append(o["seq"])
        if r.whole:
            whole += 1
            out.lines.append(f"{where}: dkim: pass d={entry['domain']}")
        else:
            headers_only += 1
            out.lines.append(
                f"{where}: dkim: pass d={entry['domain']} (headers only: the mail carried a code, so pbem kept not its "
                "body; its order lines rest on the player's acknowledgement)"
            )
    for player, seqs in unsigned_by.items():
        if player in signed_by:
            out.notes.append(
                f"WARNING: {player}'s provider signed {count(len(signed_by[player]), 'input')} of theirs but not input "
                f"{', '.join(map(str, seqs[:5]))}{' ...' if len(seqs) > 5 else ''}: if {player} did not send it "
                "unsigned, it is not theirs"
            )
    total = whole + headers_only + sum(map(len, unsigned_by.values())) + len(out.failures)
    out.summary = (
        f"dkim: {whole + headers_only} of {count(total, 'player input')} vouched for by the player's provider "
        f"({whole} with their text, {headers_only} headers only); {sum(map(len, unsigned_by.values()))} unsigned; "
        f"{len(out.failures)} FAIL"
    )
    return out


def _problem(
    o: dict[str, Any], entry: dict[str, Any], address: str, tag: str, words: tuple[str, ...], read: Reader | None
) -> tuple[str, dkim.Rechecked]:
    """Why `entry` does not vouch for input `o` ("" when it does), and the recheck."""
    r = dkim.recheck(entry)
    if not r.ok:
        return f"the provider's signature does not hold: {r.why}", r
    if r.message_id and r.message_id != _mid(o["message_id"]):
        return f"the signed Message-ID is <{r.message_id}>, not the input's <{_mid(o['message_id'])}>", r
    if address and r.sender and r.sender != address:
        return f"the signed mail is from {r.sender}, not the player's address {address}", r
    if r.subject and tag not in visible(r.subject).lower():
        return f"the signed subject {r.subject[:80]!r} names another game", r
    if o["kind"] == "join":
        stated, signed = joining.signature_line(o["lines"]), dkim.contribution(entry)
        if stated != signed:
            what = "carries no DKIM line" if not stated else "carries a DKIM line that is not its signature's"
            return f"the signed JOIN {what}: the deal was not stirred by the provider's signature", r
    if r.whole and o["kind"] in ("orders", "join"):
        lines = list(read(r.raw, words)) if read is not None else extract(r.text, r.subject, words).orders
        wrote = joining.split_join(lines)
        if wrote != _as_applied(o):
            said = clip(str("; ".join(wrote))) or "(no orders)"
            applied = clip(str("; ".join(_as_applied(o)))) or "(nothing)"
            return f"SUBSTITUTED: the signed mail says {said}, the input applied {applied}", r
    return "", r
