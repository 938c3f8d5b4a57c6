"""The readable game record (`pbem export --format text`), in the tradition of email judges.

A header, then one line per event under a heading per step (turn, hand,
gambit: the game's own word), then the standings, the result and the seed
with the commands that check it.  A pure function of the export document.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.rng import commitment
from pbem.history.story import Doc, audience_note, holders, standings, turns, when
from pbem.render.sanitize import visible
from pbem.trust.seeds import INSECURE_NOTE, check_lines

#: Said at the top of the moderator's record (text and HTML); its file is NAME-moderator.EXT.
MODERATOR_WARNING = "Not for players: it holds every secret, the players' addresses and every refusal."


def _tag(vis: Any, audience: str) -> str:
    if vis == "public":
        return ""
    if vis == "moderator":
        return " [moderator only]"
    return " [to you]" if list(vis) == [audience] else f" [to {', '.join(vis)}]"


def text_record(doc: Doc) -> str:
    """The game record in the tradition of email judges: a header, then one line per event
    under a heading per turn (hand, gambit), then the result and the seed."""
    g = doc["game"]
    rule = "=" * 72
    lines = [
        rule,
        f"{g['title']}: game {g['name']}",
        rule,
        f"Record:     {audience_note(doc)}",
        *([f"            {MODERATOR_WARNING}"] if doc["audience"] == "moderator" else []),
        f"Kind:       {g['kind']}"
        + (" (options: " + ", ".join(f"{k}={v}" for k, v in g["options"].items()) + ")" if g["options"] else ""),
        "Players:    " + ", ".join(f"{h.seat + 1}. {h.line()}" for h in holders(doc)),
        f"Started:    {when(g['created'])}",
        f"Finished:   {when(doc.get('finished'))}" if g["over"] else "Status:     in progress",
        f"Result:     {doc['result']['summary'] if doc['result'] else 'not decided yet'}",
        f"Commitment: {doc['seed_commitment']} (SHA-256 of the seed)",
        *([f"Warning:    {INSECURE_NOTE}"] if g.get("insecure_seed") else []),
        "",
    ]
    for grp in turns(doc):
        lines.append(f"--- {grp.title} " + "-" * max(3, 67 - len(grp.title)))
        for ev in grp.events:
            lines.append(f"{ev['seq']:5d}. {ev['text']}{_tag(ev['visibility'], doc['audience'])}")
        lines.append("")
    table = standings(doc)
    lines.append(f"{table['caption']}:")
    for r in table["rows"]:
        extra = "".join(f", {c.lower()} {v}" for c, v in zip(table["columns"], r["extra"]))
        lines.append(f"  {r['rank']}. {r['player']} {r['score']}{extra}{'  (winner)' if r['winner'] else ''}")
    if doc["result"]:
        lines += ["", f"Result: {doc['result']['summary']}"]
    if doc["seed"]:
        ok = commitment(doc["seed"]) == doc["seed_commitment"]
        lines += [
            "",
            f"Seed: {doc['seed']}",
            f"SHA-256(seed) {'equals' if ok else 'DOES NOT equal'} the commitment {doc['seed_commitment']}.",
            "Check it (the seed's text in hex, safe to paste into any shell):",
            *(f"  {line}" for line in check_lines(doc["seed"])),
            f"Replay it: pbem verify {g['name']}.json (the JSON export of this game)",
        ]
    else:
        lines += ["", "Seed: secret until the game is over (the commitment above lets every player check it then)."]
    return visible("\n".join(lines), keep_lines=True) + "\n"  # press and names as text, never as escapes
