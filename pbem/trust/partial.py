"""The partial export of a game in progress (format version 2): checked alone, and later against the final export.

A player's (`pbem export --as NAME`) or the public export of a game not yet over lists the entries its reader may
see (the reader's own inputs and the moderator's and deadlines', the events public or shown to them), numbered
1, 2, 3, ... in chain order as the reader's receipts count them (`X-Pbem-Record`), each with its hash but without
its salt, and without the chain's global numbers `seq` and `input_seq`: their gaps counted the hidden entries
(another player's revised ballot was one more gap).  Without the salts nobody can recompute a listed hash before
the seed is revealed, so the game key signs the listing itself (`pbem.trust.signing.listing`), with the reader's
record position and head, as it signs every receipt.

Alone (`check`): the numbering runs 1..entries without a gap (the export claims to list every entry its reader may
see), a set-up event (`input_seq` 0) comes before every input, times never go back, the head is the last entry's
hash, and the signature covers this very listing.  What it proves then: the moderator signed this account of what
the reader may see, in this order, at these hashes; a receipt in the reader's mail whose head is listed names the
same entry.  Not yet that the hashes follow from the contents: that waits for the seed.

At the end (`against_final`, `pbem verify FINAL.json --earlier PARTIAL.json`): the final export, every entry
recomputed, must hold the reader's entries 1..N of the earlier export, in that order, each with the same content
and hash.  A mismatch, with both documents signed by the game key, is proof that the moderator showed the reader
something the final record does not hold.
"""

from __future__ import annotations

import itertools
from typing import Any

from pbem.engine.words import count
from pbem.trust import signing
from pbem.trust.quote import clip, quote

#: The format version of a partial export (version 1 is every full export, and partial ones written before).
VERSION = 2
#: Events recorded by the moderator, not produced by the engine (the same as `pbem.trust.verify.MODERATOR_KINDS`).
MODERATOR_KINDS = frozenset({"press", "moderator"})
_INPUT_FIELDS = ("kind", "player", "lines", "message_id", "at", "hash")
_EVENT_FIELDS = ("kind", "text", "visibility", "data", "at", "hash")


class Broken(Exception):
    """A partial export fails a check (the message names the first problem)."""


