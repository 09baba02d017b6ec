#!/usr/bin/env bash
# Installs panic-pair as a systemd service on Raspberry Pi OS or Debian. Idempotent: run it again
# to upgrade, or to repair modes and owners. Run as root from a built package folder (one where
# `npm ci && npm run build` has been run), e.g.:
#
#   sudo systemd/install.sh --api-url https://api.example.com --customer-id 42 --token-file ./token
#
# Options:
#   --api-url URL        the panic-api address, written to /etc/panic-pair/config.json
#   --customer-id N      the hub's customer, written to /etc/panic-pair/config.json
#   --token-file FILE    installed as /etc/panic-pair/api-token (root, 0600); FILE may be /dev/stdin
#   --add-user NAME      adds NAME to group panic-pair, so NAME can use the CLI without sudo
#   --web-code-file FILE the installer code of the page, installed as /etc/panic-pair/installer-code
#                        (root, 0600) and handed to the daemon as a systemd credential
#   --web-listen H:P     turns the installer's page on at H:P (e.g. 0.0.0.0:8080), in config.json
#   --no-npm             copy only; skip `npm ci` (for packaging, and for DESTDIR runs)
#   --require-ble        fail when the Bluetooth (HCI) module cannot be built, instead of
#                        installing with BLE off (pairing over MQTT only)
# Environment:
#   DESTDIR              install under this root instead of /, touching nothing else: no user,
#                        group or systemctl changes (they are printed); for packaging and tests
set -euo pipefail

readonly NAME=panic-pair
readonly MIN_NODE=20.17
readonly SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT="${DESTDIR:-}"
readonly PREFIX="/opt/$NAME"
readonly ETC="/etc/$NAME"
readonly UNIT="/etc/systemd/system/$NAME.service"
readonly LINK="/usr/local/bin/$NAME"

api_url='' customer_id='' token_file='' add_user='' npm=yes web_code_file='' web_listen='' require_ble=no

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --api-url) api_url="${2:?--api-url needs a URL}"; shift 2 ;;
    --customer-id) customer_id="${2:?--customer-id needs a number}"; shift 2 ;;
    --token-file) token_file="${2:?--token-file needs a file}"; shift 2 ;;
    --add-user) add_user="${2:?--add-user needs a user name}"; shift 2 ;;
    --web-code-file) web_code_file="${2:?--web-code-file needs a file}"; shift 2 ;;
    --web-listen) web_listen="${2:?--web-listen needs host:port}"; shift 2 ;;
    --no-npm) npm=no; shift ;;
    --require-ble) require_ble=yes; shift ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

# Changes to the running system; with DESTDIR they are shown instead.
system() {
  if [ -n "$ROOT" ]; then say "would run: $*"; else "$@"; fi
}

check_node() {
  local node version
  node="$(command -v node)" || die "Node $MIN_NODE or newer is needed (from the distribution or NodeSource)"
  version="$(node -p 'process.versions.node')"
  node -e "const [a,b]=process.argv[1].split('.').map(Number),[c,d]=process.argv[2].split('.').map(Number);process.exit(a>c||(a===c&&b>=d)?0:1)" \
    "$version" "$MIN_NODE" || die "Node $version is too old: $MIN_NODE or newer is needed"
  # The unit runs `#!/usr/bin/env node` with systemd's PATH and ProtectHome=yes: a node under a
  # home directory (nvm) cannot be seen by the service.
  case "$node" in
    /usr/bin/node | /usr/local/bin/node) ;;
    *) die "node is at $node; install it system-wide (/usr/bin/node or /usr/local/bin/node) for the service to find it" ;;
  esac
  say "Node $version at $node"
}

check_package() {
  [ -f "$SOURCE/package.json" ] && [ -f "$SOURCE/systemd/$NAME.service" ] || die "run me from the panic-pair package folder ($SOURCE is not one)"
  [ -f "$SOURCE/dist/cli/main.js" ] || die "the package is not built: run \`npm ci && npm run build\` in $SOURCE first"
}

# Before anything changes: what the configuration will need.
check_arguments() {
  if [ ! -f "$ROOT$ETC/config.json" ] && { [ -z "$api_url" ] || [ -z "$customer_id" ]; }; then
    die "first install: give --api-url and --customer-id (they go to $ETC/config.json)"
  fi
  [ -z "$customer_id" ] || [[ "$customer_id" =~ ^[0-9]+$ ]] || die "--customer-id must be a whole number, not $customer_id"
  [ -z "$token_file" ] || [ -r "$token_file" ] || die "cannot read --token-file $token_file"
  [ -z "$web_code_file" ] || [ -r "$web_code_file" ] || die "cannot read --web-code-file $web_code_file"
}

