# ruff: noqa: RUF001
"""players33, part B: realistic replies, thirty-third round (shapes the earlier rounds lack).

Each family (`FAMILIES`) is a reply to the report pbem sent (the eight moments of `tests.test_replies3_players`), read
through the intake's path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`) and
sorted by `tests.test_replies31_realistic.verdict`: `read` (what the player meant applied), `told` (nothing applied,
and a note quotes the order or a line of it is refused, quoted back with why), `untold` (nothing applied, nothing
said), `misapplied` (something applied the player did not mean):

* quote headers in languages the earlier rounds lack: Gmail's Turkish, Greek, Czech, Hungarian, Finnish, Arabic and
  Hebrew (its bidi embedding marks around the name) attributions; Mail on iOS's Russian, Turkish and Arabic ones;
  Thunderbird's Russian, Czech and Hungarian ones;
* clients' own blocks: Yahoo Mail's attribution (English, and German with the report indented, not quoted), Proton
  Mail's "------- Original Message -------", Samsung Email's "-------- Original message --------" block (English and
  German) over the report unquoted, Fastmail's attribution;
* forward-as-reply: the report forwarded back (Gmail's "---------- Forwarded message ---------" block, and German's),
  the order above it;
* the report edited in place: the client took the quote's ">" away and the order is typed under the report's line
  that lists the orders;
* the order with a trailing emoji or "+1", in a markdown code block or inline code, after a check-mark or an arrow
  bullet, wrapped in an Arabic or Hebrew phone's direction marks;
* a signature's "--" without its space under the order.

`REPLIES33_ALL=1 python3 -m pytest tests/test_replies33_realistic.py -n 0 -s` runs every case and prints the counts
per family; the suite runs `SAMPLED` cases a moment and one trimmed list.  Of the 1,152 cases (48 families, 3 orders,
8 moments), on ab18255d: 1,034 read, 70 told, 48 untold, 0 misapplied; now 1,034 read, 118 told, 0 untold, 0
misapplied.  Untold on ab18255d: every reply that kept one order of the quoted list and deleted the others, the quote
cut under it (`trimmed-quote`) or going on (`trimmed-listing`): the kept line is quoted, pbem's, and was read as
nothing and told nothing.  Now each is told, quoted, "a line kept alone of the quote's list of orders is not read; to
send it, write it above the quote: ..." (`pbem.orders.own_mail.trimmed_in_quote`); read it is not, as a client that
cuts a long quote keeps its first lines too.  Told before and now: "OK, NO EVENT" (24: "an order line starts with its
order word, so write it as: ..."), an order with "+1" after it (23) or a remark after an em dash (23), each refused
with its reason.  Read before and now: every new quote header (Turkish, Greek, Czech, Hungarian, Finnish, Arabic,
Hebrew with its bidi marks, Russian, Yahoo's, Proton's, Samsung's, Fastmail's), forwards, the report edited in
place, emoji, check-mark and arrow bullets, code blocks and inline code, direction marks, "--" with no space, a
parenthesised remark, "please", and an arrow marking the listed line in the quote or in Outlook's original.
players34: 1,071 read, 81 told, 0 untold, 0 misapplied: "OK, NO EVENT" (24) and "+1" after an order that ends in no
number (14) are read (`pbem.orders.openers.ACKNOWLEDGED`, `pbem.orders.typed._THANKS`); "+1" after a number stays
told (10: it could add to it).
"""

from __future__ import annotations

import pytest

from tests.replies27 import sampled, tallied
from tests.test_replies3_players import KINDS, Moment, _plain, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies19_players import WHO
from tests.test_replies31_realistic import verdict
from tests.test_replies32_realistic import PICKS, Case, _listing  # the same case shape and answer place


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _quoted(lines: list[str], prefix: str = "> ") -> list[str]:
    return [f"{prefix}{x}".rstrip() for x in lines]


