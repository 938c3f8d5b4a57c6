"""Italian Wars (Warpspawn), a 2-player card battle: French against Spanish.

Exports ENGINE.  Modules: cards (the 96-card list parsed from the rulebook),
rules (hand procedure and scoring), negation (battle-phase negation),
orders (order language), view (player views), handbook (player help),
engine (the contract object).
"""

from __future__ import annotations

from pbem.engine.italian_wars.engine import ItalianWars

ENGINE = ItalianWars()

__all__ = ["ENGINE", "ItalianWars"]
