"""Jinja2 rendering of every mail pbem writes, and of the other templates.

Each kind of mail is one pair of templates, ``templates/mail/KIND.txt.j2`` and
``KIND.html.j2``, fed by a context of plain data; the text template also sets
the mail's subject (``{% set subject %}...{% endset %}``), so every word a
reader sees is in a template with a golden file (tests/golden/mail/outgoing).

Templates receive only a player's view (`engine.view(state, player)`), the
events that player may see, and that player's requests: never the state.
The environment uses StrictUndefined so a template naming something it was
not given fails loudly in tests instead of printing blanks.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import Any

from jinja2 import (
    BytecodeCache,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.runtime import Context
from markupsafe import Markup, escape

from pbem.engine.words import count
from pbem.mail.outbound.compose import reply_subject
from pbem.render.asking import due_phrase, first_lines
from pbem.render.handbook import as_html, narrow, noted
from pbem.render.pictures import board
from pbem.render.resources import templates_dir
from pbem.render.tables import NARROW as NARROW
from pbem.render.tables import _shown, html_table, text_table


class _Compiled(FileSystemBytecodeCache):
    """Jinja's compiled templates kept between runs (issue 27: compiling the dozen templates of a poll's first
    mails cost it about half a second, in every run).  Jinja's default folder is the user's own
    (`_jinja2-cache-UID` in the temporary directory, made 0700 and checked to be owned by the user, so no one
    else can plant code there); an entry is keyed by the template's name and its source's checksum, so an edited
    template is compiled again, and one written by another Python is refused by its magic header.  The cache is
    an optimisation only: a folder that cannot be used, or a broken entry, means compiling as before."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(Exception):
            super().dump_bytecode(bucket)


def _compiled() -> BytecodeCache | None:
    try:
        return _Compiled()
    except Exception:  # no safe temporary folder for this user
        return None


_DICT_NAMES = frozenset(dir(dict))  # every attribute a plain dict has: its methods and object's


