"""The use-case layer: what pbem does with a message, a deadline or a moderator command.

Decide, then do (docs/architecture.md, principle 9).  Pure functions decide
(`intake.decide` for an inbound message, `deadlines.decide_deadline` and
`decide_reminders`, the `control.decide_*` commands, the join step's
`join.decide_*`) and return a
`decision.Decision`; `apply.apply` writes one inside the caller's
transaction.  `poll`, `games`, `deadlines` and `control` are the shells that
load what a decision needs, call it and commit.  The CLI calls only this
package; this package calls the engines, the record and the mail layer, which
never import it back (tests/test_layers.py).
"""
