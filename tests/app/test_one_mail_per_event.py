"""One event, one mail to each person (notices2, walk6's leftovers): no address gets two mails from one decision.

walk6 found two of this class: the JOIN that completes the deal was answered "joined ... Your first report follows."
and then the report (two mails where a reply's acknowledgement and report were already one, issue 23), and a
replacement's newcomer got the notice written for the others ("Erin replaces Dave. ... if yours are not in yet,
reply to your latest report") before their full report.  The generator decides, on plain objects and finished
(`pbem.app.finish`, as `tests/app/test_finished_mail.py`), every event of those kinds over each game kind, each
seat and each variant (the last JOIN with and without a salt, the newcomer under a new name or the seat's), plus
each other moderator command, and counts the decisions in which one address is mailed twice.

Cases failing on 18279215 (main when notices2 started): 44 of 60 (all 22 dealing JOINs, all 22 replacements); on
notices2: 0.  `python -m tests.app.test_one_mail_per_event` prints the count; the suite runs all 60.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest

from pbem import engine as registry
from pbem.app import control, views
from pbem.app.decision import Decision
from pbem.app.intake import Facts, decide
from pbem.orders.extract import extract
from pbem.record.store import Loaded
from pbem.trust import deal as joining
from tests.app.plain import WHEN, loaded, mail, signed
from tests.app.test_finished_mail import finished, read

KINDS = registry.available()
NEWCOMERS = ("Dave", "dave@players.test")


def _players(kind: str) -> tuple[str, ...]:
    return ("Alice", "Bob", "Carol")[: max(registry.get(kind).min_players, min(3, registry.get(kind).max_players))]


def _joining(kind: str, joined: dict[str, str]) -> Loaded:
    g = loaded(kind, _players(kind))
    g.state = {joining.KEY: {"salts": dict(joined)}}
    return read(g)


def _cases() -> Iterator[tuple[str, Callable[[], tuple[Decision, Loaded]]]]:
    for kind in KINDS:
        players = _players(kind)
        for last in players:
            for salt in ("", "SALT 42\n"):
                others = {p: "" for p in players if p != last}

                def dealing(kind=kind, last=last, salt=salt, others=others) -> tuple[Decision, Loaded]:
                    g = _joining(kind, others)
                    msg = mail(last, signed(last, f"JOIN\n{salt}"))
                    ex = extract(msg.text, msg.subject, views.engine(g).order_words)
                    return decide(msg, Facts(g, extracted=ex, when=WHEN, now=WHEN), 30), g

                yield f"{kind}: {last}'s JOIN deals{' (salted)' if salt else ''}", dealing
        first = players[0]

        def first_join(kind=kind, first=first) -> tuple[Decision, Loaded]:
            g = _joining(kind, {})
            msg = mail(first, signed(first, "JOIN"))
            ex = extract(msg.text, msg.subject, views.engine(g).order_words)
            return decide(msg, Facts(g, extracted=ex, when=WHEN, now=WHEN), 30), g

        yield f"{kind}: {first}'s JOIN, others awaited", first_join
        for old in players:
            for name in ("Dave", old):

                def replace(kind=kind, old=old, name=name) -> tuple[Decision, Loaded]:
                    g = read(loaded(kind, _players(kind)))
                    return control.decide_replace(g, "running", old, (name, NEWCOMERS[1]), "DAVE-2345", "h"), g

                yield f"{kind}: {name} <{NEWCOMERS[1]}> replaces {old}", replace
        for command in ("extend", "pause", "abandon"):

            def other(kind=kind, command=command) -> tuple[Decision, Loaded]:
                g = read(loaded(kind, _players(kind)))
                step = views.current_step(views.engine(g), g.state)
                d = {
                    "extend": lambda: control.decide_extend(g, "running", step, WHEN, timedelta(hours=5)),
                    "pause": lambda: control.decide_pause(g, "running", WHEN),
                    "abandon": lambda: control.decide_abandon(g, "running"),
                }[command]()
                return d, g

            yield f"{kind}: {command}", other


CASES = dict(_cases())


def twice(case: Callable[[], tuple[Decision, Loaded]]) -> list[str]:
    """The addresses one decision mails more than once (each with the kinds of its mails)."""
    d, g = case()
    counts = Counter(m.to for m in finished(d, g))
    return [f"{to}: {n} mails" for to, n in counts.items() if n > 1]


def failing() -> list[str]:
    """The whole generator: each case whose decision mails an address twice."""
    return [f"{name}: {', '.join(bad)}" for name, case in CASES.items() if (bad := twice(case))]


def test_the_generator_covers_every_kind_and_event() -> None:
    assert len(CASES) == 60 and {name.split(":")[0] for name in CASES} == set(KINDS)


@pytest.mark.parametrize("name", sorted({n.split(":")[0] for n in CASES}))
def test_one_event_mails_each_address_at_most_once(name: str) -> None:
    bad = [f"{n}: {', '.join(b)}" for n, case in CASES.items() if n.split(":")[0] == name and (b := twice(case))]
    assert not bad, f"{len(bad)} decisions mail an address twice:\n" + "\n".join(bad)


if __name__ == "__main__":  # python -m tests.app.test_one_mail_per_event: the count on this tree
    found = failing()
    print(f"{len(found)} of {len(CASES)} cases mail an address twice", *found, sep="\n")
