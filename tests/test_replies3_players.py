"""Players' replies from real mail clients, per game kind: what the player meant is what pbem reads (replies3).

For every game kind, a real game is created and polled over Maildir, and the first report pbem sent the player
it asks something is answered as people answer it: Gmail (web, Android, iOS; its attribution in English, German,
French, Spanish, Dutch, Italian, Portuguese, Polish, Swedish), Outlook (the rule and From/Sent/To/Subject block,
"-----Original Message-----", "Get Outlook for Android"), Apple Mail and the iPhone ("> " quoting, the attribution
inside the quote, HTML only with <blockquote type="cite">), Thunderbird (bottom-posted, HTML with its
moz-cite-prefix), Gmail's HTML only, no quote at all, and answered inline: the order typed between the quoted
report's lines.  The orders are typed in lower case, with trailing punctuation, bullets ("- ", "* ", "1. "), smart
quotes, non-breaking and zero-width spaces, tabs; signed with "-- ", "Sent from my iPhone", a legal disclaimer.

Each reply is read exactly as the poll reads it (`pbem.app.reading.mail_reader` with the report it answers) and
the orders read are applied: the game must be in the very state the intended orders give.  `CASES` is the corpus
(at least 30 replies per kind, each named); the seeded generator mixes the same parts at random.  A few replies go
through a real poll too.  Each kind is answered at its first report and at a later step.

What players meant and pbem read, before this corpus (each a class, fixed, its case kept here): an order typed
into Outlook's unquoted original (inline) was cut off with it, or taken for the copy when typed under its own
line; "[Alice] ", "[x] ", a tick, "<-- this one", emoji, a remark in brackets, ", please" around an order, and
full-width letters made it no order; "My order: NO EVENT" was chatter; a footer line starting with an order word
("Discard this e-mail if ...", "Play fair. Take care.") refused the orders above it; an order below an unquoted
copy was cut at the copy's "-- ".  "I vote red" stays chatter (a remark may start so); the answer says how to
write it.
"""

from __future__ import annotations

import html
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest

from pbem import engine as registry
from pbem.app.games import Table, create_game
from pbem.app.lines import without_prose
from pbem.app.poll import poll as run_poll
from pbem.app.reading import MailReader, mail_reader
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.record import store
from pbem.record.db import session
from tests.conftest import CODES, Clock, deliver, sent_mail

PLAYERS = [("Alice", "alice@example.net"), ("Bob", "bob@example.net"), ("Carol", "carol@example.net")]
WHO = "pbem moderator <games@example.org>"


@dataclass
class Moment:
    """A game of one kind after its first poll: the player asked, the report pbem sent them, the state."""

    kind: str
    cfg: Any
    clock: Clock
    player: str
    report: EmailMessage
    state: dict[str, Any]
    legal: list[str]

    @property
    def address(self) -> str:
        return dict(PLAYERS)[self.player]


def _moment(root: Path, kind: str, steps: int = 0, table: Table | None = None) -> Moment:
    """The game after its first poll, and after `steps` more polls of orders the bots chose, mailed with codes."""
    from pbem.cli.support import init_home
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state
    from pbem.home import config as config_mod
    from tests.conftest import order_mail, signed

    cfg = config_mod.load(init_home(root / f"{kind}-{steps}" / "home", address="games@example.org", name="pbem"))
    cfg.replies_per_hour = 10_000
    clock = Clock()
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    create_game(
        Home.of(cfg), kind, "g1", players, seed=f"replies3-{kind}", clock=clock, codes=CODES, table=table or Table()
    )
    _poll(cfg, clock)
    rng = Rng(init_state(f"replies3-bots-{kind}"))
    for _ in range(steps):
        for req in [r for r in _requests(cfg) if not r.answered]:
            body = signed(req.player, "\n".join(choose(req, rng)))
            deliver(cfg, order_mail(f"{req.player} <{dict(players)[req.player]}>", "g1", body))
        clock.advance(minutes=5)
        _poll(cfg, clock)
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        req = next(r for r in loaded.engine.requests(loaded.state) if not r.answered and r.legal)
        state = loaded.state
    to = dict(players)[req.player]
    report = [m for m in sent_mail(cfg) if m["To"].addresses[0].addr_spec == to][-1]  # the newest mail to them
    return Moment(kind, cfg, clock, req.player, report, state, list(req.legal))


