"""Seeds: `game new --seed` takes 128 bits or more (or says so everywhere), and the check lines are shell-safe.

Issue 13: a seed like 20261130 was brute-forced from the commitment in a
player's first report; and the old "check it" line pasted the seed's text into
a shell command, so a seed with a quote ran commands on the checker's machine.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pbem.history.export import text_record
from pbem.trust.seeds import check_lines, seed_problem
from tests.reliability import forkserver
from tests.test_history_golden import seeded_export

FIXED = {
    "printf %s HEX | xxd -r -p | sha256sum",
    "python3 -c \"import hashlib; print(hashlib.sha256(bytes.fromhex('HEX')).hexdigest())\"",
}
STRONG = "3f9c2a7be41d08c65f7a9e0b12d4c8e6"
HOSTILE = "a'; touch PWNED-1; echo $(touch PWNED-2) `touch PWNED-3` \"${HOME}\" '"


def pbem(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m pbem ARGS`, forked from a process that imported pbem once (`tests.reliability.forkserver`)."""
    return forkserver.pbem(list(args))


@pytest.mark.parametrize("seed", ["20261130", "abc", "0" * 40, "0123456789abcde", "my secret passphrase that is long"])
def test_weak_seeds_are_refused(seed: str) -> None:
    assert seed_problem(seed) and "32 or more hex digits" in seed_problem(seed)


PATTERNED = [
    "deadbeef" * 4,  # a short block repeated
    "0123456789abcdef" * 2,  # counting, twice
    "fedcba9876543210" * 2,
    "0123456789abcdeffedcba9876543210",  # up, then down
    "00112233445566778899aabbccddeeff",  # pairs
    "a1b2c3d4e5f6a7b8a1b2c3d4e5f6a7b8",
    "0123456789abcdef9f3a7c1e5b2d8046",  # half a pattern: 64 bits at most
]


@pytest.mark.parametrize("seed", PATTERNED)
def test_seeds_with_patterns_fail_the_128_bit_rule(seed: str) -> None:
    """Issue 25: each of these passed the rule (32 hex digits, 8 or more distinct) though a person typed it."""
    assert len(seed) >= 32
    assert seed_problem(seed) is not None


def test_random_seeds_never_look_patterned() -> None:
    """The pattern tests cost no honest seed: 20,000 random 128-bit and 256-bit seeds all pass."""
    import secrets

    for _ in range(10_000):
        assert seed_problem(secrets.token_hex(16)) is None
        assert seed_problem(secrets.token_hex(32)) is None


@pytest.mark.parametrize("seed", [STRONG, STRONG.upper(), STRONG * 2])
def test_seeds_of_128_bits_or_more_are_accepted(seed: str) -> None:
    assert seed_problem(seed) is None


def _home(tmp_path: Path) -> str:
    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "games@example.test").returncode == 0
    return str(home / "pbem.toml")


def _new(cfg: str, name: str, *extra: str):
    return pbem(
        "--config",
        cfg,
        "game",
        "new",
        "italian-wars",
        "--name",
        name,
        *extra,
        "--player",
        "Ann <ann@example.test>",
        "--player",
        "Ben <ben@example.test>",
    )


def test_game_new_refuses_a_weak_seed_in_one_line_and_accepts_a_strong_one(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    bad = _new(cfg, "weak", "--seed", "20261130")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "32 or more hex digits" in bad.stderr, bad.stderr
    assert "--insecure-seed" in bad.stderr
    good = _new(cfg, "strong", "--seed", STRONG)
    assert good.returncode == 0 and hashlib.sha256(STRONG.encode()).hexdigest() in good.stdout
    assert "warning" not in good.stdout


def test_an_insecure_seed_is_said_in_every_report_and_in_the_export(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    res = _new(cfg, "weak", "--seed", "20261130", "--insecure-seed")
    assert res.returncode == 0 and "weaker than 128 bits" in res.stdout
    assert _new(cfg, "fine").returncode == 0
    for name, weak in (("weak", True), ("fine", False)):
        for who in ("Ann", "Ben"):
            shown = pbem("--config", cfg, "game", "show", name, "--as", who)
            assert ("--insecure-seed" in shown.stdout) == weak, shown.stdout
        doc = json.loads(pbem("--config", cfg, "export", name, "--format", "json").stdout)
        assert doc["game"]["insecure_seed"] is weak
        text = pbem("--config", cfg, "export", name, "--format", "text").stdout
        assert ("weaker than 128 bits" in text) == weak
    assert pbem("--config", cfg, "poll").returncode == 0
    sent = list((Path(cfg).parent / "mail" / "sent" / "new").iterdir())
    reports = [p.read_text(errors="replace") for p in sent]
    weak_reports = [r for r in reports if "[pbem weak]" in r]
    assert weak_reports and all("--insecure-seed" in r for r in weak_reports)
    assert not any("--insecure-seed" in r for r in reports if "[pbem fine]" in r)


def _check_commands(doc: dict) -> list[str]:
    from pbem.history.page import render_html as html_page

    text = text_record(doc)
    lines = text.splitlines()
    start = lines.index("Check it (the seed's text in hex, safe to paste into any shell):")
    from_text = [line.strip() for line in lines[start + 1 : start + 3]]
    page = html_page(doc)
    item = next(li for li in re.findall(r"<li>(.*?)</li>", page, re.S) if "Hash the seed" in li)
    from_html = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", item)]
    assert from_text == from_html == check_lines(doc["seed"])
    return from_text


def test_the_check_lines_hold_only_hex_and_are_safe_to_paste_into_sh(tmp_path: Path) -> None:
    doc = copy.deepcopy(seeded_export("italian-wars"))
    doc["seed"] = HOSTILE
    doc["seed_commitment"] = hashlib.sha256(HOSTILE.encode()).hexdigest()
    commands = _check_commands(doc)
    seed_hex = HOSTILE.encode().hex()
    for cmd in commands:  # fixed text around the seed's hex: nothing of the seed's own text
        assert cmd.replace(seed_hex, "HEX") in FIXED, cmd
    if shutil.which("xxd") is None:
        commands = commands[1:]
    for cmd in commands:
        work = tmp_path / f"run-{commands.index(cmd)}"
        work.mkdir()
        out = subprocess.run(["sh", "-c", cmd], cwd=work, capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split()[0] == doc["seed_commitment"], (cmd, out.stdout)
        assert list(work.iterdir()) == [], f"pasting {cmd!r} ran something: {list(work.iterdir())}"


def test_the_old_check_line_would_have_run_the_hostile_seed(tmp_path: Path) -> None:
    """The test can fail: the old line `printf %s '<seed>' | sha256sum` runs the seed's commands."""
    old = f"printf %s '{HOSTILE}' | sha256sum"
    subprocess.run(["sh", "-c", old], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert any(p.name.startswith("PWNED") for p in tmp_path.iterdir())
