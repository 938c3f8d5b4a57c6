"""How a refused line is told (pure): its reason agrees with the mail's status, and what is legal is legal now.

`worded` is what the intake does to every refusal after the engine, the prose and the slots had their say:

* **The reason agrees with the status** (`agreeing`).  An engine refuses a line that answers nothing the
  player is asked with a `pbem.engine.base.NotAsked`, worded from the draft state the line met, which an
  earlier line of the same message may have moved on: "PASS" twice in Italian Wars had the second told
  "you are not asked anything now; waiting for Bob" above the status "Still awaited from: Alice" (the
  message was refused whole, so Alice is still awaited); an Italian Wars player asked to discard who sent a
  NEGATE was told "not asked anything" and listed as awaited.  The reason is worded here instead from the
  requests of the state the message met, the facts the status section shows (`views.waiting`): a player
  the status lists as awaited is told what they are asked, and one it does not list is told who is.
* **A question is not an order** (`questioned`).  A line that ends with a question mark ("NO EVENT?", "Vote red
  question mark" dictated) is refused in every game, however the engine took it, saying that a question is not read
  as an order; what would be accepted is the order without its question mark, when the engine takes it alone now.
* **What is legal is legal now** (`pbem.engine.offers.legal_now`).
* **Two orders on one line are told as such** (`joined`).  "PLAY Gold 10 PLAY Silver 5" was refused as naming
  no card ("gold 10 play silver 5"), "DISCARD NONE DISCARD Trench" as "none" not being a card.  A refused line
  that splits, where an order word starts, into orders the engine takes (each alone, or after the ones before
  it) is refused with "two orders on one line; put each on its own line", and what would be accepted is those orders,
  one per line.  When they cannot all be sent together (two answers to one question) the reason says so.  An
  accepted line whose order is only its first words, the rest no order ("NO TRADE if Bob does", "DECLINE ALL
  later": Sixteen Thirty took the order, the condition unread) is refused, the order alone offered (`_cut_short`).
  At most `CUTS` places per line and `TRIES` applications per message are tried.  The orders may be parted by ";",
  "/", "and", "&", "then" or the next one's number ("2)"), which are no part of either (`_piece`); the closing
  punctuation of a word never hides words after an order ("DECLINE ALL; unless Bob objects": `shortened`); and "put
  each on its own line" is said only when so written they fill no slot twice.  A refused line that is an order up
  to a sentence's end, or up to a comma or slash before a remark or condition ("DISCARD NONE. Thanks for running
  the game", "TRIBUTE Gold 7, but only if Bob agrees", "DISCARD NONE – I think" with a phone's dash: it was told '"none"
is not a card'), or up to a short dash before words that start no item of that order (`pbem.orders.items`: "TRIBUTE Silver 7 -
go team" was refused for a card named "team"), or up to the words a sentence ends with ("TRIBUTE Silver 7 from me",
"vote red for me this time": '"from" is not a card', "vote RED or BLUE"), or an order word with a remark after it ("NO EVENT I have
thought about it", "Pass, I keep my cards") is refused as one with words after it (`_sentence_cut`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pbem.app import misspelt, views
from pbem.app.unread import CLOSERS, ignored, shortened
from pbem.engine import offers, slots
from pbem.engine.base import Engine, LineResult, Outcome
from pbem.orders.extract import afterwords_at, asks, is_order, phrase_end, unasked
from pbem.orders.items import Items
from pbem.orders.typed import SENTENCE_WORDS

EARLIER = 2  # earlier lines quoted at most in "an earlier line of this message already answers"
CUTS = 8  # places in one refused line where an order word starts, tried at most
TRIES = 48  # applications of the engine spent on reading refused lines as several orders, per message
COUNTS = {2: "two", 3: "three", 4: "four"}


def worded(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` (the outcome of `player`'s message at `state`) as the refusal tells it (the module docstring)."""
    result = questioned(eng, state, player, result)
    if result.accepted:
        return joined(eng, state, player, result)
    told = offers.legal_now(eng, state, player, agreeing(eng, state, player, result))
    return misspelt.offered(eng, state, player, joined(eng, state, player, told))  # a name mistyped: the line meant


