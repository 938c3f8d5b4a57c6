"""The Italian Wars player's handbook text (owns player help)."""

HANDBOOK = """\
ITALIAN WARS - player's handbook
================================

Two players: one French, one Spanish (Imperial-Spanish), assigned by lot at
set-up (IW-R1).  The first to win 8 hands in total, or 3 hands in a row, wins
the battle (IW-R4).  A tied hand is won by nobody and resets BOTH streaks
(IW-R3).

Orders are one per line, case-insensitive.  Card names may be shortened to
any unique prefix ("swiss sq" = Swiss Square).  Lists of cards are separated
by commas (or just spaces when the names are unambiguous).

A HAND
------
1. Tactics (secret, simultaneous).  You draw 8 cards (9 if you won the last
   hand).  The previous winner draws first, otherwise the French player
   (IW-R5).  You then discard 0-4 cards face down (0-5 if you lost the last
   hand) and draw replacements.  Only the number discarded is announced.
   If the deck runs out, the whole discard pile, including the cards just
   discarded, is shuffled into a new deck.

     `DISCARD <card>, <card>, ...`
         e.g. `DISCARD Light Cav, Trench`
     `DISCARD NONE`                   keep everything
   Aliases: DISC, DROP; NONE may also be NOTHING or 0.
   You may send DISCARD again to replace your answer until both players'
   discards are in.

   In the same message you may add standing orders for later in the hand:
     `LEADER-PREF <leader>, <leader>, ...`   which Leader to keep if you deploy
                                           several (first one you hold wins)
     `LEADER-PREF NONE`                    clear it
     `NEGATE-PLAN <own card> > <target>; <own card> > <target>; ...`
     `NEGATE-PLAN NONE`                    always pass in negation
   e.g. `NEGATE-PLAN Resist Cav > French Horsemen; Cross Stream > Hill`
   Aliases: PREF, PREFER, LEADERPREF; PLAN, NEGATEPLAN.  LEADER <card> sent
   during the discard step is read as LEADER-PREF <card>.

2. Deployment (IW-R6).  Both hands are revealed at once and every usable
   card is deployed.  Unusable cards are discarded face up, checked in this
   order: the other side's F/S cards; WON cards if you did not win the last
   hand, LOST cards if you did not lose it (none in hand 1 or after a tie,
   IW-R2, IW-R10); Defense (D) cards if you won the last hand; extra Leaders.
   With two or more Leaders and no usable LEADER-PREF you are asked:
     `LEADER <card>`                  e.g. `LEADER Great Captain`
   Alias: KEEP.

3. Negation (IW-R11).  A coin decides who acts first, every hand.  Players
   alternate; on your action you use ONE unused Negate effect of one of your
   deployed cards against one enemy card of the stated class, or pass:
     `NEGATE <own card> > <target card>`   e.g. `NEGATE Resist Cav > Lancers`
     `NEGATE <own card> <target card>`     the ">" may be left out if clear
     `PASS`
   Alias: NEG.  The negated card is discarded with its bonus and its own
   unused Negate effect.  Each Negate card acts once.  Negation ends after
   two passes in a row, or when neither player has a legal negation.  A
   player with no legal negation passes automatically and is not asked.
   With a NEGATE-PLAN on file, one item is carried out per action (items
   not legal at that moment are skipped); when the plan is used up you pass.
   You may also send NEGATE-PLAN during negation.
   "Negate an IS card" (Spanish Swordsmen) means an IK card (IW-R8).

4. Battle count (IW-R9).  Each card's Force = printed Force + the bonuses
   from your OTHER remaining cards of the named class + the penalties from
   the enemy's cards ("Enemy Cavalry gets -3"), never below 0.  Effects
   stack.  A card never buffs itself.  The highest total wins the hand.
   Classes (IW-R7): IK = Infantry+Shock, IM = Infantry+Missile, IT =
   Infantry+Tactics.  "Tactics" matches T and IT; "IK" matches IK; "IM"
   matches IM; Cavalry = C, Artillery = A, Defense = D, Leader = L,
   Morale = X.  All cards are then discarded and the next hand begins.

DEADLINES (NMR)
---------------
If you send nothing by the deadline: you discard nothing (DISCARD NONE);
you keep your highest-Force Leader (ties: the card listed first); you pass
in negation.

WHAT YOU SEE
------------
Everyone sees the sides, hands won, streaks, deck and discard counts, the
deployed cards with their Forces and arithmetic, and every negation.  Only
you see your hand during Tactics and your standing orders.  The cards each
player discarded face down are revealed when the game ends.
"""
