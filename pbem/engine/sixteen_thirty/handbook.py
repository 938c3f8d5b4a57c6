"""Sixteen Thirty Something: the player's handbook (orders, examples, defaults, rulings)."""

HANDBOOK = """\
SIXTEEN THIRTY SOMETHING BY E-MAIL: PLAYER'S HANDBOOK

Write one order per line. Case does not matter. Card, country and player names may be
shortened to any unique prefix ("eng 2" = England 2, "hap" = Hapsburg Empire, "united"
= United Provinces). Several cards are separated by commas: "England 2, Open 1".
Cards: "<Country> 1|2|3", "Open 1|2", and the Special cards Vote, Unrest, Assassin,
Military Leader, Military Improvement, Increase Army Size, Increase Status (ST-R3).

SET-UP (ST-R8, secret and simultaneous)
  `PLACE-START England 2, France 1, Open 1 ON England`
    Three Influence cards from your hand. An Open card needs ON <country> unless you
    place only one named country. Alias: START ...   Default: your highest named cards.
    With fewer than three Influence cards you place all you can; with no named card: `PLACE-START NONE`.

YOUR TURN: send it all in one message. Phases run in order; each line is used when its
phase comes. Lines for a later phase are kept and used then if still legal; if not, they
are dropped and you are told (and asked). A new message that itself holds orders for later
phases replaces the orders you had kept; one that only answers the current question keeps
them. Lines for phases that never come (your turn ended) are ignored.
  1. `REMOVE <card> [FROM <country>]`      e.g. `REMOVE England 1`, `REMOVE Open 1 FROM Spain`
     (also `REMOVE <country> <card>`: `REMOVE Spain Open 1`)
     One card from a descendant pile (ST-R17). Never the last named card of a pile while
     an Open card is in it (ST-R13). Forced choices are made for you.
     Default: your lowest-value card, Open first.
  2. You draw 4 cards. When the deck runs out the discard pile is shuffled into a new deck
     at once. If the deck and the discard pile are both empty (six players can hold 78
     cards), you draw what there is, even nothing; the shortfall is not made up later, and
     the report says how many you drew and why fewer than four (ST-R21).
  3. `NO TRADE`   or   `TRADE WANT <types> [OFFER <types>]`          (ST-R15)
     Types: a country (any value), "Spain 3", Open, "Open 2", a Special card name,
     Special (any special), ANY, or NOTHING. e.g. `TRADE WANT Spain, Open OFFER Vote`
     Every other player then makes one secret offer (revealed together):
        `OFFER GIVE <cards|NOTHING> FOR <types|NOTHING> [SHOW]`   e.g. `OFFER GIVE France 2 FOR Spain`
        `NO OFFER`                                               (default)
     Everyone sees each offer as types (Spain, Open, Vote...); add SHOW to publish the exact
     cards you give. While the window is open you may revise TRADE WANT (offers are then
     asked again), at most TWICE per turn, so that a turn cannot be held open; a third
     TRADE WANT is refused (ST-R15). Then you answer:
        `ACCEPT <player> GIVING <cards|NOTHING>`   your cards must match their FOR types
        `DECLINE ALL`                              (default)
        `TRADE WANT ...`                           revise and ask again (two revisions at most)
     Each side gives 0-3 cards; at least one card moves. Only the two traders see the
     exact cards. Any later order (PLAY, CALL...) sent while a trade is open waits.
  4. Special cards, one at a time, at most two (ST-R14, caps ST-R7):
        `PLAY Military Improvement <country>`   (Military Ability +1, max 3)
        `PLAY Increase Army Size <country>`     (Army Size +1, max 5)
        `PLAY Increase Status <country>`        (Status +1, max 7)
        `PLAY Military Leader <country>`        (+2 in combat this turn; one per country)
        `PLAY Unrest <country>`                 (highest influence turns descendant or loses
                                                 a card; no attacks; -1 in combat this turn)
        `PLAY Assassin <player> <card> [FROM <country>]`   remove any card from any pile
                         (also: `ASSASSIN <player> <pile> <card>`, e.g. `ASSASSIN Tim Spain Open 2`)
                         On your own pile it follows ST-R13: while an Open card remains,
                         the last named card cannot go, so take the Open card first.
        `PLAY Vote`        then a CALL line for the extra vote (resolved before going on)
        `SPECIALS DONE`    (default; implied when your next line is a CALL or DISCARD)
     Aliases: LEADER, UNREST, ASSASSIN, MILITARY_IMPROVEMENT, INCREASE_ARMY, INCREASE_STATUS, or the
     card's name as your hand shows it (Military Leader Spain), with or without PLAY; NO TRADE is
     likewise implied by a PLAY or CALL line.
  5. The mandatory vote (ST-R9..R11):
        `CALL <country> ALIGN|SWITCH|REARM [PLACE <cards>]`
        `CALL <country> WAR <target> [PLACE <cards>]`
     e.g. `CALL England WAR France PLACE England 2, Open 1`
     "CALL <country>" alone is enough when only one issue is legal (a neutral country: ALIGN).
     Legal issues (ST-R10): neutral country: ALIGN. In a faction: SWITCH; WAR on a country of
     the other faction if your country has Army 1+ and no Unrest and the target has Status
     2+ or is adjacent (ST-R2); REARM if Army is 0. You need a pile there or place a named
     card there. No pile and no Influence card: no vote (ST-R11).
     Default: ALIGN/SWITCH in the country of your largest pile.
     You may add your own ballot right after: `VOTE RED|BLUE` (locked, secret until reveal;
     see LOCKED BALLOT below).
  6. `DISCARD <cards>`  if your hand is over 13 at the end of your turn (ST-R16).
     Default: your lowest-value cards.

VOTES (every vote, yours or another player's)
  Placement round: every player but the caller is asked, whatever they hold, so being
  asked reveals nothing. Answer `PLACE <cards>` or `PLACE NONE` (default).
  Only cards of that country or Open cards; never onto a descendant pile. Placements are
  secret until all are in. With a pile there, or a card you place now, you may add
  VOTE RED|BLUE in the same message (locked); without either you do not vote.

  LOCKED BALLOT (ST-R9): a VOTE sent with your PLACE (the caller: with the CALL) locks your
  ballot for that vote. It cannot be changed by any later message, in the placement round
  or in the voting round: a later VOTE is refused with the reason, and you are not asked
  again when the ballot opens. Send VOTE only when you are sure; otherwise wait for the
  ballot. You may still revise the cards you PLACE until the placements are revealed.

  Ballot: every player with a pile there (ascendant or descendant) votes
     `VOTE RED`  `VOTE BLUE`  weighted by the pile total; no abstaining.
  Meaning: ALIGN/SWITCH: the colour; WAR: RED = war, BLUE = peace; REARM: RED = re-arm.
  Default: the status quo (peace, no re-arming, keep faction; BLUE for ALIGN).
  Ballots are revealed together with the totals. Ties change nothing and nobody loses.
  Losers: an ascendant pile turns descendant; a descendant pile loses a card:
     `LOSE <card> [FROM <country>]`   (asked only if you have a real choice; default lowest)

WARS (ST-R5, ST-R6, ST-R12): two dice per country, the difference counts, plus Military
  Ability, +2 leader, -1 army size 0, -1 unrest, +1 England/Sweden defending at status 1 or
  less. Winner +1 status (not above 7, nothing from a status-0 loser); loser -1 status and
  -1 army (and -1 ability if its army was already 0). Tie: both armies -1.

STANDING ORDERS (send any time; they stay until changed; used only while legal)
  `STANDING PLACE NONE [EXCEPT <countries>]`  answer every placement round with NONE
                                            (except votes in the countries named)
  `STANDING PLACE ASK`                        be asked again
  `STANDING VOTE <country|ANY> <issue|ANY> RED|BLUE`   e.g. `STANDING VOTE Spain WAR BLUE`
                                            (most specific rule wins; a VOTE you send wins;
                                            not used in votes you call yourself)
  `STANDING VOTE CLEAR`
  `STANDING OFFER NONE`                       answer trade windows with NO OFFER
  `STANDING OFFER ASK`                        be asked again
  `STANDING CLEAR`                            forget all standing orders

END OF TURN: the moderator scores each of your secret victory counters as
  min(status, your influence there) (ST-R19). Totals are public, your breakdown private.
  Leaders and Unrest are removed, the First Player marker moves on. After turns 7, 8, 9 a
  d6 ends the game on 1, 2, 3 or less (ST-R4); the game always ends after turn 10.
  The final report reveals every counter, the score history and the seed. Tied leaders
  share the win (ST-R20).

EXAMPLE WHOLE TURN
  `REMOVE England 1`
  `NO TRADE`
  `PLAY Military Leader England`
  `CALL England WAR France PLACE England 3`
  `VOTE RED`
  `DISCARD Poland 1`
"""
