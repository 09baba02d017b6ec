import { containerUnavailable } from './container.js';
import type { ContainerRecipe } from './container-root.js';
import { GUEST_ARCHITECTURES, type DebianArchitecture } from './guest-architecture.js';
import { kernelGuestUnavailable } from './kernel-guest.js';

// Every root file system the suites boot, with the suites that boot it, in the order a run builds
// them (roots.global-setup.ts): the containers' first (Debian's own architecture, a minute or two
// each, so the container suites can start early), then the kernel guests', arm under qemu-user last.

/** Debian 12 under systemd, booted with the host's node (test/systemd/live-systemd.test.ts). */
export const LIVE_SYSTEMD_RECIPE: ContainerRecipe = { suite: 'live-systemd', release: 'bookworm', packages: ['systemd', 'systemd-sysv', 'dbus'] };
/**
 * Debian 13 (trixie, its own nodejs 20.19) under systemd, where the package is installed with apt:
 * the suites that share it (deb-package, store-upgrade) share its cached root.
 */
export const PACKAGE_RECIPE: ContainerRecipe = { suite: 'deb-package', release: 'trixie', packages: ['systemd', 'systemd-sysv', 'dbus', 'nodejs'] };
/** A hub set up by cloud-init at its first boot. */
export const PROVISION_RECIPE: ContainerRecipe = { suite: 'provision-cloud-init', release: 'trixie', packages: ['systemd', 'systemd-sysv', 'dbus', 'nodejs', 'cloud-init'] };
/** A hub that takes its updates with unattended-upgrades. */
export const APT_UPDATES_RECIPE: ContainerRecipe = { suite: 'apt-updates', release: 'trixie', packages: ['systemd', 'systemd-sysv', 'dbus', 'nodejs', 'unattended-upgrades'] };

export interface TestRoot {
  recipe: ContainerRecipe;
  /** The test files that boot it (a run given file filters builds the roots of the files it runs). */
  usedBy: readonly string[];
  /** A kernel guest's root: its suites wait for every root of the run, never running beside a build. */
  kernel: boolean;
  /** Why it cannot be used here (its suites skip saying so), or undefined. */
  unavailable(): string | undefined;
}

const container = (recipe: ContainerRecipe, ...usedBy: string[]): TestRoot => ({ recipe, usedBy, kernel: false, unavailable: containerUnavailable });
const kernel = (architecture: DebianArchitecture, ...usedBy: string[]): TestRoot => ({
  recipe: GUEST_ARCHITECTURES[architecture].recipe,
  usedBy,
  kernel: true,
  unavailable: () => kernelGuestUnavailable(architecture),
});

export const TEST_ROOTS: readonly TestRoot[] = [
  container(PACKAGE_RECIPE, 'test/systemd/deb-package.test.ts', 'test/systemd/store-upgrade.test.ts'),
  container(APT_UPDATES_RECIPE, 'test/systemd/apt-updates.test.ts', 'test/systemd/update-rollback.test.ts', 'test/systemd/update-rollback-slow.test.ts'),
  container(PROVISION_RECIPE, 'test/systemd/provision-cloud-init.test.ts'),
  container(LIVE_SYSTEMD_RECIPE, 'test/systemd/live-systemd.test.ts'),
  kernel('amd64', 'test/ble-kernel/pairing.test.ts', 'test/ble-kernel/radio-fails.test.ts', 'test/ble-kernel/uart-amd64.test.ts'),
  kernel('armhf', 'test/ble-kernel/uart-armhf.test.ts'),
  kernel('arm64', 'test/ble-kernel/uart-arm64.test.ts'),
];
