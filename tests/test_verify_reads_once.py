"""`pbem verify --mail` reads each mail's headers once, however the folders are given.

Choosing whose mail a folder holds, checking it, comparing several players' signed heads and reading a sent mail
without the copies of the mails it answers each parsed every received mail's headers again: three or four header
parses a mail (a header parse reads the whole mail), so a large mailbox cost three or four times what it must.  Each
way of giving the folders (one --mail, --as, three --mail, two with --sent) is run on the seeded finished game,
counting the header parses of every mail of the --mail folders (each reads the header block, not the whole mail),
and its lines are those the pure checks give on the folder read afresh.  Reading the header block alone gives the
headers the whole mail gives, for every mail of up to three lines of every kind and line end
(`test_the_header_block_reads_as_the_whole_mail`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.trust.receipts import lines, read_folder, verify_mail
from tests.test_verify_whose_mail import _box, _to


def test_each_received_mail_has_its_headers_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_history_golden import seeded_export, seeded_home

    home = seeded_home("habsburg")
    doc = seeded_export("habsburg")
    export = tmp_path / "export.json"
    export.write_text(json.dumps(doc))
    everything = read_folder(home / "mail" / "sent")
    mine = {p: _to(everything, f"{p}@players.example") for p in ("alice", "bob", "carol")}
    boxes = {p: _box(tmp_path / p, raws) for p, raws in mine.items()}
    sent = _box(
        tmp_path / "alice-sent",
        [r for r in read_folder(home / "mail" / "processed") if re.search(rb"^From: .*alice@players", r, re.M)],
    )
    ways: list[tuple[list[str], str | None]] = [
        (["alice"], None),
        (["alice"], "Alice"),
        (["alice", "bob", "carol"], None),
        (["alice", "bob"], "sent"),
    ]
    headers: Counter[bytes] = Counter()
    parse = BytesParser.parsebytes

    def counted(self: BytesParser, text: bytes, headersonly: bool = False) -> Any:
        if headersonly:
            headers[bytes(text)] += 1
        return parse(self, text, headersonly)

    monkeypatch.setattr(BytesParser, "parsebytes", counted)
    pure: dict[tuple[str, str | None], list[str]] = {}  # a folder's lines by the pure check, read once for each way
    for folders, extra in ways:
        args = [a for p in folders for a in ("--mail", str(boxes[p]))]
        args += ["--as", extra] if extra == "Alice" else ["--sent", str(sent)] if extra == "sent" else []
        headers.clear()
        res = CliRunner().invoke(app, ["verify", str(export), *args])
        assert res.exit_code == 0, f"{args}:\n{res.output}"
        received = [raw for p in folders for raw in mine[p]]
        parses = Counter(sum(n for text, n in headers.items() if raw.startswith(text)) for raw in received)
        assert received and parses == {1: len(received)}, f"{args}: header parses of the received mails {parses}"
        body_read = [raw for raw in received if any(raw[-64:] in text for text in headers if raw.startswith(text))]
        assert not body_read, f"{args}: the header parse read {len(body_read)} mails to their end"
        monkeypatch.setattr(BytesParser, "parsebytes", parse)
        for p in folders:  # the same lines as each folder read afresh by the pure check
            who = extra if extra == "Alice" else None
            if (p, who) not in pure:  # (alice's folder without --as is asked by three ways, bob's by two)
                pure[p, who] = lines(verify_mail(doc, read_folder(boxes[p]), who))
            said = pure[p, who]
            if extra == "sent":  # (with the Sent folder, what answers quote of it is compared, not noted)
                said = [x for x in said if "were not compared with what you sent" not in x]
            assert all(line in res.output for line in said), f"{args}, {p}:\n{said}\n{res.output}"
        monkeypatch.setattr(BytesParser, "parsebytes", counted)
        if len(folders) > 1:
            assert f"signed heads of these {len(folders)} mailboxes agree" in res.output, res.output
        if extra == "sent":
            assert "applied as written" in res.output, res.output


def test_the_header_block_reads_as_the_whole_mail() -> None:
    """`receipts.headers` parses a mail up to its first empty line: the same headers and receipts as the whole mail
    parsed, for every mail of up to three lines (a header, a receipt, a continuation, a line that is no header, an
    empty line, a "From " line) each ended by LF, CRLF or CR, then nothing, a header without its line end, or a
    header, an empty line and a receipt in the body."""
    import itertools
    from email.parser import BytesHeaderParser

    from pbem.trust.receipts import _received, headers

    kinds = [
        b"To: Al <al@b.test>",
        b"X-Pbem-Record: 3 " + b"ab" * 32,
        b" continued",
        b"not a header",
        b"",
        b"From someone",
    ]
    tokens = [k + end for k in kinds for end in (b"\n", b"\r\n", b"\r")]
    tails = [b"", b"To: x@y", b"Subject: late\r\n\r\nX-Pbem-Input: 1 " + b"cd" * 32 + b"\nbody\n"]
    checked = 0
    for n in range(4):
        for shape in itertools.product(tokens, repeat=n):
            for tail in tails:
                raw = b"".join(shape) + tail
                whole = BytesHeaderParser().parsebytes(raw)
                head = headers(raw)
                assert head.items() == whole.items() and head.get_unixfrom() == whole.get_unixfrom(), raw
                try:
                    want = _received(whole, raw)
                except ValueError:
                    with pytest.raises(ValueError):
                        _received(head, raw)
                else:
                    assert _received(head, raw) == want, raw
                checked += 1
    assert checked == 3 * (1 + 18 + 18**2 + 18**3)