ASKED = 8  # lines asked as questions whose order is tried alone, per message


def questioned(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` with every line that asks a question ("NO EVENT?", "VOTE red?": `pbem.orders.extract.asks`) refused
    as one: a player unsure of an order is not taken at their word (Dynasties took "TRIBUTE Gold 7?", Habsburg
    refused "NO EVENT?" as no order of its own).  The reason says so, and what would be accepted is the order
    without its question mark when the engine takes it alone now; else the engine's reason for that order."""
    if not any(asks(r.line) for r in result.lines):
        return result
    lines: list[LineResult] = []
    tried = 0
    for r in result.lines:
        if not asks(r.line):
            lines.append(r)
            continue
        bare = unasked(r.line)
        tried += 1
        alone = eng.apply(state, player, [bare]).lines if tried <= ASKED else []
        why = "it ends with a question mark, and a question is not read as an order"
        if alone and alone[0].ok and not shortened(alone[0]):
            said = next((ln for q in eng.requests(state) for ln in q.legal if ln.upper() == bare.upper()), bare)
            lines.append(
                replace(r, ok=False, reason=f"{why}; if you mean it, send it without the question mark", legal=(said,))
            )
        else:
            r_bare = (_cut_short(alone[0], True) if alone[0].ok else alone[0]) if alone else r
            more = f"; {r_bare.reason}" if alone and r_bare.reason else ""
            lines.append(replace(r_bare, line=r.line, ok=False, reason=why + more, understood=""))
    return Outcome(state, [], lines)


def agreeing(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` with every not-asked refusal worded from the requests of `state`, as the status is."""
    if not any(r.not_asked and not r.ok for r in result.lines):
        return result
    reqs = eng.requests(state)
    waiting = views.waiting(eng, state)  # the status's "Still awaited from"
    asked = [first_sentence(r.prompt) for r in reqs if r.player == player and not r.answered]
    on_file = any(r.player == player and r.answered for r in reqs)
    lines: list[LineResult] = []
    for i, r in enumerate(result.lines):
        if r.ok or not r.not_asked:
            lines.append(r)
            continue
        if asked:
            why = _asked_else(eng, state, player, r, result.lines[:i], "; ".join(asked))
        else:
            head = "your orders for this step are on file and you are not asked anything else now" if on_file else ""
            why = f"{head or 'you are not asked anything now'}; waiting for {', '.join(waiting) or 'nobody'}"
        lines.append(replace(r, reason=why + (f" ({r.hint})" if r.hint else "")))
    return Outcome(result.state, result.events, lines)


def _asked_else(
    eng: Engine, state: dict[str, Any], player: str, r: LineResult, before: list[LineResult], asked: str
) -> str:
    """The reason for a player who is asked something: an earlier line answered it, or this line is not an answer."""
    earlier = [b.line for b in before if b.ok]
    if earlier and eng.apply(state, player, [r.line]).accepted:
        quoted = ", ".join(f'"{e}"' for e in earlier[-EARLIER:])
        return (
            f"an earlier line of this message ({quoted}) already answers what you are asked now ({asked}); "
            "this line alone would be accepted instead: send one answer"
        )
    return f"that is not an answer to what you are asked now: {asked}"


def first_sentence(prompt: str) -> str:
    """A request's prompt up to its first full stop (Sixteen Thirty's go on about the number of legal orders)."""
    return prompt.split(". ", 1)[0].rstrip(". ")


def joined(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` with each line that holds several orders refused so, its orders offered one per line: a refused
    line, or an accepted one whose order the engine read from its first words only (Sixteen Thirty took
    "NO TRADE TRADE WANT ANY" as NO TRADE, the rest unsaid)."""
    budget = [TRIES]
    lines: list[LineResult] = []
    for r in result.lines:
        short = r.ok and shortened(r)
        unread = r.ok and not short and ignored(eng, state, player, r, budget)  # "DECLINE, ACCEPT Bob ..." too
        parts = split(eng, state, player, r.line, budget) if not r.ok or short or unread else []
        if len(parts) < 2:
            if short or unread:
                lines.append(_cut_short(r, short))
            else:
                lines.append(r if r.ok else _sentence_cut(eng, state, player, r, budget))
            continue
        n = COUNTS.get(len(parts), str(len(parts)))
        together = _accepted(eng, state, player, parts, budget) and _one_each(eng, state, player, parts)
        why = (
            f"{n} orders on one line; put each on its own line, as below"
            if together
            else f"{n} orders on one line, and only one of them can be sent now; put the one you mean on its own line"
        )
        lines.append(replace(r, ok=False, reason=why, legal=tuple(parts), understood="", names=(), unchecked=0))
    if result.accepted and not all(r.ok for r in lines):
        return Outcome(state, [], lines)  # refused whole, as any message with a refused line
    return Outcome(result.state, result.events, lines)