# Copied to a fresh folder that replaces the old one whole, so an upgrade never mixes versions.
install_package() {
  local staging="$ROOT$PREFIX.new"
  rm -rf "$staging"
  mkdir -p "$staging"
  cp -R "$SOURCE/bin" "$SOURCE/dist" "$SOURCE/docs" "$SOURCE/systemd" "$SOURCE/scripts" "$SOURCE/package.json" "$staging/"
  for file in package-lock.json README.md; do
    if [ -f "$SOURCE/$file" ]; then cp "$SOURCE/$file" "$staging/"; fi
  done
  if [ "$npm" = yes ]; then
    # --ignore-scripts: the package's own `prepare` builds with dev tools the hub does not get.
    (cd "$staging" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund)
    build_ble "$staging"
  fi
  chmod -R u=rwX,go=rX "$staging"
  if [ -e "$ROOT$PREFIX" ]; then rm -rf "$ROOT$PREFIX.old" && mv "$ROOT$PREFIX" "$ROOT$PREFIX.old"; fi
  mv "$staging" "$ROOT$PREFIX"
  rm -rf "$ROOT$PREFIX.old"
  mkdir -p "$ROOT$(dirname "$LINK")"
  ln -sfn "$PREFIX/bin/$NAME.js" "$ROOT$LINK"
  say "package in $PREFIX; $LINK links to it"
}

# The HCI module (@stoprocent/bluetooth-hci-socket, Node-API, installed where noble requires
# @abandonware/bluetooth-hci-socket): its sources get panic-pair's descriptor fix
# (scripts/hci-module.mjs says why), and its install script compiles them, told to build from
# source (npm 11 and later run it because package.json's allowScripts allows it). The module's
# prebuilt binaries lack the fix and are refused. npm says "rebuilt dependencies successfully" even
# when it skipped or blocked the script, so the verdict is whether the fixed build loads afterwards,
# as noble loads it.
build_ble() {
  local dir="$1" log why
  if [ ! -d "$dir/node_modules/@abandonware/noble" ]; then
    ble_off "npm did not install the optional Bluetooth module (@abandonware/noble)" ''
    return
  fi
  log="$(mktemp -t panic-pair-ble-build.XXXXXX)"
  say "building the Bluetooth (HCI) module; its log goes to $log"
  local_headers
  node "$dir/scripts/hci-module.mjs" --fix-only "$dir" >"$log" 2>&1 || die "cannot fix the HCI module's sources: $(tail -n 1 "$log")"
  (cd "$dir" && npm_config_build_from_source=true npm rebuild @abandonware/bluetooth-hci-socket --foreground-scripts) >>"$log" 2>&1 || true
  if why="$(node "$dir/scripts/hci-module.mjs" --check "$dir" 2>&1)"; then
    rm -f "$log"
    say "Bluetooth: the HCI module loads"
    return
  fi
  # Node prints the failing source line first; the error's own line starts with its name.
  why="$(printf '%s\n' "$why" | grep -m1 -E '^[A-Za-z]*Error' || printf '%s' "$why" | head -n1)"
  ble_off "the HCI module does not load: $why" "$log"
}

# node-gyp downloads Node's headers unless told where they are: a hub offline or behind a mirror
# then loses the module. Node's own headers beside it (NodeSource's nodejs, libnode-dev of the same
# version) are used when npm was not told otherwise.
local_headers() {
  local prefix
  [ -z "${npm_config_nodedir:-}" ] || return 0
  prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$prefix/include/node/node_version.h" ] &&
    [ "$(node -p 'process.versions.node.split(".")[0]')" = "$(sed -n 's/^#define NODE_MAJOR_VERSION \([0-9]*\).*/\1/p' "$prefix/include/node/node_version.h")" ]; then
    export npm_config_nodedir="$prefix"
    say "using Node's headers in $prefix/include/node"
  fi
}

# BLE off: said where it cannot be missed, with why and the fix; with --require-ble, a failure.
ble_off() {
  local why="$1" log="$2"
  {
    say "install.sh: BLUETOOTH WILL BE OFF: $why"
    if [ -n "$log" ]; then
      say "install.sh:   the build's last errors (all of it in $log):"
      grep -E 'gyp ERR!|blocked|not found|error' "$log" | tail -n 5 | sed 's/^/install.sh:     /' || true
    fi
    if [ -n "$log" ] && ! grep -q 'gyp' "$log"; then
      say "install.sh:   npm did not run the module's install script: ignore-scripts is set (npm config get ignore-scripts), or this copy's package.json lacks allowScripts"
      say "install.sh:   fix: npm config delete ignore-scripts (or unset npm_config_ignore_scripts), then run me again"
    else
      say "install.sh:   fix: sudo apt-get install build-essential python3 (offline: also npm_config_nodedir=/usr, Node's headers), then run me again"
    fi
    say "install.sh:   pairing over MQTT works without it; \`panic-pair check\` says the same"
  } >&2
  [ "$require_ble" = no ] || die "--require-ble: stopping; the installed package is left as it was"
}

