"""Every kind of mail pbem writes, its HTML part opened in headless Chromium at 360 px, as a phone shows it.

One page session reads them all (each mail is loaded into the same tab in turn), so the whole corpus costs a few
seconds: every golden context of tests/test_mail_templates.py (every kind, and its variants), the HELP mail of
each of the four games with its real handbook and rulings, and real mails of the four seeded games (reports with
their tables, acknowledgements, the set-up, the final report).  On each:

* nothing is wider than the screen (no sideways scroll, and no element reaching past its right edge);
* no text is smaller than 14 px (the browser's default monospace is 13 px: an order in <code> was);
* the first thing after the title is a sentence, never a table: what is asked, or what happened, comes first.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbem import engine as registry
from pbem.engine.rulings import RULINGS
from pbem.render.templates import render_mail
from tests.browser import Browser, find_chromium
from tests.test_mail_templates import CONTEXTS, NOT_ABOUT_A_GAME, RECORD, VARIANTS, M

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(find_chromium() is None, reason="headless Chromium not found: apt-get install chromium"),
]

WIDTH = 360
SMALLEST = 14  # px

MEASURE = """
(() => {
  const inner = window.innerWidth;
  const wide = [], small = [];
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > inner + 1) wide.push(e.tagName + ' ' + Math.round(r.right) + ': ' + e.textContent.trim().slice(0, 60));
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (own && size < SMALLEST) small.push(e.tagName + ' ' + size + 'px: ' + e.textContent.trim().slice(0, 60));
  }
  const h1 = document.querySelector('h1');
  let first = h1 ? h1.nextElementSibling : document.body.firstElementChild;
  while (first && (first.tagName === 'STYLE' || !first.textContent.trim())) first = first.nextElementSibling;
  const table = first && (first.tagName === 'TABLE' || first.querySelector(':scope > table, :scope > h2 + table'));
  return {scroll: document.documentElement.scrollWidth, inner, wide: wide.slice(0, 5), small: small.slice(0, 5),
          first: first ? first.tagName + ': ' + first.textContent.trim().slice(0, 80) : '', table: !!table};
})()
""".replace("SMALLEST", str(SMALLEST))


def mails() -> dict[str, str]:
    """{name: the HTML part} of every golden context and of each game's real HELP mail."""
    out = {}
    for name, ctx in sorted(CONTEXTS.items()):
        record = {} if name in NOT_ABOUT_A_GAME else RECORD
        out[name] = render_mail(VARIANTS.get(name, name), {**ctx, **M, **record}).html
    for kind in registry.available():
        ctx = dict(CONTEXTS["help"], handbook=registry.get(kind).handbook(), rulings=RULINGS[kind])
        out[f"help {kind}"] = render_mail("help", {**ctx, **M, **RECORD}).html
    return out


def _inlined(raw: bytes) -> str:
    """A sent mail's HTML part with each `cid:` picture replaced by its image part, as a mail client shows it."""
    import base64
    from email import policy
    from email.parser import BytesParser

    msg = BytesParser(policy=policy.default).parsebytes(raw)
    page = next(p for p in msg.walk() if p.get_content_type() == "text/html").get_content()
    for part in msg.walk():
        if part.get_content_type() == "image/png":
            data = base64.b64encode(part.get_content()).decode()
            page = page.replace(f"cid:{part['Content-ID'].strip('<>')}", f"data:image/png;base64,{data}")
    return page


def seeded() -> dict[str, str]:
    """{name: the HTML part} of a few real mails of each seeded game: of each kind of subject (reports, answers,
    the set-up, the final report) the first and the longest (the widest tables), as sent."""
    from email.header import decode_header, make_header
    from email.parser import BytesHeaderParser

    from tests.test_phone_columns import sent_raw

    out = {}
    for kind in registry.available():
        groups: dict[str, list[tuple[str, str]]] = {}
        for i, raw in enumerate(sent_raw(kind)):
            subject = str(make_header(decode_header(BytesHeaderParser().parsebytes(raw)["Subject"])))
            key = re.sub(r"\d+", "N", subject.split("] ", 1)[-1]).split(",")[0][:24]
            groups.setdefault(key, []).append((f"{kind} #{i} {subject[:60]}", raw))
        for found in groups.values():
            for name, raw in {found[0], max(found, key=lambda f: len(f[1]))}:
                out[name] = _inlined(raw)
    return out


def _load(browser: Browser, page: Any, url: str) -> None:
    page.loaded = False
    page.send("Page.navigate", url=url)
    import time

    deadline = time.monotonic() + browser.timeout
    while not page.loaded:
        browser._dispatch(browser._read_message(deadline))


def test_every_mail_fits_a_360px_phone_in_letters_of_14px_and_opens_with_a_sentence(
    browser: Browser, tmp_path: Path
) -> None:
    found = {**mails(), **seeded()}
    assert len(found) > 75
    problems: list[str] = []
    # the test process's Chromium (the `browser` fixture), not one started for this test alone
    first = tmp_path / "blank.html"
    first.write_text("<!DOCTYPE html><p>start</p>")
    page = browser.open(first.as_uri(), width=WIDTH, height=800, mobile=True)
    for name, html in found.items():
        f = tmp_path / f"{name.replace(' ', '-')}.html"
        f.write_text(html, encoding="utf-8")
        _load(browser, page, f.as_uri())
        got = page.evaluate(MEASURE)
        if got["scroll"] > got["inner"] + 1 or got["wide"]:
            problems.append(f"{name}: {got['scroll']} px wide at {got['inner']}: {got['wide']}")
        if got["small"]:
            problems.append(f"{name}: text under {SMALLEST} px: {got['small']}")
        if got["table"] or not got["first"]:
            problems.append(f"{name}: opens with a table, not a sentence: {got['first']}")
    assert page.errors == [] and page.network_requests == [], (page.errors, page.network_requests)
    assert not problems, f"{len(problems)} problems on a 360 px phone:\n" + "\n".join(problems)
