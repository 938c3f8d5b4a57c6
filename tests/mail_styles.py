"""How people and their mail clients wrap orders: greetings, sign-offs, client signatures,
attributions in eight languages, quoting styles (quoted report above or below, Outlook
header block, forwarded message, Yahoo's run-on attribution) and body formats (plain,
format=flowed with DelSp, HTML only).  Used by the fuzz test and the styled whole games.
"""

from __future__ import annotations

import html
import random
from email.message import EmailMessage

ORDERS = [
    "NO EVENT",
    "PASS",
    "MELD Otto Spain King",
    "meld maria th top archduke",
    "EVENT CLAIM Duke TARGET Bob",
    "Event succession third target bob m4",
    "DISCARD-IF-NEEDED LOWEST",
    "discard lowest",
    "CLAIM queen bob",
]
GREETINGS = [
    "Hi moderator,",
    "Hello,",
    "Dear all,",
    "Hola,",
    "Bonjour à tous,",
    "Hallo zusammen,",
    "Ciao!",
    "Olá,",
    "Hoi,",
]
SIGN_OFFS = [
    "Cheers,",
    "Best,",
    "Thanks!",
    "Un saludo,",
    "Bien à vous,",
    "Viele Grüße",
    "Grazie",
    "Abraços",
    "Groetjes,",
]
NAMES = ["Alice", "Zoë Müller", "A.", "Seán O'Brien", "李小龍"]
CLIENT_SIGNATURES = [
    "Sent from my iPhone",
    "Sent from my Galaxy",
    "Get Outlook for iOS",
    "Get Outlook for Android<https://aka.ms/AAb9ysg>",
    "Sent from Yahoo Mail for iPhone",
    "Sent with Proton Mail secure email.",
    "Envoyé de mon iPhone",
    "Von meinem iPhone gesendet",
    "Enviado desde mi iPhone",
    "Inviato da iPhone",
    "Enviado do meu iPhone",
    "Verzonden vanaf mijn iPhone",
]
WHO = "pbem moderator <games@example.org>"
ATTRIBUTIONS = [
    ("On Mon, 30 Nov 2026 at 21:08, " + WHO, "wrote:"),
    ("On 30 Nov 2026, at 21:08, " + WHO, "wrote:"),
    ("El lun, 30 nov 2026 a las 22:15, pbem moderator (<games@example.org>)", "escribió:"),
    ("Le lun. 30 nov. 2026 à 21:08, " + WHO, "a écrit :"),
    ("Am Mo., 30. Nov. 2026 um 21:08 Uhr schrieb", WHO + ":"),
    (WHO + " schrieb am Mo., 30. Nov. 2026,", "21:08:"),
    ("Il giorno lun 30 nov 2026 alle ore 21:08 " + WHO, "ha scritto:"),
    ("Em seg., 30 de nov. de 2026 às 21:08, " + WHO, "escreveu:"),
    ("Op ma 30 nov 2026 om 21:08 schreef " + WHO, ":"),
]
HEADER_BLOCKS = [
    [
        "From: " + WHO,
        "Sent: Monday, November 30, 2026 9:08 PM",
        "To: Alice <alice@example.net>",
        "Subject: [pbem hh1] Turn 3",
    ],
    ["Von: " + WHO, "Gesendet: Montag, 30. November 2026 21:08", "An: Alice", "Betreff: [pbem hh1] Turn 3"],
    ["De : " + WHO, "Envoyé : lundi 30 novembre 2026 21:08", "À : Alice", "Objet : [pbem hh1] Turn 3"],
    ["De: " + WHO, "Enviado: lunes, 30 de noviembre de 2026 21:08", "Para: Alice", "Asunto: [pbem hh1] Turn 3"],
    ["Da: " + WHO, "Inviato: lunedì 30 novembre 2026 21:08", "A: Alice", "Oggetto: [pbem hh1] Turn 3"],
    ["Van: " + WHO, "Verzonden: maandag 30 november 2026 21:08", "Aan: Alice", "Onderwerp: [pbem hh1] Turn 3"],
]
MARKERS = [
    "---------- Forwarded message ---------",
    "-----Original Message-----",
    "Begin forwarded message:",
    "-------- Message d'origine --------",
    "________________________________",
]
REPORT = [
    'House of Habsburg, game "hh1": Turn 3, Alice to play',
    "Legal orders now (copy one per line):",
    "    NO EVENT",
    "    MELD Otto Spain King",
    "    DISCARD-IF-NEEDED LOWEST",
    "Send HELP for the handbook and your legal orders, STATUS for this report again.",
    "-- ",
    "pbem moderator",
]
CODE = "K7QX-2MPD"


