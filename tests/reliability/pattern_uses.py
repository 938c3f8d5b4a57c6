"""Where each compiled pattern of pbem is read, and whether its start can cost the square of its text (costs28).

Twice a pattern only ever `match`ed (`pbem.trust.pressed._SEAT`, `pbem.orders.own_mail._MARKED_OFF`) was searched
by the timing scan (tests/reliability/test_costs3_regexes.py), where a start of `\\s*` read the blanks again from
each place; each was found only by the timing screen's margin.  This reads pbem's source instead of timing it:

* `uses()`: for every pattern at the top of a module (and every tuple, list or dict of them), every
  `re.compile("literal")` in a function, and every `re.<call>("literal", ...)`, how pbem reads it: `match`,
  `fullmatch` (from the string's start, or once from a place: `P.match(line, pos)` outside a loop), `search`,
  `finditer`, `findall`, `sub`, `subn`, `split`, or `?` (handed to what this cannot follow).  A pattern is followed
  through the names it is bound to (`from m import P`, `m.P`, `x = P`, `for p in PATTERNS`) and into the functions
  of pbem that receive it (the parameter's uses, three calls deep).
* `runs(p)`: the repeats of a class (`\\s*`, `[ \\t]+`, `.*?`, of more than `MOST` characters) a search may start a
  match with, that nothing before them holds to one start a run: an anchor (`\\A`, `^` without `re.M`; with `re.M` a
  run that cannot read a newline), a character of a class the run cannot read (`x\\s*`), or a look-behind that the
  run's characters fail (`(?<!\\s)\\s+`).  A run followed by what always matches (the empty string) ends its match
  at once and is not named.

`tests/reliability/test_costs28_anchors.py` names each pattern read only from the start yet not anchored, and each
searched one that may start with a run.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from re import _compiler as Cm  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from types import SimpleNamespace

import pbem

ROOT = Path(pbem.__file__).resolve().parent
METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")
ANCHORED = frozenset({"match", "fullmatch"})
FROM_A_PLACE = frozenset({"match at", "fullmatch at"})  # `P.match(text, pos)`: `\A` and `^` fail at pos > 0
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
MOST = 2000  # a repeat of at most this many characters (the caps pbem writes: `{1,400}`) costs at most this many times the text: linear
DEPTH = 3
#: The characters a class is tried on: Latin-1, a few letters beyond it, and the blanks and marks players type.
PROBE = [chr(i) for i in range(0x250)] + list("\u2003\u2028\u3000\u201c\u201d\u2019\uff1a\u3002\u0410\u4e00")


@dataclass
class Pattern:
    name: str  # module.NAME, or path:line for one written in a function
    pattern: re.Pattern | None
    how: set[str] = field(default_factory=set)


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _children(node: ast.AST) -> list[ast.AST]:
    """`node`'s child nodes but contexts and operators (`_fields` read directly: `ast.iter_child_nodes` took twice
    as long)."""
    out = []
    for f in node._fields:
        v = getattr(node, f, None)
        if type(v) is list:
            out += [c for c in v if isinstance(c, ast.AST) and not isinstance(c, _LEAVES)]
        elif isinstance(v, ast.AST) and not isinstance(v, _LEAVES):
            out.append(v)
    return out


def _index(tree: ast.Module, parent: dict[ast.AST, ast.AST]) -> tuple[dict, dict, dict]:
    """One walk of `tree`: each node's parent (into `parent`), and its imports, names read and attributes read."""
    names: dict[str, tuple[str, str | None]] = {}
    reads: dict[str, list[ast.AST]] = {}
    attrs: dict[str, list[ast.Attribute]] = {}
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for c in _children(node):
            parent[c] = node
            todo.append(c)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attrs.setdefault(node.attr, []).append(node)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update({a.asname or a.name: (node.module, a.name) for a in node.names})
        elif isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
    return names, reads, attrs


