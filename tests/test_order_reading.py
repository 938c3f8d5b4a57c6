"""Order reading rules (issue 16): chatter, control words, END, the Subject, format=flowed, player names."""

from __future__ import annotations

import pytest

from pbem import engine as registry
from pbem.engine.base import RuleError
from pbem.engine.names import match_one, norm, player_name
from pbem.home.app import Home
from pbem.mail.inbound.message import parse, unflow
from pbem.orders.extract import extract, is_order, subject_line
from pbem.orders.furniture import own_lines

HH = registry.get("habsburg").order_words
ST = registry.get("sixteen-thirty").order_words


def test_lines_without_an_order_word_are_chatter_not_orders() -> None:
    ex = extract("Hi moderator,\nMELD Otto Spain King\nPASS\nCheers,\nAlice\nSent from my iPhone\n", "", HH)
    assert ex.orders == ["MELD Otto Spain King", "PASS"]
    assert ex.chatter == ["Hi moderator,", "Cheers,", "Alice"]
    assert ex.furniture == ["Sent from my iPhone"]


def test_order_words_are_each_games_own_and_phrases_match_whole_words() -> None:
    assert is_order("no event", HH) and is_order("No-Event", HH) and is_order("discard-if-needed lowest", HH)
    assert not is_order("No worries, I pass", HH) and not is_order("Eve", HH)
    assert is_order("NO TRADE", ST) and is_order("place-start england 2", ST) and not is_order("MELD a b c", ST)
    for kind in registry.available():
        words = registry.get(kind).order_words
        assert words and all(w == w.upper() for w in words), kind


def test_every_legal_and_default_line_a_report_offers_is_read_as_an_order() -> None:
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    for kind in registry.available():
        eng = registry.get(kind)
        state, _ = eng.setup(["Alice", "Bob", "Carol"][: max(eng.min_players, 2)], f"words-{kind}", {})
        rng = Rng(init_state("words"))
        for _ in range(60):
            reqs = [r for r in eng.requests(state) if not r.answered]
            if not reqs or eng.result(state):
                break
            for r in reqs:
                for line in (*r.legal, *r.default):
                    assert is_order(line, eng.order_words), (kind, line)
            req = reqs[rng.below(len(reqs))]
            state = eng.apply(state, req.player, choose(req, rng)).state


def test_a_line_starting_with_an_order_word_still_refuses_the_message() -> None:
    ex = extract("Hello\nMELD nonsense\n", "", HH)
    assert ex.orders == ["MELD nonsense"]
    out = registry.get("habsburg").apply(registry.get("habsburg").setup(["A", "B", "C"], "s", {})[0], "A", ex.orders)
    assert not out.accepted


def test_end_alone_stops_reading_and_stays_an_order_where_the_game_has_it() -> None:
    assert extract("VOTE RED\nEND\nVOTE BLUE\n", "", ST).orders == ["VOTE RED"]
    assert extract("NO EVENT\nEND\nMELD a b c\n", "", HH).orders == ["NO EVENT", "END"]
    assert extract("VOTE RED\nend of my orders\nVOTE BLUE\n", "", ST).orders == ["VOTE RED"]


def test_control_words() -> None:
    ex = extract("help please\nStatus?\nCode: K7QX-2MPD\nPRESS on\n", "", HH)
    assert ex.help and ex.status and ex.code == "K7QX-2MPD" and ex.chatter == []
    assert ex.problems == [
        '"PRESS on": a press message starts with PRESS TO <player> or PRESS TO ALL; nothing was sent'
    ]
    ex = extract("Press on, friends\nHelp yourself to snacks\nStatus: fine\nCode is on the fridge\nNO EVENT\n", "", HH)
    assert not (ex.help or ex.status or ex.code or ex.problems) and ex.orders == ["NO EVENT"] and len(ex.chatter) == 4
    ex = extract("PRESS TO Zoë Müller, Bob\nhello\nEND PRESS\n", "", HH)
    assert ex.press[0].to == ["Zoë Müller", "Bob"] and ex.press[0].body == ["hello"]


@pytest.mark.parametrize("prefix", ["", "Re: ", "RE: ", "RE : ", "Fwd: ", "AW: ", "SV: ", "Re: Re: ", "Re[2]: "])
def test_the_subject_after_the_tag_is_read_like_a_first_line(prefix: str) -> None:
    ex = extract("", f"{prefix}[pbem hh1] NO EVENT code XXXX-XXXX", HH)
    assert ex.orders == ["NO EVENT"] and ex.code == "XXXX-XXXX"
    assert extract("", f"{prefix}[pbem hh1] HELP", HH).help
    assert subject_line(f"{prefix}[pbem hh1] Re: HELP") == "HELP"


