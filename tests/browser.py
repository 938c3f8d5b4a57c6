"""A tiny headless-Chromium driver for browser tests: the DevTools protocol over a pipe.

No Python package is needed: Chromium is started with ``--remote-debugging-pipe``
and speaks JSON messages (each ended by a NUL byte) on file descriptors 3 (to
the browser) and 4 (from it).  Chromium is the Debian ``chromium`` package
(``/usr/bin/chromium``); no browser is ever downloaded.

    with Browser() as b:
        page = b.open(Path("game.html").as_uri(), width=1280, height=900)
        page.errors, page.requests, page.evaluate("1 + 1"), page.screenshot(Path("shot.png"))
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
]
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


def find_chromium() -> str | None:
    """The Chromium executable (PBEM_CHROMIUM overrides), or None if absent."""
    env = os.environ.get("PBEM_CHROMIUM")
    if env:
        return env if Path(env).exists() else None
    return next((c for c in CANDIDATES if Path(c).exists()), shutil.which("chromium"))


class BrowserError(RuntimeError):
    pass


class Page:
    """One tab: console errors, exceptions, network requests and a few commands."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.b, self.session = browser, session
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.loaded = False
        self.stale = False  # its tab has been given to a later `Browser.open`

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        if self.stale:
            raise BrowserError(
                f"{method}: this page's tab shows a page opened after it (`Browser.open` reuses one tab)"
            )
        return self.b.send(method, params, session=self.session)

    def on_event(self, msg: dict[str, Any]) -> None:
        method, p = msg["method"], msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"]))
        elif method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.errors.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            self.errors.append(f"log ({p['entry'].get('source')}): {p['entry']['text']}")
        elif method == "Network.requestWillBeSent":
            self.requests.append(p["request"]["url"])
        elif method == "Page.loadEventFired":
            self.loaded = True

    @property
    def network_requests(self) -> list[str]:
        """Requests that would leave the machine (anything but file:, data:, about:, blob:)."""
        return [u for u in self.requests if not u.startswith(LOCAL_SCHEMES)]

    def evaluate(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in res:
            raise BrowserError(f"{expression!r} raised {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            m = self.send("Page.getLayoutMetrics")
            size = m.get("cssContentSize") or m["contentSize"]
            params |= {
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 16000), "scale": 1},
            }
        data = self.send("Page.captureScreenshot", **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path


class Browser:
    """Headless Chromium with a fresh profile, driven over the DevTools pipe."""

    def __init__(self, executable: str | None = None, timeout: float = 30.0) -> None:
        self.executable = executable or find_chromium()
        if not self.executable:
            raise BrowserError("Chromium not found (install the Debian package chromium)")
        self.timeout = timeout
        self.pages: dict[str, Page] = {}
        self._tab: Page | None = None  # the one tab every `open` navigates
        self._id = 0
        self._buf = b""

    def __enter__(self) -> Browser:
        self.profile = tempfile.mkdtemp(prefix="pbem-chromium-")
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()

        # The child gets our pipe ends as its fds 3 and 4 (dup2 in the pre-exec hook, via high
        # numbers so that neither end is overwritten); every other fd of ours is close-on-exec.
        def child() -> None:
            os.dup2(to_r, 250)
            os.dup2(from_w, 251)
            os.dup2(250, 3)
            os.dup2(251, 4)
            os.close(250)
            os.close(251)

        self.proc = subprocess.Popen(
            [self.executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=child,
        )
        os.close(to_r)
        os.close(from_w)
        self.send("Target.setDiscoverTargets", {"discover": False})
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.send("Browser.close", {}, wait=False)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_w, self._from_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- protocol ------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_r], [], [], left)
            if ready:
                chunk = os.read(self._from_r, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium closed the DevTools pipe (exit status {self.proc.poll()})")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        page = self.pages.get(msg.get("sessionId", ""))
        if page and "method" in msg:
            page.on_event(msg)

    def send(
        self, method: str, params: dict[str, Any], session: str | None = None, wait: bool = True
    ) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        if not wait:
            return {}
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._dispatch(reply)

    def pump(self, seconds: float) -> None:
        """Read events for a while (late console messages, requests)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self._dispatch(self._read_message(deadline))
        except BrowserError as exc:
            if "timed out" not in str(exc):
                raise

    # -- pages ---------------------------------------------------------------
    def open(self, url: str, width: int = 1280, height: int = 900, mobile: bool = False, dark: bool = False) -> Page:
        """`url` loaded in a tab of `width` x `height` (a phone's viewport if `mobile`, dark mode if `dark`) and
        settled: a `Page` whose errors and requests are this page's alone.

        Every call navigates the same tab (made by the first): a new tab started a renderer process of its own and
        was never closed, about 0.2 CPU s of Chromium's a page and a process more for every page a test process
        opened (90 in one worker).  The page before is settled by then (`settle`), its document replaced by the
        navigation, and its `Page` stale: using it raises, so that no test reads one page thinking it is another."""
        if self._tab is None:
            target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable", {}, session=session)
        else:
            session = self._tab.session
            self._tab.stale = True
        page = self._tab = self.pages[session] = Page(self, session)
        page.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)
        page.send(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}],
        )
        page.send("Page.navigate", url=url)
        deadline = time.monotonic() + self.timeout
        while not page.loaded:
            self._dispatch(self._read_message(deadline))
        self.settle(page)
        return page

    def settle(self, page: Page) -> None:
        """Wait until what the loaded page started has run: two frames painted and the task queue after them, then
        the events Chromium sent meanwhile (console messages, exceptions, requests) read.

        It waited a fixed 0.3 s before (about 60 pages a run, 18 s of the suite's worker time).  The pages under
        test set no timers, so what a script does after `load` happens by the next frames; an error or request
        made then reaches `page` before the evaluation's reply, which comes on the same ordered pipe.  A short
        read after it keeps a log entry the browser process sends late (a refused resource)."""
        page.send(
            "Runtime.evaluate",
            expression="new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))",
            awaitPromise=True,
        )
        self.pump(0.05)
