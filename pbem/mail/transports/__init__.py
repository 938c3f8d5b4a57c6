"""Transports behind one seam: the Maildir default, IMAP and SMTP, and how pbem connects and logs in."""
