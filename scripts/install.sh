#!/usr/bin/env bash
# Installs sqlited as a systemd service: the release binary, the configuration and the unit files.
#
#   sudo scripts/install.sh                  # build (release) and install under /usr/local
#   sudo PREFIX=/opt/sqlited scripts/install.sh
#   DESTDIR=/tmp/stage scripts/install.sh    # stage into a directory (packaging; no systemctl calls)
#
# An existing /etc/sqlited/sqlited.yaml is never overwritten (the new default is put beside it as .dist).
# Then: systemctl enable --now sqlited   (or sqlited.socket for socket activation).
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX="${PREFIX:-/usr/local}"
DESTDIR="${DESTDIR:-}"
SYSCONFDIR="${SYSCONFDIR:-/etc/sqlited}"
UNITDIR="${UNITDIR:-/etc/systemd/system}"
SWIFT="${SWIFT:-swift}"
BINARY="${BINARY:-}"

if [ -z "$BINARY" ]; then
    "$SWIFT" build -c release --product sqlited
    BINARY="$("$SWIFT" build -c release --show-bin-path)/sqlited"
fi

install -d "$DESTDIR$PREFIX/bin" "$DESTDIR$SYSCONFDIR" "$DESTDIR$UNITDIR"
install -m 0755 "$BINARY" "$DESTDIR$PREFIX/bin/sqlited"

# The shipped configuration with the database in the service's state directory.
config_tmp="$(mktemp)"
trap 'rm -f "$config_tmp"' EXIT
sed 's|^  path: "data/sqlited.sqlite"|  path: "/var/lib/sqlited/sqlited.sqlite"|' config/sqlited.yaml >"$config_tmp"
if [ -e "$DESTDIR$SYSCONFDIR/sqlited.yaml" ]; then
    install -m 0644 "$config_tmp" "$DESTDIR$SYSCONFDIR/sqlited.yaml.dist"
    echo "kept $SYSCONFDIR/sqlited.yaml (new default: sqlited.yaml.dist)"
else
    install -m 0644 "$config_tmp" "$DESTDIR$SYSCONFDIR/sqlited.yaml"
fi

for unit in sqlited.service sqlited.socket; do
    sed -e "s|/usr/local/bin/sqlited|$PREFIX/bin/sqlited|g" -e "s|/etc/sqlited/|$SYSCONFDIR/|g" \
        "deploy/$unit" >"$config_tmp"
    install -m 0644 "$config_tmp" "$DESTDIR$UNITDIR/$unit"
done

"$DESTDIR$PREFIX/bin/sqlited" check-config --config "$DESTDIR$SYSCONFDIR/sqlited.yaml"

if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    echo "installed; start with: systemctl enable --now sqlited   (or: systemctl enable --now sqlited.socket)"
else
    echo "installed into ${DESTDIR:-/} (systemd not running here: run 'systemctl daemon-reload' on the target)"
fi
