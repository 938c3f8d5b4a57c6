"""Weigh reply-parsing libraries against pbem's own mail furniture code, on the client corpus and the fuzz cases.

Needs `pip install quotequail mail-parser-reply` (neither is a pbem dependency: see the figures in
tests/corpus/clients/README.md).  Usage: python benchmarks/reply_libraries.py LIB 0|1 [-v]
with LIB one of own, quotequail, mail-parser-reply; 1 keeps pbem's own furniture code after the
library, 0 keeps only the dropping of ">" lines.
"""

import json
import random
import sys
from pathlib import Path

import pbem.orders.extract as X
from pbem import engine as registry
from pbem.mail.inbound.message import parse
from tests.mail_styles import build, message_lines, own_text

words = registry.get("habsburg").order_words


def via(lib: str, text: str) -> str:
    if lib == "own":
        return text
    if lib == "quotequail":
        import quotequail

        parts = quotequail.quote(text)
        return "\n".join(t for keep, t in parts if keep)
    if lib == "mail-parser-reply":
        from mailparser_reply import EmailReplyParser

        p = EmailReplyParser(languages=["en", "de", "fr", "es", "it", "pt", "nl"])
        return p.parse_reply(text=text)


def run(lib: str, furniture: bool) -> None:
    if not furniture:
        X.own_lines = lambda t: ([ln for ln in t.split("\n") if not ln.lstrip().startswith(">")], [])
    ok = n = 0
    for p in sorted(Path("tests/corpus/clients").glob("*.eml")):
        m = parse(p.read_bytes())
        want = json.loads(p.with_suffix(".expected").read_text())
        try:
            ex = X.extract(via(lib, m.text) or "", m.subject, words)
            good = ex.orders == want["orders"] and ex.chatter == want["chatter"]
        except Exception:
            good = False
        ok += good
        n += 1
        if not good and "-v" in sys.argv:
            print(lib, p.stem, ex.orders, ex.chatter)
    fok = 0
    for seed in range(300):
        rng = random.Random(seed)
        own, orders, chatter = own_text(rng)
        m = parse(build(rng, message_lines(rng, own)))
        try:
            ex = X.extract(via(lib, m.text) or "", m.subject, words)
            fok += ex.orders == orders and ex.chatter == chatter
        except Exception:
            pass
    print(f"{lib:18} furniture={'hand' if furniture else 'none (only > quotes)'}: corpus {ok}/{n}, fuzz {fok}/300")


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2] == "1")
