"""What the README and docs/architecture.md say of the code is checked against the code, a class of claims at once.

Found by this file (docs2): the configuration table left out nine keys the configuration accepts
(`[mail] poll_deadline`, `press_per_day`; `[games] outage_after`, `server_clock_margin`, `max_away`;
`[imap]`/`[smtp] password`; the whole `[publish]` section), and the file `pbem init` writes, "every key
explained", left out four.  The checks: every `[section] key` of the table is a key `pbem/home/config.py` accepts
and the reverse, each default the table gives is the one a file without the key gets, the README's TOML blocks
load, the init file and examples/pbem.toml name every key; every `pbem ...` line in a README or docs code block
parses with its options (no command runs) and every `pbem ...` named inline is a command with those options;
every order line of a players' guide block starts with an order word of its game, and every line of the
"Moderating by mail" table reads as a command (each command word shown); every file, and every function a
`file: name` names, in architecture.md's trace and "where a change goes" exists, and so does every source file
(`tests/....py`, `pbem/....py`, ...) the README or docs/*.md name.

Added by docs3, each failing on 44508ea where a claim was false: the two README lists of "every command that
changes something" are the commands that do (both left out `game address` and `game process`); the games table
names each kind's title and players; each order of the players' guide is accepted at some moment of seeded bot
games; each value the pbem.toml files show is the default unless marked "example" (five were neither); every
`[section] key` the docs name inline is one the configuration takes; each player's mail command the README shows
(`WATCH`, `HISTORY 3`, `RESIGN 482193`, `AWAY 5`, ...) is read alone as that command.

Added by docs4: every pbem command of cron/ (the crontab's poll and nightly backup, the systemd unit, the wrapper,
cron/README.md) parses; the fonts paragraph's names drawn are drawn and its example of a box is a name pbem
accepts that neither font has (on 7f9524d: "an emoji", which no player name can hold).

Added by docs5: the names the fonts paragraph says read as themselves are drawn with all their letters' ink (on
8e2ea21 the final ي of محمد علي lost its dots); the packages docs/security.md says are pinned are pyproject.toml's
`==` pins; the `pbem backup` paragraphs' figures and names are the code's (on 8e2ea21 `--keep` "named each").
"""

from __future__ import annotations

import dataclasses
import math
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
from typer import _click as click

from pbem.cli import app
from pbem.engine import get
from pbem.home import config as config_mod

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HEAD = '[moderator]\naddress = "games@example.test"\n'


