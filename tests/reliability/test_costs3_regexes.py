# ruff: noqa: RUF001 (the old patterns hold the typographic quotes and full-width marks players type)
"""Every regular expression in pbem, at the top of a module or written inline in a function, costs time linear in
the text it reads, on text made from the pattern itself.

tests/reliability/test_pattern_costs.py runs the top-level patterns over runs of a fixed list of atoms after a
few fixed prefixes.  A pattern anchored on a word (`^press\\s+to\\s+(.+?)\\s*:?\\s*$`) never reaches its
backtracking part from those prefixes, and a run that the pattern's end accepts (spaces before `$`) ends the
match at once: the run must be followed by a character that fails the end.  Here each pattern makes its own
text: its leads (the least text matching its first items, up to each repeat: "press to x"), its atoms (a
character of each of its classes and literals, and pairs of them), and an end that fails it ("\\x01", or
none).  The patterns written inline (`re.sub(r"...", ...)` in a function) are found in the source and
compiled as the call would.  Four times the run may cost at most `MAX_GROWTH` times the time (linear is 4,
quadratic 16, cubic 64).

Found this way (2026-12-05): the press line `PRESS TO ALL: ` followed by spaces and one letter cost the cube of
the spaces (129 s for 3,000 spaces; a one-line press may be 64,000 characters).
"""

from __future__ import annotations

import ast
import functools
import itertools
import random
import re
import unicodedata
from pathlib import Path
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]

import pbem
from tests.growth import own_cpu
from tests.reliability.test_pattern_costs import confirmed, reader, run_of
from tests.reliability.test_pattern_costs import patterns as module_patterns

N = 400  # characters of the shorter run (the longer: 4 * N); a cubic pattern shows at once
MAX_GROWTH = 9.0
FLOOR = 0.2e-3  # seconds: a search faster than this at N characters is not timed again (the timer's noise)
ENDS = ("", "\x01")
CALLS = {"compile": 1, "match": 2, "search": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3, "sub": 4}
CALLS["subn"] = 4
ROOT = Path(pbem.__file__).resolve().parent
_CATEGORY = {
    C.CATEGORY_DIGIT: "1",
    C.CATEGORY_NOT_DIGIT: "a",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_SPACE: "a",
    C.CATEGORY_WORD: "a",
    C.CATEGORY_NOT_WORD: " ",
}


#: Where a superlinear pattern costs nothing a stranger can raise: the command line is the operator's own text, and
#: `pbem demo` reads pbem's own mail.  (The engines were here too, their lines capped at `MAX_ORDER_CHARS` before an
#: engine reads them, and the configuration: nine engine patterns and the configuration's size pattern cost the
#: square of a run of spaces: tests/reliability/test_costs4_engine_patterns.py.)
BOUNDED = ("pbem/cli/", "pbem.cli.")


