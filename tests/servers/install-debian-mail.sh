#!/bin/sh
# Install Dovecot (IMAP + LMTP) and Postfix from Debian packages, without
# configuring or starting any system service.  tests/servers/debian-mail.sh
# runs them from a private directory instead.  Needs root (or sudo).
# dovecot-core (pulled in by dovecot-imapd) has the oauth2 passdb and TLS; Postfix
# has TLS built in: the TLS + OAuth2 tier (tests/servers/secure.py) needs nothing more.
set -eu
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Postfix asks how to configure itself; we want no system configuration.
printf '%s\n' \
  "postfix postfix/main_mailer_type select No configuration" \
  "postfix postfix/mailname string localhost" \
  | $SUDO debconf-set-selections
# Do not let package scripts start daemons (no systemd in containers/CI).
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  dovecot-imapd dovecot-lmtpd postfix >/dev/null
echo "installed: $(/usr/sbin/dovecot --version 2>/dev/null | head -1) / postfix $(/usr/sbin/postconf -d -h mail_version 2>/dev/null)"
