"""Every mail transport by the name `[mail] transport` gives (a leaf: the configuration checks
names against it and the seam opens the module it names, so neither imports the other)."""

from __future__ import annotations

#: Every transport, by the name `[mail] transport` gives: the module whose
#: `open_transport(cfg) -> (Inbox, Sender)` opens it (imported only when used).
#: A new transport is one module with that function and one line here.
TRANSPORTS: dict[str, str] = {
    "maildir": "pbem.mail.transports.maildir",
    "imap": "pbem.mail.transports.imapsmtp",
}
