"""What the moderator's own mail server says about a sender (pure; RFC 8601 Authentication-Results).

Off by default.  With `[mail] trust_authentication_results = "mx.example.org"`
pbem reads only the `Authentication-Results` headers whose authserv-id is
that name (the receiving server must remove or rename any that arrive with
it, as RFC 8601 section 5 requires), and refuses mail for which they say:

* `dmarc=fail` for the From domain; or, with no DMARC verdict (none,
  temperror, permerror, or no dmarc result at all),
* SPF failed (`fail` or `softfail`) and no DKIM signature of the From
  domain (`header.d`, aligned as DMARC's relaxed mode: the same domain or
  a subdomain) passed.

A failing verdict in any trusted header wins over a passing one, so a
forged second header cannot undo a failure.  The `authres` library was
weighed: it parses every registered method and property, but pbem needs
only three methods and two properties, and the library has had no release
since 2019, so this module reads the grammar itself (comments, quoted
strings, `;`-separated results, `ptype.property=value`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import Message

_COMMENT = re.compile(r"\([^()]*\)")
# A token starts only where a token character does not precede it: a run of them with no "=" after it is
# tried once, not once per character (which cost the square of a hostile header's length).
_TOKEN = re.compile(r'(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s;]+)')


@dataclass(frozen=True)
class Result:
    method: str  # dmarc, spf, dkim, ...
    result: str  # pass, fail, softfail, none, ...
    props: dict[str, str] = field(default_factory=dict)  # e.g. header.from, smtp.mailfrom, header.d


def parse_header(value: str) -> tuple[str, list[Result]]:
    """(authserv-id, results) of one Authentication-Results header value."""
    text = re.sub(r"\s+", " ", value)
    for _ in range(5):  # nested comments
        text = _COMMENT.sub(" ", text)
    parts = [p.strip() for p in text.split(";")]
    authserv = parts[0].split(" ")[0].strip().lower() if parts else ""
    results = []
    for part in parts[1:]:
        pairs = [(k.lower(), v.strip('"').lower()) for k, v in _TOKEN.findall(part)]
        if not pairs:
            continue
        (method, result), props = pairs[0], dict(pairs[1:])
        results.append(Result(method.split("/")[0], result, props))
    return authserv, results


def _aligned(domain: str, from_domain: str) -> bool:
    domain = domain.lstrip("@").rpartition("@")[2].strip(".")
    return bool(domain) and (domain == from_domain or domain.endswith("." + from_domain))


def verdict(msg: Message, trusted: str, from_address: str) -> str | None:
    """Why the trusted server's results refuse this sender, or None (no trusted header, or nothing failed)."""
    if not trusted or "@" not in from_address:
        return None
    from_domain = from_address.rpartition("@")[2].lower()
    results: list[Result] = []
    for value in msg.get_all("Authentication-Results") or []:
        authserv, found = parse_header(str(value))
        if authserv == trusted.lower():
            results += found
    dmarc = [
        r for r in results if r.method == "dmarc" and _aligned(r.props.get("header.from", from_domain), from_domain)
    ]
    if any(r.result == "fail" for r in dmarc):
        return f"the receiving mail server {trusted} says DMARC failed for {from_domain}"
    if any(r.result == "pass" for r in dmarc):
        return None
    spf_failed = any(r.method == "spf" and r.result in ("fail", "softfail") for r in results)
    dkim_passed = any(
        r.method == "dkim"
        and r.result == "pass"
        and _aligned(r.props.get("header.d", r.props.get("header.i", "")), from_domain)
        for r in results
    )
    if spf_failed and not dkim_passed:
        return f"the receiving mail server {trusted} says SPF failed and no DKIM signature of {from_domain} passed"
    return None