def listed(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The export's inputs and events as one list, by their number (the reader's count)."""
    return sorted([*doc["orders"], *doc["events"]], key=lambda r: r["seq"])


def said(row: dict[str, Any]) -> str:
    if "lines" in row:
        what = clip(str("; ".join(row["lines"]))) if row["lines"] else f"the {row['kind']}"
        return f"entry {row['seq']} (input{' of ' + clip(str(row['player'])) if row['player'] else ''}: {what})"
    return f"entry {row['seq']} (event: {clip(str(row['text']))})"


def check(doc: dict[str, Any]) -> list[str]:
    """Check a partial export alone; returns what was checked, raises Broken with the first problem."""
    audience = doc.get("audience")
    if not isinstance(audience, str) or audience == "moderator":
        raise Broken("a version 2 export is a player's or the public export of a game in progress, not the moderator's")
    if doc.get("seed") is not None or doc["game"]["over"] or doc.get("result") is not None or doc.get("finished"):
        raise Broken("a version 2 export is of a game in progress: it cannot hold the seed, a result or an end")
    rows = _numbered(doc)
    head = rows[-1]["hash"] if rows else doc["seed_commitment"]
    summary = doc.get("chain")
    if summary is None:
        raise Broken("a version 2 export has a chain summary (start, head, entries)")
    if summary["start"] != doc["seed_commitment"]:
        raise Broken(f"the chain starts from {quote(summary['start'])}, not from the seed commitment")
    if summary["entries"] != len(rows) or summary["head"] != head:
        raise Broken(
            f"the export lists {count(len(rows), 'entry', 'entries')} ending at {head[:16]}..., but states "
            f"{summary['entries']} ending at {str(summary['head'])[:16]}..."
        )
    if wrong := wrong_holder(doc, doc["events"]):
        raise Broken(wrong)
    for before, row in itertools.pairwise(rows):
        if str(row["at"]) < str(before["at"]):
            raise Broken(
                f"{said(row)} is dated {clip(str(row['at']))}, before {said(before)} ({clip(str(before['at']))})"
            )
    return [
        f"the {count(len(rows), 'entry', 'entries')} listed are numbered 1..{len(rows)} as {clip(audience)}'s receipts count "
        f"them, in order, ending at the head {head[:16]}...",
    ]


def wrong_holder(doc: dict[str, Any], rows: list[dict[str, Any]]) -> str | None:
    """Why a seat's `holder` (who holds it now, when a replacement gave it: walk8) is not the newcomer of that seat's
    last public `replace` event among `rows`; None when every seat's is, or lists none (an export written before
    walk8: the views name the holder from the events, `pbem.history.story.holders`, not from this field)."""
    now = {i: str(p["name"]) for i, p in enumerate(doc["players"])}
    for e in rows:
        data = e.get("data")
        given = e.get("kind") == "moderator" and isinstance(data, dict) and data.get("action") == "replace"
        if given and isinstance(data, dict) and data.get("seat") in now:
            now[data["seat"]] = str(data.get("newcomer"))
    for i, p in enumerate(doc["players"]):
        if "holder" not in p:  # an export written before walk8 lists none; the views follow the events themselves
            continue
        if p.get("holder", p["name"]) != now[i]:
            return f"seat {i} is said to be held by {quote(p.get('holder', p['name']))}; its replacements give it to {quote(now[i])}"
    return None


def _numbered(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The listed entries, each list in increasing order, numbered together 1..N without a gap, each with a hash and
    no salt, and only set-up events (before every input) naming an input (0)."""
    for what, rows in (("input", doc["orders"]), ("event", doc["events"])):
        last = 0
        for row in rows:
            if "salt" in row:
                raise Broken(f"{said(row)} carries a salt: a partial export leaves them out until the seed is revealed")
            if row["seq"] <= last:
                raise Broken(f"{what} {row['seq']} is listed after entry {last}: entries are repeated or swapped")
            last = row["seq"]
    rows = listed(doc)
    for i, row in enumerate(rows, 1):
        if row["seq"] != i:
            raise Broken(
                f"the entries are numbered 1..{len(rows)} as their reader counts them, but entry {i} is missing "
                f"(the next listed is {row['seq']})"
            )
        if not isinstance(row.get("hash"), str) or len(row["hash"]) != 64:
            raise Broken(f"{said(row)} carries no hash (64 hex digits)")
    first_input = min((o["seq"] for o in doc["orders"]), default=len(rows) + 1)
    for e in doc["events"]:
        if "input_seq" in e and (e["input_seq"] != 0 or e["seq"] > first_input or e["kind"] in MODERATOR_KINDS):
            raise Broken(
                f"{said(e)} names input {e['input_seq']}: only a set-up event, before every input, names one (0)"
            )
    return rows


def signed(doc: dict[str, Any]) -> str:
    """The partial export's signature covers its listing, its reader's position and head and the game's fields."""
    key, sig = doc["game"].get("key"), doc.get("signature")
    if key is None:
        if sig is not None:
            raise Broken("the export carries a signature but no game key to check it with")
        return ""
    if not isinstance(sig, dict) or not all(isinstance(sig.get(k), str) for k in ("head", "header", "listed", "sig")):
        raise Broken("the game has a signing key, but the export's listing is not signed (signature is missing)")
    if not isinstance(sig.get("entries"), int) or not isinstance(key, str) or len(key) != 64:
        raise Broken("the export's signature or game key is malformed")
    h = signing.header_of_export(doc)
    if sig["header"] != h:
        raise Broken(
            "the game's fields outside the chain (name, kind, options, insecure_seed, players, commitment) are not "
            "the ones the export's signature was made for: they were edited"
        )
    if (sig["entries"], sig["head"]) != (doc["chain"]["entries"], doc["chain"]["head"]):
        raise Broken("the export's signature is for another head than its chain's")
    if sig["listed"] != signing.listing(doc):
        raise Broken("the entries listed are not the ones the export's signature was made for: they were changed")
    view = sig.get("view")
    if view is not None and not isinstance(view, str):
        raise Broken("the export's signature or game key is malformed")
    if view is not None and view != signing.view_of(doc):
        raise Broken(
            "the final view (the position the export shows its reader) is not the one the export's signature was made "
            "for: it was changed"
        )
    statement = signing.partial_statement(doc["game"]["name"], h, sig["entries"], sig["head"], sig["listed"], view)
    if not signing.valid(key, statement, sig["sig"]):
        raise Broken("the signature of the export's listing is not the game key's")
    return (
        f"the listing, its head, {'its final view (the position shown) ' if view else ''}and the game's fields are "
        f"signed by the game key, fingerprint {signing.fingerprint(key)} (compare it with the one in your invitation)"
        + (
            "; its final view is not signed (an export made before pbem signed it): it is compared with the replay "
            "only at the end (--earlier), as your evidence"
            if view is None
            else ""
        )
    )


