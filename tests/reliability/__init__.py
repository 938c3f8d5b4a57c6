"""Reliability tests (issue 6): crash safety, concurrency, faults, hostile mail, secrecy at scale, migrations."""