@functools.cache
def inline_patterns() -> list[tuple[str, re.Pattern, str]]:
    """Every `re.<call>("literal", ...)` in pbem's source, compiled with the flags the call gives, and the method
    it is read with (`search` for a compiled one, whose reader is not known here)."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text()
        if "re." not in source:
            continue
        for node in ast.walk(ast.parse(source, str(path))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in CALLS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str | bytes)
            ):
                continue
            at = CALLS[node.func.attr]
            flags_node = node.args[at] if len(node.args) > at else None
            flags_node = next((k.value for k in node.keywords if k.arg == "flags"), flags_node)
            flags = eval(ast.unparse(flags_node), {"re": re}) if flags_node is not None else 0
            name = f"{path.relative_to(ROOT.parent)}:{node.lineno}"
            method = node.func.attr if node.func.attr in ("match", "fullmatch") else "search"
            found.append((name, re.compile(node.args[0].value, flags), method))
    return found


def all_patterns() -> list[tuple[str, re.Pattern, str]]:
    """The top-level and the inline patterns, each once, but those of `BOUNDED`."""
    found = [(n, p, reader(n)) for n, p in module_patterns()] + inline_patterns()
    seen: set[tuple[object, int, str]] = set()
    out = []
    for name, p, method in found:
        key = (p.pattern, p.flags, method)
        if key not in seen and not name.startswith(BOUNDED):
            seen.add(key)
            out.append((name, p, method))
    return out


def _least(items: list) -> str:
    """The least text matching `items` (a parsed pattern's list): each repeat its least times, a branch its first."""
    out = []
    for op, av in items:
        if op == C.LITERAL:
            out.append(chr(av))
        elif op in (C.NOT_LITERAL, C.ANY):
            out.append("b" if av == ord("a") else "a")
        elif op == C.IN:
            out.append(next(iter(_class_atoms(av)), "a"))
        elif op == C.BRANCH:
            out.append(_least(list(av[1][0])))
        elif op == C.SUBPATTERN:
            out.append(_least(list(av[3])))
        elif op == C.ATOMIC_GROUP:
            out.append(_least(list(av)))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            out.append(_least(list(av[2])) * av[0])
    return "".join(out)


def _class_atoms(av: list) -> list[str]:
    if av and av[0][0] == C.NEGATE:
        return []
    atoms = []
    for op, v in av:
        if op == C.LITERAL:
            atoms.append(chr(v))
        elif op == C.RANGE:
            atoms.append(chr(v[0]))
        elif op == C.CATEGORY:
            atoms.append(_CATEGORY.get(v, "a"))
    return atoms


def _atoms(items: list) -> set[str]:
    """A character of each class and each literal in the pattern."""
    found: set[str] = set()
    for op, av in items:
        if op == C.LITERAL:
            found.add(chr(av))
        elif op == C.IN:
            found.update(_class_atoms(av))
        elif op == C.BRANCH:
            for branch in av[1]:
                found |= _atoms(list(branch))
        elif op == C.SUBPATTERN:
            found |= _atoms(list(av[3]))
        elif op == C.ATOMIC_GROUP:
            found |= _atoms(list(av))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            found |= _atoms(list(av[2]))
        elif op in (C.ASSERT, C.ASSERT_NOT):
            found |= _atoms(list(av[1]))
    return found


def texts(p: re.Pattern) -> list[tuple[str, str, str]]:
    """(lead, atom, end): the pattern's leads (its least text up to each of its top-level repeats, and whole),
    its atoms alone and a few pairs, each run followed by each end."""
    source = p.pattern.decode("latin-1") if isinstance(p.pattern, bytes) else p.pattern
    items = list(P.parse(source, p.flags & ~re.UNICODE if isinstance(p.pattern, bytes) else p.flags))
    repeats = [k for k, (op, _) in enumerate(items) if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.SUBPATTERN)]
    leads = sorted({_least(items[:k]) for k in [*repeats, len(items)]}, key=len)[-4:]
    own = sorted(_atoms(items) | {" ", "a"})
    pairs = [a + b for a, b in random.Random(source).sample(list(itertools.permutations(own, 2)), min(8, len(own)))]
    made = [(lead, atom, end) for lead in leads for atom in own + pairs for end in ENDS]
    # one character of another class before the run: a match that may start inside a run only after such a
    # character (`(?<=\S)[*_~]+(?=\s)`) is tried there once per character of the run
    return made + [(lead, atom, "\x01") for lead in own for atom in own if lead != atom]


def _search(p: re.Pattern, text: str, method: str = "search") -> float:
    subject: str | bytes = text.encode("latin-1", "replace") if isinstance(p.pattern, bytes) else text
    # CPU time of this thread (a pause of this process on a shared machine is no cost; a search starts no thread):
    # `own_cpu`, not a `Window`, whose six reads of /proc (0.1 ms) cost more than most searches screened here
    return own_cpu(functools.partial(getattr(p, method), subject))


