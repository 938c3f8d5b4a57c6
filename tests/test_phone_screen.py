"""A sample of tests/phone_screen.py's generator: mails of seeded games on a 360 x 740 phone, light and dark.

The whole generator (`python benchmarks/phone_screen.py --seeds 3`: 202 mails, 76 golden contexts and the first
report, a turn report, a report asking nothing, a refusal, a reminder and the final report of each kind at 3 and 6
players, Italian Wars at 2, for 3 seeds) found on 8080c21: tap target 5 (every link, the moderator's address in
address_asked, address_moved, refused_code and its variant, replaced: 151 x 19 px), picture text 84 (every report
with a board picture: its words drawn at 11 to 14 px in a picture 680 px wide shown 338 px wide, 5.5 to 7 CSS px),
and 0 for the first screen, text under 14 px, sideways scrolling, contrast (WCAG AA, light and dark) and the text
part at 40 columns.  On this branch: 0 in every class (the pictures of version 2, `pbem.render.pictures.phone`, show
their smallest words at 11.9 CSS px: 12 px drawn in a picture 340 px wide shown 338 px wide; phones3 draws
them at the layout's size, where phones2 drew them at twice it, 24 px in a picture 680 px wide).

The suite's sample: the golden mails holding a link, and one seeded game of two kinds (Sixteen Thirty at 6 players, and Italian Wars'
2): 17 mails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import Browser, find_chromium
from tests.phone_screen import CLASSES, game_mails, golden_mails, measure

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(find_chromium() is None, reason="headless Chromium not found: apt-get install chromium"),
]


def sample() -> dict[str, dict]:
    found = {name: m for name, m in golden_mails() if 'href="' in m["html"]}
    found.update(game_mails("sixteen-thirty", 6, "s0"))  # two pictures a report: the map and the hand
    found.update(game_mails("italian-wars", 2, "s0"))
    return found


@pytest.fixture(scope="module")
def measured(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    found = sample()
    assert len(found) >= 15 and sum("report" in n for n in found) >= 7, sorted(found)
    return measure(found, tmp_path_factory.mktemp("phone"), browser)


@pytest.mark.parametrize("cls", CLASSES)
def test_a_mail_on_a_360x740_phone_has_no_problem_of_the_class(measured: dict[str, list[str]], cls: str) -> None:
    assert measured[cls] == [], f"{len(measured[cls])} mails: " + "\n".join(measured[cls][:5])


def test_the_checks_find_what_they_look_for(browser: Browser, tmp_path: Path) -> None:
    """Each class fires on a page made to fail it, so that an empty list above means something."""
    page = (
        "<!DOCTYPE html><html><head><meta name='viewport' content='width=device-width'></head><body>"
        + "<p style='margin-top:900px'>Asked of you now: play</p>"
        + "<p style='font-size:11px'>tiny</p><div style='width:500px'>wide</div>"
        + "<p><a href='mailto:a@b'>a@b</a></p><p style='color:#bbb'>faint</p>"
        + "<img src='data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' style='width:0.5px;height:1px'>"
        + "</body></html>"
    )
    text = "== Players ==\n  Name                 Gold   Hand   Family   Treasury  Notes\n"
    html = "<section>\n<h2>Players</h2>\n<table>"
    got = measure(
        {"made": {"text": text, "html": page + html, "picture_px": 11, "must": ["Asked of you now:"]}},
        tmp_path,
        browser,
    )
    assert all(got[c] for c in CLASSES), got
