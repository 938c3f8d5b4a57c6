"""The public site (`pbem publish DIR`): an index of games and one public page per game (pure).

Everything here is computed from public export documents (`audience == "public"`,
see pbem/history/export.py) and a few public facts about each game's current step
(who is asked, until when, whether the moderator paused it): the same facts every
player's report states openly.  No player's secret can reach a page, because none
is in its input; tests/test_publish.py runs the secrecy scramble over the pages to
hold that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.history.page import context
from pbem.history.story import Doc, holders

#: What the status word of an index row says, in a visitor's words.
STATUS_WORDS = {
    "running": "in progress",
    "paused": "paused by the moderator",
    "abandoned": "abandoned",
    "over": "finished",
    "joining": "waiting for players to join",
}


@dataclass(frozen=True)
class Now:
    """The public state of one game's current step."""

    status: str  # running, paused, abandoned, over, joining
    waiting: tuple[str, ...]  # the players asked now (empty when nobody is)
    due: datetime | None  # when the current step's default applies (None: no deadline now)

    def line(self) -> str:
        """One sentence: whose move it is and until when, or why nobody moves."""
        if self.status == "over":
            return "The game is over."
        if self.status == "abandoned":
            return "The moderator abandoned this game."
        if self.status == "paused":
            return "The moderator paused this game; its deadlines wait until it resumes."
        if not self.waiting:
            return "Nobody is asked to move just now."
        # players are people: never "it" (walk7 read "Waiting for Alice: it is asked to move until ...")
        who = ", ".join(self.waiting[:-1]) + " and " + self.waiting[-1] if len(self.waiting) > 1 else self.waiting[0]
        until = f" (deadline {self.due:%a %d %b %Y %H:%M} UTC)" if self.due else ""
        return f"Waiting for {who} to move{until}."


@dataclass(frozen=True)
class Entry:
    """One game of the index: what the index row shows and the file its page is written to."""

    name: str
    title: str
    kind: str
    players: tuple[str, ...]
    now: Now
    result: str  # the result summary once over, else ""
    page: str  # the page's file name, beside index.html

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "players": list(self.players),
            "status": self.now.status,
            "waiting": list(self.now.waiting),
            "due": self.now.due.isoformat() if self.now.due else None,
            "result": self.result,
            "page": self.page,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entry:
        due = datetime.fromisoformat(d["due"]) if d.get("due") else None
        now = Now(str(d["status"]), tuple(d["waiting"]), due)
        return cls(d["name"], d["title"], d["kind"], tuple(d["players"]), now, d["result"], d["page"])


def entry(doc: Doc, now: Now, page: str) -> Entry:
    """The index row of a game, from its public export document."""
    if doc["audience"] != "public":
        raise ValueError("the site is made of public documents only")
    g = doc["game"]
    result = doc["result"]["summary"] if doc.get("result") else ""
    return Entry(g["name"], g["title"], g["kind"], tuple(h.name for h in holders(doc)), now, result, page)


def game_page(doc: Doc, now: Now) -> str:
    """A game's public page: the history page of its public document, opened by what is happening now."""
    from pbem.render.templates import render

    if doc["audience"] != "public":
        raise ValueError("the site is made of public documents only")
    return render("export/history.html.j2", **context(doc), now=now, site=True)


def index_page(entries: list[Entry], generated: datetime, home_title: str = "pbem games") -> str:
    """The index of every published game, running games first."""
    from pbem.render.templates import render

    order = {"running": 0, "joining": 1, "paused": 2, "over": 3, "abandoned": 4}
    rows = sorted(entries, key=lambda e: (order.get(e.now.status, 9), e.name))
    return render("site/index.html.j2", entries=rows, generated=generated, title=home_title, words=STATUS_WORDS)
