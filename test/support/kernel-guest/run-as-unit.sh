#!/bin/sh
# Runs the installed package's daemon as its unit (/usr/lib/systemd/system/panic-pair.service)
# does, in a guest without systemd: the unit's ExecStart= and Environment=, as its User= and Group=
# (with the user's groups), with only its AmbientCapabilities=, no new privileges, its UMask=, and
# the directories and credentials systemd would make. Extra arguments go to ExecStart.
set -eu
unit=/usr/lib/systemd/system/panic-pair.service
value() { sed -n "s/^$1=//p" "$unit"; }
user=$(value User)
group=$(value Group)
creds=/run/credentials/panic-pair.service
install -d -o "$user" -g "$group" -m "$(value StateDirectoryMode)" "/var/lib/$(value StateDirectory)"
install -d -o "$user" -g "$group" -m "$(value RuntimeDirectoryMode)" "/run/$(value RuntimeDirectory)"
install -d -o "$user" -m 0500 "$creds"
install -o "$user" -m 0400 /etc/panic-pair/api-token "$creds/api-token"
value SetCredential | sed -n 's/^installer-code://p' | tr -d '\n' > "$creds/installer-code"
chown "$user" "$creds/installer-code"
chmod 0400 "$creds/installer-code"
export STATE_DIRECTORY="/var/lib/$(value StateDirectory)" RUNTIME_DIRECTORY="/run/$(value RuntimeDirectory)"
export CONFIGURATION_DIRECTORY="/etc/$(value ConfigurationDirectory)" CREDENTIALS_DIRECTORY="$creds"
# Each Environment= line as systemd reads it: one quoted assignment ("NODE_OPTIONS=--a --b"), or
# assignments apart at spaces.
value Environment | sed "s|%d|$creds|g" | while IFS= read -r line; do
  case $line in
    \"*\") printf 'export %s\n' "'${line#\"}'" | sed "s/\"'\$/'/" ;;
    *) for assignment in $line; do printf "export '%s'\n" "$assignment"; done ;;
  esac
done > /tmp/panic-pair-unit-environment
. /tmp/panic-pair-unit-environment
# AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN -> +net_raw,+net_admin
caps=$(value AmbientCapabilities | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
umask "$(value UMask)"
exec setpriv --reuid="$user" --regid="$group" --init-groups \
  --inh-caps="-all,$caps" --ambient-caps="-all,$caps" --bounding-set="-all,$caps" --no-new-privs \
  $(value ExecStart) "$@"