class _Source:
    """pbem's modules, each parsed when first needed: its tree, its parents, its imports, its top-level functions."""

    def __init__(self, modules: list[str]) -> None:
        self.texts = {_module_name(path): path for path in sorted(ROOT.rglob("*.py"))}
        self.trees: dict[str, ast.Module] = {}
        self.module_named: dict[int, str] = {}
        self.parent: dict[ast.AST, ast.AST] = {}
        self.functions: dict[tuple[str, str], ast.FunctionDef] = {}
        self.imported: dict[str, dict[str, tuple[str, str | None]]] = {}  # module -> alias -> (module, name or None)
        self.names: dict[str, dict[str, list[ast.AST]]] = {}  # module -> a name read -> where
        self.attrs: dict[str, dict[str, list[ast.Attribute]]] = {}  # module -> an attribute read -> where
        self._scopes: dict[int, dict[str, list[ast.AST]]] = {}
        for module in modules:
            self.load(module)

    def load(self, module: str) -> bool:
        """`module` parsed (once); false if it is not pbem's."""
        if module in self.trees:
            return True
        if module not in self.texts:
            return False
        tree = ast.parse(self.texts[module].read_text(), str(self.texts[module]))
        self.trees[module] = tree
        self.module_named[id(tree)] = module
        names, reads, attrs = _index(tree, self.parent)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[(module, node.name)] = node
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        self.functions[(module, f"{node.name}.{item.name}")] = item
        self.imported[module] = names
        self.names[module] = reads
        self.attrs[module] = attrs
        return True

    def in_loop(self, node: ast.AST) -> bool:
        """A loop of its function holds `node`."""
        while node in self.parent and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node = self.parent[node]
            if isinstance(node, LOOPS):
                return True
        return False

    def module_of(self, node: ast.AST) -> str:
        while node in self.parent:
            node = self.parent[node]
        return self.module_named[id(node)]

    def refs(self, module: str, name: str) -> list[ast.AST]:
        """Every read of `module.name` in pbem: the name in its module, imported by name, or an attribute of the
        module imported."""
        found = []
        for m in self.trees:
            local = {a for a, (mod, n) in self.imported[m].items() if mod == module and n == name}
            if m == module:
                local.add(name)
            mods = {a for a, (mod, n) in self.imported[m].items() if (n is None and mod == module)}
            mods |= {a for a, (mod, n) in self.imported[m].items() if n is not None and f"{mod}.{n}" == module}
            if not local and not mods:
                continue
            for alias in local:
                found += self.names[m].get(alias, [])
            found += [a for a in self.attrs[m].get(name, []) if a.value.id in mods]  # type: ignore[attr-defined]
        return found

    def scope(self, node: ast.AST) -> ast.AST:
        while node in self.parent and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
            node = self.parent[node]
        return node

    def callee(self, module: str, func: ast.expr) -> ast.FunctionDef | None:
        if isinstance(func, ast.Name):
            if (module, func.id) in self.functions:
                return self.functions[(module, func.id)]
            mod, n = self.imported[module].get(func.id, ("", None))
            self.load(mod)
            return self.functions.get((mod, n or ""))
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            mod, n = self.imported[module].get(func.value.id, ("", None))
            target = mod if n is None else f"{mod}.{n}"
            self.load(target)
            return self.functions.get((target, func.attr))
        return None

    def local_reads(self, scope: ast.AST, name: str) -> list[ast.AST]:
        if isinstance(scope, ast.Module):
            return self.names[self.module_named[id(scope)]].get(name, [])
        if id(scope) not in self._scopes:
            index: dict[str, list[ast.AST]] = {}
            for n in ast.walk(scope):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    index.setdefault(n.id, []).append(n)
            self._scopes[id(scope)] = index
        return self._scopes[id(scope)].get(name, [])

    def reads_of(self, scope: ast.AST, name: str, depth: int, element: bool = False) -> set[str]:
        """How the local `name` of `scope` is read (each read's `how`)."""
        out: set[str] = set()
        for read in self.local_reads(scope, name):
            out |= self.how(read, depth, element)
        return out

    def how(self, node: ast.AST, depth: int = DEPTH, element: bool = False) -> set[str]:
        """How the value read at `node` is read: the methods called on it, followed through names and calls.
        `element`: the node is a tuple, list or dict of patterns, read by iterating or indexing it."""
        up = self.parent.get(node)
        if element:
            return self._how_element(node, up, depth)
        if isinstance(up, ast.Attribute) and up.value is node:
            return self._how_called(up)
        if isinstance(up, ast.Call) and node in up.args and depth:
            return self._how_passed(node, up, depth)
        if isinstance(up, ast.keyword) and depth:
            call = self.parent[up]
            assert isinstance(call, ast.Call)
            fn = self.callee(self.module_of(node), call.func)
            return {"?"} if fn is None or up.arg is None else self.reads_of(fn, up.arg, depth - 1)
        if isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
            return self.reads_of(self.scope(up), up.targets[0].id, depth)
        if isinstance(up, ast.Tuple | ast.List) and isinstance(self.parent.get(up), ast.Assign):
            target = self.parent[up].targets[0]  # type: ignore[attr-defined]
            if isinstance(target, ast.Name):
                return self.reads_of(self.scope(up), target.id, depth, element=True)
        if isinstance(up, ast.BoolOp | ast.IfExp):  # `P or Q`, `P if a else Q`: read as the whole is
            return self.how(up, depth)
        return {"?"}

    def _how_element(self, node: ast.AST, up: ast.AST | None, depth: int) -> set[str]:
        if isinstance(up, ast.Subscript) and up.value is node:
            return self.how(up, depth)
        if isinstance(up, ast.For | ast.comprehension) and up.iter is node and isinstance(up.target, ast.Name):
            return self.reads_of(self.scope(up), up.target.id, depth) or {"?"}
        return {"?"}

    def _how_called(self, up: ast.Attribute) -> set[str]:
        call = self.parent.get(up)
        if up.attr in METHODS and isinstance(call, ast.Call) and call.func is up:
            if up.attr in ANCHORED and len(call.args) >= 2:
                # matched at each place of a loop: a search's cost; once from a place: `\\A` would fail there
                return {"search"} if self.in_loop(call) else {f"{up.attr} at"}
            return {up.attr}
        return set()  # `.pattern` (spliced, checked there), `.flags`, `.groups`

    def _how_passed(self, node: ast.AST, up: ast.Call, depth: int) -> set[str]:
        if isinstance(up.func, ast.Attribute) and isinstance(up.func.value, ast.Name) and up.func.value.id == "re":
            return {up.func.attr} if up.func.attr in METHODS else {"?"}
        fn = self.callee(self.module_of(node), up.func)
        if fn is None:
            return {"?"}
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        k = up.args.index(node)  # type: ignore[arg-type]
        return {"?"} if k >= len(params) else self.reads_of(fn, params[k], depth - 1)


