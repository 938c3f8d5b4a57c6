"""Outbound mail: composing messages, the outbox row, and the sender threads that deliver it."""
