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
   * in the runs of docs/performance.md; the margin is for a busy machine and a slower qemu.
   */
  slowness: number;
}

/** What every guest's root holds beside its kernel: nodejs for the package, BlueZ and its test tools, socat for the UART. */
const GUEST_PACKAGES = ['systemd', 'passwd', 'nodejs', 'bluez', 'bluez-test-tools', 'rfkill', 'kmod', 'iproute2', 'util-linux', 'socat'];

/**
 * The initrd holds only what mounts the root disk: qemu's virtio disk and ext4 (the Bluetooth and
 * console modules load from the root, guest-init.sh). Set before the kernel is installed, so the
 * kernel's and initramfs-tools' own runs of mkinitramfs make it, and once each: with Debian's
 * MODULES=most every run copies hundreds of modules, a few minutes each under qemu-user for an arm
 * root (armhf's initrd even left virtio_blk out). conf.d and modules.d belong to no package.
 */
export const SMALL_INITRD = [
  'mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"',
  'echo MODULES=list > "$1/etc/initramfs-tools/conf.d/panic-pair-test"',
  'printf "%s\\n" virtio_pci virtio_mmio virtio_blk ext4 crc32c_generic crc32c > "$1/usr/share/initramfs-tools/modules.d/panic-pair-test"',
];

const recipe = (architecture: DebianArchitecture, kernel: string): ContainerRecipe => ({
  suite: architecture === 'amd64' ? 'ble-kernel' : `ble-kernel-${architecture}`,
  release: 'trixie',
  packages: [kernel, ...GUEST_PACKAGES],
  ...(architecture === 'amd64' ? {} : { architecture }),
  essential: SMALL_INITRD,
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