def _one_each(eng: Engine, state: dict[str, Any], player: str, parts: list[str]) -> bool:
    """Whether `parts`, sent one per line, fill no slot twice (`pbem.engine.slots`): "PLAY Platinum 9 and PLAY Copper
    10" was told "put each on its own line", and so written it was refused as two plays for one turn."""
    return not slots.doubled(eng, parts)


def _cut_short(r: LineResult, short: bool) -> LineResult:
    """An accepted line whose order is only its first words (`short`), the rest no order ("NO TRADE if Bob does",
    "DECLINE ALL later", "PLAY Vote next time": Sixteen Thirty took each as the order alone, the condition unread),
    or only its order word (`pbem.app.unread.ignored`: "Decline your time" read as DECLINE ALL): refused, the order
    alone offered."""
    said = r.understood.split(" (", 1)[0]
    words = r.line.split()
    rest = " ".join(words[len(said.split()) if short else 1 :])
    what = f'only "{said}" of this line is an order' if short else f'"{words[0]}" alone is read as "{said}"'
    why = f'{what}, and the rest ("{rest}") cannot be read with it; send the order alone'
    return replace(r, ok=False, reason=why, legal=(said,), understood="", names=(), unchecked=0)


_SENTENCE_END = re.compile(r"(?:[^\W\d_]{2}|\d)[.!;](?=\s+\S)")  # "NONE. Thanks", "Gold 7. Sorry": not "J. R."
_LIST_PART = re.compile(
    r"[^\W_](?:,|\s+[/|\-\u2013\u2014])(?=\s+\S)"
)  # "Carol, but only if", "Bob / maybe", "NONE – ok"
#: A long dash between words ("VOTE RED — later please", "DISCARD NONE -- see you Friday"): what follows is a remark,
#: whatever its words (a comma, a slash or a short "-" may part the items of a list, so there a remark's word is asked).
_LONG_DASH = re.compile(r"[^\W_]\s+(?:[\u2013\u2014]|--)(?=\s+\S)")
#: Words that make what follows a comma or a slash a remark or a condition, not the next item of a list of names.
_REMARK_WORDS = SENTENCE_WORDS | {"but", "unless", "only", "maybe", "later", "perhaps", "thanks", "sorry", "when", "ok"}
CUT_TRIES = 3  # places in one refused line where an order may end tried, at most


def _sentence_cut(eng: Engine, state: dict[str, Any], player: str, r: LineResult, budget: list[int]) -> LineResult:
    """A refused line that is an order the engine takes alone up to where a sentence ends (".", "!", ";") or up to a
    comma or slash before words of a remark or a condition ("DISCARD NONE. Thanks for running the game", "EVENT
    CLAIM Royal Wedding TARGET Carol, but only if Bob agrees", "TRIBUTE Gold 7 / maybe later"): refused as
    `_cut_short` refuses an order with words after it, the order alone offered, instead of with the engine's reason
    ('"none." is not a card', '"Carol, but only if Bob agrees" is not a player').  The longest such order first, at
    most `CUT_TRIES` applications of the engine per line, from the message's `budget`."""
    ends = [m.end() - 1 for m in _SENTENCE_END.finditer(r.line)]  # where its ".", "!" or ";" is
    items = Items(eng, state, player, (*r.legal, *r.names))
    ends += [
        m.start() + 1
        for m in _LIST_PART.finditer(r.line)
        if _remark(r.line[m.end() :]) or (m.group(0)[-1] == "-" and not items.may_start(r.line[m.end() :]))
    ]
    ends += [m.start() + 1 for m in _LONG_DASH.finditer(r.line)]
    after = afterwords_at(r.line)  # "TRIBUTE Silver 7 from me", "vote red for me this time": a sentence's last words
    ends += [after] if after > 0 else []
    word = phrase_end(r.line, eng.order_words)  # "NO EVENT I have thought about it": the order word, a remark
    ends += [word] if word and _remark(r.line[word:]) else []
    for end in sorted(set(ends), reverse=True)[:CUT_TRIES]:
        if budget[0] <= 0:
            break
        said = r.line[:end]
        budget[0] -= 1
        alone = eng.apply(state, player, [said])
        if alone.accepted and alone.lines and not shortened(alone.lines[0]):
            cut = _cut_short(replace(r, ok=True, understood=said), True)  # `said` is the line's start
            meant = alone.lines[0].understood.split(" (", 1)[0] if end == word else ""  # "Place" alone: PLACE NONE
            return replace(cut, legal=(meant,)) if meant else cut
    return r


