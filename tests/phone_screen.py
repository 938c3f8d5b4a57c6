"""What a player sees of a mail on a phone (360 x 740 CSS px, headless Chromium), measured over seeded games.

A generator (`mails`): for each kind, 3 and 6 players (Italian Wars seats 2), and each seed, a bot game is played
(`pbem.engine.bots.play`) and mails are written from its states as the outbox writes them (`player_report` ->
`render_mail` -> `compose`, the pictures inlined as a mail client shows them): the first report (with the code and
the commitment), a turn report asking the reader, one asking them nothing, a refusal of a mistyped order, a
reminder and the final report.  `measure` opens each in one Chromium tab at 360 x 740, light and dark, and names:

* ``first screen``: what the reader must do (or that nothing is asked of them now) and the deadline not both in
  the first 740 px;
* ``small text``: text under 14 CSS px in the HTML, or under `PICTURE_SMALLEST` in a board picture (its drawn
  size scaled to the width the picture is shown at: 680 px shown at 338 px halves it);
* ``sideways``: anything wider than the screen;
* ``tap target``: a link under 40 x 40 px;
* ``contrast``: text under WCAG AA's contrast with what is behind it (4.5:1, 3:1 for large text);
* ``text columns``: in the text part, a paragraph broken where a 40-column phone breaks it again, or a table
  line wider than 40 columns (tests/test_phone_mail_text.py's and tests/test_phone_columns.py's checks).

    python benchmarks/phone_screen.py [--seeds 3]   (the whole generator: every class counted)
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from pbem import engine as registry
from pbem.app.reporting import Point, Told, player_report
from pbem.engine.bots import play
from pbem.mail.outbound.compose import Body, Envelope, compose
from pbem.render.templates import NARROW, render_mail

WIDTH, HEIGHT = 360, 740
SMALLEST = 14  # CSS px of HTML text
PICTURE_SMALLEST = 11  # CSS px of a picture's words as shown (a caption's size; the board's labels)
TAP = 40  # px each way
NOW = "2026-01-06T13:00:00+00:00"
DUE = "2026-01-07T12:00:00+00:00"
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
MODERATOR = {"moderator": "Moderator", "moderator_address": "games@pbem.test"}
RECORD = {"record": {"entries": 214, "head": "4f1a9c2e" * 8}, "receipt": None}
CLASSES = ("first screen", "small text", "picture text", "sideways", "tap target", "contrast", "text columns")


def counts(kind: str) -> list[int]:
    eng = registry.get(kind)
    return sorted({min(max(n, eng.min_players), eng.max_players) for n in (3, 6)})


@contextmanager
def picture_sizes() -> Iterator[list[int]]:
    """The sizes (px) of every word the board pictures draw while inside: each word goes through `canvas.stamp`,
    whose caches (and the pictures' own) are emptied first so that nothing drawn before is only pasted."""
    from pbem.render import pictures
    from pbem.render.pictures import canvas

    seen: list[int] = []
    real = canvas.stamp

    def stamp(words: str, size: int) -> Any:
        seen.append(size)
        return real(words, size)

    for cache in (pictures._public, pictures._drawn, canvas.card_tile, canvas._card_p, canvas._stamp_p, real):
        cache.cache_clear()
    canvas.stamp = stamp  # type: ignore[assignment]
    try:
        yield seen
    finally:
        canvas.stamp = real


def _inlined(raw: bytes) -> tuple[str, str]:
    """(text part, HTML part with each `cid:` picture a data: URI), as a mail client shows them."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    text = next(p for p in msg.walk() if p.get_content_type() == "text/plain").get_content()
    page = next(p for p in msg.walk() if p.get_content_type() == "text/html").get_content()
    for part in msg.walk():
        if part.get_content_type() == "image/png":
            data = base64.b64encode(part.get_content()).decode()
            page = page.replace(f"cid:{part['Content-ID'].strip('<>')}", f"data:image/png;base64,{data}")
    return text, page


def _composed(template: str, ctx: dict[str, Any]) -> dict[str, Any]:
    with picture_sizes() as sizes:
        r = render_mail(template, {**ctx, "now": NOW, **MODERATOR, **RECORD})
    envelope = Envelope(
        "games@pbem.test", "Moderator", "p@x.test", "P", "<pbem.phone@x.test>", datetime.fromisoformat(NOW)
    )
    text, html = _inlined(compose(envelope, Body(r.subject, r.text, r.html, r.images)))
    return {"text": text, "html": html, "picture_px": min(sizes, default=0) if r.images else 0}


def _ack(game: str, req: dict[str, Any] | None, waiting: list[str]) -> dict[str, Any]:
    legal = tuple(req["legal"]) if req else ()
    word = (req["legal"][0].split() or ["PLAY"])[0] if req and req["legal"] else "PLAY"
    line = f"{word} Nonsuch"
    return dict(
        subject_in=f"Re: [pbem {game}] Turn 1",
        game_name=game,
        applied=False,
        lines=[
            {
                "line": line,
                "ok": False,
                "reason": f'"{line}" is not a legal order now',
                "legal": legal,
                "understood": "",
            }
        ],
        rejected_count=1,
        problems=[],
        press_failed=[],
        no_orders=False,
        press_sent=[],
        held=False,
        on_file=[],
        waiting=waiting,
        report_follows=False,
        chatter=[],
        more_chatter=0,
        more_lines=0,
        more_notes=0,
    )


def game_mails(kind: str, players: int, seed: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, {"text", "html", "picture_px", "must"}) of the mails of one seeded game, as sent to its first seat.

    `must`: the phrases that must show on the first screen (what is asked, or that nothing is; the deadline)."""
    from tests.engine.test_contract import moments

    eng = registry.get(kind)
    seats = NAMES[:players]
    reader = seats[0]
    game = f"{kind}-7"
    pt = play(eng, seats, f"phone-{kind}-{players}-{seed}", bot_seed=seed, timeout_every=9)
    states = moments(eng, pt, 16)
    picked: dict[str, dict[str, Any]] = {}
    for i, s in enumerate(states):
        reqs = eng.requests(s)
        mine = [r for r in reqs if r.player == reader and not r.answered]
        result = eng.result(s)
        if i == 0:
            picked["first report"] = s
        elif result is not None:
            picked.setdefault("final report", s)
        elif mine:
            picked.setdefault("turn report", s)
        elif reqs:
            picked.setdefault("waiting report", s)
    happened = tuple(f"{p} played a card and the step resolved." for p in seats)
    for what, s in picked.items():
        at = Point(game, tuple(eng.requests(s)), eng.result(s), commitment_final="ab" * 32, moderator="Moderator")
        first = what == "first report"
        told = Told(
            () if first else happened,
            deadline="2026-01-07 12:00 UTC",
            due_at=DUE,
            commitment="cd" * 32 if first else None,
            code="alpha-bravo-charlie-delta" if first else None,
        )
        ctx = player_report(eng, s, reader, at, told)
        if at.result is not None:
            ctx = {**ctx, "seed": "ef" * 16}
        out = _composed("report", ctx)
        asked = [a for a in ctx["asked"] if not a["answered"]]
        if at.result is not None:
            must = [at.result.summary[:40]]
        elif asked:
            must = ["Asked of you now:", "Deadline:"]
        else:
            must = [["Nothing is asked of you now.", "Your orders for this step are on file"], "deadline in"]
        yield f"{kind} {players}p {seed} {what}", {**out, "must": must}
        if what == "turn report":
            waiting = ctx["waiting"]
            refusal = _composed("ack", _ack(game, asked[0] if asked else None, waiting))
            yield (
                f"{kind} {players}p {seed} refusal",
                {**refusal, "must": [["NOTHING WAS APPLIED", "Nothing was applied"], "send the whole message again"]},
            )
            reminder = _composed("reminder", {"game_name": game, "due": "2026-01-07 12:00 UTC", "left": "23 hours",
                                              "asked": asked})  # fmt: skip
            yield (
                f"{kind} {players}p {seed} reminder",
                {**reminder, "must": ["is waiting for your orders", "Deadline:"]},
            )


def golden_mails() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every golden context of tests/test_mail_templates.py (every kind of mail, and its variants), with what
    tests/test_phone_mail_text.py says it asks first: the mails that hold links (the moderator's address) are there."""
    from tests.test_mail_templates import CONTEXTS, NOT_ABOUT_A_GAME, VARIANTS
    from tests.test_phone_mail_text import ASKS

    for name, ctx in sorted(CONTEXTS.items()):
        record = {} if name in NOT_ABOUT_A_GAME else RECORD
        r = render_mail(VARIANTS.get(name, name), {**ctx, "now": NOW, **MODERATOR, **record})
        yield (
            f"golden {name}",
            {"text": r.text, "html": r.html, "picture_px": 0, "must": [ASKS[name]] if name in ASKS else []},
        )


def mails(seeds: list[str], kinds: list[str] | None = None, golden: bool = True) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = dict(golden_mails()) if golden else {}
    for kind in kinds or registry.available():
        for n in counts(kind):
            for seed in seeds:
                out.update(game_mails(kind, n, seed))
    return out


MEASURE = (
    r"""
((must, picturePx) => {
  const inner = WIDTH_PX, screen = HEIGHT_PX;  // the phone's, not the page's: a page too wide is zoomed out
  const out = {scroll: document.documentElement.scrollWidth, inner, wide: [], small: [], picture: [], taps: [],
               contrast: [], unseen: []};
  const rgba = s => { const m = s.match(/[\d.]+/g).map(Number); return m.length === 3 ? [...m, 1] : m; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                     return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3]));
  const canvas = getComputedStyle(document.documentElement).colorScheme.includes('dark') &&
                 matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18] : [255, 255, 255];
  const behind = e => {
    const layers = [];
    for (let a = e; a; a = a.parentElement) { const c = rgba(getComputedStyle(a).backgroundColor); if (c[3] > 0) layers.push(c); }
    let bg = canvas;
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    if (r.right > inner + 1) out.wide.push(e.tagName + ' ' + Math.round(r.right) + ': ' + e.textContent.trim().slice(0, 50));
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const style = getComputedStyle(e);
    const size = parseFloat(style.fontSize);
    if (own && size < SMALLEST) out.small.push(e.tagName + ' ' + size + 'px: ' + e.textContent.trim().slice(0, 50));
    if (own) {
      const bg = behind(e), fg = over(rgba(style.color), bg);
      const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      const ratio = (l1 + 0.05) / (l2 + 0.05);
      const large = size >= 24 || (size >= 18.66 && parseInt(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.contrast.push(e.tagName + ' ' + ratio.toFixed(2) + ' ' + style.color + ' on rgb(' + bg.map(Math.round) + '): ' + e.textContent.trim().slice(0, 40));
    }
    if (e.tagName === 'A' && (r.height < TAP || r.width < TAP)) out.taps.push(Math.round(r.width) + 'x' + Math.round(r.height) + ': ' + e.textContent.trim().slice(0, 40));
    if (e.tagName === 'IMG' && picturePx) {
      const shown = picturePx * r.width / e.naturalWidth;
      if (shown < PICTURE_SMALLEST) out.picture.push(picturePx + ' px drawn, ' + shown.toFixed(1) + ' px shown (' + e.naturalWidth + ' px at ' + Math.round(r.width) + ')');
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const where = {};
  const groups = must.map(m => Array.isArray(m) ? m : [m]);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const phrase of groups.flat()) {
      if (phrase in where || !n.textContent.includes(phrase)) continue;
      const range = document.createRange(); range.selectNodeContents(n);
      const b = range.getBoundingClientRect();
      if (b.height) where[phrase] = b.bottom + window.scrollY;
    }
  }
  for (const group of groups) {
    const at = Math.min(...group.map(p => where[p] ?? Infinity));
    if (at > screen) out.unseen.push(group[0] + ' at ' + (at === Infinity ? 'nowhere' : Math.round(at) + ' px'));
  }
  return out;
})
""".replace("PICTURE_SMALLEST", str(PICTURE_SMALLEST))
    .replace("SMALLEST", str(SMALLEST))
    .replace("TAP", str(TAP))
    .replace("WIDTH_PX", str(WIDTH))
    .replace("HEIGHT_PX", str(HEIGHT))
)


def text_problems(text: str, html: str) -> list[str]:
    """The text part's lines a 40-column phone shows badly: a paragraph broken twice, a table line too wide."""
    from tests.test_phone_columns import table_lines
    from tests.test_phone_mail_text import broken

    wide = [
        f"table line {len(line)} wide: {line!r}"
        for _, line in table_lines(text, html)
        if len(line) > NARROW and " " in line.strip()
    ]
    return broken(text, html) + wide


def _load(browser: Any, page: Any, url: str) -> None:
    page.loaded = False
    page.send("Page.navigate", url=url)
    deadline = time.monotonic() + browser.timeout
    while not page.loaded:
        browser._dispatch(browser._read_message(deadline))


def measure(found: dict[str, dict[str, Any]], tmp: Path, browser: Any = None) -> dict[str, list[str]]:
    """{class: [problem, ...]} over the mails `found` (`mails`), each opened at 360 x 740 in light and dark (in
    `browser`, a `tests.browser.Browser`, or one started here)."""
    from tests.browser import Browser

    if browser is None:
        with Browser() as started:
            return measure(found, tmp, started)
    problems: dict[str, list[str]] = {c: [] for c in CLASSES}
    blank = tmp / "blank.html"
    blank.write_text("<!DOCTYPE html><p>start</p>")
    for dark in (False, True):
        page = browser.open(blank.as_uri(), width=WIDTH, height=HEIGHT, mobile=True, dark=dark)
        for i, (name, mail) in enumerate(found.items()):
            f = tmp / f"mail{i}.html"
            f.write_text(mail["html"], encoding="utf-8")
            _load(browser, page, f.as_uri())
            got = page.evaluate(f"({MEASURE})({json.dumps(mail['must'])}, {mail['picture_px']})")
            mode = "dark" if dark else "light"
            said = {
                "first screen": got["unseen"],
                "small text": got["small"],
                "picture text": got["picture"],
                "sideways": got["wide"] + ([f"{got['scroll']} px wide"] if got["scroll"] > got["inner"] + 1 else []),
                "tap target": got["taps"],
                "contrast": got["contrast"],
            }
            for cls, items in said.items():
                if items and (dark is False or cls == "contrast"):  # the layout is the same in the dark
                    problems[cls].append(
                        f"{name} ({mode}): {items[0]}" + (f" (+{len(items) - 1})" if len(items) > 1 else "")
                    )
            if not dark:
                bad = text_problems(mail["text"], mail["html"])
                if bad:
                    problems["text columns"].append(
                        f"{name}: {bad[0]}" + (f" (+{len(bad) - 1})" if len(bad) > 1 else "")
                    )
        assert page.errors == [] and page.network_requests == [], (page.errors, page.network_requests)
    return problems
