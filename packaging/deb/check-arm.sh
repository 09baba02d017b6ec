#!/usr/bin/env bash
# Builds the arm64 and armhf packages and loads each one's native module in a Debian root of that
# architecture, run by qemu-user (binfmt): too slow for CI, run by hand before a release. Prints the
# figures docs/install.md quotes. Root only (mmdebstrap, chroot).
#
#   packaging/deb/check-arm.sh [arm64] [armhf]
#
# Roots are made once under build/roots/: Debian 13 (trixie, Node 20) for arm64, and for armhf
# Debian 14 (forky, Node 24) with its libnode-dev, whose headers the module is then built
# against. Needs qemu-user-static, binfmt-support, arch-test, mmdebstrap, and the cross compilers
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

# A command in the root with a clean environment (none of this machine's Node settings).
inside() { local root="$1"; shift; chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

release_of() { case "$1" in arm64) echo trixie ;; armhf) echo forky ;; *) die "unknown architecture $1" ;; esac; }

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
      --include=nodejs,libnode-dev "$release" "$root" "$MIRROR" >&2
  fi
  printf '%s' "$root"
}

check_arch() {
  local arch="$1" root started built deb elf unpacked load installed
  root="$(root_for "$arch")"
  local nodedir=()
  if [ -f "$root/usr/include/node/node_version.h" ]; then nodedir=(--nodedir "$root/usr"); fi

  started=$SECONDS
  built="$(npm run --silent deb -- --arch "$arch" "${nodedir[@]}")"
  say "$built"
  deb="$(printf '%s\n' "$built" | head -n1)"
  local seconds=$((SECONDS - started))

  unpacked="$root/tmp/panic-pair-$arch"
  rm -rf "$unpacked"
  dpkg-deb -x "$deb" "$unpacked"
  local module="$unpacked/usr/lib/panic-pair/node_modules/@abandonware/bluetooth-hci-socket/build/Release/bluetooth_hci_socket.node"
  elf="$(file -b "$module")"
  say "  native module: $elf"

  # Loaded by the root's own node, emulated: the module's constructor opens a Bluetooth socket,
  # which this kernel refuses (EAFNOSUPPORT): proof that the arm code ran, not only that it loaded.
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  local status=0
  load="$(inside "$root" /usr/bin/node -e '
    const BluetoothHciSocket = require(process.argv[1]);
    try { new BluetoothHciSocket().bindRaw(0); console.log("bound hci0"); } catch (error) { console.log(`loaded; the socket says ${error.code ?? error.message}`); }
  ' "/tmp/panic-pair-$arch/usr/lib/panic-pair/node_modules/@abandonware/bluetooth-hci-socket" 2>&1)" || status=$?
  case "$load" in
    "loaded; the socket says"* | "bound hci0"*) ;;
    *) die "$arch: the module does not load: $load" ;;
  esac
  # bluetooth-hci-socket's destructor closes a libuv handle it never opened when socket() failed;
  # Node 24 runs it at exit and libuv aborts. Only where the kernel has no Bluetooth.
  if [ "$status" -ne 0 ]; then load="$(printf '%s' "$load" | head -n1); then node exited $status at exit ($(printf '%s' "$load" | grep -m1 -o 'Assertion.*failed' || echo 'see above'))"; fi
  say "  node $(inside "$root" /usr/bin/node -p 'process.version + " " + process.arch') under qemu: $load"
  say "  check: $(inside "$root" PANIC_PAIR_BLE=on /usr/bin/node "/tmp/panic-pair-$arch/usr/lib/panic-pair/bin/panic-pair.js" check 2>&1 | grep '^FAIL BLE\|^PASS BLE' || true)"
  umount "$root/proc" 2>/dev/null || true
  installed="$(dpkg-deb -f "$deb" Installed-Size)"
  printf '  figures: %s built in %s s, package %s kB, installed %s kB, Depends: %s\n' \
    "$arch" "$seconds" "$(( $(stat -c %s "$deb") / 1000 ))" "$installed" "$(dpkg-deb -f "$deb" Depends)"
  rm -rf "$unpacked"
}

for arch in "${arches[@]}"; do check_arch "$arch"; done
