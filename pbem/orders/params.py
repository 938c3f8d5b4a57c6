"""A header's parameters (`Content-Type: text/plain; charset=...`) read in one pass (pure; costs20).

The standard library's `email.message._parseparam` (Python 3.11, which pbem runs on here) copies the rest of the header for each
parameter, and while a quote is open counts the quotes from the header's start again at each ";": the square of the
header.  `MAX_PARAMETER_FIELD` bounds one header at 8,000 characters, but not a mail's number of them: a 1.9 MB
mail of 240 parts, each a Content-Type of `p="` and 7,900 ";", took 22 s to read at the poll and 10 s more to store
(each header read several times: charset, format, disposition).  `split` cuts the same parameters as `_parseparam`,
each character looked at a bounded number of times; `preserved` is `Message._get_params_preserve` over it.
Both readings of a mail use it: the poll's (`pbem.mail.inbound.message.Bounded`) and `pbem verify --mail`'s
(`pbem.trust.told`, through `Message`: it read each mail of a player's folder with the standard library's, and a
mail of 128 KB, one Content-Type of `p="` and ";" folded 32,000 times, took 5.1 s; the 32 MiB a mail may hold,
days), which the layers keep apart, so it lives here as `charsets` does; a test holds it to the standard library's
answers.
"""

from __future__ import annotations

import re
from email import message, utils
from typing import Any

_QUOTE = re.compile(r'(?<!\\)"')  # a quote no backslash escapes (the one before the search is looked at)


def split(value: str) -> list[str]:
    """What `email.message._parseparam(value)` returns, each character looked at a bounded number of times."""
    s = ";" + value
    out: list[str] = []
    pos, n = 0, len(s)
    while pos < n and s[pos] == ";":
        pos += 1
        end = s.find(";", pos)
        after = pos  # a ";" inside a quoted string does not end the parameter: the quotes from here to `end` ...
        while end > pos and (s.count('"', after, end) - s.count('\\"', after, end)) % 2:
            # ... leave one open, so no ";" before the next quote not escaped ends it (the standard library tried
            # each, counting the quotes from the header's start again)
            closing = _QUOTE.search(s, end)
            if closing is None:
                end = -1
                break
            after = closing.end()
            end = s.find(";", after)
        if end < 0:
            end = n
        f = s[pos:end]
        if "=" in f:
            i = f.index("=")
            f = f[:i].strip().lower() + "=" + f[i + 1 :].strip()
        out.append(f.strip())
        pos = end
    return out


def preserved(value: Any) -> list[Any]:
    """`Message._get_params_preserve` of a header `value`: its parameters, RFC 2231 continuations joined."""
    params = []
    for p in split(str(value)):
        name, eq, val = p.partition("=")
        params.append((name.strip(), val.strip()) if eq else (p.strip(), ""))
    return list(utils.decode_params(params))


class Message(message.Message):
    """A `compat32` message whose parameters (`get_param`, `get_filename`, `get_content_charset` ...) are read in
    one pass (`preserved`)."""

    def _get_params_preserve(self, failobj: object, header: str) -> object:
        value = self.get(header)
        return failobj if value is None else preserved(value)