def _requests(cfg) -> list:
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        return list(loaded.engine.requests(loaded.state))


def _poll(cfg, clock):
    inbox, sender = MaildirInbox(cfg.maildir_path), MaildirSender(cfg.maildir_path)
    return run_poll(Home.of(cfg, inbox=inbox, sender=sender, clock=clock))


LATER = {"habsburg": 4, "dynasties": 3, "sixteen-thirty": 3, "italian-wars": 2}  # polls of bot orders: a later step


_SHARED: dict[str, Moment] = {}


def shared_moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    """Per kind, the first report, and (KIND+later) the newest mail of a later step of the game.  Built once per
    test process for this module and tests/test_replies4_phones.py, which only read them (each test that polls
    builds a game of its own)."""
    if not _SHARED:
        root = tmp_path_factory.mktemp("replies3")
        _SHARED.update({kind: _moment(root, kind) for kind in registry.available()})
        _SHARED.update({f"{kind}+later": _moment(root, kind, LATER[kind]) for kind in registry.available()})
    return _SHARED


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


KINDS = [k for kind in registry.available() for k in (kind, f"{kind}+later")]


# ----------------------------------------------------------------------------------------------- typing orders

TYPINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda o: o,
    "lower": str.lower,
    "title": lambda o: o.title(),
    "full-stop": lambda o: o + ".",
    "exclamation": lambda o: o + "!",
    "semicolon": lambda o: o + ";",
    "dash": lambda o: "- " + o,
    "star": lambda o: "* " + o,
    "numbered": lambda o: "1. " + o,
    "bullet": lambda o: "• " + o,
    "smart-quotes": lambda o: f"“{o}”",
    "single-smart-quotes": lambda o: f"\u2018{o}\u2019",
    "nbsp": lambda o: o.replace(" ", "\xa0"),
    "nbsp-around": lambda o: "\xa0" + o + "\xa0",
    "zero-width": lambda o: "\u200b" + o.replace(" ", " \u200b") + "\u200b",
    "bom": lambda o: "\ufeff" + o,
    "tab-indent": lambda o: "\t" + o,
    "tab-between": lambda o: o.replace(" ", "\t", 1),
    "trailing-spaces": lambda o: o + "   ",
    "bold": lambda o: f"*{o}*",
    "arrow": lambda o: "-> " + o,
    "lower-full-stop-nbsp": lambda o: o.lower().replace(" ", "\xa0") + ".",
    "tag": lambda o: "[Alice] " + o,  # Outlook's inline answers, marked with the writer's name or initials
    "tag-dash": lambda o: "[AM] - " + o.lower(),
    "ticked": lambda o: "[x] " + o,
    "check-mark": lambda o: "✓ " + o,
    "pointer": lambda o: o + "   <-- this one",
    "full-width": lambda o: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" for c in o),  # Japan
    "emoji": lambda o: "\U0001f449 " + o + " \U0001f44d\U0001f3fd",  # pointing hand; thumbs up, skin tone
    "remark-in-brackets": lambda o: o + " (my best choice, I think)",
    "line-separator": lambda o: "\u2028" + o + "\u2028",  # Unicode's line separator, as pasted from a note
    "courtesy": lambda o: o + ", please",
    "thanks": lambda o: o.lower() + " thanks!",
    "my-order": lambda o: "My order: " + o,  # a label naming the order (replies3)
    "orders-dash": lambda o: "Orders - " + o.lower(),
}

