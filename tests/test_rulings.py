"""The rulings: docs/rulings.md is their source, pbem/engine/rulings.py ships them, `pbem rules` and HELP show them.

`PBEM_UPDATE_GOLDEN=1 python3 -m pytest tests/test_rulings.py` (or `make docs`) writes the module from
the doc after a deliberate change of the doc.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem import engine as registry
from pbem.cli import app
from pbem.engine import rulings
from pbem.render.handbook import narrow

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rulings.md"
MODULE = ROOT / "pbem" / "engine" / "rulings.py"

#: A ruling number as cited in code and text: HH-R5, HH-R5a, ST-R13.
RULING_ID = re.compile(r"\b([A-Z]{2})-R(\d+)([a-z]?)\b")
_SECTION = re.compile(r"^## (?P<title>.+?) \(kind `(?P<kind>[a-z-]+)`\)\s*$", re.M)


def from_doc(text: str) -> dict[str, str]:
    """{kind: the plain text of its rulings} from the doc's `## Title (kind `kind`)` sections."""
    heads = list(_SECTION.finditer(text))
    out = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end() : end].strip("\n")
        plain = re.sub(r"\*\*|`", "", body)
        out[head["kind"]] = (
            f"RULINGS OF {head['title'].upper()}\n"
            "Where the rulebook is silent or unclear, pbem plays by these rulings; a refusal cites their numbers.\n\n"
            f"{plain.rstrip()}\n"
        )
    return out


def module_source(texts: dict[str, str]) -> str:
    lines = [
        '"""The rulings the engines play by, one plain text per game kind (shown by `pbem rules KIND` and HELP).',
        "",
        "Generated from docs/rulings.md by `make docs` (tests/test_rulings.py); edit the doc, not this file.",
        '"""',
        "",
        "RULINGS: dict[str, str] = {",
    ]
    for kind, text in texts.items():
        lines.append(f"    {kind!r}: (")
        lines += [f"        {line!r}" for line in text.splitlines(keepends=True)]
        lines.append("    ),")
    lines += ["}", ""]
    return "\n".join(lines)


def cited_in_engines() -> dict[str, set[str]]:
    """{ruling id: the engine files that cite it} over every file under pbem/engine but rulings.py."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / "pbem" / "engine").rglob("*.py"):
        if path == MODULE:
            continue
        for m in RULING_ID.finditer(path.read_text()):
            found.setdefault(m.group(0), set()).add(str(path.relative_to(ROOT)))
    return found


def ids_in(text: str) -> set[str]:
    return {m.group(0) for m in RULING_ID.finditer(text)}


def test_the_shipped_rulings_are_the_docs() -> None:
    texts = from_doc(DOC.read_text())
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        MODULE.write_text(module_source(texts))
        subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(MODULE)], check=False)
        pytest.skip("pbem/engine/rulings.py written from docs/rulings.md")
    assert set(texts) == set(registry.KINDS), "docs/rulings.md needs one section per registered kind"
    assert texts == rulings.RULINGS, "docs/rulings.md changed: run `make docs`"


def test_every_ruling_an_engine_cites_is_shown_by_pbem_rules_of_its_kind() -> None:
    prefix = {kind: {RULING_ID.match(i).group(1) for i in ids_in(text)} for kind, text in rulings.RULINGS.items()}  # type: ignore[union-attr]
    assert all(len(p) == 1 for p in prefix.values()), prefix  # one prefix per game
    kind_of = {next(iter(p)): kind for kind, p in prefix.items()}
    cited = cited_in_engines()
    assert len(cited) > 60  # the four engines cite about seventy rulings: the scan found them
    shown = {kind: CliRunner().invoke(app, ["rules", kind]) for kind in registry.available()}
    missing = []
    for rid, files in sorted(cited.items()):
        kind = kind_of.get(rid[:2])
        res = shown.get(kind or "")
        if res is None or res.exit_code != 0 or (f"\n{rid} " not in res.output and f" {rid} " not in res.output):
            missing.append(f"{rid} (cited in {', '.join(sorted(files))})")
    assert missing == []


def test_pbem_rules_prints_the_handbook_then_every_ruling_of_the_kind() -> None:
    for kind in registry.available():
        res = CliRunner().invoke(app, ["rules", kind])
        assert res.exit_code == 0, kind
        handbook = narrow(registry.get(kind).handbook()).rstrip()  # at 40 columns (tests/test_phone_handbooks.py)
        assert res.output.startswith(handbook), kind
        rest = res.output[len(handbook) :]
        assert narrow(rulings.RULINGS[kind]).strip() in rest, kind
        others = {i for k, t in rulings.RULINGS.items() if k != kind for i in ids_in(t)}
        assert not ids_in(rest) & others, kind  # only this game's rulings


def test_each_ruling_is_defined_once_in_the_doc() -> None:
    defined = re.findall(r"\*\*([A-Z]{2}-R\d+[a-z]?)\b", DOC.read_text())
    assert len(defined) == len(set(defined)) and len(defined) > 60
    assert ids_in(" ".join(cited_in_engines())) <= set(defined)


def test_the_doc_reader_finds_each_section_and_strips_the_markup() -> None:
    text = "# T\n\nintro\n\n## Game One (kind `one`)\n\n**ON-R1 First.** Do `X`.\n\n## Two (kind `two`)\n\n**TW-R1 A.** b\n"
    got = from_doc(text)
    assert list(got) == ["one", "two"]
    assert got["one"].startswith("RULINGS OF GAME ONE\n") and got["one"].endswith("ON-R1 First. Do X.\n")
    assert "TW-R1" not in got["one"] and "intro" not in got["one"]
    ns: dict[str, object] = {}
    exec(module_source(got), ns)  # the module written round-trips
    assert ns["RULINGS"] == got


def test_a_player_who_sends_help_gets_every_ruling_of_the_game_by_mail(home, clock) -> None:
    """Players cannot run `pbem rules`: the HELP reply carries the rulings whose numbers refusals cite."""
    from tests.conftest import body_of, deliver, order_mail, sent_mail
    from tests.test_moderator import new_game, run_poll

    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set = set()
    sent_mail(home, seen)
    deliver(home, order_mail("Bob <bob@players.test>", name, "HELP"))
    run_poll(home, clock)
    help_mail = next(m for m in sent_mail(home, seen) if "Help" in m["Subject"])
    text = body_of(help_mail)
    # what is asked now first (found by the players' testers at line 288 of 298), then the handbook and rulings
    assert text.index("Your legal orders now") < text.index("HOUSE OF HABSBURG") < text.index("RULINGS OF HOUSE")
    assert narrow(rulings.RULINGS["habsburg"]).strip() in text.replace("\r\n", "\n")
    html = help_mail.get_body(preferencelist=("html",)).get_content()
    assert "HH-R8 Event targets." in html and "ST-R1" not in html