def slow(found: list[tuple[str, re.Pattern, str]], n: int = N) -> list[str]:
    out = []
    for name, p, method in found:
        for lead, atom, end in texts(p):
            short = lead + atom * (n // len(atom)) + end
            t1 = _search(p, short, method)
            if t1 < FLOOR:
                continue
            long = lead + atom * (4 * n // len(atom)) + end
            t1 = min(t1, _search(p, short, method))  # the least of two: the machine is shared
            t4 = min(_search(p, long, method), _search(p, long, method))
            if t4 / t1 > MAX_GROWTH and confirmed(
                functools.partial(_search, p, method=method), run_of(lead, atom, end), n, FLOOR
            ):
                out.append(f"{name} on {lead!r} + {atom!r} x {n // len(atom)} + {end!r}: {t1:.4f} s, at 4x {t4:.4f} s")
                break
    return out


def test_every_pattern_costs_time_linear_in_text_made_from_itself() -> None:
    assert slow(all_patterns()) == []


def test_the_inline_patterns_are_found() -> None:
    names = {n.split(":")[0] for n, _, _ in inline_patterns()}
    assert {"pbem/mail/inbound/authentication.py", "pbem/mail/inbound/message.py", "pbem/orders/typed.py"} <= names
    assert len(inline_patterns()) > 30


def test_the_check_finds_the_old_press_and_emphasis_patterns() -> None:
    """The check itself can fail: the press line's old pattern costs the cube of the spaces before a letter, the
    old emphasis pattern the square of a run of underscores after a letter; from the fixed prefixes of
    tests/reliability/test_pattern_costs.py they cost nothing."""
    old = re.compile(r"^press\s+to\s+(.+?)\s*:?\s*$", re.IGNORECASE)
    assert ("press to a", " ", "\x01") in texts(old)
    assert slow([("old press", old, "match")], n=120) != []  # 120 spaces: its cube shows, and costs little
    emphasis = re.compile(r"(?:(?<=\s)|^)[*_~]+(?=\S)|(?<=\S)[*_~]+(?=\s|$|[.,;:!])")
    assert slow([("old emphasis", emphasis, "search")]) != []


#: (the old pattern, its new form, the alphabet of the strings that compare them): each fix reads as before.
OLD_AND_NEW = [
    (r"^code\s*[:=]?\s*[\"'`“”‘’«»]?\s*(\S+?)\s*[\"'`“”‘’«»]?\s*$", "pbem.orders.extract._CODE", "code :='\" ab\t"),
    (r"\bcode\s*[:=]?\s*([A-Za-z0-9-]{4,64})\b", "pbem.orders.extract._SUBJECT_CODE", "code :=ab1- \t"),
    (r"^[ \t>|]*code[ \t]*[:=]?[ \t]*(\S+)[ \t]*\r?$", "pbem.mail.inbound.redact._CODE_LINE", "code :=>|a\t\r\n"),
    (r"\bcode[ \t]*[:=]?[ \t]*([A-Za-z0-9-]{4,64})\b", "pbem.mail.inbound.redact._SUBJECT_CODE", "code :=ab1-\t"),
    (r"(?i)(\bcode\s*[:=]?\s*)([A-Za-z0-9-]{4,64})", "pbem.home.logs._CODE", "code :=ab1- \t"),
    (rb"boundary\s*\*?\s*=", "pbem.mail.inbound.message._BOUNDARY", "boundary *= "),
    (
        r"^away\s*:?\s*(?:(?:until|till|to)\s+)?(?:(\d{4}-\d{2}-\d{2})|(?:for\s+)?(\d{1,3})(?:\s+days?)?)\s*$",
        "pbem.orders.away._AWAY",
        "away :untilfordays12- ",
    ),
    (r"^away\s*:?\s*(?:until|till|to|for)?\s*\d", "pbem.orders.away._MEANT", "away :untilfor1 "),
    (
        r"^(?:\s*(?:re|fwd?|aw|wg|sv|vs|vb|tr|rv|r|antw|ref|odp|res|enc)\s*(?:\[\d+\]|\(\d+\))?\s*:)+\s*",
        "pbem.orders.extract._REPLY_PREFIX",
        "re fw aw r: [1](2) \t",
    ),
    (
        r"^(?:\s*(?:re|fwd?|aw|wg|sv|vs|vb|tr|rv|r|antw|ref|odp|res|enc)\s*(?:\[\d+\]|\(\d+\))?\s*:)+\s*",
        "pbem.mail.outbound.compose.REPLY_PREFIX",
        "re fwd res: [1] \t",
    ),
    (r"[\s.,;:!。、！；…]+$", "pbem.orders.typed._TRAILING", " .,;:!…a\n"),
    (
        r"^.{0,160}<?[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>?.{0,60}[:：]\s*$",
        "pbem.orders.furniture._ATTRIBUTION_ANY",
        "a@.<>: ",
    ),
]


def _strings(alphabet: str, seed: int, n: int = 4_000) -> list[str]:
    rng = random.Random(seed)
    words = [*alphabet, *alphabet.split(" ")]
    return ["".join(rng.choice(words) for _ in range(rng.randint(0, 14))) for _ in range(n)]


def _groups(m: re.Match | None) -> object:
    return None if m is None else (m.group(0), m.groups())


def test_the_linear_forms_read_as_the_old_patterns_did() -> None:
    import importlib

    for k, (old_source, name, alphabet) in enumerate(OLD_AND_NEW):
        module, _, attr = name.rpartition(".")
        new = getattr(importlib.import_module(module), attr)
        old = re.compile(old_source, new.flags & ~re.UNICODE if isinstance(old_source, bytes) else new.flags)
        for s in _strings(alphabet, k):
            subject: str | bytes = s.encode() if isinstance(old_source, bytes) else s
            assert _groups(old.search(subject)) == _groups(new.search(subject)), (name, s)  # type: ignore[arg-type]
            mark: str | bytes = b"_" if isinstance(subject, bytes) else "_"
            assert old.sub(mark, subject) == new.sub(mark, subject), (name, s)  # type: ignore[arg-type]


def test_the_press_line_and_quotes_read_as_the_old_patterns_did() -> None:
    from pbem.orders import typed
    from pbem.orders.extract import _press_to
    from pbem.orders.typed import _MARKER, _QUOTES, cleaned

    press = re.compile(r"^press\s+to\s+(.+?)\s*:?\s*$", re.IGNORECASE)
    for s in _strings("press to PRESS TO :, al\tb", 99, 20_000):
        m = press.match(s)
        assert (m.group(1) if m else None) == _press_to(s), s
    quoted = re.compile(rf"^[{_QUOTES}]+(.*?)[{_QUOTES}]+$")
    trailing = re.compile(r"[\s.,;:!。、！；…]+$")
    emphasis = re.compile(r"(?:(?<=\s)|^)[*_~]+(?=\S)|(?<=\S)[*_~]+(?=\s|$|[.,;:!])")

    def old_cleaned(line: str) -> str:  # `cleaned` with the patterns it had (the steps around them as they are)
        text = line.strip()
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text).translate(typed._HYPHENS).strip()
        if typed._struck(text):  # "~~VOTE RED~~" struck out (players34): a step around the patterns
            return text
        for _ in range(typed.ROUNDS):  # passes until nothing changes (replies4: what is around an order in layers)
            before = text
            if not text.isascii():
                text = typed._undecorated(text)
            text = typed._POINTER.sub("", _MARKER.sub("", _MARKER.sub("", text, count=1), count=1)).rstrip()
            text = emphasis.sub("", text).strip()
            text = typed._untailed(text)
            m = quoted.match(text)
            text = m.group(1).strip() if m else text
            text = trailing.sub("", typed._unquoted_items(text))  # a name quoted inside an order (players27): a step
            if text == before:
                break
        return typed._NUMBER.sub(typed._digits, text) if len(text) <= typed.NUMBERED else text

    for s in _strings("\"'“”«a b.*-_~\t,", 98, 40_000):
        assert old_cleaned(s) == cleaned(s), s