def test_a_subject_is_only_a_title_when_the_body_has_orders_or_it_is_chatter() -> None:
    ex = extract("TRIBUTE Copper 7\n", "[pbem dyn] tribute", registry.get("dynasties").order_words)
    assert ex.orders == ["TRIBUTE Copper 7"]
    ex = extract("", "Re: [pbem hh1] Turn 3, Alice to play", HH)
    assert ex.orders == [] and ex.chatter == [] and not ex.help
    assert not extract("", "Re: [pbem hh1] Press from Bob", HH).problems
    assert not extract("", "Re: [pbem hh1] Handbook (Help) and your legal orders", HH).help


@pytest.mark.parametrize(
    "attribution",
    [
        ["On Mon, 30 Nov 2026 at 21:08, pbem moderator <games@example.org>", "wrote:"],
        ["El lun, 30 nov 2026 a las 22:15, pbem moderator (<games@example.org>) escribió:"],
        ["Le lun. 30 nov. 2026 à 21:08, pbem moderator <games@example.org> a écrit :"],
        ["Am 30.11.2026 um 21:08 schrieb pbem moderator <games@example.org>:"],
        ["pbem moderator <games@example.org> schrieb am Mo., 30. Nov. 2026, 21:08:"],
        ["Il giorno lun 30 nov 2026 alle ore 21:08 pbem moderator", "<games@example.org> ha scritto:"],
        ["Em seg., 30 de nov. de 2026 às 21:08, pbem moderator <games@example.org> escreveu:"],
        ["Op ma 30 nov 2026 om 21:08 schreef pbem moderator <games@example.org>:"],
    ],
)
def test_attributions_are_dropped_and_reading_goes_on_below_the_quote(attribution: list[str]) -> None:
    text = "\n".join([*attribution, "> MELD Otto Spain King", "", "NO EVENT"])
    assert own_lines(text) == (["", "NO EVENT"], attribution)
    text = "\n".join(["NO EVENT", "", *attribution, "", "    MELD Otto Spain King"])  # unquoted original
    assert extract(text, "", HH).orders == ["NO EVENT"]


def test_flowed_text_is_unwrapped_with_and_without_delsp() -> None:
    assert unflow("I will \r\npass on it.\r\nPASS\r\n") == "I will pass on it.\nPASS\n"
    assert unflow("I will  \r\npass\r\n", delsp=True) == "I will pass\n"
    assert unflow(" From here\r\n-- \r\nA") == "From here\n-- \nA"
    raw = b"From: a@b.test\r\nSubject: [pbem hh1] x\r\nContent-Type: text/plain; format=flowed\r\n\r\nwe will \r\nPASS soon\r\n"
    assert extract(parse(raw).text, "", HH).orders == []


def test_player_names_as_people_have_them() -> None:
    for name in ["Zoë Müller", "李小龍", "Seán O'Brien", "J. R. Smith", "anne-marie_2", "Ωμέγα"]:
        assert player_name(name) == name
    assert player_name("  Zoë   Müller ") == "Zoë Müller"
    for bad, why in [("x" * 41, "41 characters"), ("Bob!", "'!'"), ("...", "letter or digit"), ("all", "reserved")]:
        with pytest.raises(ValueError, match=why) as err:
            player_name(bad)
        assert str(err.value).startswith(f'"{bad}" cannot be a player name')


def test_names_match_by_unique_prefix_ignoring_case_and_accents() -> None:
    players = ["Zoë Müller", "Zoltan", "Łukasz", "Bob"]
    assert match_one("zoe", players, "player") == "Zoë Müller"
    assert match_one("ZOË M", players, "player") == "Zoë Müller"
    assert match_one("lukasz", players, "player") == "Łukasz"
    with pytest.raises(RuleError, match='"zo" could be any of'):
        match_one("zo", players, "player")
    assert norm("Zoë") == norm("Zoe\u0308") == "zoe"


