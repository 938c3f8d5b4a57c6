"""The game record: tables, database sessions and the append-only store."""
