"""players27, item 3: a footer line that starts with a command or an order word, under a command or an order.

"JOIN" above "Join us on Discord" refused the whole mail: the join step read the footer as a second JOIN line.  A
signature, a mailing list's or a company's footer, a phone's "Sent from" line or a legal disclaimer in any language
may start with a word pbem reads ("Join", "Help", "Status", "Report", "Press", "Play", "Pass", "Discard", "Take",
"Vote", "Accept", "Offer", "Trade", "Place", "Remove", "Keep", "Drop", "Leader", "Done", "End", "Back", "Away").
Under a valid command or order it is listed as not read, never a reason to refuse the mail, and never applied.

Generated: each footer of `FOOTERS`, placed each of the ways of `PLACES` (right under, after a blank line, under a
"-- " line, under a sign-off and the name), under each command players send alone (`COMMANDS`), under JOIN and
JOIN with a SALT in each game's join step, and under each of the first `ORDERS` legal orders of each game's first
step.  A case is read as meant when the command is asked (nothing else), the order or the JOIN applied exactly
(the state the order alone gives) and nothing is refused.  `REPLIES27_ALL=1` runs every case; the suite runs a
seeded sample of `SAMPLED`.

On efd12b07 518 of the 5,984 cases were misread: every JOIN above "Join us on Discord", "Join our Discord server!",
"Join the club!" (refused whole); every command above a footer of prose or a closing ("Discard this e-mail if you
are not the intended recipient", "Pass it on!", "Take care", "Play fair, have fun!": the handbook sent and the
footer refused), also under "Cheers," and the name, where a signature after an order already was not read; and the
`RESIDUE` under orders.  Now 160 are, all `RESIDUE`: footers of five words or more, or with a capital or a digit
after the word ("Done is better than perfect.", "Vote for us in the Club of the Year awards", "Trade fair 2027:
visit us at stand 4"), which may be an order mistyped and stay refused with their reason, as before, when they start
with the step's order word: never applied, the mail refused whole (`pbem.app.lines.closing` sets aside a closing of
four words at most, no digit, in lower case).  Under "-- " every footer was and is dropped.  players28: none is now
(`pbem.orders.closings`: a footer in lower case of any length, or a sentence with capitals or digits and two words of
sentences, naming nothing of the game's; `tests/test_replies28_footers.py` checks mistyped orders stay refused).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

from tests.replies27 import first_state, intake

#: Footers players' mail carries, each a block of lines, several starting with a word some game reads.
FOOTERS: dict[str, tuple[str, ...]] = {
    "discord": ("Join us on Discord: https://discord.gg/pbem",),
    "discord-plain": ("Join our Discord server!",),
    "discord-club": ("Join the club!",),
    "join-conversation": ("Join the conversation at the Boardgame Guild",),
    "mailman": (
        "_______________________________________________",
        "Pbem-players mailing list",
        "Pbem-players@lists.example.org",
        "https://lists.example.org/mailman/listinfo/pbem-players",
    ),
    "google-groups": (
        "--",
        'You received this message because you are subscribed to the Google Groups "Board Gamers" group.',
        "To unsubscribe from this group and stop receiving emails from it, send an email to "
        "board-gamers+unsubscribe@googlegroups.com.",
    ),
    "iphone": ("Sent from my iPhone",),
    "iphone-fr": ("Envoyé de mon iPhone",),
    "galaxy-de": ("Von meinem Samsung Galaxy gesendet",),
    "help-donate": ("Help us keep the club running: donate at https://example.org/give",),
    "help-plain": ("Help the planet, don't print this mail.",),
    "status-page": ("Status page: https://status.example.org",),
    "report-abuse": ("Report abuse to abuse@example.org",),
    "press-enquiries": ("Press enquiries: press@example.org",),
    "code-of-conduct": ("Code of conduct: https://example.org/conduct",),
    "play-fair": ("Play fair, have fun!",),
    "play-safe": ("Play it safe and think before you print",),
    "pass-it-on": ("Pass it on!",),
    "take-care": ("Take care",),
    "vote-award": ("Vote for us in the Club of the Year awards",),
    "keep-calm": ("Keep calm and carry on",),
    "drop-line": ("Drop me a line any time",),
    "done-better": ("Done is better than perfect.",),
    "back-to-top": ("Back to top",),
    "discard-disclaimer": (
        "CONFIDENTIALITY: this message is for its addressee only.",
        "Discard this e-mail if you are not the intended recipient.",
    ),
    "disclaimer-de": (
        "Diese E-Mail enthält vertrauliche Informationen. Wenn Sie nicht der richtige Adressat sind,",
        "informieren Sie bitte sofort den Absender und vernichten Sie diese E-Mail.",
    ),
    "disclaimer-fr": (
        "Ce message et ses pièces jointes sont confidentiels. Si vous n'êtes pas le destinataire,",
        "merci de le détruire et d'en avertir l'expéditeur.",
    ),
    "disclaimer-es": ("Este mensaje es confidencial. Si lo ha recibido por error, bórrelo y avise al remitente.",),
    "offer-valid": ("Offer valid while stocks last",),
    "accept-apologies": ("Accept my apologies for any typos",),
    "leader-since": ("Leader in board games since 1999",),
    "place-order": ("Place your order at www.example.com",),
    "trade-fair": ("Trade fair 2027: visit us at stand 4",),
    "remove-me": ("Remove me from this list: reply UNSUBSCRIBE",),
}
#: How the footer is placed under the command or order.
PLACES: dict[str, tuple[str, ...]] = {
    "under": (),
    "blank": ("",),
    "dash-dash": ("", "-- "),
    "signed": ("", "Cheers,", "Alice"),
}
COMMANDS = ("HELP", "STATUS", "HISTORY", "Help", "status")
ORDERS = 4  # legal orders of each game's first step, at most
KINDS = ("habsburg", "italian-wars", "sixteen-thirty", "dynasties")


@dataclass(frozen=True)
class Case:
    kind: str
    what: str  # "command", "join", "order"
    said: tuple[str, ...]  # the lines typed above the footer
    footer: str
    place: str

    @property
    def body(self) -> str:
        return "\n".join([*self.said, *PLACES[self.place], *FOOTERS[self.footer]]) + "\n"

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.what} {self.said} + {self.footer} ({self.place})"


def cases() -> list[Case]:
    out: list[Case] = []
    for kind in KINDS:
        eng, state = first_state(kind)
        said: list[tuple[str, tuple[str, ...]]] = [("command", (c,)) for c in COMMANDS]
        said += [("join", ("JOIN",)), ("join", ("JOIN", "SALT lucky seven"))]
        said += [("order", (o,)) for o in next(r for r in eng.requests(state) if r.player == "Alice").legal[:ORDERS]]
        out += [Case(kind, what, lines, f, p) for what, lines in said for f in FOOTERS for p in PLACES]
    return out


def residue(case: Case) -> bool:
    """Whether `case` is of the `RESIDUE`, and the footer is refused (the mail with it), nothing applied."""
    eng, state = first_state(case.kind, joining_step=case.what == "join")
    got = intake(eng, state, "Alice", case.body)
    return case.footer in RESIDUE and not got.applied and bool(got.refused)


def misread(case: Case) -> str:
    """Why `case` was not read as meant, or ""."""
    eng, state = first_state(case.kind, joining_step=case.what == "join")
    got = intake(eng, state, "Alice", case.body)
    if case.what == "command":
        if got.asked != {case.said[0].upper()} or got.refused or got.applied:
            return f"{case.label}: asked {sorted(got.asked)}, applied {got.applied}, refused {got.refused}"
        return ""
    want = eng.apply(state, "Alice", list(case.said))
    assert want.accepted, case.said
    if got.refused or got.state != want.state or got.asked:
        return f"{case.label}: applied {got.applied}, refused {got.refused}, asked {sorted(got.asked)}"
    return ""


SAMPLED = 240
#: Footers still refused under the order or command of a game whose order word they start with (never applied).
#: players28 (`tests/test_replies28_footers.py`, `pbem.orders.closings`): none now.
RESIDUE: frozenset[str] = frozenset()


def test_a_footer_starting_with_a_command_or_order_word_is_never_read_under_a_valid_one() -> None:
    every = cases()
    chosen = every if os.environ.get("REPLIES27_ALL") else random.Random(27).sample(every, SAMPLED)
    failures = [why for case in chosen if (why := misread(case)) and not residue(case)]
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures[:60])


def test_verify_takes_a_footer_under_a_command_as_set_aside_and_a_withheld_order_never() -> None:
    """`pbem verify --mail` reads a mail accepted with no input (`pbem.trust.sent.set_aside` with `commands`): its
    order lines all a footer or a closing is what the intake did (`pbem.app.footers`); an order left out is not."""
    from pbem.trust.sent import set_aside

    known = {"NO", "EVENT", "PASS"}
    assert set_aside(["Pass it on", "Discard this e-mail if you are not the intended recipient"], [], known, True)
    assert set_aside(["Pass it on"], [], known) is None
    assert set_aside(["NO EVENT"], [], known, commands=True) is None
    assert set_aside(["PLAY Gold 5"], [], known, commands=True) is None
