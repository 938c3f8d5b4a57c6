"""An address nesting comments in comments never ends a command in a traceback (costs5).

The standard library's address parser (`getaddresses`, `parseaddr`) reads a comment inside a comment by calling
itself: a thousand "(" raise a RecursionError.  A mail in a player's folder whose To is so (`pbem verify --mail`),
a Sent mail whose From is (`--sent`), `game new --player` and `game replace` given one ended in a traceback; a
moderator's REPLACE by mail was "a message that could not be handled".  Now every address is read through
`pbem.trust.addresses`, and this file's scan holds every other call of the parser to a guarded place.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests.growth import Window
from tests.test_dkim_evidence import provider  # noqa: F401  (the fixture: a provider's key)

ROOT = Path(__file__).resolve().parents[2]
#: Hostile address values: comments nested deep, nested and long, unclosed, with an address after them.
VALUES = ("(" * 5_000 + "a@x.test", "(a" * 3_000 + "<a@x.test>", "(" * 200 + ")" * 200 + "(" * 2_000, "((((" * 600)
#: The calls of the parser that are guarded where they are (a `try` around them, every exception caught), by module.
GUARDED = {
    "pbem/trust/addresses.py": 2,  # the guard itself
    "pbem/mail/inbound/identity.py": 1,  # `_fallback`: any header text gives an answer
    "pbem/mail/inbound/message.py": 1,  # `all_recipients`: read by nothing in pbem
    "pbem/trust/receipts.py": 2,  # `names` and `_sender_name`: in a try
    "pbem/cli/demo.py": 1,  # the To of a mail pbem composed itself
}


def _mail(**headers: str) -> bytes:
    head = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
    head += "" if "Subject" in headers else "Subject: [pbem hh] report\r\n"
    return (head + "Message-ID: <m@x>\r\n\r\nPrivate report for Alice\r\n").encode()


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_a_folders_mail_with_such_an_address_is_read_without_a_traceback(value: str) -> None:
    from pbem.trust import receipts, sent

    folder = receipts.parse_folder([_mail(From="m@x", To=value), _mail(From=value, To="a@x")])
    assert len(folder.mails) + folder.unreadable == 2
    with pytest.raises(ValueError, match="nests comments deeper"):  # skipped, as any Sent mail that cannot be read
        sent.parse_sent(_mail(From=value, To="m@x"))
    assert sent.parse_sent(_mail(From="Alice (home (laptop)) <a@x.test>", To="m@x")).sender == "a@x.test"


def test_the_dkim_evidence_of_such_a_from_is_no_evidence_and_no_traceback(provider: dict) -> None:  # noqa: F811
    """`pbem verify` of an export re-checks each player's DKIM evidence: a From nesting comments deep, signed by the
    provider, ended the check in a RecursionError (the evidence is taken at arrival, whatever the From)."""
    from pbem.trust.dkim import capture, recheck
    from tests.test_dkim_evidence import MAIL, _body_of, _dns, _signed

    for value in VALUES[:2]:
        raw = _signed(provider, MAIL.replace(b"Alice <alice@mail.example>", value.encode()))
        ev = capture(raw, _dns(provider))
        assert ev is not None and ev.verified
        again = recheck(_body_of(ev))
        assert not again.ok and "nests comments deeper" in again.why, again


def test_commands_given_such_an_address_refuse_it_in_one_line(tmp_path: Path) -> None:
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    players = ["--player", "B <b@x.test>", "--player", "C <c@x.test>"]
    new = ["-c", str(cfg), "game", "new", "habsburg", "--name", "hh1", "--seed", "s", "--insecure-seed"]
    assert CliRunner().invoke(app, [*new, "--player", "A <a@x.test>", *players]).exit_code == 0
    for value in VALUES:
        for args in (
            [*new[:-4], "hh2", *new[-3:], "--player", value, *players],
            ["game", "replace", "hh1", "C", value],
        ):
            args = args if args[0] == "-c" else ["-c", str(cfg), *args]
            res = CliRunner().invoke(app, args)
            assert not isinstance(res.exception, Exception), f"{args[3:5]}: {res.exception!r}"
            assert res.exit_code == 2 and "is not a player" in res.output and len(res.output) < 500, res.output[:300]


def test_every_call_of_the_address_parser_is_guarded() -> None:
    found: dict[str, int] = {}
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        text = path.read_text()
        if "getaddresses" not in text and "parseaddr" not in text:
            continue
        calls = sum(
            1
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("getaddresses", "parseaddr")
        )
        if calls:
            found[str(path.relative_to(ROOT))] = calls
    assert found == GUARDED, "read an address through pbem.trust.addresses (or guard it and list it here)"


def test_a_folders_mail_headers_cost_linear_time_however_many_encoded_words() -> None:
    """`pbem verify --mail` reads the headers of every mail of the folder, spam too: a Subject or X-Mailer of encoded
    words was decoded whole by the standard library, which costs the square of their number (12.5 times the time
    at 4 times a 50 KB Subject); now the first `MAX_TEXT` characters of a header are decoded."""
    from pbem.trust import receipts
    from tests.growth import growth

    def folder(n: int, name: str) -> Callable[[], object]:
        raw = _mail(From="m@x", To="a@x", **{name: "[pbem hh] " + " ".join(["=?utf-8?q?a?="] * (n // 14))})
        return lambda: receipts.parse_folder([raw])

    for name in ("Subject", "X_Mailer"):
        g = growth(lambda k: folder(k, name), 100_000, bound=9, floor=5e-3)  # noqa: B023 (called at once)
        assert g.ratio <= 9, f"{name}: {g}"


def test_a_sent_mails_headers_cost_linear_time_in_every_shape_of_header() -> None:
    """`pbem verify --sent` parsed each mail of the player's Sent folder with the standard library's modern header
    parser, whose reading of encoded words, comments and parameters costs the square of a field: a From of encoded
    words took 0.5 s at 96 KB and 9 s at 4 times, a Content-Type of RFC 2231 parameters more than 9 s (the
    generator of tests/reliability/test_header_costs.py over `pbem.trust.sent.parse_sent`).  Now a field it parses
    longer than `sent.MAX_FIELD` makes the mail one pbem does not read (skipped, as any other)."""
    from pbem.trust import sent
    from tests.growth import growth
    from tests.reliability.test_header_costs import PIECES, pathological

    def parsing(raw: bytes) -> Callable[[], object]:
        def run() -> None:
            with contextlib.suppress(ValueError):
                sent.parse_sent(raw)

        return run

    for kind in sorted(PIECES):
        g = growth(lambda k: parsing(pathological(1, k, [kind])()), 24_000, bound=9, floor=5e-3)  # noqa: B023
        assert g.ratio <= 9, f"{kind}: {g}"


def test_the_dkim_evidence_of_a_long_field_is_rechecked_at_the_cost_of_an_honest_one(provider: dict) -> None:  # noqa: F811
    """`pbem verify` re-checks the DKIM evidence an export holds (the moderator writes the export, the key with it):
    the modern header parser read its From, Subject and Message-ID at the square of their length (0.4 to 1.2 s for
    200 KB, 7 to 8 times 50 KB's, against 2 ms for the honest one); a field longer than `addresses.MAX_FIELD` is now
    no evidence, said so."""

    from pbem.trust.dkim import capture, recheck
    from tests.test_dkim_evidence import MAIL, _body_of, _dns, _signed

    words = " ".join(["=?utf-8?q?a?="] * 10_000)

    def cost(n: int, old: bytes, new: str) -> tuple[float, str]:
        ev = capture(_signed(provider, MAIL.replace(old, new[:n].encode())), _dns(provider))
        assert ev is not None and ev.verified
        times = []
        for _ in range(2):
            t = Window()
            again = recheck(_body_of(ev))
            times.append(t.close().cpu)
        return min(times), again.why

    base, _ = cost(0, b"", "")  # the mail as signed: a few milliseconds, the signature's check
    for old, new in ((b"[pbem hh1] orders", words * 4), (b"Alice", words * 4), (b"a1@mail.example>", "(x) " * 50_000)):
        t, why = cost(200_000, old, new)
        assert t <= 40 * max(base, 5e-3), f"{old!r}: {t:.4f} s against the honest evidence's {base:.4f} s"
        assert "a header field is longer than the 8000 characters read" in why, why


def test_a_signed_report_with_a_long_field_is_a_mismatch_read_once() -> None:
    """A report the moderator signed (the signature covers its receipt, not its text) whose Content-Type held 800 KB
    of parameters cost `verify --mail` 6 s for each reading of its text (the standard library reads parameters at
    the square of their length; 32 MiB a mail: hours).  pbem writes no such field: the mail is a mismatch, not read."""
    import re

    from pbem.home import config as config_mod
    from pbem.trust import receipts
    from tests.test_history_golden import seeded_export, seeded_home

    doc = seeded_export("habsburg")
    raws = receipts.read_folder(config_mod.load(seeded_home("habsburg") / "pbem.toml").maildir_path / "sent")
    mine = [r for r in raws if b"To: Alice <alice@" in r]
    k = next(i for i, r in enumerate(mine) if b"Private report for Alice" in r and i > len(mine) // 2)
    params = "".join(f'; p{i}="v"' for i in range(50_000)).encode()
    mine[k] = re.sub(rb'(Content-Type: multipart/[a-z]+; boundary="[^"]+")', lambda m: m[1] + params, mine[k], count=1)

    def cost(mails: list[bytes]) -> tuple[float, receipts.MailCheck]:
        t = Window()
        c = receipts.verify_mail(doc, mails, "Alice")
        return t.close().cpu, c

    honest, _ = cost([r for i, r in enumerate(mine) if i != k])
    t, c = cost(mine)
    assert t <= 2 * honest + 0.05, f"{t:.3f} s against {honest:.3f} s without the mail"
    assert any("has a header field longer than 8,000 characters, which pbem never writes" in p for p in c.problems)
