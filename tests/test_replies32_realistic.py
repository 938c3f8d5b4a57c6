"""players32, part B: realistic replies, thirty-second round (shapes `tests/test_replies31_realistic.py` lacks).

Each family (`FAMILIES`) is a reply to the report pbem sent (the eight moments of `tests.test_replies3_players`), read
through the intake's path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`) and
sorted as `tests.test_replies31_realistic.outcome` sorts: `read` (what the player meant applied), `told` (nothing
applied, and a note quotes the order or a line of it is refused, quoted back with why), `untold` (nothing applied,
nothing said), `misapplied` (something applied the player did not mean):

* quote headers in Italian, Dutch, Portuguese, Polish, Swedish, Japanese, Korean and Chinese (Gmail's and
  Thunderbird's), the report quoted under them; Outlook's From/Sent/To/Subject block in Italian, Dutch, Portuguese,
  Polish, Swedish and Japanese, the report unquoted under it;
* Apple Mail's "On 7 Dec 2026, at 10:02, ... wrote:" with the answer under the quote (bottom-posting), and answered
  interleaved (the order under the quoted line of the report that lists the orders, the rest of the quote under it);
* the order typed into the quoted block's first line ("> NO EVENT" above the report's own first line, quoted);
* Outlook's "-----Original Message-----" block above the report, unquoted;
* a mailing list's footer ("--" then "You received this message because ..."), a disclaimer in German or French
  under the order, "Sent from Outlook for Android" in German, French, Spanish, Italian, Dutch and Portuguese, Samsung's
  German and the iPhone's Italian line.

`REPLIES32_ALL=1 python3 -m pytest tests/test_replies32_realistic.py -n 0 -s` runs every case and prints the counts
per family; the suite runs `SAMPLED` cases a moment.  Of the 576 cases (24 families, 3 orders, 8 moments), on
4da2cbd6 and now: 552 read, 24 told, 0 untold, 0 misapplied.  Told: the order typed into the quote's first line (24 of
24, "a line typed inside the quote is not read; to send it, write it above the quote: ..."), as an order typed inside
the quote always is.  Read: every quote header, Apple Mail's bottom-posted, interleaved and nested quotes, Outlook's
"-----Original Message-----" and its blocks in six languages, the list footer, both disclaimers, the phones' lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.replies27 import sampled, tallied
from tests.test_replies3_players import KINDS, Moment, _plain, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies19_players import WHO
from tests.test_replies31_realistic import verdict


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _quoted(lines: list[str], prefix: str = "> ") -> list[str]:
    return [f"{prefix}{x}".rstrip() for x in lines]


#: Quote headers above the quoted report, top-posted (Gmail's, Thunderbird's), in the writer's language.
HEADERS = {
    "gmail-it": [f"Il giorno lun 7 dic 2026 alle ore 10:02 {WHO} ha scritto:"],
    "gmail-nl": [f"Op ma 7 dec. 2026 om 10:02 schreef {WHO}:"],
    "gmail-pt": [f"Em seg., 7 de dez. de 2026 às 10:02, {WHO} escreveu:"],
    "gmail-pl": [f"W dniu pon., 7 gru 2026 o 10:02 {WHO} napisał(a):"],
    "thunderbird-pl": [f"W dniu 7.12.2026 o 10:02, {WHO} pisze:"],
    "gmail-sv": [f"Den mån 7 dec. 2026 kl 10:02 skrev {WHO}:"],
    "gmail-ja": [f"2026年12月7日(月) 10:02 {WHO}:"],
    "gmail-ko": [f"2026년 12월 7일 (월) 오전 10:02, {WHO}님이 작성:"],
    "gmail-zh": [f"{WHO} 于2026年12月7日周一 10:02写道\uff1a"],
}
APPLE = f"On 7 Dec 2026, at 10:02, {WHO} wrote:"
#: Footers and disclaimers under the order, and "Sent from Outlook for Android" in other languages.
UNDER = {
    "list-footer": [
        "--",
        'You received this message because you are subscribed to the Google Groups "pbem-players" group.',
        "To unsubscribe from this group and stop receiving emails from it, send an email to "
        "pbem-players+unsubscribe@googlegroups.com.",
    ],
    "disclaimer-de": [
        "Diese E-Mail enthält vertrauliche und/oder rechtlich geschützte Informationen. Wenn Sie nicht der richtige",
        "Adressat sind oder diese E-Mail irrtümlich erhalten haben, informieren Sie bitte sofort den Absender und",
        "vernichten Sie diese Mail. Das unerlaubte Kopieren sowie die unbefugte Weitergabe dieser Mail ist nicht gestattet.",
    ],
    "disclaimer-fr": [
        "Ce message et toutes les pièces jointes sont confidentiels et établis à l'intention exclusive de ses",
        "destinataires. Toute utilisation ou diffusion non autorisée est interdite. Si vous recevez ce message par",
        "erreur, merci de le détruire et d'en avertir immédiatement l'expéditeur.",
    ],
    "android-languages": [],  # `ANDROID`, one per pick
}
ANDROID = (
    "Von Outlook für Android gesendet",
    "Envoyé de Outlook pour Android",
    "Enviado desde Outlook para Android",
    "Inviato da Outlook per Android",
    "Verzonden vanuit Outlook voor Android",
    "Enviado do Outlook para Android",
    "Von meinem Samsung Galaxy Smartphone gesendet.",
    "Inviato dal mio iPhone",
)
#: Outlook's header block in other languages above the report, unquoted (as `tests/test_replies31_realistic.OUTLOOK`).
OUTLOOK = {
    "outlook-it": ("Da", "Inviato", "A", "Oggetto", "lunedì 7 dicembre 2026 10:02", ": "),
    "outlook-nl": ("Van", "Verzonden", "Aan", "Onderwerp", "maandag 7 december 2026 10:02", ": "),
    "outlook-pt": ("De", "Enviado", "Para", "Assunto", "segunda-feira, 7 de dezembro de 2026 10:02", ": "),
    "outlook-pl": ("Od", "Wysłano", "Do", "Temat", "poniedziałek, 7 grudnia 2026 10:02", ": "),
    "outlook-sv": ("Från", "Skickat", "Till", "Ämne", "den 7 december 2026 10:02", ": "),
    "outlook-ja": ("差出人", "送信日時", "宛先", "件名", "2026年12月7日 10:02", ": "),
}
MORE = ("apple-bottom", "apple-interleaved", "apple-nested", "inside-quote-first-line", "outlook-original-message")
FAMILIES = (*HEADERS, *OUTLOOK, *MORE, *UNDER)


@dataclass(frozen=True)
class Case:
    family: str
    pick: int

    @property
    def label(self) -> str:
        return f"{self.family}/{self.pick}"


PICKS = 3


def cases() -> list[Case]:
    return [Case(f, p) for f in FAMILIES for p in range(PICKS)]


def _listing(original: list[str]) -> int:
    """The index of the report's line that lists the orders (the answer is typed under it), or the middle."""
    at = next(
        (i for i, q in enumerate(original) if "legal orders" in q.lower() or "would be accepted" in q.lower()), -1
    )
    return at + 1 if at >= 0 else len(original) // 2


