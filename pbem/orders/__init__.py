"""Email body -> order lines (pure).  Per-game grammars live in the engines."""