def view_signed(doc: dict[str, Any]) -> bool:
    """Whether a partial export's signature covers its final view (every one made since branch `fairness6`)."""
    sig = doc.get("signature")
    return isinstance(sig, dict) and isinstance(sig.get("view"), str) and bool(doc["game"].get("key"))


def _names(final: dict[str, Any], reader: str) -> set[str]:
    """`reader` and every earlier name of their seat (a `rename` input gives a seat's old name a newcomer)."""
    names = {reader}
    for o in final["orders"]:
        if o["kind"] == "rename" and o["lines"] and o["lines"][0] in names:
            names.add(str(o["player"]))
    return names


def seen_in_final(final: dict[str, Any], reader: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows (in chain order) of the final export that `reader` ("public" or a player) could see while the game
    ran: as `pbem.history.export.build` lists them for a partial export."""
    names = set() if reader == "public" else _names(final, reader)
    out = []
    for row in rows:
        if "lines" in row:
            if row["player"] == "" or row["player"] in names:
                out.append(row)
        elif row["visibility"] == "public" or (
            isinstance(row["visibility"], list) and any(n in row["visibility"] for n in names)
        ):
            out.append(row)
    return out


def against_final(final: dict[str, Any], rows: list[dict[str, Any]], earlier: dict[str, Any]) -> list[str]:
    """An earlier partial export against the final export (whose chain, `rows` in chain order, verify proved):
    the earlier entries 1..N are the first N entries its reader may see in the final chain, same content, same
    hash.  Returns what was checked; raises Broken with the first difference."""
    if earlier.get("format") != final.get("format") or earlier["game"]["name"] != final["game"]["name"]:
        raise Broken("the earlier export is not of the same game")
    if earlier["seed_commitment"] != final["seed_commitment"] or earlier["game"].get("key") != final["game"].get("key"):
        raise Broken("the earlier export has another seed commitment or game key than the final one: another game")
    reader = str(earlier["audience"])
    seen = seen_in_final(final, reader, rows)
    mine = listed(earlier)
    if len(mine) > len(seen):
        raise Broken(
            f"the earlier export lists {count(len(mine), 'entry', 'entries')} for {clip(reader)}, but the final chain holds only "
            f"{len(seen)} that {clip(reader)} may see"
        )
    for was, now in zip(mine, seen):
        fields = _INPUT_FIELDS if "lines" in was else _EVENT_FIELDS
        if ("lines" in was) != ("lines" in now):
            raise Broken(
                f"the earlier {said(was)} is {'an event' if 'lines' in was else 'an input'} in the final chain"
            )
        for f in fields:
            if was.get(f) != now.get(f):
                raise Broken(
                    f"the earlier {said(was)} differs from the final chain's entry there in its {f}: "
                    f"{clip(str(was.get(f)))} then, {clip(str(now.get(f)))} now; both are signed by the game key, so "
                    "this is proof that the moderator showed a history the final record does not hold"
                )
        setup = now.get("input_seq") == 0 and now["kind"] not in MODERATOR_KINDS
        if "lines" not in was and ("input_seq" in was) != setup:
            raise Broken(
                f"the earlier {said(was)} is {'not ' if setup else ''}marked as set-up, unlike the final chain"
            )
    return [
        f"every one of the {count(len(mine), 'entry', 'entries')} of the earlier export ({clip(reader)}'s, record #{len(mine)}) "
        f"is in the final chain: {clip(reader)}'s entries 1..{len(mine)}, with the same content and hash"
    ]