def test_the_cli_quotes_a_refused_player_name_intact(tmp_path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home")
    players = ["--player", "Zoë Müller! <z@x.org>", "--player", "Bob <b@x.org>", "--player", "Carol <c@x.org>"]
    res = CliRunner().invoke(app, ["--config", str(cfg), "game", "new", "habsburg", "--name", "hh1", *players])
    assert res.exit_code == 2  # a usage error
    assert 'pbem: "Zoë Müller!" cannot be a player name' in res.output
    players[1] = "Zoë Müller <z@x.org>"
    res = CliRunner().invoke(app, ["--config", str(cfg), "game", "new", "habsburg", "--name", "hh1", *players])
    assert res.exit_code == 0 and "Zoë Müller, Bob, Carol" in res.output


def test_help_without_a_game_tag_lists_the_players_games(home, clock) -> None:
    from pbem.app.games import create_game
    from pbem.app.poll import poll as run_poll
    from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
    from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail

    players = [("Zoë Müller", "zoe@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    codes = {"Zoë Müller": "ZOEM-1111", "Bob": CODES["Bob"], "Carol": CODES["Carol"]}
    create_game(Home.of(home), "habsburg", "hh1", players, seed="help-1", clock=clock, codes=codes)

    def poll():
        return run_poll(
            Home.of(home, inbox=MaildirInbox(home.maildir_path), sender=MaildirSender(home.maildir_path), clock=clock)
        )

    poll()
    seen: set = set()
    sent_mail(home, seen)
    deliver(home, order_mail("Zoë Müller <zoe@players.test>", "", "Hi, how do I play?\n\nZoë\n", subject="Re: help"))
    deliver(home, order_mail("Eve <eve@elsewhere.test>", "", "HELP\n", subject="help"))
    summary = poll()
    assert (summary.accepted, summary.ignored) == (1, 1)
    [answer] = sent_mail(home, seen)
    assert answer["Subject"] == "Your pbem games" and "zoe@players.test" in str(answer["To"])
    assert '[pbem hh1] House of Habsburg, you play Zoë Müller: send "[pbem hh1] HELP"' in body_of(answer)


@pytest.mark.parametrize("kind", registry.available())
def test_every_game_plays_to_the_end_with_names_of_several_words_and_scripts(kind: str) -> None:
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    eng = registry.get(kind)
    players = ["Zoë Müller", "Seán O'Brien", "李小龍", "J. R. Smith"][
        : max(eng.min_players, 2 if kind == "italian-wars" else 3)
    ]
    for seed in range(3):
        state, _ = eng.setup(players, f"names-{seed}", {})
        rng = Rng(init_state(f"names-bot-{seed}"))
        while eng.result(state) is None:
            reqs = [r for r in eng.requests(state) if not r.answered]
            req = reqs[rng.below(len(reqs))]
            out = eng.apply(state, req.player, choose(req, rng))
            assert out.accepted, (kind, seed, req.player, [r.reason for r in out.lines if not r.ok])
            state = out.state


#: What players put in front of a line they copy out of a report's list (found by the players' testers: "→ PASS"
#: and "-> VOTE RED" were set aside as chatter), and what the report itself prints before a legal line.
ARROWS = ("→ ", "→", "-> ", "->", "=> ", "⇒ ", "➜ ", "➔ ", "▶ ", "► ", "--> ", "==> ")
REPORT_MARKS = ("(default) ", "(on file) ", "    (default) ", "    (on file) ")


def _as_people_type(line: str, order_words: tuple[str, ...]) -> list[str]:
    """A legal order as players write it: lower case, the order word as a label, a phone's "…", a list marker,
    an arrow, the report's own "(default)" or "(on file)" in front of it."""
    word, _, rest = line.partition(" ")
    variants = [line.lower(), f"{line}…", f"• {line}.", f"1. {line.lower()}!"]
    variants += [f"{mark}{line}" for mark in ARROWS + REPORT_MARKS] + [f"→ {line.lower()}."]
    if rest and word.upper() in {w.upper() for w in order_words}:  # a one-word order word: "Play: Gold 10."
        variants.append(f"{word.title()}: {rest}.")
    return variants


def test_every_legal_line_written_as_people_write_it_is_read_as_that_order() -> None:
    """A generator over every kind's bot-played moments (found by the players' testers: "Play: Gold 10." and
    "vote red…" were set aside or refused): each variant of a legal line is one order the engine takes as it
    takes the line itself."""
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    for kind in registry.available():
        eng = registry.get(kind)
        state, _ = eng.setup(["Alice", "Bob", "Carol"][: max(eng.min_players, 2)], f"typed-{kind}", {})
        rng = Rng(init_state("typed"))
        for _ in range(25):
            reqs = [r for r in eng.requests(state) if not r.answered]
            if not reqs or eng.result(state):
                break
            req = reqs[rng.below(len(reqs))]
            for legal in list(req.legal)[:: max(1, len(req.legal) // 4)]:
                if " " not in legal:
                    continue
                expected = eng.apply(state, req.player, [legal]).accepted
                for typed in _as_people_type(legal, tuple(eng.order_words)):
                    ex = extract(typed, "", eng.order_words)
                    assert len(ex.orders) == 1, (kind, typed, ex.orders, ex.chatter)
                    got = eng.apply(state, req.player, ex.orders).accepted
                    assert got == expected, (kind, legal, typed, ex.orders)
            state = eng.apply(state, req.player, choose(req, rng)).state


@pytest.mark.parametrize(
    ("subject", "order"),
    [
        ("[pbem g1] No event. code RPXM-73ZN", "No event"),  # found by the players' testers: not read
        ("[pbem g1] no event! code RPXM-73ZN", "no event"),
        ("[pbem g1] Event: Person Otto.", "Event Person Otto"),
        ("[pbem g1] NO EVENT code RPXM-73ZN", "NO EVENT"),
    ],
)
def test_an_order_in_the_subject_is_read_as_a_line_of_the_body_would_be(subject: str, order: str) -> None:
    ex = extract("", subject, registry.get("habsburg").order_words)
    assert ex.orders == [order] and ex.code in (None, "RPXM-73ZN")


# ----------------------------------------------------------------------------- "&" typed as "and", "+", "&amp;"


def _names_of(kind: str) -> list[str]:
    """Every name a line of `kind` may name: its cards, leaders, countries."""
    if kind == "habsburg":
        from pbem.engine.habsburg.cards import NAMES as HH_NAMES

        return list(HH_NAMES)
    if kind == "italian-wars":
        from pbem.engine.italian_wars.cards import LEADERS
        from pbem.engine.italian_wars.cards import NAMES as IW_NAMES

        return list(dict.fromkeys([*IW_NAMES, *LEADERS]))
    if kind == "dynasties":
        from pbem.engine.dynasties.cards import DECK, LINEAGES

        return [*DECK, *LINEAGES]
    from pbem.engine.sixteen_thirty.tables import ALL_CARD_NAMES, COUNTRIES, SPECIALS

    return list(dict.fromkeys([*ALL_CARD_NAMES, *COUNTRIES, *SPECIALS]))


def _give(state: dict, player: str, cards: list[str]) -> None:
    """Put `cards` in `player`'s hand, each swapped with a card of the hand wherever it was (deck, pile, hand)."""
    hand = state["hands"][player]
    for card in cards:
        if card in hand:
            continue
        k = next(i for i, c in enumerate(hand) if c not in cards)
        holders = [state["deck"], state["discard"], *state["hands"].values(), *state.get("field", {}).values()]
        holder = next(h for h in holders if card in h)
        holder[holder.index(card)], hand[k] = hand[k], card


def _lines_naming_ampersands(kind: str) -> list[tuple[dict, str, str]]:
    """(state, player, legal line) for every legal line of a moment where a name with "&" is in the hand."""
    import copy

    eng = registry.get(kind)
    amp = [n for n in _names_of(kind) if "&" in n]
    if kind == "habsburg":
        from pbem.engine.habsburg import orders as hh

        st, _ = eng.setup(["Alice", "Bob", "Carol"], "amp-hh", {})
        p = eng.requests(st)[0].player
        _give(st, p, [*amp, "Otto"])  # a Person too: the melds a Holding and a Claim with "&" make
        ending = copy.deepcopy(st)
        ending["hands"][p] += [ending["deck"].pop(), ending["deck"].pop()]
        ending["phase"] = "discard"
        return [(st, p, ln) for ln in hh.legal_lines(st) + hh.standing_lines(st)] + [
            (ending, p, ln) for ln in hh.legal_lines(ending)
        ]
    if kind == "italian-wars":
        from pbem.engine.italian_wars.cards import NEGATORS
        from pbem.engine.italian_wars.orders import _targets, legal_lines

        st, _ = eng.setup(["Alice", "Bob"], "amp-iw", {})
        p = st["players"][0]
        _give(st, p, amp)
        plans = [f"NEGATE-PLAN {o} > {t}" for o in NEGATORS for t in _targets(o) if "&" in o + t]
        return [(st, p, ln) for ln in legal_lines(st, p) + plans]
    assert not amp, f"{kind} has names with '&': give this generator its moments ({amp})"
    return []


def _amp_variants(line: str) -> list[str]:
    return [
        line.replace("&", "and"),
        line.replace("&", "AND"),
        line.replace(" & ", " + "),
        line.replace(" & ", "+"),
        line.replace("&", "&amp;"),
    ]


@pytest.mark.parametrize("kind", registry.available())
def test_every_legal_line_naming_an_ampersand_is_read_the_same_with_and_plus_or_amp(kind: str) -> None:
    """Found by the players' testers: "MELD Otto England and Ireland King" was refused ("England & Ireland").
    For every name with "&" of every kind, every legal line naming it, written with "and", "+" or an HTML
    copy's "&amp;", is read as the line itself: accepted, understood the same, the same state after it."""
    eng = registry.get(kind)
    named = set()
    for state, player, line in _lines_naming_ampersands(kind):
        if "&" not in line:
            continue
        want = eng.apply(state, player, [line])
        assert want.accepted, (line, [r.reason for r in want.lines])
        named |= {n for n in _names_of(kind) if n in line and "&" in n}
        for typed in _amp_variants(line):
            ex = extract(typed, "", eng.order_words)
            assert len(ex.orders) == 1, (typed, ex.chatter)
            got = eng.apply(state, player, ex.orders)
            assert got.accepted, (typed, [r.reason for r in got.lines])
            assert [r.understood for r in got.lines] == [r.understood for r in want.lines], typed
            assert got.state == want.state, typed
    assert named == {n for n in _names_of(kind) if "&" in n}, "a name with '&' was in no line tried"


@pytest.mark.parametrize("kind", registry.available())
def test_reading_and_as_ampersand_makes_no_two_names_of_a_kind_one(kind: str) -> None:
    """Over all names of a kind: each is still found by its own words, and each name with "&" written with
    "and", "+" or "&amp;" finds that name and no other."""
    from pbem.engine.names import candidates_for

    names = _names_of(kind)
    for name in names:
        assert candidates_for(name, names) == [name], name
        if "&" in name:
            for typed in _amp_variants(name):
                assert candidates_for(typed, names) == [name], typed


def test_plus_and_and_between_names_still_separate_them_unless_they_join_a_names_ampersand() -> None:
    from pbem.engine.names import match_many

    hand = ["Hedges & Trees", "Ditch", "Falcons & Sakers", "Parapet"]
    assert match_many("Ditch + Parapet", hand) == ["Ditch", "Parapet"]
    assert match_many("ditch and parapet", hand) == ["Ditch", "Parapet"]
    assert match_many("Hedges + Trees + Falcons + Sakers", hand) == ["Hedges & Trees", "Falcons & Sakers"]
    assert match_many("Hedges and Trees, Ditch + Falcons &amp; Sakers", hand) == [
        "Hedges & Trees",
        "Ditch",
        "Falcons & Sakers",
    ]
    assert match_many("hedges & ditch", hand) == ["Hedges & Trees", "Ditch"]
    assert match_one("and", ["Andrea", "Bob"], "player") == "Andrea"  # "and" first is the start of a name


def test_every_line_a_report_prints_in_its_lists_copied_as_printed_is_read_as_that_order() -> None:
    """The report's own lists, rendered (`templates/mail/_asked.txt.j2`), at every kind's bot-played moments: a line
    copied out of "Legal orders now", the default ("    (default) NO EVENT") or the orders on file ("    (on file)
    DISCARD NONE"), whatever the template prints in front of it, is read as the order it lists."""
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state
    from pbem.render.templates import render

    for kind in registry.available():
        eng = registry.get(kind)
        state, _ = eng.setup(["Alice", "Bob", "Carol"][: max(eng.min_players, 2)], f"printed-{kind}", {})
        rng = Rng(init_state("printed"))
        checked = 0
        for _ in range(25):
            reqs = [r for r in eng.requests(state) if not r.answered]
            if not reqs or eng.result(state):
                break
            for req in eng.requests(state):
                asked = [
                    {"prompt": req.prompt, "syntax": list(req.syntax), "legal": list(req.legal)[:6],
                     "default": list(req.default), "on_file": list(req.on_file), "answered": req.answered}
                ]  # fmt: skip
                text = render("mail/_asked.txt.j2", asked=asked, waiting=[], due_at=None, now=None, result=None,
                              player=req.player)  # fmt: skip
                listed = () if req.answered else (*asked[0]["legal"], *req.default)  # an answered step lists its file
                for order in (*listed, *req.on_file):
                    printed = [ln for ln in text.splitlines() if ln.rstrip().endswith(order) and ln.strip() != order]
                    printed += [ln for ln in text.splitlines() if ln.strip() == order]
                    assert printed, (kind, order, text)
                    for line in printed:
                        checked += 1
                        ex = extract(line, "", eng.order_words)
                        assert ex.orders == [order], (kind, line, ex.orders, ex.chatter)
            req = reqs[rng.below(len(reqs))]
            state = eng.apply(state, req.player, choose(req, rng)).state
        assert checked, kind
