import type { ContainerRecipe } from './container-root.js';

// The three machines the kernel guest (kernel-guest.ts) can be: Debian 13 and its own kernel for
// each architecture the package is built for, under qemu's software emulation. What differs is
// here: qemu's binary and machine, the console, the kernel package, and how the guest makes its
// controllers. amd64's kernel has hci_vhci (btvirt -l makes controllers straight away); the arm
// kernels have only hci_uart, as a Raspberry Pi's onboard controller is attached: btvirt serves an
// emulated controller on a socket, socat makes it a tty, btattach binds the tty to hci_uart.

export type DebianArchitecture = 'amd64' | 'arm64' | 'armhf';

export interface GuestArchitecture {
  debian: DebianArchitecture;
  /** The qemu binary, and the package that has it. */
  qemu: string;
  qemuPackage: string;
  /** qemu's machine and CPU arguments. */
  machine: readonly string[];
  /** The kernel's console device (console=). */
  console: string;
  recipe: ContainerRecipe;
  /** The kernel has hci_vhci (btvirt -l); every architecture has hci_uart. */
  vhci: boolean;
  /** The binfmt_misc entry qemu-user runs this architecture's programs by, on the host; none for the host's own. */
  binfmt?: string;
  memoryMb: number;
  cpus: number;
  /**
   * How much longer than amd64's a guest command may wait. The arm guests ran as fast as amd64's
   * in the runs of docs/reference/performance.md; the margin is for a busy machine and a slower qemu.
   */
  slowness: number;
}

/** What every guest's root holds beside its kernel: nodejs for the package, BlueZ and its test tools, socat for the UART. */
const GUEST_PACKAGES = ['systemd', 'passwd', 'nodejs', 'bluez', 'bluez-test-tools', 'rfkill', 'kmod', 'iproute2', 'util-linux', 'socat'];

/**
 * The initrd holds only what mounts the root disk: qemu's virtio disk and ext4 (the Bluetooth and
 * console modules load from the root, guest-init.sh). Set before the kernel is installed: with Debian's
 * MODULES=most every run copies hundreds of modules, a few minutes each under qemu-user for an arm
 * root (armhf's initrd even left virtio_blk out). conf.d and modules.d belong to no package.
 * Made once, at the end (STEPS_DONE_ONCE).
 */
export const SMALL_INITRD = [
  'mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"',
  'echo MODULES=list > "$1/etc/initramfs-tools/conf.d/panic-pair-test"',
  'printf "%s\\n" virtio_pci virtio_mmio virtio_blk ext4 crc32c_generic crc32c > "$1/usr/share/initramfs-tools/modules.d/panic-pair-test"',
];

/**
 * The three steps of a guest's root that cost most under qemu-user, measured on an arm64 root of
 * 674 s (docs/engineer/tests.md): the kernel's `depmod` (68 s; the host's own makes the same files in 8 s),
 * udev's `systemd-hwdb update` (63 s; the host's under a second), and mkinitramfs, which ran twice
 * (82 and 86 s: the kernel's postinst, then initramfs-tools' trigger). While the packages go in,
 * each is diverted to a no-op; once they are all in, the real ones are put back, the host makes
 * the module index and the hardware database, and the initrd is made once, in the root.
 */
const LATER = ['/usr/sbin/depmod', '/usr/sbin/update-initramfs', '/usr/bin/systemd-hwdb'];
const STEPS_PUT_OFF = LATER.map(
  (file) =>
    `dpkg-divert --root "$1" --local --rename --divert ${file}.panic-pair-later --add ${file} >/dev/null && printf '#!/bin/sh\nexit 0\n' > "$1${file}" && chmod 755 "$1${file}"`,
);
const STEPS_DONE_ONCE = [
  ...LATER.map((file) => `rm -f "$1${file}" && dpkg-divert --root "$1" --local --rename --divert ${file}.panic-pair-later --remove ${file} >/dev/null`),
  // The host's tools read the root's files as they are, whatever its architecture; the root's own under qemu-user when the host has none.
  'for v in "$1"/usr/lib/modules/*; do v=${v##*/}; if command -v depmod >/dev/null; then depmod -b "$1" -a "$v"; else chroot "$1" depmod -a "$v"; fi; done',
  'if command -v systemd-hwdb >/dev/null; then systemd-hwdb --root "$1" update --usr; else chroot "$1" systemd-hwdb update --usr; fi',
  'for v in "$1"/usr/lib/modules/*; do chroot "$1" update-initramfs -c -k "${v##*/}"; done',
];

const recipe = (architecture: DebianArchitecture, kernel: string): ContainerRecipe => ({
  suite: architecture === 'amd64' ? 'ble-kernel' : `ble-kernel-${architecture}`,
  release: 'trixie',
  packages: [kernel, ...GUEST_PACKAGES],
  ...(architecture === 'amd64' ? {} : { architecture }),
  essential: [...SMALL_INITRD, ...STEPS_PUT_OFF],
  customize: STEPS_DONE_ONCE,
});

export const GUEST_ARCHITECTURES: Record<DebianArchitecture, GuestArchitecture> = {
  amd64: {
    debian: 'amd64',
    qemu: 'qemu-system-x86_64',
    qemuPackage: 'qemu-system-x86',
    machine: ['-cpu', 'max', '-vga', 'none'],
    console: 'ttyS0',
    recipe: recipe('amd64', 'linux-image-amd64'),
    vhci: true,
    memoryMb: 1536,
    cpus: 1,
    slowness: 1,
  },
  arm64: {
    debian: 'arm64',
    qemu: 'qemu-system-aarch64',
    qemuPackage: 'qemu-system-arm',
    // A Raspberry Pi 4's core. With `-cpu max` (qemu 7.2) Node in the guest went wrong after a
    // minute or two: the agent stopped answering, then died of "object is not a function" inside
    // process.hrtime; max adds features (pointer authentication, BTI, SVE) that V8 uses when present.
    machine: ['-M', 'virt', '-cpu', 'cortex-a72'],
    console: 'ttyAMA0',
    recipe: recipe('arm64', 'linux-image-arm64'),
    vhci: false,
    binfmt: 'qemu-aarch64',
    memoryMb: 1024,
    cpus: 2,
    slowness: 4,
  },
  armhf: {
    debian: 'armhf',
    qemu: 'qemu-system-arm',
    qemuPackage: 'qemu-system-arm',
    // A Cortex-A15 has LPAE, which Debian's armmp-lpae kernel needs.
    machine: ['-M', 'virt', '-cpu', 'cortex-a15'],
    console: 'ttyAMA0',
    recipe: recipe('armhf', 'linux-image-armmp-lpae'),
    vhci: false,
    binfmt: 'qemu-arm',
    memoryMb: 1024,
    cpus: 2,
    slowness: 4,
  },
};
