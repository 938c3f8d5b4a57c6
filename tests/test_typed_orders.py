"""Read what people type (issue 23): list markers, emphasis, end punctuation, quoted codes, PGP armour,
an empty text part beside HTML, footers that start with an order word, JOIN SALT on one line."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem import engine as registry
from pbem.mail.inbound.message import parse
from pbem.orders.extract import extract
from pbem.orders.typed import prose
from pbem.trust.deal import read_join, split_join

HH = registry.get("habsburg").order_words
ST = registry.get("sixteen-thirty").order_words


@pytest.mark.parametrize(
    "typed",
    [
        "- NO EVENT",
        "* NO EVENT",
        "1. NO EVENT",
        "2) NO EVENT",
        "•\tNO EVENT",
        "No event.",
        "*NO EVENT*",
        "**no event**",
        "NO EVENT!",
        "  - No Event.",
        '"NO EVENT"',
    ],
)
def test_an_order_is_read_through_what_is_typed_around_it(typed: str) -> None:
    ex = extract(f"Hi,\n{typed}\nThanks", "", HH)
    assert [o.upper() for o in ex.orders] == ["NO EVENT"]
    assert ex.chatter == ["Hi,", "Thanks"]


@pytest.mark.parametrize(
    "line", ['CODE "K7QX-2MPD"', "CODE 'K7QX-2MPD'", "code: “K7QX-2MPD”", '"CODE K7QX-2MPD"', "CODE K7QX-2MPD."]
)
def test_the_code_is_read_with_the_quotes_pasted_around_it(line: str) -> None:
    assert extract(f"{line}\nPASS", "", HH).code == "K7QX-2MPD"


def test_an_inline_pgp_clearsigned_reply_is_read() -> None:
    body = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nHello,\n- - NO EVENT\n"
        "-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n"
    )
    ex = extract(body, "", HH)
    assert ex.orders == ["NO EVENT"]
    assert not any("PGP" in c or "iQEz" in c for c in ex.chatter)


def test_an_empty_text_part_beside_the_html_part_reads_the_html() -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@x.test", "m@x.test", "[pbem hh1] orders"
    msg.set_content("\r\n")
    msg.add_alternative("<div>NO EVENT</div><div>Cheers</div>", subtype="html")
    got = parse(msg.as_bytes(), "m@x.test")
    assert extract(got.text, got.subject, HH).orders == ["NO EVENT"]


def test_a_company_footer_is_prose_and_a_real_order_is_not() -> None:
    assert prose("Call us on 0800 123 4567")
    assert prose("Call us at www.example.com for a quote")
    assert not prose("CALL France WAR Spain PLACE Richelieu")


def test_join_salt_on_one_line_is_join_then_the_salt() -> None:
    assert split_join(["JOIN SALT blue moon"]) == ["JOIN", "SALT blue moon"]
    salt, results = read_join(split_join(["join salt: blue moon"]))
    assert all(r.ok for r in results)
    assert salt and "blue moon" in salt


def test_a_mode_word_alone_is_read_and_in_a_sentence_is_chatter() -> None:
    assert extract("WATCH", "", HH).mode == "watch"
    assert extract("- digest.", "", HH).mode == "digest"
    ex = extract("Watch out for Bob!\nPASS", "", HH)
    assert ex.mode is None and ex.chatter == ["Watch out for Bob!"]


@pytest.mark.parametrize(
    ("typed", "orders"),
    [
        ("#1 NO EVENT", ["NO EVENT"]),  # a list numbered with a hash
        ("#12) NO EVENT # my choice", ["NO EVENT"]),
        ("# NO EVENT", []),  # an order commented out: the player's choice
        ("#NO EVENT", []),
        ("NO EVENT # or a person next time", ["NO EVENT"]),
        ("#1", []),
        ("#1 thinking about it", []),
        ("TRIBUTE Gold #7", ["TRIBUTE GOLD 7"]),  # a number sign, not a comment
        ("TRIBUTE Gold 7 #best", ["TRIBUTE GOLD 7"]),
    ],
)
def test_a_hash_starts_a_comment_except_as_a_lists_number(typed: str, orders: list[str]) -> None:
    ex = extract(typed)  # every game's order words
    assert [o.upper() for o in ex.orders] == orders, ex
