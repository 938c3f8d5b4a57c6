"""Inbound mail (pure): reading a message, who sent it, loops, code redaction, fingerprints, the stored copy."""
