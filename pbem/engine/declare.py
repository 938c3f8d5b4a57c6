"""What an engine declares about itself for the parts of pbem that name no game.

The history (`pbem.history`) tells a game as a sequence of scoring points:
each engine emits a public ``"scores"`` event after every turn, hand or
gambit, whose ``data`` holds the numbers to chart.  `HistorySpec` says how to
read them: the word for one step, the data keys that number it, the series
to chart with their titles and axis labels (in the order they are drawn),
the per-entity fields worth a strip chart, and colours for categories.

Numbers a scores event carries that the spec does not declare are still
charted, with titles made from their key, so a new field never disappears.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Series:
    """One number of the scores events, charted over the steps.

    ``title`` and ``column`` may use ``{step}`` (the step word in lower
    case).  ``column`` heads the standings column of the last value; empty
    means the key, capitalised.
    """

    key: str
    title: str
    label: str
    column: str = ""


@dataclass(frozen=True)
class HistorySpec:
    """How the history reads one game's scores events (see the module docstring)."""

    step: str = "Turn"
    step_keys: tuple[str, ...] = ("turn",)
    series: tuple[Series, ...] = ()
    entity_fields: tuple[str, ...] = ()
    colours: dict[str, str] = field(default_factory=dict)

    @property
    def step_key(self) -> str:
        """The data key numbering the step (the first of ``step_keys``; none of them is charted)."""
        return self.step_keys[0]

    def series_for(self, key: str) -> Series | None:
        """The declared series of `key`, if any."""
        return next((s for s in self.series if s.key == key), None)


@dataclass(frozen=True)
class Slot:
    """One thing a player gives at most once per message: a Tribute, a ballot, the turn's event.

    ``words`` are the order words (upper case, aliases included) whose lines fill the slot.
    ``replaces`` says the rules let a later line of the same message replace an earlier one (a
    revisable secret answer: the engine keeps only the later); a message whose second line does
    anything else (plays both, answers two steps) is refused with both lines quoted.  Without
    ``replaces`` two lines for the slot are always refused.  A line of a ``reset`` word opens the
    slot anew (a new vote called in the same message takes its own ballot).  ``hint`` is added to
    the refusal (how to say what was probably meant).
    """

    name: str
    words: tuple[str, ...]
    replaces: bool = False
    reset: tuple[str, ...] = ()
    hint: str = ""


@dataclass(frozen=True)
class Option:
    """One option a game takes at creation (`pbem game new --option KEY=VALUE`): its key, what it does, and
    the values it accepts: one of ``choices``, or with ``whole`` a whole number of 0 or more."""

    key: str
    meaning: str
    choices: tuple[str, ...] = ()
    whole: bool = False

    def accepts(self) -> str:
        return "a whole number, 0 or more" if self.whole else " or ".join(self.choices)

    def read(self, value: Any) -> Any:
        """The value as the engine takes it; ValueError quoting it and saying what is accepted."""
        if self.whole and not isinstance(value, bool):
            try:
                number = int(str(value).strip())
            except ValueError:
                number = -1
            if number >= 0:
                return number
        elif not self.whole and str(value).strip().lower() in self.choices:
            return str(value).strip().lower()
        raise ValueError(f"option {self.key}={shown(value)}: {self.key} takes {self.accepts()} ({self.meaning})")


def shown(value: Any, limit: int = 80) -> str:
    """`value` as a refusal quotes it: at most `limit` characters and its length (a line, however long it was)."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def read_options(title: str, declared: tuple[Option, ...], given: dict[str, Any]) -> dict[str, Any]:
    """The options `given` for a game, each checked against what it declares; ValueError for a key it does
    not take (listing the keys it does) or a value its option does not accept."""
    known = {o.key: o for o in declared}
    out: dict[str, Any] = {}
    for key, value in given.items():
        option = known.get(key.strip().lower())
        if option is None:
            takes = "; ".join(f"{o.key}: {o.accepts()}" for o in declared)
            has = f"its options: {takes}" if takes else "it takes no options"
            raise ValueError(f"option {shown(key)}={shown(value)}: {title} has no option {shown(key)!r}; {has}")
        out[option.key] = option.read(value)
    return out