def _under(case: Case, moment: Moment, order: str) -> list[str]:
    """The reply of a family of `UNDER`: the order, then the footer, then Gmail's quote."""
    footer = [ANDROID[(case.pick + len(moment.kind)) % len(ANDROID)]] if case.family == "android-languages" else []
    footer = footer or UNDER[case.family]
    quote = [f"On Mon, 7 Dec 2026 at 10:02, {WHO} wrote:", *_quoted(_plain(moment.report))]
    return ["Hi,", "", order, "", "Thanks", moment.player, "", *footer, "", *quote]


def body_of(moment: Moment, case: Case, order: str) -> list[str]:
    original = _plain(moment.report)
    mine = ["Hi,", "", order, "", "Thanks", moment.player]
    f = case.family
    if f in HEADERS:
        return [*mine, "", *HEADERS[f], "", *_quoted(original)]
    if f in UNDER:
        return _under(case, moment, order)
    if f in OUTLOOK:
        frm, sent, to, subject, date, colon = OUTLOOK[f]
        r = moment.report
        block = [
            f"{frm}{colon}{r['From']}",
            f"{sent}{colon}{date}",
            f"{to}{colon}{r['To']}",
            f"{subject}{colon}{r['Subject']}",
        ]
        return [*mine, "", "_" * 32, *block, "", *original]
    if f == "apple-bottom":  # Apple Mail's attribution, the quote, the answer under it all
        return ["", APPLE, "", *_quoted(original), "", *mine]
    if f == "apple-interleaved":  # the answer under the quoted line that lists the orders, the quote going on
        quoted = _quoted(original)
        at = _listing(original)
        return [APPLE, "", *quoted[:at], "", order, "", *quoted[at:], "", "Thanks", moment.player]
    if f == "apple-nested":  # the attribution inside the quote (an earlier forward's), the answer under it
        return ["", f"> {APPLE}", ">", *_quoted(original), "", *mine]
    if f == "inside-quote-first-line":  # the client put the cursor inside the quote: the order on its first line
        return ["", APPLE, "", f"> {order}", *_quoted(original)]
    # Outlook's "-----Original Message-----" block, the report under it unquoted
    r = moment.report
    block = [
        f"From: {r['From']}",
        "Sent: Monday, December 7, 2026 10:02 AM",
        f"To: {r['To']}",
        f"Subject: {r['Subject']}",
    ]
    return [*mine, "", "-----Original Message-----", *block, "", *original]


def build(moment: Moment, case: Case) -> tuple[bytes, str]:
    """The reply of `case` to `moment`'s report, and the order it means."""
    order = moment.legal[case.pick % len(moment.legal)]
    msg = _message(moment)
    msg.set_content("\n".join(body_of(moment, case, order)) + "\n")
    return msg.as_bytes(), order


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    return verdict(moment, *build(moment, case), case.label)


SAMPLED = 4


def sample(kind: str) -> list[Case]:
    return sampled(cases(), "REPLIES32_ALL", "replies32", kind, SAMPLED)


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_of_round_thirty_two_are_read_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    """Of the 576 cases (24 families, 3 orders, 8 moments): see the module docstring's figures."""
    moment = moments[kind]
    failures = tallied(kind, sample(kind), lambda case: outcome(moment, case), "REPLIES32_ALL")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:60])
