"""House of Habsburg player handbook and order syntax summary (plain text, cites ruling ids)."""

from __future__ import annotations

SYNTAX: tuple[str, ...] = (
    "MELD <Person> <Holding|TOP> <Claim>   (repeatable, Meld Phase only)",
    "EVENT SUCCESSION <card> TARGET <player> <meld-id>",
    "EVENT DISASTER <card> TARGET <player> <meld-id>",
    "EVENT CLAIM <card> TARGET <player>",
    "EVENT PERSON <card>",
    "NO EVENT   (aliases: PASS, NONE)",
    "DISCARD-IF-NEEDED LOWEST|HIGHEST|<cards in order>",
    "DISCARD <cards in order> | DISCARD LOWEST | DISCARD HIGHEST",
    "END",
)

HANDBOOK = """\
HOUSE OF HABSBURG - player handbook (3 to 6 players)

THE GAME
Each player leads a branch of the Habsburgs and melds Holdings to score.
Score at the end = Victory Tokens + printed values of the Holdings in the
melds you control (HH-R2). Ties: higher Holding total, then more melds,
then a shared win (HH-R3). Seating is drawn at random; the first seat
starts and play goes in seat order (HH-R4). Everyone starts with 3 cards.

The deck: 90 cards, one of each: 20 Holdings (H), 25 Persons (P),
25 Claims (C), 10 Disasters (D), 10 Successions (S), values 1 to 5.
Public: melds, tokens, the whole discard pile, hand sizes, deck count.
Private: your hand (HH-R11).

YOUR TURN (only the player to play is ever asked)
1. Draw: automatic, 1 card; skipped once the deck is empty (HH-R5b).
2. Meld Phase: any number of melds, each exactly 1 Person + 1 Holding +
   1 Claim from your hand. Instead of a Holding from hand you may use the
   top card of the discard pile if it is a Holding: write TOP (or its
   name). After you take it, the card beneath may be used by a further
   meld if it is a Holding too (HH-R6). Each meld earns Victory Tokens
   equal to its Person's value; tokens are never lost (HH-R1).
3. Event Phase: at most one event, optional (HH-R9). Holdings are never
   events. Once you play an event (or NO EVENT) you cannot meld again this
   turn, so cards drawn by a Person event wait for a later turn.
4. End Phase: if you hold more than 5 cards, discard down to 5 (HH-R10).
   The limit is checked only in your own End Phase.

ORDERS (one per line, case-insensitive; cards and players by unique prefix)
  `MELD <Person> <Holding|TOP> <Claim>`
      `MELD Otto Spain King`  `MELD maria th top archduke`
      The three cards may be given in any order.
  `EVENT SUCCESSION <card> TARGET <player> <meld-id>`
      Take another player's meld whose Claim value is <= the card's value.
      It moves intact (all three cards); nobody gains or loses tokens.
  `EVENT DISASTER <card> TARGET <player> <meld-id>`
      Discard another player's meld whose Person value is <= the card's
      value. The cards go on the pile Claim, Person, Holding: the Holding
      ends on top, ready for the next player's TOP (HH-R7).
  `EVENT CLAIM <card> TARGET <player>`
      Take one random card from the hand of another player who holds at
      least one card. You and the victim learn which card; the others only
      learn that one card moved (HH-R8).
  `EVENT PERSON <card>`
      Discard a Person to draw 2 cards (fewer if the deck runs out).
  `NO EVENT`      (aliases: PASS, NONE) play no event; ends your turn if
                  your hand is 5 cards or fewer.
  `DISCARD <cards in order>`
      End Phase: discard these, the last one ending on top of the pile
      (HH-R7). Discarding stops as soon as you are down to 5.
  `DISCARD LOWEST`  `DISCARD HIGHEST`
      Discard your lowest- (or highest-) valued cards down to 5; equal
      values go in the order of your hand list.
  `DISCARD-IF-NEEDED LOWEST|HIGHEST|<cards in order>`
      A conditional discard sent earlier in the same message or turn: it is
      used in your End Phase only if your hand is above 5, so you never get
      a second prompt. A DISCARD line sent before your event is read the
      same way. With a card list, listed cards still in hand go first; if
      the list is too short you are asked for the rest.
  `END`           ends your turn (same as NO EVENT in the Meld/Event Phase).

Shorter event forms: the word EVENT, the type word and TARGET may be left
out and the type is read from the card:
      `SUCCESSION Third Bob M3`  `DISASTER Extinction M4`
      `CLAIM Duke Carol`  `PERSON Otto`  `EVENT Otto`
      `PLAY Duke TARGET Carol`
If you name a player and a meld, the meld must belong to that player.

MELD IDS
Every meld gets an id when it is made: M1, M2, M3 ... in order over the
whole game. The id stays with the meld when it is stolen. Type it as M3,
m3 or 3. The Melds table in every report lists the ids.

A WHOLE TURN IN ONE MESSAGE
      `MELD Otto TOP King`
      `MELD Rudolph Bohemia Duke`
      `EVENT CLAIM Marriage TARGET Carol`
      `DISCARD-IF-NEEDED LOWEST`
Lines are applied in order. If any line is rejected nothing is applied
and the reply lists why and what is legal. END, NO EVENT, DISCARD or
DISCARD-IF-NEEDED lines that arrive after your turn already ended in the
same message (no discard was needed) are accepted and do nothing; any
other order after that point is rejected.
Only the player to play may send orders; nothing is kept for later turns.

DEADLINES (NMR)
If you send nothing by the deadline: no meld, no event, and you discard
down to 5 keeping your highest-valued cards (DISCARD-IF-NEEDED LOWEST,
NO EVENT; in the End Phase DISCARD LOWEST).

GAME END (HH-R5)
The discard pile is never reshuffled. The game ends at once when the deck
and every hand are empty, or, once the deck is empty, after N turns in a
row (N = number of players) with no meld and no event; End-Phase discards
do not count as plays. A player with no cards when the deck is empty
passes automatically. At the end all hands are revealed.
"""