_CALLS_RE = re.compile(r"\bre\.(?:compile|match|fullmatch|search|finditer|findall|sub|subn|split)\(")


def definers() -> list[str]:
    """pbem's modules that compile or call a pattern (`re.<call>(`), by name."""
    return [m for m, path in sorted(_Source([]).texts.items()) if _CALLS_RE.search(path.read_text())]


def _readers(src: _Source, held: dict[str, list[str]]) -> list[str]:
    """The modules whose text names one of the modules of `held` in an import (`pbem.a.b`, or `from pbem.a import
    b`) and one of the names of patterns it holds."""
    out = []
    for m, path in src.texts.items():
        text = path.read_text()
        for d, names in held.items():
            pkg, _, leaf = d.rpartition(".")
            if (d in text or (f"from {pkg} import" in text and leaf in text)) and any(n in text for n in names):
                out.append(m)
                break
    return out


def _held(value: object) -> bool:
    return isinstance(value, re.Pattern) or _is_pattern_container(value)


def _is_pattern_container(value: object) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return isinstance(value, tuple | list | dict) and bool(value) and all(isinstance(v, re.Pattern) for v in items)


@functools.cache
def uses(modules: tuple[str, ...]) -> list[Pattern]:
    """Every pattern of `modules` (`definers()`, or some of them) and how pbem reads it."""
    src = _Source(list(modules))
    held = {m: [n for n, v in vars(importlib.import_module(m)).items() if _held(v)] for m in modules}
    for m in _readers(src, held):
        src.load(m)
    found: list[Pattern] = []
    for name in modules:
        module = importlib.import_module(name)
        info = SimpleNamespace(name=name)
        for name, value in vars(module).items():
            container = _is_pattern_container(value)
            if not (isinstance(value, re.Pattern) or container):
                continue
            if _defined_elsewhere(src, info.name, name):
                continue
            how: set[str] = set()
            for ref in src.refs(info.name, name):
                how |= src.how(ref, element=container)
            members = list(value.values() if isinstance(value, dict) else value) if container else [value]
            for k, p in enumerate(members):
                found.append(Pattern(f"{info.name}.{name}" + (f"[{k}]" if container else ""), p, set(how)))
    for module in modules:
        for node in ast.walk(src.trees[module]):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str | bytes)
            ):
                continue
            if src.scope(node).__class__ is ast.Module:
                continue  # a top-level pattern: read above, from the module
            call = node.func.attr
            if call == "compile":
                how = src.how(node)
            elif call in METHODS:
                how = {call}
            else:
                continue
            at = 1 if call == "compile" else {"sub": 4, "subn": 4, "split": 3}.get(call, 2)
            flags_node = node.args[at] if len(node.args) > at else None
            flags_node = next((k.value for k in node.keywords if k.arg == "flags"), flags_node)
            flags = eval(ast.unparse(flags_node), {"re": re}) if flags_node is not None else 0
            found.append(Pattern(f"{module}:{node.lineno}", re.compile(node.args[0].value, flags), how))
    return found