ADDR = "games@example.org"
#: Quote headers above the quoted report, top-posted, in the writer's language.
HEADERS = {
    "gmail-tr": [f"{WHO} şunları yazdı (7 Ara 2026 Pzt 10:02):"],
    "gmail-el": [f"Στις Δευ 7 Δεκ 2026 στις 10:02, ο/η {WHO} έγραψε:"],
    "gmail-cs": [f"po 7. 12. 2026 v 10:02 odesílatel {WHO} napsal:"],
    "gmail-hu": [f"{WHO} ezt írta (időpont: 2026. dec. 7., H, 10:02):"],
    "gmail-fi": [f"ma 7.12.2026 klo 10.02 {WHO} kirjoitti:"],
    "gmail-ar": [f"\u200fفي الاثنين، 7 ديسمبر 2026 في 10:02 ص تمت كتابة ما يلي بواسطة \u200f{WHO}\u200f:"],
    "gmail-he": [f"\u202bבתאריך יום ב׳, 7 בדצמ׳ 2026 ב-10:02 מאת \u202a{WHO}\u202c:\u202c"],
    "ios-ru": [f"7 дек. 2026 г., в 10:02, {WHO} написал(а):"],
    "ios-tr": [f"7 Ara 2026 tarihinde 10:02 saatinde {WHO} şunu yazdı:"],
    "ios-ar": [f"\u200fفي 7 ديسمبر 2026، الساعة 10:02 ص، كتب {WHO}:"],
    "thunderbird-ru": [f"07.12.2026 10:02, {WHO} пишет:"],
    "thunderbird-cs": [f"Dne 07. 12. 26 v 10:02 {WHO} napsal(a):"],
    "thunderbird-hu": [f"2026. 12. 07. 10:02 keltezéssel, {WHO} írta:"],
    "yahoo-en": [f"On Monday, December 7, 2026 at 10:02:00 AM GMT+1, {WHO} wrote:"],
    "fastmail": ["On Mon, 7 Dec 2026, at 10:02, pbem moderator wrote:"],
}
#: How the order is typed on the player's line (a reply at the top, Gmail's quote under it).
TYPED = {
    "emoji-after": lambda o: f"{o} 👍",
    "emoji-check-after": lambda o: f"{o} ✅",
    "plus-one": lambda o: f"{o} +1",
    "inline-code": lambda o: f"`{o}`",
    "check-bullet": lambda o: f"✅ {o}",
    "arrow-bullet": lambda o: f"→ {o}",
    "rtl-marks": lambda o: f"\u200f{o}\u200f",
    "rtl-embedded": lambda o: f"\u202b{o}\u202c",
    "rtl-isolated": lambda o: f"\u2067{o}\u2069",
    "pray-emoji": lambda o: f"{o} 🙏",
    "paren-remark": lambda o: f"{o} (my choice)",
    "dash-remark": lambda o: f"{o} - thanks!",
    "emdash-remark": lambda o: f"{o} — that's my move",
    "arrow-after": lambda o: f"{o} <--",
    "indented-code": lambda o: f"    {o}",
    "please-after": lambda o: f"{o} please",
    "ok-before": lambda o: f"OK, {o}",
    "final-after": lambda o: f"{o} (final)",
}
#: "Sent from my iPhone" in the languages above, under the player's name.
IPHONE = ("iPhone'umdan gönderildi", "Отправлено с iPhone", "أُرسلت من الـ iPhone", "נשלח מה-iPhone שלי",
          "Στάλθηκε από το iPhone μου", "Odesláno z iPhonu", "iPhone-ról küldve", "Lähetetty iPhonesta")  # fmt: skip
MORE = (
    "yahoo-de-indented",
    "proton",
    "samsung-en",
    "samsung-de",
    "forward-gmail",
    "forward-gmail-de",
    "edited-in-place",
    "code-block",
    "dashdash-signature",
    "iphone-languages",
    "apple-forward-de",
    "trimmed-quote",
    "trimmed-listing",
    "marked-in-quote",
    "marked-in-original",
)
FAMILIES = (*HEADERS, *TYPED, *MORE)


def cases() -> list[Case]:
    return [Case(f, p) for f in FAMILIES for p in range(PICKS)]


def _block(moment: Moment, labels: tuple[str, str, str, str], date: str) -> list[str]:
    frm, sent, to, subject = labels
    r = moment.report
    return [f"{frm}: {r['From']}", f"{sent}: {date}", f"{to}: {r['To']}", f"{subject}: {r['Subject']}"]