def _remark(rest: str) -> bool:
    """Whether the words after a comma or slash hold a word of a remark or condition (`_REMARK_WORDS`)."""
    return any(w.strip(".,;:!?()\"'").lower() in _REMARK_WORDS for w in rest.split()[:12])


def split(eng: Engine, state: dict[str, Any], player: str, line: str, budget: list[int]) -> list[str]:
    """The orders `line` holds, cut where an order word starts, each taken by the engine alone or after the ones
    before it (the longest first piece that leads to such a reading); [] if the line does not read so."""
    words = line.split()
    cuts = [i for i in range(1, len(words)) if is_order(" ".join(words[i:]), eng.order_words)][:CUTS]
    if not cuts:
        return []
    return _pieces(eng, state, player, words, cuts, 0, [], budget) or []


def _pieces(
    eng: Engine,
    state: dict[str, Any],
    player: str,
    words: list[str],
    cuts: list[int],
    start: int,
    before: list[str],
    budget: list[int],
) -> list[str] | None:
    """The rest of the line from word `start` as orders after `before`, the longest piece tried first."""
    if start == len(words):
        return before
    for end in reversed([c for c in cuts if c > start] + [len(words)]):
        if start == 0 and end == len(words):
            continue  # the whole line: the engine's own reading
        if budget[0] <= 0:
            return None
        piece = _piece(words[start:end], end < len(words))
        if _taken(eng, state, player, before, piece, budget):
            found = _pieces(eng, state, player, words, cuts, end, [*before, piece], budget)
            if found:
                return found
    return None


#: Words that join two orders typed on one line ("DISCARD NONE and DISCARD Trench", "PLAY Gold 9 & PLAY Copper
#: 10", "DECLINE ALL, then ACCEPT Bob ..."): not part of the order before them.
_JOINERS = frozenset({"and", "&", "+", "then", "und", "et", "y", "e", "en"})
_LIST_NUMBER = re.compile(r"^\(?[0-9]{1,2}[.):]$")  # "1) NO EVENT 2) ...": the number of the next one


def _piece(words: list[str], before_another: bool) -> str:
    """The order `words` hold, without what parts it from the next order on the line: a separator (";", "/"), a
    joining word ("and", "&", "then") or the next one's number ("2)"); offered as "PLAY Gold 9 &" before."""
    out = list(words)
    while before_another and len(out) > 1:
        last = out[-1].rstrip(CLOSERS)
        if last and last.lower() not in _JOINERS and not _LIST_NUMBER.match(out[-1]):
            break
        out.pop()
    return " ".join(out).rstrip(CLOSERS + " ")


def _taken(eng: Engine, state: dict[str, Any], player: str, before: list[str], piece: str, budget: list[int]) -> bool:
    return _accepted(eng, state, player, [piece], budget) or (
        bool(before) and _accepted(eng, state, player, [*before, piece], budget)
    )


def _accepted(eng: Engine, state: dict[str, Any], player: str, lines: list[str], budget: list[int]) -> bool:
    if budget[0] <= 0:
        return False
    budget[0] -= 1
    return eng.apply(state, player, lines).accepted