def own_text(
    rng: random.Random, orders: list[str] | None = None, code: str = CODE
) -> tuple[list[str], list[str], list[str]]:
    """The sender's lines, the orders among them and the chatter among them."""
    orders = orders if orders is not None else rng.sample(ORDERS, rng.randint(1, 4))
    chatter = [rng.choice(GREETINGS)] if rng.random() < 0.8 else []
    lines = chatter + [""] + [o if rng.random() < 0.5 else o.lower() for o in orders]
    lines.insert(rng.randint(len(chatter) + 1, len(lines)), f"CODE {code}" if rng.random() < 0.5 else f"code {code}")
    tail = [rng.choice(SIGN_OFFS), rng.choice(NAMES)] if rng.random() < 0.8 else []
    lines += ["", *tail]
    chatter += tail
    if rng.random() < 0.6:
        lines += ["", rng.choice(CLIENT_SIGNATURES)]
    if rng.random() < 0.3:
        lines += ["-- ", "Alice Martin", "PASS the salt"]
    return lines, [o if o in lines else o.lower() for o in orders], chatter


def attribution(rng: random.Random) -> list[str]:
    first, second = rng.choice(ATTRIBUTIONS)
    return [first, second] if rng.random() < 0.5 else [f"{first} {second}"]


def quoted_report(rng: random.Random, report: list[str]) -> list[str]:
    prefix = rng.choice(["> ", ">", "> > "])
    return [(prefix + line).rstrip() for line in report]


def message_lines(rng: random.Random, own: list[str], report: list[str] = REPORT) -> list[str]:
    """The whole body: the sender's lines and the report they answer, in one of the quoting styles."""
    style = rng.choice(["top", "bottom", "header-block", "marker", "yahoo", "none"])
    if style == "top":
        return [*own, "", *attribution(rng), "", *quoted_report(rng, report)]
    if style == "bottom":
        return attribution(rng) + quoted_report(rng, report) + [""] + own
    if style == "header-block":
        return [*own, "", *rng.choice(HEADER_BLOCKS), "", *report]
    if style == "marker":
        return [*own, "", rng.choice(MARKERS), "From: " + WHO, "", *report]
    if style == "yahoo":
        return [*own, "", f"  On Mon, 30 Nov 2026 at 21:08, {WHO} wrote:   " + "  ".join(report)]
    return own


def soft_wrap(line: str, width: int, delsp: bool) -> list[str]:
    """RFC 3676 soft breaks; with DelSp=yes a space is added before each break (and removed on reading).  A piece
    after a break that starts with ">" (an Italian Wars order, "NEGATE X > Y") is space-stuffed, as a client does:
    unstuffed it read as a quote, and the order was cut at it (walk10)."""
    if len(line) <= width or line.startswith(">") or " " not in line:
        return [line]
    out, rest = [], line
    while len(rest) > width and " " in rest[:width]:
        cut = rest.rindex(" ", 0, width) + 1
        out.append(rest[:cut] + (" " if delsp else ""))
        rest = rest[cut:]
    if not out:
        return [line]
    return [out[0], *(STUFFED + p if p.startswith(">") else p for p in [*out[1:], rest])]


STUFFED = "\x00"  # a piece `flowed_text` space-stuffs (it stuffs "From " and " " lines itself)


def flowed_text(wrapped: list[str]) -> str:
    """The body of `soft_wrap`'s pieces, space-stuffed as RFC 3676 says."""
    stuffed = [" " + w if w.startswith(("From ", " ")) else w for w in wrapped]
    return "\n".join(" " + w[1:] if w.startswith(STUFFED) else w for w in stuffed) + "\n"


def build(
    rng: random.Random,
    lines: list[str],
    sender: str = "Alice <alice@example.net>",
    to: str = WHO,
    subject: str = "[pbem hh1] Turn 3, Alice to play",
    **headers: str,
) -> bytes:
    """The raw message, as plain text, format=flowed (DelSp yes or no) or HTML only."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = rng.choice(["Re: ", "RE: ", "AW: ", "SV: ", "Fwd: ", ""]) + subject
    for key, value in headers.items():
        msg[key] = value
    form = rng.choice(["plain", "flowed", "html"])
    if form == "html":
        body, depth = [], 0
        for line in lines:
            level = len(line) - len(line.lstrip(">")) if line.startswith(">") else 0
            body += ["</blockquote>"] * max(depth - level, 0) + ["<blockquote>"] * max(level - depth, 0)
            depth = level
            body.append(f"<div>{html.escape(line.lstrip('> ')) or '<br>'}</div>")
        msg.set_content("".join(body) + "</blockquote>" * depth, subtype="html")
        return msg.as_bytes()
    if form == "flowed":
        delsp = rng.random() < 0.5
        wrapped = [w for line in lines for w in soft_wrap(line, rng.randint(12, 30), delsp)]
        msg.set_content(flowed_text(wrapped))
        msg.set_param("format", "flowed")
        if delsp:
            msg.set_param("delsp", "yes")
        return msg.as_bytes()
    msg.set_content("\n".join(lines) + "\n")
    return msg.as_bytes()