class _Environment(Environment):
    """Jinja's environment, but a template's ``x.name`` of a plain dict (every context pbem renders is made of them)
    reads its key at once: Jinja asks for the attribute first and reads the key when that raises, an exception
    for each of the 160 such reads of a reply's two reports.  A name a dict has as an attribute (``items``,
    ``keys``, ``__class__``) and a missing key go Jinja's way, so every answer is Jinja's."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._loaded: dict[tuple[str, str | None], Any] = {}  # by (name, parent): only the shipped templates

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_NAMES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)

    def get_template(self, name: Any, parent: str | None = None, globals: Any = None) -> Any:
        """Jinja's, but a template asked for again by name (each include of each report: 11 a report) is found
        in a dict: templates ship with the package and are never reloaded (`auto_reload=False`)."""
        if globals is None and type(name) is str:
            found = self._loaded.get((name, parent))
            if found is None:
                found = self._loaded[(name, parent)] = _escaping_faster(super().get_template(name, parent))
            return found
        return super().get_template(name, parent, globals)


#: markupsafe's C escape of a plain string, without the `Markup` around it (its private name: a markupsafe without
#: it leaves the templates on `escape`)
_ESCAPED: Any = getattr(import_module("markupsafe"), "_escape_inner", None)


def _escaped_output(value: Any) -> Any:
    """`escape` of a value an autoescaped template writes out (most of a report's HTML: 55 values a report), the
    same characters: a plain string escaped in C and written as a `str`, a `Markup` (a table) as it is.  Jinja's
    own costs two Python calls and a `Markup` made for each, only to be joined into the page's string."""
    if type(value) is str:
        return _ESCAPED(value)
    if type(value) is Markup:
        return value
    return escape(value)


def _escaping_faster(template: Any) -> Any:
    """`template` writing its values out with `_escaped_output`: its compiled module's own name `escape`, which
    its root, blocks and macros use only to write a value out, rebound in the module's namespace."""
    names = template.root_render_func.__globals__
    if _ESCAPED is not None and names.get("escape") is escape:
        names["escape"] = _escaped_output
    return template


class _Context(Context):
    """Jinja's context, but the set of its template's globals' names (`globals_keys`, which only `{% import %}`
    reads) is made when read, not for each context: every include makes one (11 a report), and the set was made
    from the globals' `ChainMap` in Python each time."""

    def __init__(
        self, environment: Environment, parent: dict[str, Any], name: str | None, blocks: Any, globals: Any = None
    ) -> None:
        super().__init__(environment, parent, name, blocks)
        self._globals = globals

    @property
    def globals_keys(self) -> set[str]:
        return set() if self._globals is None else set(self._globals)

    @globals_keys.setter
    def globals_keys(self, _: set[str]) -> None:  # Context.__init__ sets it: read from `_globals` instead
        pass


@lru_cache(maxsize=1)
def env() -> Environment:
    e = _Environment(
        loader=FileSystemLoader(str(templates_dir())),
        bytecode_cache=_compiled(),
        undefined=StrictUndefined,
        # a pure function of a template's name, asked again for every context (each include)
        autoescape=lru_cache(maxsize=256)(select_autoescape(["html", "html.j2"], default_for_string=False)),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # templates ship with the package: no stat() of every template and include per mail
        finalize=_shown,
    )
    e.context_class = _Context
    e.filters["text_table"] = text_table
    e.filters["html_table"] = html_table
    e.filters["narrow"] = narrow  # {{ handbook|narrow }}: a handbook or rulings text at 40 columns
    e.filters["noted"] = noted  # {{ syntax_line|noted }}: "ORDER   (note)" in two lines when wider than 40
    e.filters["handbook_html"] = as_html  # {{ handbook|handbook_html }}: the same blocks as HTML
    e.filters["count"] = count  # {{ n|count("card") }}: "1 card", "2 cards"
    e.filters["due"] = due_phrase  # {{ due_at|due(now) }}: "in 23 hours, Tue 2 Dec 18:00 UTC"
    e.globals["first_lines"] = first_lines  # the report's opening: what is asked now, by when (pure)
    e.filters["reply"] = reply_subject  # {{ subject_in|reply }}: "Re: " once, whatever prefixes it had
    return e


@dataclass(frozen=True)
class RenderedMail:
    subject: str
    text: str
    html: str
    images: tuple[tuple[str, bytes], ...] = ()  # (Content-ID, PNG) the HTML shows as cid:


#: Kinds of mail that show the board: every report (issue 24).
PICTURED = {"report"}


def render_mail(kind: str, ctx: dict[str, Any]) -> RenderedMail:
    """Render mail/KIND.txt.j2 (with its subject) and mail/KIND.html.j2 from the same context.

    A report's context gets `boards` (each picture's cid, alt text and size) and the mail their PNGs."""
    images: tuple[tuple[str, bytes], ...] = ()
    if kind in PICTURED and "view" in ctx and "boards" not in ctx:
        pics = board(ctx["view"])
        ctx = {**ctx, "boards": [{"cid": p.cid, "alt": p.alt, "width": p.width, "height": p.height} for p in pics]}
        images = tuple((p.cid, p.png) for p in pics)
    ctx = {"now": None, **ctx}
    module = env().get_template(f"mail/{kind}.txt.j2").make_module(ctx)
    subject = " ".join(str(getattr(module, "subject", "")).split())
    html = env().get_template(f"mail/{kind}.html.j2").render(ctx)
    return RenderedMail(subject, str(module), html, images)


def mail_kinds() -> list[str]:
    """Every kind of mail there is a template pair for."""
    folder = templates_dir() / "mail"
    return sorted(p.name[: -len(".txt.j2")] for p in folder.glob("*.txt.j2") if not p.name.startswith("_"))


def render(template: str, **ctx: Any) -> str:
    return env().get_template(template).render(**ctx)