create_user() {
  if [ -n "$ROOT" ] || ! getent group "$NAME" >/dev/null; then system groupadd --system "$NAME"; fi
  if [ -n "$ROOT" ] || ! id -u "$NAME" >/dev/null 2>&1; then
    system useradd --system --gid "$NAME" --home-dir "/var/lib/$NAME" --no-create-home --shell /usr/sbin/nologin "$NAME"
  fi
  if [ -n "$add_user" ]; then system usermod -aG "$NAME" "$add_user"; fi
}

# /etc/panic-pair/config.json: created, or updated with the values given (other keys kept).
write_config() {
  local config="$ROOT$ETC/config.json"
  mkdir -p "$ROOT$ETC"
  chmod 0755 "$ROOT$ETC"
  node -e '
    const fs = require("node:fs");
    const [file, apiUrl, customerId, webListen] = process.argv.slice(1);
    const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
    if (apiUrl) config.apiUrl = apiUrl;
    if (customerId) config.customerId = Number(customerId);
    if (webListen) config.webListen = webListen;
    fs.writeFileSync(file + ".new", JSON.stringify(config, null, 2) + "\n", { mode: 0o644 });
    fs.renameSync(file + ".new", file);
  ' "$config" "$api_url" "$customer_id" "$web_listen"
  chmod 0644 "$config"
  system chown root:root "$ETC/config.json"
  say "configuration in $ETC/config.json"
}

# A secret given on the command line, copied to $ETC/NAME as root's, 0600. FROM may be /dev/stdin.
install_secret() {
  local from="$1" name="$2" option="$3"
  (umask 077 && cat -- "$from" >"$ROOT$ETC/$name.new") || die "cannot read $option $from"
  mv "$ROOT$ETC/$name.new" "$ROOT$ETC/$name"
  system chown root:root "$ETC/$name"
}

# Root's, 0600: systemd reads it as root (LoadCredential) and hands the daemon a private copy.
write_token() {
  local token="$ROOT$ETC/api-token"
  if [ -n "$token_file" ]; then install_secret "$token_file" api-token --token-file; fi
  if [ -f "$token" ]; then
    # The owner is left as it is: docs/operator/rotation.md shows a panic-pair-owned token for reload.
    chmod 0600 "$token"
    say "API token in $ETC/api-token (mode 0600)"
  else
    say "no API token yet: write it with: sudo sh -c 'umask 077; cat > $ETC/api-token' (then paste it, Ctrl-D)"
  fi
}

# The installer code: root's, 0600, like the token. The daemon (user panic-pair) reads systemd's
# private copy (LoadCredential), named to it by a drop-in, so the file itself stays root's.
readonly WEB_DROP_IN="/etc/systemd/system/$NAME.service.d/installer-code.conf"
write_web_code() {
  local code="$ROOT$ETC/installer-code"
  if [ -n "$web_code_file" ]; then install_secret "$web_code_file" installer-code --web-code-file; fi
  [ -f "$code" ] || return 0
  chmod 0600 "$code"
  mkdir -p "$ROOT$(dirname "$WEB_DROP_IN")"
  printf '%s\n' '# Written by install.sh: the installer code of the page, as a credential.' '[Service]' \
    "LoadCredential=installer-code:$ETC/installer-code" 'Environment=PANIC_PAIR_WEB_CODE_FILE=%d/installer-code' >"$ROOT$WEB_DROP_IN"
  chmod 0644 "$ROOT$WEB_DROP_IN"
  say "installer code in $ETC/installer-code (mode 0600), given to the daemon by $WEB_DROP_IN"
}

install_unit() {
  mkdir -p "$ROOT$(dirname "$UNIT")"
  install -m 0644 "$SOURCE/systemd/$NAME.service" "$ROOT$UNIT"
  system systemctl daemon-reload
  system systemctl enable "$NAME.service"
  # An upgrade restarts a running daemon; a first install waits for the installer's go.
  system systemctl try-restart "$NAME.service"
  say "unit $UNIT installed and enabled"
}

main() {
  if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then die "run me as root (sudo)"; fi
  check_node
  check_package
  check_arguments
  create_user
  install_package
  write_config
  write_token
  write_web_code
  install_unit
  say ""
  say "Next:"
  printf '  %-40s # %s\n' \
    "sudo $NAME check" 'the pre-flight: every line should pass' \
    "sudo systemctl enable --now $NAME" 'start it now and at every boot' \
    "journalctl -u $NAME -f" 'follow its log' \
    "sudo usermod -aG $NAME \$USER" "use $NAME without sudo (log in again)"
}

main
