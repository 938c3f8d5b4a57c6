"""The headless-Chromium harness (`tests/browser.py`) sees what a page does after its `load` event.

The browser tests (the history page, the reports, the phone mails) pass when a page logs no error, throws nothing
and asks for nothing off the machine.  `Browser.open` used to read events for a fixed 0.3 s after `load`; it now
waits for two painted frames and the task after them (`Browser.settle`).  This page does each wrong thing the
tests look for, in the page's script, in a `load` handler and in the frames after it, and every one is seen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import Browser, find_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(find_chromium() is None, reason="headless Chromium not found: apt-get install chromium"),
]

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>harness</title></head><body>
<p>harness</p>
<img src="http://127.0.0.1:9/inline.png" alt="">
<script>
console.error("during parse");
addEventListener("load", () => {
  console.error("at load");
  requestAnimationFrame(() => {
    console.error("first frame");
    new Image().src = "http://127.0.0.1:9/after-load.png";
    requestAnimationFrame(() => { setTimeout(() => { throw new Error("the task after the second frame"); }, 0); });
  });
});
</script></body></html>
"""


def test_errors_and_requests_after_load_reach_the_page(tmp_path: Path, browser: Browser) -> None:
    path = tmp_path / "harness.html"
    path.write_text(PAGE, encoding="utf-8")
    page = browser.open(path.as_uri())
    said = "\n".join(page.errors)
    for what in ("during parse", "at load", "first frame", "the task after the second frame"):
        assert what in said, (what, page.errors)
    assert "http://127.0.0.1:9/inline.png" in page.network_requests
    assert "http://127.0.0.1:9/after-load.png" in page.network_requests


def test_a_quiet_page_has_nothing(tmp_path: Path, browser: Browser) -> None:
    path = tmp_path / "quiet.html"
    path.write_text("<!doctype html><title>quiet</title><p>nothing here</p>", encoding="utf-8")
    page = browser.open(path.as_uri())
    assert page.errors == [] and page.network_requests == []


def test_a_page_opened_after_a_noisy_one_has_only_its_own_and_the_noisy_one_is_stale(
    tmp_path: Path, browser: Browser
) -> None:
    """`Browser.open` navigates one tab for every page: what the page before did is not this page's, and the page
    before, whose tab now shows another document, cannot be read by mistake."""
    from tests.browser import BrowserError

    noisy, quiet = tmp_path / "noisy.html", tmp_path / "quiet.html"
    noisy.write_text(PAGE, encoding="utf-8")
    quiet.write_text("<!doctype html><title>quiet</title><p>nothing here</p>", encoding="utf-8")
    before = browser.open(noisy.as_uri(), width=360, height=640, mobile=True, dark=True)
    assert before.errors and before.network_requests
    after = browser.open(quiet.as_uri())
    assert after.errors == [] and after.network_requests == []
    assert after.evaluate(
        "[document.title, window.innerWidth, matchMedia('(prefers-color-scheme: dark)').matches]"
    ) == [
        "quiet",
        1280,
        False,
    ]
    with pytest.raises(BrowserError, match="opened after it"):
        before.evaluate("document.title")
