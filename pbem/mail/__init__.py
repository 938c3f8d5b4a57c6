"""Mail: message parsing (pure), the transport seam, Maildir, IMAP and SMTP."""
