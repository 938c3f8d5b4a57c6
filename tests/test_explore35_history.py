"""HISTORY with its number said as a word is read; with a number no turn has, it is told what to write (explore35).

`HISTORY three` (dictated, as `Tribute gold seven` is read) and `HISTORY -1` or a number of 21 digits were listed as
lines "that start with no order word", a wrong reason for a command.  The generator writes each number word, alone or
after "of turn", each number no turn has, and the remarks that start with the word and must stay remarks.
"""

from __future__ import annotations

from pbem.orders.extract import extract

WORDS = ("one", "two", "three", "seven", "twelve", "twenty")
DIGITS = {"one": "1", "two": "2", "three": "3", "seven": "7", "twelve": "12", "twenty": "20"}
BAD = ("-1", "+3", "\u22122", "999999999999999999999", "00000")
REMARKS = ("History will judge us", "History repeats", "History: done", "History is written by the winners")


def test_history_numbers_are_read_or_told_and_remarks_stay_remarks() -> None:
    """12 number words and 5 numbers no turn has: 11 of the 17 were listed as chatter on the base commit (the number
    words after "of turn" were read); 0 now."""
    wrong = []
    for w in WORDS:
        for line in (f"HISTORY {w}", f"History of turn {w}"):
            ex = extract(line)
            if ex.history != DIGITS[w] or ex.chatter:
                wrong.append((line, ex.history, ex.chatter))
    for n in BAD:
        ex = extract(f"HISTORY {n}")
        if ex.chatter or not any("HISTORY 3" in p for p in ex.problems):
            wrong.append((n, ex.chatter, ex.problems))
    assert not wrong, f"{len(wrong)} of {2 * len(WORDS) + len(BAD)} misread, e.g. {wrong[0]}"
    for remark in REMARKS:
        ex = extract(remark)
        assert ex.chatter == [remark] and ex.history is None and not ex.problems, remark