GREETINGS = ["Hi,", "Hello moderator,", "Hallo,", "Bonjour,", "Hola,", "Hoi,", "Ciao,", "Olá,", "Cześć,", "Hej,"]
SIGNATURES: dict[str, list[str]] = {
    "none": [],
    "name": ["Cheers,", "Alice"],
    "dash-dash": ["-- ", "Alice Martin", "Pass the salt, and call me on +44 20 7946 0958"],
    "iphone": ["Sent from my iPhone"],
    "outlook-android": ["Get Outlook for Android<https://aka.ms/AAb9ysg>"],
    "outlook-ios": ["Get Outlook for iOS"],
    "german-iphone": ["Von meinem iPhone gesendet"],
    "disclaimer": [
        "Kind regards,",
        "Alice Martin",
        "",
        "CONFIDENTIALITY NOTICE: This e-mail and any attachments are confidential and may be privileged. If you",
        "are not the intended recipient, please notify the sender immediately and delete it. Any use, copying,",
        "disclosure or distribution of this message is prohibited. Please consider the environment before printing.",
    ],
    "disclaimer-orders": [  # a company footer whose lines start with order words of some game
        "Alice Martin | Example Ltd",
        "Call us on 0800 123 456 or visit www.example.com",
        "Discard this e-mail if you are not the intended recipient.",
        "Drop us a line at info@example.com",
        "Play fair. Take care.",
    ],
    "disclaimer-short": [
        "Alice",
        "",
        "This message was scanned for viruses. Take care of the environment: do not print.",
    ],
}


# ----------------------------------------------------------------------------------------------- the clients

WHEN = "30 Nov 2026 21:08"
ATTRIBUTIONS = {
    "gmail-en": [f"On Mon, {WHEN}, {WHO} wrote:"],
    "gmail-de": [f"Am Mo., 30. Nov. 2026 um 21:08 Uhr schrieb {WHO}:"],
    "gmail-fr": [f"Le lun. 30 nov. 2026 à 21:08, {WHO} a écrit :"],
    "gmail-es": [f"El lun, 30 nov 2026 a las 21:08, {WHO} escribió:"],
    "gmail-nl": [f"Op ma 30 nov 2026 om 21:08 schreef {WHO}:"],
    "gmail-it": [f"Il giorno lun 30 nov 2026 alle ore 21:08 {WHO} ha scritto:"],
    "gmail-pt": [f"Em seg., 30 de nov. de 2026 às 21:08, {WHO} escreveu:"],
    "gmail-pl": [f"pon., 30 lis 2026 o 21:08 {WHO} napisał(a):"],
    "gmail-sv": [f"Den mån 30 nov. 2026 kl 21:08 skrev {WHO}:"],
    "gmail-android": ["On Mon, 30 Nov 2026, 21:08 pbem moderator, <games@example.org> wrote:"],
    "gmail-ios-wrapped": ["On Mon, Nov 30, 2026 at 9:08 PM pbem moderator <games@example.org>", "wrote:"],
    "thunderbird": ["On 30/11/2026 21:08, pbem moderator wrote:"],
    "thunderbird-de": ["Am 30.11.26 um 21:08 schrieb pbem moderator:"],
    "apple": [f"On 30 Nov 2026, at 21:08, {WHO} wrote:"],
}
OUTLOOK_BLOCK = {
    "en": ("From", "Sent", "To", "Subject", "Monday, November 30, 2026 9:08 PM"),
    "de": ("Von", "Gesendet", "An", "Betreff", "Montag, 30. November 2026 21:08"),
    "fr": ("De", "Envoyé", "À", "Objet", "lundi 30 novembre 2026 21:08"),
    "sv": ("Från", "Skickat", "Till", "Ämne", "den 30 november 2026 21:08"),
    "pl": ("Od", "Wysłane", "Do", "Temat", "poniedziałek, 30 listopada 2026 21:08"),
}


def _plain(sent: EmailMessage) -> list[str]:
    part = sent.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content()).rstrip("\n").split("\n")  # type: ignore[attr-defined]


def _html(sent: EmailMessage) -> str:
    part = sent.get_body(preferencelist=("html",))
    if part is None:
        return "<pre>" + html.escape("\n".join(_plain(sent))) + "</pre>"
    text = str(part.get_content())  # type: ignore[attr-defined]
    lower = text.lower()
    start, end = lower.find("<body"), lower.rfind("</body>")
    if start >= 0 and end > start:
        text = text[text.index(">", start) + 1 : end]
    return text


