"""The Dynasties player's handbook (plain text, printed by `pbem rules dynasties`)."""

HANDBOOK = """\
DYNASTIES: PLAYER'S HANDBOOK
============================

2 to 6 players. Each Treasury starts at 50 Gold, the Stakes at 0 (DY-R8). A
Legacy agreed at creation (option legacy=N, default 0) goes to the winner,
split equally between tied winners. Seating is drawn at random (DY-R1).

THE CARDS (DY-R2)
52 Nobles: four lineages, Copper, Silver, Gold and Platinum, each with values
1 to 13. The 1 is the lineage's Coronation, the 13 its King. Type a card as
"Copper 7", "Gold Coronation" or "Gold 1", "Silver King" or "Silver 13".
Prefixes work: "cop 7", "g13", "plat k", "s cor". If only one card in your
hand fits, "7" or "king" alone is enough. Orders are case-insensitive.

A GAMBIT (DY-R6, DY-R20)
1. Enquire Prospects (from gambit 2, DY-R7): everyone with fewer than four
   Nobles flips the top card (public), pays its value into the Stakes and
   takes it, then draws up to four. Order: seats from the last First Player.
2. Tribute (secret and simultaneous, DY-R9): everyone with a card gives one.
   All are revealed together. Everyone pays the highest value H into the
   Stakes. First Player: the owner of the highest value given by exactly one
   player; if no value is unique, the next tied-at-H player in seat order
   after the last First Player (at random in gambit 1). No card: no Tribute,
   still pay H (DY-R10).
3. Raising the Family: three Turns (DY-R13). In each Turn every player plays
   one Noble, from the leader round the seats. The first Noble of a Turn
   always activates its power; a later one only if its value is equal or
   lower than the Noble played just before it (DY-R4). The highest value of
   a Turn leads the next (ties: who played it first, DY-R11). A player with
   no cards is skipped (DY-R12).
4. Conclusion: Family total = values, Coronation counts 11, +3 for every
   Noble of the Current Dynasty except the Coronation (DY-R5c, DY-R14). The
   highest total takes the Stakes. A tie for the top means another Turn for
   everyone, repeated while the tie remains; if nobody can play, the tied
   players split the Stakes, the remainder stays (DY-R18).
5. Into the Grave: Families and Tributes go to the Graveyard, except the
   latest Coronation, which stays in the Tribute Zone (DY-R5d).
6. Draw & Retirement (DY-R19): everyone draws one (most cards first; ties:
   the Stakes winner, then seats). Above six cards you discard down to six.
7. If any Treasury was 0 at the end of the Conclusion, the game ends: the
   most Gold wins (and the Legacy); Gold left in the Stakes is removed.
Paying: if you owe more than you have, you pay all you have (DY-R7).

POWERS (DY-R3), when activated
  * Copper - Coin of the Realm: take 2 Gold from the Stakes.
  * Silver - Courtiers: draw 1 Noble.
  * Gold - Royal Levy: every other player pays 1 Gold into the Stakes.
  * Platinum - Precedence: every other player with more Gold than you pays you 1.
Coronation played into a Family (DY-R5): all Kings in all Families go to the
Graveyard, its lineage becomes the Current Dynasty, then its power acts.

Pureblood (DY-R17): three Nobles of one lineage in your Family: every other
player pays you their median value (once per gambit).

Conclave (DY-R15, DY-R16): three Nobles of one value: take that value in
Gold from the Stakes, and choose up to two cards of the Tribute Zone to take
into your hand (once per gambit). Taking the Coronation that set the Current
Dynasty ends the Dynasty. Pureblood is settled before the Conclave choice.

ORDERS
  `TRIBUTE <card>`          your secret Tribute (alias TRIB). Revisable until
                            every Tribute is in; the last one resolves it.
      `TRIBUTE Gold 3`
  `PLAY <card>`             your play when asked.
      `PLAY Copper 7`
  `PLAYS <card>, <card>, ...`  `PLAY <a> THEN <b> THEN <c>`
                            a play list: each card is played automatically
                            when your play is due, if it is still in your
                            hand; otherwise you are asked. Send it with your
                            Tribute to play a whole gambit in one email. Sent
                            when it is your turn, the first card is played at
                            once. A new list replaces the old one (a
                            single PLAY when asked keeps the rest); lists
                            are cleared at each Conclusion.
      `PLAYS Copper 7, Gold 3, Silver 12`
      `PLAY c7 then g3 then s12`
  `CONCLAVE TAKE <0-2 cards>` choose Tribute Zone cards (alias TAKE ...).
                            Sent when not asked, it is kept as your standing
                            choice (HIGHEST and NONE stay until replaced; named
                            cards last for this gambit and apply only if all
                            are in the zone when your Conclave comes).
      `CONCLAVE TAKE Gold 9, Silver Coronation`
      `CONCLAVE TAKE NONE`
      `CONCLAVE TAKE HIGHEST`   the two highest values in the zone
  `DISCARD <cards>`         when asked, exactly the number over six (alias
                            DROP). Secret and simultaneous; revisable.
      `DISCARD Copper 2, Platinum 3`

One message may hold several orders, one per line, e.g.
      `TRIBUTE Gold 3`
      `PLAYS Copper 7, Silver 12, Platinum 5`
      `CONCLAVE TAKE HIGHEST`
A message is all-or-nothing: if any line is rejected, nothing changes and
the reply says why and lists what is legal.

DEADLINE DEFAULTS (NMR)
  * Tribute: your lowest card.
  * Play: your lowest card.
  * Conclave: the two highest values in the Tribute Zone.
  * Discard: your lowest cards.
"Lowest" means lowest value, ties broken Copper, Silver, Gold, Platinum.

WHAT YOU SEE
Everyone: Treasuries, Stakes, Legacy, Gold removed from play, the Tribute
Zone, the Current Dynasty, every Family with values and totals, hand sizes
and the deck size. Never the Graveyard (DY-R21), though every card played
face up stays in the game record. Only you: your hand and your orders on
file (Tribute, play list, conclave choice, discard).
"""