def _more(moment: Moment, family: str, order: str) -> list[str]:
    original = _plain(moment.report)
    mine = ["Hi,", "", order, "", "Thanks", moment.player]
    if family == "yahoo-de-indented":  # Yahoo's German attribution, the report indented under it, not quoted
        head = f"Am Montag, 7. Dezember 2026 um 10:02:00 MEZ hat {WHO} Folgendes geschrieben:"
        return [*mine, "", "", "", head, "", *[f"    {x}".rstrip() for x in original]]
    if family == "proton":
        head = f"On Monday, December 7th, 2026 at 10:02, {WHO} wrote:"
        return [*mine, "", "Sent with Proton Mail secure email.", "", "------- Original Message -------", head]
    if family in ("samsung-en", "samsung-de"):
        de = family == "samsung-de"
        rule = "-------- Originalnachricht --------" if de else "-------- Original message --------"
        labels = ("Von", "Datum", "An", "Betreff") if de else ("From", "Date", "To", "Subject")
        date = "07.12.26 10:02 (GMT+01:00)" if de else "12/7/26 10:02 AM (GMT+01:00)"
        sent = "Von meinem Samsung Galaxy Smartphone gesendet." if de else "Sent from my Galaxy"
        return [*mine, "", "", "", sent, "", rule, *_block(moment, labels, date), "", *original]
    if family.startswith("forward-gmail"):
        de = family.endswith("-de")
        rule = "---------- Weitergeleitete Nachricht ---------" if de else "---------- Forwarded message ---------"
        labels = ("Von", "Date", "Subject", "To") if de else ("From", "Date", "Subject", "To")
        date = "Mo., 7. Dez. 2026 um 10:02 Uhr" if de else "Mon, Dec 7, 2026 at 10:02 AM"
        return [*mine, "", rule, *_block(moment, labels, date), "", *original]
    if family == "edited-in-place":  # the quote's ">" taken away, the order typed under the listing
        at = _listing(original)
        return [f"On Mon, Dec 7, 2026 at 10:02 AM {WHO} wrote:", "", *original[:at], order, *original[at:]]
    if family == "iphone-languages":
        return [*mine, "", IPHONE[(len(moment.kind) + len(order)) % len(IPHONE)], "", *_gmail(original)]
    if family == "apple-forward-de":
        block = _block(moment, ("Von", "Datum", "An", "Betreff"), "7. Dezember 2026 um 10:02:00 MEZ")
        return [*mine, "", "Anfang der weitergeleiteten Nachricht:", "", *block, "", *original]
    if family.startswith("trimmed-"):  # the list's other orders deleted; the quote cut under it, or going on
        at = next((i for i, ln in enumerate(original) if ln.strip() in moment.legal), _listing(original))
        end = next((i for i in range(at, len(original)) if not original[i].strip()), len(original))
        kept = [ln for ln in original[at:end] if ln.strip() == order][:1] or [f"    {order}"]
        rest = original[end:] if family == "trimmed-listing" else []
        head = ["Hi, here is my choice:", "", f"On Mon, 7 Dec 2026 at 10:02, {WHO} wrote:"]
        return [*head, *_quoted([*original[:at], *kept, *rest])]
    if family in ("marked-in-quote", "marked-in-original"):  # the listed line marked with an arrow
        at = next((i for i, ln in enumerate(original) if ln.strip() == order), -1)  # its first line, the listing's
        lines = [f"{ln}   <-- this one" if i == at else ln for i, ln in enumerate(original)]
        if family == "marked-in-quote":
            return ["Hi, see my choice below.", "", *_gmail(lines)]
        return [
            "Hi, see my choice below.",
            "",
            "_" * 32,
            *_block(moment, ("From", "Sent", "To", "Subject"), "Monday, December 7, 2026 10:02 AM"),
            "",
            *lines,
        ]
    if family == "code-block":
        return ["Hi,", "", "```", order, "```", "", "Thanks", moment.player, "", *_gmail(original)]
    # "--" without its space, then the name, above the quote
    return ["Hi,", "", order, "", "--", moment.player, "", *_gmail(original)]


def _gmail(original: list[str]) -> list[str]:
    return [f"On Mon, 7 Dec 2026 at 10:02, {WHO} wrote:", "", *_quoted(original)]


def body_of(moment: Moment, case: Case, order: str) -> list[str]:
    original = _plain(moment.report)
    f = case.family
    if f in HEADERS:
        mine = ["Hi,", "", order, "", "Thanks", moment.player]
        return [*mine, "", *HEADERS[f], "", *_quoted(original)]
    if f in TYPED:
        return ["Hi,", "", TYPED[f](order), "", "Thanks", moment.player, "", *_gmail(original)]
    return _more(moment, f, order) + (_quoted(original) if f == "proton" else [])


def build(moment: Moment, case: Case) -> tuple[bytes, str]:
    """The reply of `case` to `moment`'s report, and the order it means."""
    order = moment.legal[case.pick % len(moment.legal)]
    msg = _message(moment, subject=f"Fwd: {moment.report['Subject']}" if case.family.startswith("forward") else "")
    msg.set_content("\n".join(body_of(moment, case, order)) + "\n")
    return msg.as_bytes(), order


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    return verdict(moment, *build(moment, case), case.label)


SAMPLED = 3


def sample(kind: str) -> list[Case]:
    """`SAMPLED` cases drawn, and one reply trimming the quoted list (untold on ab18255d), a moment; all under
    REPLIES33_ALL=1."""
    every = sampled(cases(), "REPLIES33_ALL", "replies33", kind, SAMPLED)
    trimmed = Case("trimmed-listing" if len(kind) % 2 else "trimmed-quote", len(kind) % PICKS)
    return every if trimmed in every else [*every, trimmed]


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_of_round_thirty_three_are_read_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    """See the module docstring's figures."""
    moment = moments[kind]
    failures = tallied(kind, sample(kind), lambda case: outcome(moment, case), "REPLIES33_ALL")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:60])
