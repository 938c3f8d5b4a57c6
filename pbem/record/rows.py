"""What the record hands out: frozen rows, plain data with the tables' column names.

The SQLModel tables (`pbem.record.models`) stay the one definition of the schema and what the
statements are built on; every read in `pbem.record` returns these instead (`store.plain`), so the
use cases hold values that no session tracks, that no code can change behind the record's back, and
that compare and hash like the data they are.  A changed copy is `dataclasses.replace(row, ...)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Game:
    name: str
    kind: str
    seed: str
    seed_commitment: str
    players_json: str
    created_at: datetime
    id: int | None = None
    insecure_seed: bool = False
    legacy_events: int = 0
    bindings: int = 0  # the format mark (`pbem.trust.asked.BINDINGS`), 0 for a game made before fairness25
    signing_key: str | None = None
    options_json: str = "{}"
    deadline_seconds: int = 172800
    resolve: str = "asap"


@dataclass(frozen=True, slots=True)
class Seat:
    game_id: int
    position: int
    player: str
    address: str
    created_at: datetime
    id: int | None = None
    display_name: str = ""
    code_hash: str = ""
    since_seq: int = 0
    thread: str = ""


@dataclass(frozen=True, slots=True)
class OrderInput:
    game_id: int
    seq: int
    kind: str
    lines_json: str
    created_at: datetime
    player: str = ""
    inbound_id: int | None = None
    hash: str = ""
    salt: str | None = None


@dataclass(frozen=True, slots=True)
class GameEvent:
    game_id: int
    seq: int
    input_seq: int
    kind: str
    text: str
    visibility_json: str
    data_json: str
    created_at: datetime
    hash: str = ""
    salt: str | None = None


@dataclass(frozen=True, slots=True)
class Deadline:
    game_id: int
    step: str
    due_at: datetime
    created_at: datetime
    id: int | None = None
    reason: str = "step opened"