def _quoted(lines: list[str], prefix: str = "> ") -> list[str]:
    return [(prefix + ln).rstrip() for ln in lines]


def _block(lang: str, sent: EmailMessage) -> list[str]:
    frm, sent_l, to, subj, date = OUTLOOK_BLOCK[lang]
    return [f"{frm}: {sent['From']}", f"{sent_l}: {date}", f"{to}: {sent['To']}", f"{subj}: {sent['Subject']}"]


def _divs(lines: list[str]) -> str:
    return "".join(f"<div>{html.escape(ln) or '<br>'}</div>" for ln in lines)


def text_reply(
    client: str, sent: EmailMessage, own: list[str], sig: list[str], order_at: int, near: str = ""
) -> list[str] | str:
    """The reply's body: text lines, or an HTML string for the HTML-only clients.  `near`: the order meant, under
    whose line of the report an inline answer is typed."""
    original = _plain(sent)
    listed = next((i for i, ln in enumerate(original) if near and ln.strip() == near), len(original) // 2)
    mine = [*own, "", *sig] if sig else own
    if client in ATTRIBUTIONS and client not in ("thunderbird", "thunderbird-de", "apple"):
        return [*mine, "", *ATTRIBUTIONS[client], "", *_quoted(original)]  # Gmail: top-posted
    if client in ("thunderbird", "thunderbird-de"):
        return [*ATTRIBUTIONS[client], *_quoted(original), "", *mine]  # bottom-posted
    if client in ("proton", "yahoo", "samsung", "outlook-mac", "unquoted-bottom"):
        return webmail_reply(client, sent, own, mine, original)
    if client.startswith("bottom-"):  # Gmail's attribution in that language, the answer below the quote
        return [*ATTRIBUTIONS["gmail-" + client[7:]], *_quoted(original), "", *mine]
    if client == "apple":
        return [*own, "", *sig, "", *ATTRIBUTIONS["apple"], "", *_quoted(original)]
    if client == "iphone":  # the attribution inside the quote, the signature above it
        return [*own, "", *(sig or ["Sent from my iPhone"]), "", *_quoted([ATTRIBUTIONS["apple"][0], "", *original])]
    if client.startswith("outlook-") and client[8:] in OUTLOOK_BLOCK:
        return [*mine, "", "________________________________", *_block(client[8:], sent), "", *original]
    if client == "outlook-original":
        return [*mine, "", "-----Original Message-----", *_block("en", sent), "", *original]
    if client == "outlook-mobile":
        return [
            *own,
            "",
            "Get Outlook for Android<https://aka.ms/AAb9ysg>",
            "",
            "_" * 32,
            *_block("en", sent),
            *original,
        ]
    if client == "outlook-inline":  # Outlook's inline answer: typed into the unquoted mail, under its line
        head = ["See my answers inline.", "", "________________________________", *_block("en", sent), ""]
        return [*head, *original[: listed + 1], *own, *original[listed + 1 :]]
    if client == "outlook-inline-de":
        head = ["Antworten unten.", "", "-----Ursprüngliche Nachricht-----", *_block("de", sent), ""]
        return [*head, *original[:order_at], *own, *original[order_at:]]
    if client == "none":
        return mine
    if client == "inline":  # the order typed under the quoted line of the report that lists it
        quoted = _quoted(original)
        at = next(
            (i for i, q in enumerate(quoted) if "legal orders" in q.lower() or "would be accepted" in q.lower()), 0
        )
        at = min(at + 1 + order_at, len(quoted))
        return [ATTRIBUTIONS["gmail-en"][0], *quoted[:at], "", *own, "", *quoted[at:], "", *sig]
    if client == "inline-top":  # greeting on top, the orders typed between the quoted report's lines
        quoted = _quoted(original)
        half = len(quoted) // 3
        return ["Hi, my orders are inline.", "", ATTRIBUTIONS["gmail-en"][0], *quoted[:half], *own, *quoted[half:]]
    return html_reply(client, sent, own, sig, mine)


def webmail_reply(client: str, sent: EmailMessage, own: list[str], mine: list[str], original: list[str]) -> list[str]:
    """ProtonMail, Yahoo, Samsung Email and Outlook for Mac, top-posted; the original unquoted, the answer below."""
    if client == "unquoted-bottom":  # the original copied unquoted under a marker, the answer below it all
        return ["-------- Original Message --------", *_block("en", sent), "", *original, "", *mine]
    if client == "proton":  # its marker, then an attribution, then the quote
        when = "On Monday, November 30th, 2026 at 21:08, pbem moderator <games@example.org> wrote:"
        return [*mine, "", "------- Original Message -------", when, "", *_quoted(original)]
    if client == "yahoo":
        when = f"On Monday, November 30, 2026, 09:08:00 PM GMT+1, {WHO} wrote:"
        return [*mine, "", "", when, "", "", *_quoted(original)]
    if client == "samsung":
        head = ["-------- Original message --------", f"From: {WHO}", "Date: 30/11/2026 21:08 (GMT+01:00)"]
        return [
            *own,
            "",
            "Sent from my Galaxy",
            "",
            "",
            *head,
            f"To: {sent['To']}",
            f"Subject: {sent['Subject']}",
            "",
            *original,
        ]
    if client == "outlook-mac":
        head = [
            f"From: {WHO}",
            "Date: Monday, 30 November 2026 at 21:08",
            f"To: {sent['To']}",
            f"Subject: {sent['Subject']}",
        ]
        return [*mine, "", *head, "", *original]
    raise ValueError(client)


def html_reply(client: str, sent: EmailMessage, own: list[str], sig: list[str], mine: list[str]) -> str:
    """The HTML-only clients' bodies."""
    if client == "gmail-html":
        attr = html.escape(ATTRIBUTIONS["gmail-en"][0])
        return (
            f'<div dir="ltr">{_divs(mine)}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
            f'{attr}<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
            f'rgb(204,204,204);padding-left:1ex">{_html(sent)}</blockquote></div>'
        )
    if client == "apple-html":
        attr = html.escape(ATTRIBUTIONS["apple"][0])
        return (
            f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">'
            f'{_divs(own)}<div><br></div>{_divs(sig)}<div><br><blockquote type="cite">{attr}<br></blockquote></div>'
            f'<blockquote type="cite"><div>{_html(sent)}</div></blockquote></body></html>'
        )
    if client == "thunderbird-html":
        attr = html.escape(ATTRIBUTIONS["thunderbird"][0])
        return (
            f'<html><body><div class="moz-cite-prefix">{attr}<br></div><blockquote type="cite" '
            f'cite="mid:{html.escape(str(sent["Message-ID"]).strip("<>"))}">{_html(sent)}</blockquote>'
            f'<p>{"<br>".join(html.escape(x) for x in own)}</p><div class="moz-signature">-- <br>'
            f"{'<br>'.join(html.escape(x) for x in sig if x != '-- ')}</div></body></html>"
        )
    if client == "outlook-html":
        block = "<br>".join(html.escape(x) for x in _block("en", sent))
        return (
            f'<html><body><div style="font-family:Calibri">{_divs(mine)}</div><hr style="display:inline-block;'
            f'width:98%"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri">{block}</font></div>'
            f"<div>{_html(sent)}</div></body></html>"
        )
    raise ValueError(client)


CLIENTS = (
    *ATTRIBUTIONS,
    "iphone",
    *(f"outlook-{lang}" for lang in OUTLOOK_BLOCK),
    "outlook-original",
    "outlook-mobile",
    "outlook-inline",
    "outlook-inline-de",
    "unquoted-bottom",
    "proton",
    "yahoo",
    "samsung",
    "outlook-mac",
    "bottom-it",
    "bottom-pl",
    "bottom-sv",
    "none",
    "inline",
    "inline-top",
    "gmail-html",
    "apple-html",
    "thunderbird-html",
    "outlook-html",
)


def build(moment: Moment, client: str, own: list[str], sig: list[str], order_at: int = 0, near: str = "") -> bytes:
    sent = moment.report
    msg = EmailMessage()
    msg["From"] = f"{moment.player} <{moment.address}>"
    msg["To"] = str(sent["From"])
    msg["Subject"] = ("AW: " if client.endswith("-de") else "Re: ") + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg["In-Reply-To"] = msg["References"] = str(sent["Message-ID"])
    body = text_reply(client, sent, own, sig, order_at, near)
    if isinstance(body, str):
        msg.set_content(body, subtype="html")
    else:
        msg.set_content("\n".join(body) + "\n")
    return msg.as_bytes()


# ----------------------------------------------------------------------------------------------- what is meant


def meant(moment: Moment, pick: int, two: bool = False) -> list[str]:
    """The orders a player means: one legal line of their request (a different one for each `pick`), or with
    `two` two lines the engine takes together when there are such (a meld and an event)."""
    one = moment.legal[pick % len(moment.legal)]
    if two:
        eng = registry.get(moment.kind)
        for other in moment.legal[pick % len(moment.legal) + 1 :]:
            if eng.apply(moment.state, moment.player, [one, other]).accepted:
                return [one, other]
    return [one]


#: The reader of each moment's report (by the report's id; the report is kept, so the id is never reused): its bytes
#: written out and its headers read again at every check cost 20 ms, 12 of the 28 CPU s that replies4's two longest
#: tests spent reading (suite9).  A report is never changed once its moment is made.
_READERS: dict[int, tuple[EmailMessage, MailReader]] = {}


def read(moment: Moment, raw: bytes) -> tuple[str, ...]:
    words = tuple(registry.get(moment.kind).order_words)
    kept = _READERS.get(id(moment.report))
    if kept is None:
        kept = _READERS[id(moment.report)] = (moment.report, mail_reader([moment.report.as_bytes()]))
    return kept[1](raw, words)


def check(moment: Moment, raw: bytes, want: list[str], label: str) -> None:
    """What pbem reads from `raw` is what the player meant: applied, it gives the state `want` gives (after the
    intake's second reading, which sets refused prose aside: `pbem.app.lines.without_prose`)."""
    eng = registry.get(moment.kind)
    got = list(read(moment, raw))
    intended = eng.apply(moment.state, moment.player, want)
    assert intended.accepted, (label, want)
    applied = eng.apply(moment.state, moment.player, got)
    got, _, applied = without_prose(eng, moment.state, moment.player, got, applied)  # as the intake reads again
    if not (applied.accepted and applied.state == intended.state):
        why = "; ".join(r.reason for r in applied.lines if not r.ok)
        raise AssertionError(f"{moment.kind} / {label}: the player meant {want}, pbem read {got} {why}")


def cases() -> list[tuple[str, str, str, str, int]]:
    """The corpus: (name, client, typing, signature, pick), every client, typing and signature at least once."""
    typings, sigs = list(TYPINGS), list(SIGNATURES)
    step = next(k for k in range(7, 99) if math.gcd(k, len(typings)) == 1)  # every typing once, mixed
    out = []
    for n in range(max(len(CLIENTS), len(typings), len(sigs))):
        client, typing, sig = CLIENTS[n % len(CLIENTS)], typings[(n * step) % len(typings)], sigs[n % len(sigs)]
        out.append((f"{client}/{typing}/{sig}", client, typing, sig, n))
    return out


CASES = cases()


def test_the_corpus_has_30_replies_per_kind_and_every_client_typing_and_signature() -> None:
    assert len(CASES) >= 30
    assert {c[1] for c in CASES} == set(CLIENTS)
    assert {c[2] for c in CASES} == set(TYPINGS)
    assert {c[3] for c in CASES} == set(SIGNATURES)


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    failures = []
    for name, client, typing, sig, pick in CASES:
        want = meant(moment, pick)
        own = [GREETINGS[pick % len(GREETINGS)], "", *(TYPINGS[typing](o) for o in want), "", "Thanks"]
        raw = build(moment, client, own, SIGNATURES[sig], order_at=pick % 3, near=want[0])
        try:
            check(moment, raw, want, name)
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kind", KINDS)
def test_generated_replies_mixing_the_corpus_parts_are_read_as_the_player_meant(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    rng = random.Random(f"replies3:{kind}")
    failures = []
    for n in range(int(__import__("os").environ.get("REPLIES3_N", "40"))):
        client, typing, sig = rng.choice(CLIENTS), rng.choice(list(TYPINGS)), rng.choice(list(SIGNATURES))
        want = meant(moment, rng.randrange(len(moment.legal)), two=rng.random() < 0.4)
        head = [rng.choice(GREETINGS), ""] if rng.random() < 0.7 else []
        tail = ["", rng.choice(["Thanks", "Cheers!", "Best, A.", "Danke", "Merci !"])] if rng.random() < 0.7 else []
        own = [*head, *(TYPINGS[typing](o) for o in want), *tail]
        raw = build(moment, client, own, SIGNATURES[sig], order_at=rng.randrange(4), near=want[0])
        try:
            check(moment, raw, want, f"#{n} {client}/{typing}/{sig}")
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("client", ["gmail-sv", "outlook-original", "apple-html", "inline", "outlook-inline-de"])
def test_a_reply_through_a_real_poll_is_applied_as_meant(tmp_path: Path, client: str) -> None:
    moment = _moment(tmp_path, "dynasties")
    want = meant(moment, 1)
    own = ["Hej,", TYPINGS["zero-width"](want[0].lower()) + ".", "", "Tack!"]
    deliver(moment.cfg, build(moment, client, own, SIGNATURES["disclaimer"]))
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
    with session(moment.cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        req = next(r for r in loaded.engine.requests(loaded.state) if r.player == moment.player)
    assert [o.upper() for o in req.on_file] == [w.upper() for w in want]


@pytest.mark.parametrize("kind", registry.available())
def test_an_order_in_a_sentence_is_not_read_and_the_answer_says_how_to_write_it(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "I vote red", "I'll discard none": said as a sentence, the order is not read (a remark may start so:
    "I take it you are away"), and the answer says how to write it, naming the order it seems to be; a label
    that names it ("My order: NO EVENT", "My tribute is Gold 7") is read as that order."""
    from pbem.orders.extract import extract

    moment = moments[kind]
    eng = registry.get(kind)
    for n, line in enumerate(moment.legal):
        lead = ("I", "I'll", "I will", "We", "Please", "ok,")[n % 6]
        ex = extract(f"Hi,\n{lead} {line.lower()}.\nThanks", "", eng.order_words)
        assert ex.orders == [] and any(f"write it as: {line.lower()}" in p for p in ex.problems), (line, ex)
        word, _, rest = line.partition(" ")
        if rest and word.isalpha():
            for form in (f"My {word.lower()}: {rest}", f"my {word.lower()} is {rest}."):
                got = extract(form, "", eng.order_words).orders
                assert [g.upper() for g in got] == [line.upper()], (form, got)
    for remark in ("I take it you are away this week", "I pass on my thanks to all of you, it was great fun"):
        assert extract(remark, "", eng.order_words).orders == []


@pytest.mark.parametrize("kind", registry.available())
def test_no_legal_order_reads_as_prose_and_a_footers_sentences_do(kind: str) -> None:
    """A refused line that reads as a sentence is set aside (`pbem.orders.typed.prose`): a company footer whose
    lines start with order words ("Discard this e-mail if you are not the intended recipient.", "Play fair. Take
    care.") refused the whole message.  No legal line the bots meet over a game reads so, whatever the names."""
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state
    from pbem.orders.typed import cleaned, prose

    eng = registry.get(kind)
    players = ["Zoë Müller", "J. R. Smith", "Will"][: max(eng.min_players, 2 if kind == "italian-wars" else 3)]
    state, _ = eng.setup(players, f"prose-{kind}", {})
    rng = Rng(init_state(f"prose-{kind}"))
    seen = 0
    for _ in range(400):
        reqs = [r for r in eng.requests(state) if not r.answered]
        if not reqs or eng.result(state):
            break
        for r in reqs:
            for line in (*r.legal, *r.default):
                assert not prose(line), (kind, line)
                assert cleaned(line) == line, (kind, line)  # nothing a legal line holds is read as around it
                seen += 1
        req = reqs[rng.below(len(reqs))]
        state = eng.apply(state, req.player, choose(req, rng)).state
    assert seen > 50
    for footer in SIGNATURES["disclaimer-orders"][1:]:
        assert prose(footer), footer


@pytest.mark.parametrize("footer", ["disclaimer-orders", "closing"])
def test_a_held_reply_with_a_footer_set_aside_is_applied_at_the_deadline_as_acknowledged(
    tmp_path: Path, footer: str
) -> None:
    """A game that resolves at the deadline acknowledged "on file: TRIBUTE ..." for a reply whose footer lines
    (set aside as prose or a closing when the intake read it) start with order words; at the deadline the held
    mail was read again with them and refused whole ("held_failed"): the footer is set aside there too."""
    from pbem.app.deadlines import held_orders

    moment = _moment(tmp_path, "dynasties", table=Table(resolve="deadline"))
    want = meant(moment, 2)
    sig = SIGNATURES["disclaimer-orders"] if footer != "closing" else ["Take care,", "Alice"]
    deliver(moment.cfg, build(moment, "gmail-en", ["Hi,", *want], sig))
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
    with session(moment.cfg.database_url) as s:
        assert len(held_orders(s, store.game_by_name(s, "g1").id, registry.get("dynasties").order_words)) == 1
    moment.clock.advance(hours=49)
    assert _poll(moment.cfg, moment.clock).deadlines == 1
    with session(moment.cfg.database_url) as s:
        from pbem.history.export import build as export

        doc = export(s, store.game_by_name(s, "g1"))
    mine = [o for o in doc["orders"] if o["player"] == moment.player]
    assert [(o["kind"], [x.upper() for x in o["lines"]]) for o in mine] == [("orders", [w.upper() for w in want])]
    to_them = [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address]
    assert not any("not applied" in str(m["Subject"]) for m in to_them)


@pytest.mark.parametrize("kind", registry.available())
def test_an_outlook_thread_reply_reads_only_the_new_answer(tmp_path: Path, kind: str) -> None:
    """Outlook replying to the acknowledgement keeps the whole thread unquoted under rules and header blocks: the
    acknowledgement, the player's earlier reply (an order of theirs), the report.  Only the new answer is read:
    the rules above the blocks now go with the copies (so an inline answer is read), never the earlier reply."""
    moment = _moment(tmp_path, kind)
    first, earlier, want = moment.report, moment.legal[0], moment.legal[1]
    deliver(moment.cfg, build(moment, "outlook-en", ["Hi,", earlier, "", "Thanks"], []))
    _poll(moment.cfg, moment.clock)
    ack = [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address][-1]
    rule = "_" * 32
    them = [f"From: {moment.player} <{moment.address}>", "Sent: Monday, November 30, 2026 9:10 PM"]
    them += [f"To: {first['From']}", f"Subject: Re: {first['Subject']}"]
    body = ["Changed my mind:", want, "", rule, *_block("en", ack), "", *_plain(ack), "", rule, *them, ""]
    body += ["Hi,", earlier, "", "Thanks", "", rule, *_block("en", first), "", *_plain(first)]
    msg = EmailMessage()
    msg["From"], msg["To"] = f"{moment.player} <{moment.address}>", str(ack["From"])
    msg["Subject"], msg["Message-ID"] = "RE: " + str(ack["Subject"]), make_msgid(domain="players.example")
    msg["In-Reply-To"], msg["References"] = str(ack["Message-ID"]), f"{first['Message-ID']} {ack['Message-ID']}"
    msg.set_content("\n".join(body) + "\n")
    words = tuple(registry.get(kind).order_words)
    assert mail_reader([first.as_bytes(), ack.as_bytes()])(msg.as_bytes(), words) == (want,)