def _table() -> list[tuple[str, list[str], list[str]]]:
    """The configuration table's rows: section, keys, defaults (each as written, backticks kept)."""
    start = README.index("| section | key | default | meaning |")
    rows, section = [], ""
    for line in README[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        section = cells[0].strip("`[]") or section
        keys = re.findall(r"`(\w+)`", cells[1])
        rows.append((section, keys, [d.strip() for d in cells[2].split(",")]))
    return rows


def test_the_configuration_table_lists_exactly_the_keys_the_configuration_takes() -> None:
    listed = {(section, key) for section, keys, _ in _table() for key in keys}
    taken = {(section, key) for section, keys in config_mod.SCHEMA.items() for key in keys}
    assert listed - taken == set(), "the README's table lists keys pbem.toml refuses"
    assert taken - listed == set(), "pbem.toml takes keys the README's table does not list"


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_section_and_key_the_docs_name_inline_is_one_pbem_toml_takes(doc: Path) -> None:
    """A `[section] key` named anywhere in the docs (`[mail] poll_deadline`, `[games] replies_per_hour`) is a key
    the configuration takes; `max_stored_*` names a family, and performance.md's history names settings that
    were tried and are gone (`[smtp] sender`)."""
    gone = {("smtp", "sender")} if doc.name == "performance.md" else set()
    named = set(re.findall(r"`\[([a-z]+)\] ([a-z_]+)(?![\w*])", doc.read_text(encoding="utf-8")))
    taken = {(section, key) for section, keys in config_mod.SCHEMA.items() for key in keys}
    assert named - taken - gone == set()


def _toml(default: str) -> str | None:
    """A default as written in the table, as a TOML value; None for a default that is no value (`required`)."""
    if not (default.startswith("`") and default.endswith("`")):
        return None
    value = default.strip("`")
    return value if re.fullmatch(r'\d+|\[.*\]|".*"', value) else f'"{value}"'


def _load(tmp_path: Path, extra: str) -> Any:
    file = tmp_path / "pbem.toml"
    file.write_text(HEAD + extra, encoding="utf-8")
    return dataclasses.replace(config_mod.load(file), path=Path("pbem.toml"))


def test_each_default_in_the_table_is_what_a_file_without_the_key_gets(tmp_path: Path) -> None:
    bare = _load(tmp_path, "")
    checked = 0
    for section, keys, defaults in _table():
        if len(keys) != len(defaults) or section == "moderator":
            continue
        for key, default in zip(keys, defaults, strict=True):
            value = _toml(default)
            if value is None:
                continue
            assert _load(tmp_path, f"[{section}]\n{key} = {value}\n") == bare, f"[{section}] {key} = {value}"
            checked += 1
    assert checked >= 12


def test_every_toml_block_of_the_docs_is_a_configuration_pbem_takes(tmp_path: Path) -> None:
    """The README's `[mail]`/`[imap]`/`[smtp]` example and docs/mailboxes.md's recipes load as they are written (a
    `cafile` they name is made, as the reader would have it)."""
    blocks = [b for doc in DOCS for b in re.findall(r"```toml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)]
    assert len(blocks) >= 6
    for block in blocks:
        for cafile in re.findall(r'^cafile = "([^"/]+)"', block, re.M):
            (tmp_path / cafile).write_text("", encoding="utf-8")
        file = tmp_path / "pbem.toml"
        file.write_text(block if "[moderator]" in block else HEAD + block, encoding="utf-8")
        config_mod.load(file)


def _commands(text: str) -> tuple[list[str], list[str]]:
    """The `pbem ...` lines of the code blocks (whole commands, `\\` continued) and the ones named inline."""
    whole: list[str] = []
    named: list[str] = []
    fence, carry = False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            fence, carry = not fence, ""
            continue
        if not fence:
            named += re.findall(r"`(pbem [^`]*)`", line)
            continue
        m = re.match(r"^\s*(pbem .*?)(?:\s+#.*)?$", carry + line)
        carry = ""
        if m and m.group(1).endswith("\\"):
            carry = m.group(1)[:-1]
        elif m:
            whole += m.group(1).split(" ; ")
    return whole, named


ROOT_COMMAND = typer.main.get_command(app)


def _parse(words: list[str]) -> None:
    """Parse a command line as `pbem` would, down to its last subcommand, running nothing."""
    ctx = ROOT_COMMAND.make_context("pbem", list(words))
    cmd: Any = ROOT_COMMAND
    while hasattr(cmd, "resolve_command"):
        args = [*getattr(ctx, "_protected_args", ()), *ctx.args]
        if not args:
            return
        name, cmd, args = cmd.resolve_command(ctx, args)
        ctx = cmd.make_context(name, args, parent=ctx)


def _named(words: list[str]) -> list[str]:
    """What is wrong with a command named inline (`pbem game undo`, `pbem verify --sent`): a subcommand that does
    not exist or an option the command does not take; placeholders (`KIND`, `...`) are passed over."""
    cmd: Any = ROOT_COMMAND
    options = [w for w in words if w.startswith("-")]
    for word in words:
        if word.startswith("-") or not hasattr(cmd, "commands"):
            continue
        if word not in cmd.commands:
            return [] if word.isupper() or word in ("...", "F", "FILE") else [f"no command {word!r}"]
        cmd = cmd.commands[word]
    taken = {o for p in cmd.params for o in [*p.opts, *p.secondary_opts]} | {"--help"}
    return [f"no option {o}" for o in options if o not in taken]


#: Inline text that starts with "pbem " and names no command: the label codes are derived under (security.md).
#: ("pbem backup" was here, from when performance.md said there was none: there is one since 7f9524d.)
NOT_COMMANDS = {"pbem player codes v1"}


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_pbem_command_the_docs_show_parses(doc: Path) -> None:
    whole, named = _commands(doc.read_text(encoding="utf-8"))
    wrong = []
    for line in whole:
        try:
            _parse(shlex.split(line)[1:])
        except typer.Exit:
            pass
        except click.exceptions.ClickException as exc:
            wrong.append(f"{line}: {exc.format_message()}")
    for line in set(named) - NOT_COMMANDS:
        words = re.sub(r"[\[\]|]", " ", line).split()[1:]
        words = [w for i, w in enumerate(words) if not (i and words[i - 1] in ("--config", "-c"))]
        wrong += [f"{line}: {why}" for why in _named(words)]
    assert wrong == []


def test_every_command_pbem_help_lists_is_named_in_the_readme() -> None:
    """Each command and subcommand `pbem --help` lists (`pbem backup`, `pbem game waiting`, ...) is named in the
    README as `pbem NAME`, so that a moderator reading it learns of each."""

    def leaves(cmd: Any, prefix: str) -> list[str]:
        return [
            n
            for name, sub in cmd.commands.items()
            for n in (leaves(sub, f"{prefix} {name}") if hasattr(sub, "commands") else [f"{prefix} {name}"])
        ]

    every = leaves(ROOT_COMMAND, "pbem")
    assert len(every) > 25 and [c for c in every if not re.search(rf"{c}(?![\w-])", README)] == []


CRON = ROOT / "cron"


def test_every_pbem_command_of_the_cron_folder_parses() -> None:
    """The crontab's lines (the poll, the nightly backup), the systemd unit's ExecStart, the wrapper's exec, and
    every command cron/README.md shows or names, parse as pbem would take them (none of them runs)."""
    lines = [
        m.group(1)
        for name in ("crontab", "pbem-poll.service", "pbem-poll")
        for m in re.finditer(
            r'(?:^[^#\n]*?|exec )(?:\S*/?pbem|"\$PBEM") (--config .+?)(?: >>.*)?$', (CRON / name).read_text(), re.M
        )
    ]
    assert len(lines) >= 4, lines  # the poll in each of the three, the crontab's backup
    whole, named = _commands((CRON / "README.md").read_text(encoding="utf-8"))
    wrong = []
    for line in [*lines, *(w.removeprefix("pbem ") for w in whole)]:
        try:
            _parse(shlex.split(line.replace('"$CONFIG"', "pbem.toml")))
        except click.exceptions.ClickException as exc:
            wrong.append(f"{line}: {exc.format_message()}")
    for line in named:
        wrong += [f"{line}: {why}" for why in _named(re.sub(r"[\[\]|]", " ", line).split()[1:])]
    assert len(named) >= 3 and wrong == [], (named, wrong)


#: The README's fonts paragraph names letters drawn as boxes; for each kind it may name, a player name holding them.
BOXED = {"Arabic": "محمد", "Hebrew": "דוד", "Thai": "สมชาย", "Devanagari": "अमित", "emoji": "Zoë 😀"}
BOXED |= {"Bengali": "অমিত", "Tamil": "முருகன்", "Georgian": "გიორგი", "Armenian": "Արամ", "Ethiopic": "አበበ"}
BOXED |= {"Khmer": "សុខា"}  # pictures4: Thai and Devanagari are drawn since, these still boxes


def _ink(mask: Any) -> float:
    from PIL import ImageStat

    return float(ImageStat.Stat(mask).sum[0])


def _runs_ink(name: str, size: int) -> float:
    """The ink of `name`'s runs (`fonts.runs`) each drawn whole by FreeType where `fonts.mixed` starts it."""
    from PIL import Image

    from pbem.render.pictures import fonts

    pen, ink = 0.0, 0.0
    for words, kind in fonts.runs(name) or [(name, fonts.OPENSANS)]:
        face = fonts.face(kind, size)
        drawn = face.getmask2(words, "L", anchor="ls", start=(pen - math.floor(pen), 0))[0]
        ink += _ink(Image.Image()._new(drawn)) if drawn.size[0] * drawn.size[1] else 0.0
        pen += face.getlength(words)
    return ink


def test_the_names_the_fonts_paragraph_says_are_drawn_or_boxed_are_so() -> None:
    """README: accented Latin, Greek and Cyrillic letters are Open Sans's, "田中, 김민수 and Łukasz-山田 read as
    themselves", and محمد علي and דוד כהן (each letter in a font of the pictures), and only a letter no font has
    shows as a box,
    with examples: each example must be a player name pbem accepts whose letters neither font has.  On 7f9524d the
    example was "an emoji", which no player name can hold (refused: "cannot be a player name").  Added by docs5:
    each name said to read as itself is drawn with all the ink of its letters (on 8e2ea21 the line cut the dots of
    the final ي of محمد علي: it read محمد على).  pictures4: Thai and Devanagari (สมชาย "reads as itself")."""
    from pbem.engine.names import player_name
    from pbem.render.pictures import fonts
    from pbem.render.pictures.canvas import stamp

    para = re.sub(r"\s+", " ", README[README.index("Names are drawn in Open Sans") :][:1600])
    opensans = fonts._opensans_letters()
    others = [
        fonts._ranges(fonts._path(k)) for k in (fonts.CJK, fonts.ARABIC, fonts.HEBREW, fonts.THAI, fonts.DEVANAGARI)
    ]

    def drawn(letter: str) -> bool:
        return letter in opensans or any(fonts._has(r, ord(letter)) for r in others)

    shown = re.findall(r"so ([^.(]+?) read as themselves", para)
    names = [n for group in shown for n in re.split(r", | and ", group)]
    names += re.findall(r"so ([^.(;,]+?) reads as itself", para)
    assert len(names) == 6 and all(drawn(c) for name in names for c in name if not c.isspace()), names
    cut = [(n, size) for n in names for size in (11, 14) if _ink(stamp(n, size)[0]) != _runs_ink(n, size)]
    assert cut == [], f"drawn with less ink than their letters (cut by the line): {cut}"
    assert all(c in opensans for c in "ÀÉÎÕÜŁŐŠŽßçñøåæ" + "ΑΩαωάή" + "АЯаяЁё"), "Latin, Greek, Cyrillic"
    boxed = re.search(r"(?:neither|no) font has (?:\(([^)]*)\) )?shows as a box(?: \(([^)]*)\))?", para)
    assert boxed, para
    examples = boxed.group(1) or boxed.group(2) or ""
    kinds = [k for k in BOXED if re.search(rf"\b{k}\b", examples)]
    assert kinds, examples
    for kind in kinds:
        name = player_name(BOXED[kind])  # ValueError: no player can be named so
        assert not all(drawn(c) for c in name if not c.isspace()), kind


def test_the_pictures_dependencies_the_docs_say_are_pinned_are_pinned_exactly() -> None:
    """README's fonts paragraph and docs/security.md say each of the pictures' fonts and the two libraries that order
    right-to-left names is pinned exactly (docs5: four were added on 8e2ea21): the packages security.md names are
    the `==` pins of pyproject.toml, and README's paragraph names the libraries among them."""
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    pinned = {d.split("==")[0] for d in deps if "==" in d}
    security = re.sub(r"\s+", " ", (ROOT / "docs" / "security.md").read_text(encoding="utf-8"))
    said = re.search(r"its fonts ship as the (.*?) each pinned exactly in pyproject\.toml", security)
    assert said, "docs/security.md no longer says which packages are pinned"
    assert set(re.findall(r"`([\w.-]+)`", said[1])) == pinned, (said[1], pinned)
    para = README[README.index("`pip install .` brings pbem's libraries") :][:700]
    assert all(f"`{lib}`" in para for lib in pinned if not re.search(r"font|ttf|noto", lib)), para


def test_the_backup_paragraphs_figures_and_names_are_the_codes(tmp_path: Path) -> None:
    """README's `pbem backup` paragraphs (docs5): the `--within` default and its share of `[limits]
    command_deadline`, the five names a `--keep` note lists, the 50 sealed mails `--check` tries, `pg_restore`'s
    120 s, the dated name's example (`--keep` removes only such names) and the stopped run's `.NAME.PID.tmp`
    (on 8e2ea21 the README said `--keep` named each backup it removed: a note names five, then "and N more")."""
    from datetime import UTC, datetime

    from pbem.app import backup_check, backup_clear
    from pbem.app.backup import dated
    from pbem.cli import backup as cli_backup
    from pbem.record import backup as record_backup

    part = re.sub(r"\s+", " ", README[README.index("`pbem backup /backups/pbem` saves") :][:9000])
    within = re.search(
        r"`--within` seconds \((\d+) by default, at most (\d+)/10 of `\[limits\] command_deadline`", part
    )
    assert within and (float(within[1]), int(within[2]) / 10) == (cli_backup.WITHIN, cli_backup.SHARE), part[:800]
    names = re.search(r"names them in a `note:` \((\w+), then how many more", part)
    assert names and ["one", "two", "three", "four", "five", "six"].index(names[1]) + 1 == backup_clear.NAMED
    assert f"(the first {record_backup.SEALED};" in part and f"(within {backup_check.LISTING:.0f} s)" in part
    example = re.search(r"\(`(pbem-\d{4}-\d\d-\d\dT\d{6}Z)`;", part)
    assert example and backup_clear._taken_at(example[1]), part[:400]
    assert dated(datetime(2026, 12, 6, 3, 15, tzinfo=UTC)) == example[1]
    assert "`.NAME.PID.tmp`" in part and backup_clear._work(f".{example[1]}.4242.tmp") == 4242


GUIDES = {
    "House of Habsburg": "habsburg",
    "Italian Wars": "italian-wars",
    "Dynasties": "dynasties",
    "Sixteen Thirty Something": "sixteen-thirty",
}


def _guide_lines() -> dict[str, list[str]]:
    """Each game's order lines in the players' guide's code blocks, comments taken off."""
    guide = README[README.index("## Players' guide") : README.index("## Fairness")]
    starts = sorted((guide.index(f"**{title}** (`pbem rules {kind}`)"), kind) for title, kind in GUIDES.items())
    lines = {}
    for (start, kind), (end, _) in zip(starts, [*starts[1:], (len(guide), "")], strict=True):
        blocks = re.findall(r"```\n(.*?)```", guide[start:end], re.S)
        lines[kind] = [re.sub(r"\s+#.*", "", line).strip() for block in blocks for line in block.splitlines()]
    return lines


def test_every_order_in_the_players_guide_is_an_order_of_its_game() -> None:
    for kind, lines in _guide_lines().items():
        words = get(kind).order_words
        assert lines
        for line in lines:
            assert any(re.match(rf"{re.escape(w)}(?![\w-])", line) for w in words), f"{kind}: {line}"


#: Guide lines that name cards a player must hold together (two or three given cards, a meld numbered 4), which
#: seeded bot games seldom deal: each must be refused only for the cards or meld the player lacks, never for how
#: it is written.  Every other line of the guide must be accepted at some moment of the games.
NEEDS_CARDS = {
    "MELD Maria Theresa Austria Archduke",
    "DISCARD Light Cavalry, Trench",
    "EVENT SUCCESSION Third TARGET Bob M4",
    "PLAYS Gold 3, Silver 12, Platinum King",
}
NOT_HELD = re.compile(
    r'^(?:[\w ]+ is not in your hand|"[\w ]+" is not a card (?:in your hand )?you can name here|there is no meld M\d+)$'
)


@pytest.mark.parametrize("kind", list(GUIDES.values()))
def test_every_order_in_the_players_guide_is_accepted_at_some_moment_of_a_game(kind: str) -> None:
    """Each order the guide shows, sent as it is written by a player asked something, is accepted at some moment
    of seeded bot games (lines naming cards to hold together: refused only for the cards), so an example whose
    syntax the engine no longer reads fails here, not in a player's mailbox."""
    from pbem.engine.base import Outcome
    from pbem.engine.bots import Playthrough, play

    engine = get(kind)
    pending = set(_guide_lines()[kind])
    held: set[str] = set()

    def look(pt: Playthrough, _: Outcome) -> None:
        for request in engine.requests(pt.state):
            for line in sorted(pending) if not request.answered else []:
                result = engine.apply(pt.state, request.player, [line]).lines[0]
                if result.ok:
                    pending.discard(line)
                elif line in NEEDS_CARDS and NOT_HELD.match(result.reason):
                    held.add(line)

    players = ["Alice", "Bob"] if kind == "italian-wars" else ["Alice", "Bob", "Carol"]
    for game in range(8):  # sixteen-thirty's REMOVE England 1 first in game 7 since order13 (bots pick by index)
        if pending - held:
            play(engine, players, f"guide{game}", bot_seed=f"guide{game}", on_input=look)
    assert pending - held == set(), "guide lines no moment of eight games accepted"


ARCHITECTURE = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")


def _defines(file: Path, name: str) -> bool:
    return bool(re.search(rf"(def|class) {name}\b|^\s*{name}\s*[:=]", file.read_text(encoding="utf-8"), re.M))


def test_every_file_and_function_architecture_names_exists() -> None:
    text = re.sub(r"\s*\n\s*", " ", ARCHITECTURE[ARCHITECTURE.index("## One order mail") :])
    wrong, seen = [], 0
    for m in re.finditer(r"`((?:pbem|tests|templates|docs)/[^`: ]+)(?::\s*([A-Za-z_][\w.]*))?", text):
        path, symbol = m.groups()
        if "<" in path or "*" in path:
            continue
        seen += 1
        file = ROOT / path
        if not file.exists():
            wrong.append(f"no file {path}")
        elif symbol and not _defines(file, symbol.split(".")[0]):
            wrong.append(f"{path} defines no {symbol}")
    for m in re.finditer(r"`([A-Z_][A-Z_]+)` (?:in|of) `((?:pbem|tests)/[^`]+\.py)`", text):
        seen += 1
        if not _defines(ROOT / m.group(2), m.group(1)):
            wrong.append(f"{m.group(2)} defines no {m.group(1)}")
    modules: dict[str, list[Path]] = {}
    for file in (ROOT / "pbem").rglob("*.py"):
        modules.setdefault(file.stem, []).append(file)
    for m in re.finditer(r"`([a-z_]+)\.([A-Za-z_]\w*)(?:\([^`]*\))?`", text):
        module, name = m.groups()
        if module in modules and module != "engine" and name != "py":
            seen += 1
            if not any(_defines(file, name) for file in modules[module]):
                wrong.append(f"no {name} in {module}.py")
    assert wrong == [] and seen > 100


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_source_file_the_docs_name_exists(doc: Path) -> None:
    named = set(
        re.findall(r"`((?:pbem|tests|docs|examples|cron|templates)/[\w/.-]+\.(?:py|md|json|toml|j2))`", doc.read_text())
    )
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []


def _keys_named(text: str) -> set[tuple[str, str]]:
    """The `[section] key` pairs a pbem.toml names, set or commented out (`#key = ...` under `#[section]` too)."""
    named, section = set(), ""
    for line in text.splitlines():
        if m := re.match(r"^#?\s*\[(\w+)\]", line):
            section = m.group(1)
        elif m := re.match(r"^#?(\w+) *=", line):
            named.add((section, m.group(1)))
    return named


def test_the_file_pbem_init_writes_and_the_example_name_every_key() -> None:
    """README: "`pbem init DIR` writes `DIR/pbem.toml` with every key explained"; the init file left out
    `[mail] max_stored_*`, `trust_authentication_results` and `[smtp] connections` on 8edb878."""
    from pbem.render.templates import render

    written = render("pbem.toml.j2", address='"games@example.test"', name='"pbem moderator"', created="")
    taken = {(section, key) for section, keys in config_mod.SCHEMA.items() for key in keys}
    assert taken - _keys_named(written) == set(), "keys pbem init's file does not explain"
    assert taken - _keys_named((ROOT / "examples/pbem.toml").read_text()) == set(), "keys the example leaves out"


@pytest.mark.parametrize("which", ["init", "example"])
def test_each_value_the_files_show_is_the_default_unless_marked_example(tmp_path: Path, which: str) -> None:
    """Both files say "the value shown is the default unless marked "example"": each key line (set or commented
    out) but `[moderator]`'s, taken alone into a file, gives what a file without it gets, or says "example".  On
    44508ea five lines were neither (`[log] file = "pbem.log"` in both: no log file is the default; the example's
    `[publish]` lines and `trust_authentication_results`), and both files called every key optional
    (`[moderator] address` is required)."""
    from pbem.render.templates import render

    text = (
        render("pbem.toml.j2", address='"games@example.test"', name='"pbem moderator"', created="")
        if which == "init"
        else (ROOT / "examples/pbem.toml").read_text(encoding="utf-8")
    )
    assert "[moderator] address is required" in text
    bare, section, checked = _load(tmp_path, ""), "", 0
    for line in text.splitlines():
        if m := re.match(r"^#?\s*\[(\w+)\]", line):
            section = m.group(1)
        elif (m := re.match(r"^#?(\w+ *=.*)$", line)) and section != "moderator" and "# example" not in line:
            assert _load(tmp_path, f"[{section}]\n{m.group(1)}\n") == bare, f"[{section}] {line}"
            checked += 1
    assert checked > 30


def test_every_command_the_moderating_by_mail_table_shows_is_read_as_one() -> None:
    from pbem.orders import moderator

    part = README[README.index("#### Moderating by mail") : README.index("## Players' guide")]
    table = re.findall(r"^\| (.+?) \| `pbem game", part, re.M)
    lines = [line for row in table for line in re.findall(r"`([A-Z][^`]*)`", row)]
    lines += [m.group(1) for m in re.finditer(r"^([A-Z]{3,}[^:\n]*)$", part.split("```")[1], re.M)]
    assert len(lines) > 15
    for line in lines:
        read = moderator.read(line if line.startswith("CODE") else f"CODE K7QX-2MPD\n{line}")
        assert read.problems == [] and read.chatter == [], (line, read)
    shown = {command.split()[0] for command in lines} | {"NEW CODE"}
    assert set(moderator.SYNTAX) - {"GAME"} <= shown, "a mail command the table leaves out"


#: The player's mail commands the README shows (each as it is written there), and what reading one alone must give.
PLAYER_COMMANDS = {
    "WATCH": ("mode", "watch"),
    "DIGEST": ("mode", "digest"),
    "NORMAL": ("mode", "normal"),
    "HISTORY": ("history", ""),
    "HISTORY 3": ("history", "3"),
    "RESIGN": ("resign", ""),
    "RESIGN 482193": ("resign", "482193"),
    "ADDRESS alice@example.org": ("address", "alice@example.org"),
    "ADDRESS CONFIRM 482193": ("address_confirm", "482193"),
    "AWAY UNTIL 2026-12-24": ("away", "2026-12-24"),
    "AWAY 5": ("away", 5),
    "BACK": ("away", True),
    "LOST CODE": ("lost_code", True),
    "HELP": ("help", True),
    "STATUS": ("status", True),
    "REPORT": ("status", True),
    "CODE K7QX-2MPD": ("code", "K7QX-2MPD"),
    "PRESS TO Bob: shall we share Bohemia?": ("press", ["Bob"]),
}


def test_every_mail_command_the_players_guide_shows_is_read_as_that_command() -> None:
    from pbem.orders.extract import extract

    for line, (field, want) in PLAYER_COMMANDS.items():
        assert f"`{line}`" in README, f"the README no longer shows {line}"
        read = extract(line)
        got = getattr(read, field)
        if field == "away":
            got = str(got.until) if got.until else got.days or got.back
        elif field == "press":
            got = [to for press in got for to in press.to]
        assert (got, read.orders, read.problems, read.chatter) == (want, [], [], []), line


def test_every_make_task_the_docs_name_is_in_the_makefile() -> None:
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    named = {task for doc in DOCS for task in re.findall(r"`make ([\w-]+)", doc.read_text(encoding="utf-8"))}
    assert len(named) > 10 and named - targets == set()


def test_the_games_table_names_each_kind_its_title_and_players() -> None:
    """The README's table of games shipped: a row per kind `pbem game new` takes, its title and player counts."""
    from pbem.engine import KINDS

    rows = re.findall(r"^\| `([\w-]+)` \| ([^|]+?) \| (\d)(?:–(\d))? \|", README, re.M)
    assert {kind for kind, *_ in rows} == set(KINDS)
    for kind, title, least, most in rows:
        engine = get(kind)
        assert (title, int(least), int(most or least)) == (engine.title, engine.min_players, engine.max_players), kind


def test_each_list_of_the_commands_that_change_something_names_every_one() -> None:
    """The "Logs" and "Backups" bullets each list "every command that changes something" (it writes a line to `[log] file`; it
    is refused on a restored database); both left out `pbem game address` and `pbem game process` on 44508ea.
    The commands that do are tests/test_moderator_trail.py's `CHANGES`, which fails on a command not sorted."""
    from tests.test_moderator_trail import CHANGES

    ops = re.sub(r"\s+", " ", README[README.index("## Operations") : README.index("### When pbem was down")])
    lists = re.findall(r"Every command that changes something \((.*?)\) (?:writes|is refused)", ops)
    assert len(lists) == 2
    for listed in lists:
        names = re.findall(r"`([^`]+)`", listed)  # `pbem prune` is itself; `extend` is `pbem game extend`
        named = {n.removeprefix("pbem ") if n.startswith("pbem ") else f"game {n}" for n in names}
        assert named == set(CHANGES), (set(CHANGES) - named, named - set(CHANGES))


def test_the_readmes_answer_to_an_order_out_of_turn_is_the_acknowledgements() -> None:
    """walk6: the README quotes what a player who sent an order out of turn reads; it is the line the
    acknowledgement's text writes whole (`mail/_ack_body.txt.j2`, which `pbem verify --mail` knows as pbem's), so
    the README cannot drift from the mail (tests/app/test_out_of_turn.py checks the mail says it)."""
    from pbem.trust.prose import ack_line

    flat = re.sub(r"\s+", " ", README)
    said = re.search(r'An order sent out of turn \([^)]*\) is refused, naming who is awaited, with "([^"]+)"', flat)
    assert said, "the README no longer says what an order out of turn is answered"
    body = (ROOT / "templates/mail/_ack_body.txt.j2").read_text(encoding="utf-8")
    assert said[1] in body.splitlines() and ack_line(said[1])


def test_the_readmes_refusals_of_a_mistyped_name_are_the_commands() -> None:
    """walk6 typed `pbem game code hh1 Alce` and a game name off by one: the README quotes both refusals, and each
    quote is how the command's message starts (`pbem.app.game_names`)."""
    from pbem.app.decision import GameError
    from pbem.app.game_names import player_named, unknown_game

    flat = re.sub(r"\s+", " ", README)
    player = re.search(r"\(`(Alce is not a player of hh1 [^`]+)`; `(no game named [^`]+)`\)", flat)
    assert player, "the README no longer quotes the refusals of a mistyped name"
    with pytest.raises(GameError) as told:
        player_named("Alce", ["Alice", "Bob", "Carol"], "hh1")
    assert str(told.value).startswith(player[1]), (str(told.value), player[1])
    assert unknown_game("hh2", ["hh1"]).startswith(player[2]), (unknown_game("hh2", ["hh1"]), player[2])


def test_the_players_steps_to_check_a_game_are_the_commands_and_words_pbem_has() -> None:
    """walk7 walked "Checking a game yourself, step by step" as a player (a venv, the export, the mail saved as an
    mbox and as a folder of .eml files, `verify --mail ... --as`, with no network: passed; an export with one event
    reworded: "pbem: verification FAILED: ...", exit 1).  Checked here without running a game: the verify line
    parses, the version the steps send the player to is the one every mail names in X-Mailer, and the last lines
    the steps quote are the ones `pbem verify` prints."""
    start = README.index("**Checking a game yourself, step by step**")
    steps = README[start : README.index("\n\n`verify` checks every field", start)]
    [verify] = re.findall(r"`~/pbem-check/bin/(pbem verify [^`]+)`", steps)
    _parse(["verify", "hh1.json", "--mail", "mail.mbox", "--as", "Alice"])
    assert verify == "pbem verify hh1.json --mail FILE-OR-FOLDER --as YOUR-NAME", verify
    from pbem import __version__

    compose = (ROOT / "pbem" / "mail" / "outbound" / "compose.py").read_text(encoding="utf-8")
    assert 'f"X-Mailer: pbem {__version__}' in compose and f"`X-Mailer: pbem {__version__}`" in steps
    said = (ROOT / "pbem" / "cli" / "history.py").read_text(encoding="utf-8")
    assert 'typer.echo("verification passed")' in said and 'fail(f"verification FAILED: ' in said
    assert "`verification passed`" in steps and "`pbem: verification FAILED: ...`" in steps