def _defined_elsewhere(src: _Source, module: str, name: str) -> bool:
    """`name` in `module` only because it was imported there."""
    return name in src.imported[module]


_CHARS: dict[tuple[str, int], frozenset[str]] = {}


def _chars(state: object, item: tuple, flags: int) -> frozenset[str]:
    """The characters of `PROBE` one class, literal or `.` reads."""
    key = (repr(item), flags)
    if key not in _CHARS:
        compiled = Cm.compile(P.SubPattern(state, [item]), flags)
        _CHARS[key] = frozenset(c for c in PROBE if compiled.fullmatch(c))
    return _CHARS[key]


_WORD = frozenset(c for c in PROBE if re.fullmatch(r"\w", c))
_LINE = frozenset("\n")  # a mark in `before`: a line's start (`^` under `re.M`), not a literal
_BOUNDARY = frozenset(["\\b"])  # a mark in `before`: a word boundary
_ONE = (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


def _nullable(items: list) -> bool:
    """`items` always match the empty string (no assertion, each a repeat of none or a group of such)."""
    for op, av in items:
        if op in _REPEATS and av[0] == 0:
            continue
        if op == C.SUBPATTERN and _nullable(list(av[3])):
            continue
        if op == C.ATOMIC_GROUP and _nullable(list(av)):
            continue
        if op == C.BRANCH and any(_nullable(list(b)) for b in av[1]):
            continue
        return False
    return True


class _Runs:
    """The walk of one parsed pattern from its start (`runs`)."""

    def __init__(self, p: re.Pattern, leads: bool = False) -> None:
        self.leads = leads
        source_text = p.pattern.decode("latin-1") if isinstance(p.pattern, bytes) else p.pattern
        self.parsed = P.parse(source_text, p.flags & ~re.UNICODE if isinstance(p.pattern, bytes) else p.flags)
        self.state, self.flags = self.parsed.state, self.parsed.state.flags
        self.out: list[str] = []

    def chars(self, item: tuple) -> frozenset[str]:
        return _chars(self.state, item, self.flags)

    def mark(self, op: int, av: object) -> frozenset[str] | None:
        """What a zero-width item says of the character before the start (`_LINE`, `_BOUNDARY`, a class)."""
        if op == C.AT and av == C.AT_BEGINNING:  # (under `re.M`: a run that reads a newline is held by nothing)
            return _LINE
        if op == C.AT and av == C.AT_BOUNDARY:  # inside a run of word (or of other) characters there is no boundary
            return _BOUNDARY
        if op in (C.ASSERT, C.ASSERT_NOT):
            direction, body = av  # type: ignore[misc]
            body = list(body)
            if direction == -1 and body and body[-1][0] in _ONE and (op == C.ASSERT or len(body) == 1):
                seen = self.chars(body[-1])  # the character just before the start
                return seen if op == C.ASSERT else frozenset(PROBE) - seen
        return None

    def free(self, read: frozenset[str], before: list[frozenset[str]]) -> bool:
        """A run reading `read` after `before` is held by nothing: no literal before it, no class it cannot read, no
        boundary it has none of."""
        if _BOUNDARY in before and (read <= _WORD or not read & _WORD):
            return False
        if self.leads:  # a lead the run can read holds only one start: a run of the lead starts one at each
            return bool(before) and all(b & read for b in before if b is not _BOUNDARY)
        return all(b & read and (len(b) > 2 or b is _LINE) for b in before if b is not _BOUNDARY)

    def walk(self, items: list, before: list[frozenset[str]], depth: int = 0) -> None:
        """`before`: the characters each item read since the start reads (a run none of them shares is held)."""
        for k, (op, av) in enumerate(items):
            rest = items[k + 1 :]
            if op == C.AT and (av == C.AT_BEGINNING_STRING or (av == C.AT_BEGINNING and not self.flags & re.M)):
                return
            if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
                mark = self.mark(op, av)
                before = before if mark is None else [*before, mark]
            elif op in _ONE:
                before = [*before, self.chars((op, av))]
            elif op in _REPEATS and len(av[2]) == 1 and av[2][0][0] in _ONE:
                read = self.chars(av[2][0])
                if (av[1] == C.MAXREPEAT or av[1] > MOST) and read and self.free(read, before) and not _nullable(rest):
                    self.out.append(
                        f"{P.SubPattern(self.state, [(op, av)])!s}".splitlines()[0] + f" reading {_show(read)}"
                    )
                    return
                before = before if av[0] == 0 else [*before, read]  # (may be empty: what follows may start it too)
            elif op in _REPEATS:
                self.walk(list(av[2]) + rest, before, depth + 1)
                if av[0] > 0:
                    return
            else:
                if depth < 40:
                    for branch in _inside(op, av):
                        self.walk(branch + rest, before, depth + 1)
                return


def _inside(op: int, av: object) -> list[list]:
    """The item lists a group, an atomic group or a branch starts with (none for a reference or a conditional)."""
    if op == C.SUBPATTERN:
        return [list(av[3])]  # type: ignore[index]
    if op == C.ATOMIC_GROUP:
        return [list(av)]  # type: ignore[call-overload]
    if op == C.BRANCH:
        return [list(b) for b in av[1]]  # type: ignore[index]
    return []


def runs(p: re.Pattern, leads: bool = False) -> list[str]:
    """The runs a search of `p` may start a match with, held by nothing before them (the module's docstring).
    `leads`: instead, the runs after a lead they can read themselves (`<p>(.{0,100000}?)</p>`: a page of "<p>" is
    read from each), the run unbounded or over `MOST`."""
    walk = _Runs(p, leads)
    if _nullable(list(walk.parsed)):
        return []  # its first try matches (`(?:[^"]*+"...")*+[^"]*+`): a search is done, a match read is consumed
    walk.walk(list(walk.parsed), [])
    return walk.out


def _show(read: frozenset[str]) -> str:
    shown = "".join(sorted(read))[:12]
    return repr(shown + ("..." if len(read) > 12 else ""))


def anchored(p: re.Pattern) -> bool:
    """`p` starts with `\\A`, or `^` (any flags: read by `match`, `^` under `re.M` is the string's start too)."""
    source_text = p.pattern.decode("latin-1") if isinstance(p.pattern, bytes) else p.pattern
    items = list(P.parse(source_text, p.flags & ~re.UNICODE if isinstance(p.pattern, bytes) else p.flags))
    while items and items[0][0] == C.SUBPATTERN:
        items = list(items[0][1][3])
    return bool(items) and items[0] in ((C.AT, C.AT_BEGINNING), (C.AT, C.AT_BEGINNING_STRING))


def only_matched_unanchored(modules: tuple[str, ...]) -> list[str]:
    """Each pattern read only by `match`/`fullmatch` that does not start with `\\A` or `^`."""
    return [
        u.name
        for u in uses(modules)
        if u.how and u.how <= ANCHORED and u.pattern is not None and not anchored(u.pattern)
    ]


def searched_runs(modules: tuple[str, ...], leads: bool = False) -> list[str]:
    """Each pattern searched (or handed to what this cannot follow) that may start with a run held by nothing (or,
    `leads`, held only by a lead the run reads: `runs`)."""
    out = []
    for u in uses(modules):
        if u.pattern is None or not (u.how - ANCHORED - FROM_A_PLACE):
            continue
        found = runs(u.pattern, leads)
        if found:
            out.append(f"{u.name} ({', '.join(sorted(u.how))}): {found[0]}")
    return out
