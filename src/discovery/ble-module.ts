import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCodeOf } from '../errors.js';
import { PREBUILT_MODULE } from './kernel-hci-socket.js';

// Why the Bluetooth modules could not be loaded, told apart so that each gets the fix that works:
// noble itself missing, its HCI socket module missing (npm drops an optional package whose install
// failed), the HCI module's native part absent (no prebuilt one fits this machine and npm skipped
// the install script that compiles it: npm 11+ runs only the scripts package.json's allowScripts
// allows; --ignore-scripts skips them all), or a native part that does not load on this machine.
//
// The HCI module is @stoprocent/bluetooth-hci-socket (Node-API), installed by package.json's
// `overrides` in the place noble requires, node_modules/@abandonware/bluetooth-hci-socket: npm
// commands name it by that folder.

export type BleModuleProblem = 'noble-missing' | 'hci-socket-missing' | 'native-missing' | 'native-incompatible' | 'native-prebuilt';

/** The name noble requires the HCI module by, and npm's name for its folder. */
const HCI_SOCKET = '@abandonware/bluetooth-hci-socket';
/** The HCI module itself. */
const HCI_MODULE = '@stoprocent/bluetooth-hci-socket';

const REASONS: Record<BleModuleProblem, string> = {
  'noble-missing': 'the Bluetooth module (@abandonware/noble) is not installed',
  'hci-socket-missing': `the HCI socket module (${HCI_MODULE}) is not installed: npm leaves it out when its install fails (no prebuilt module for this machine, and no compiler or Node headers to build one)`,
  'native-missing': `the native part of the HCI socket module (${HCI_MODULE}) is missing: none of its prebuilt ones is for this machine, and npm skipped its install script, which compiles one`,
  'native-incompatible': `the native part of the HCI socket module (${HCI_MODULE}) does not load in Node ${process.versions.node} on ${process.arch}`,
  'native-prebuilt': `the native part of the HCI socket module (${HCI_MODULE}) is not the build panic-pair compiles: the module's own closes a stopped socket's descriptor twice, someone else's the second time`,
};

/** The problem a failed load of noble shows, or undefined when the modules loaded (or failed otherwise). */
export function bleModuleProblem(error: unknown): BleModuleProblem | undefined {
  const code = errorCodeOf(error);
  if (code === PREBUILT_MODULE) return 'native-prebuilt';
  const message = String((error as { message?: unknown } | null)?.message ?? error);
  if (code === 'ERR_DLOPEN_FAILED' || /NODE_MODULE_VERSION|wrong ELF class|invalid ELF header|Exec format error/.test(message)) {
    return 'native-incompatible';
  }
  // node-gyp-build's words when there is neither a build of its own nor a prebuilt one that fits.
  if (/^No native build was found for /.test(message)) return 'native-missing';
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const missing = /Cannot find module '([^']+)'/.exec(message)?.[1] ?? '';
  if (missing.startsWith(HCI_SOCKET)) return 'hci-socket-missing';
  return 'noble-missing';
}

/** The reason `status` and `check` give, with the loader's own words for an incompatible module. */
export function bleModuleReason(problem: BleModuleProblem, error: unknown): string {
  if (problem !== 'native-incompatible') return REASONS[problem];
  const detail = String((error as { message?: unknown } | null)?.message ?? error).split('\n')[0];
  return `${REASONS[problem]} (${detail})`;
}

/** The problem a reason names, for `check` to give its fix. */
export function bleModuleProblemOf(reason: string): BleModuleProblem | undefined {
  return (Object.keys(REASONS) as BleModuleProblem[]).find((problem) => reason.startsWith(REASONS[problem]));
}

/** Node's names for the package's architectures, in Debian's words. */
const DEBIAN_ARCH: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', arm: 'armhf' };

/** The Debian package puts the program under /usr/lib/panic-pair; a source install anywhere else. */
const PACKAGE_ROOT = '/usr/lib/panic-pair/';

/**
 * The fix for `problem`; `here` is this module's file: in the package's bundle under
 * /usr/lib/panic-pair, or dist/discovery/ two folders below a source install's folder.
 */
export function bleModuleFix(problem: BleModuleProblem, here = fileURLToPath(import.meta.url)): string {
  if (here.startsWith(PACKAGE_ROOT)) {
    // The package's module is built for its architecture with Node-API: any Node from 20.17 on loads it.
    if (problem === 'native-incompatible') return `install the panic-pair package built for this machine (${DEBIAN_ARCH[process.arch] ?? process.arch})`;
    return 'reinstall the package: sudo apt-get install --reinstall panic-pair';
  }
  const root = path.resolve(path.dirname(here), '..', '..');
  // scripts/hci-module.mjs: fixes the module's sources and compiles them (kernel-hci-socket.ts).
  const compile = `cd ${root} && sudo npm run hci-module`;
  switch (problem) {
    case 'noble-missing':
      return `cd ${root} && sudo npm ci --omit=dev (it installs the optional @abandonware/noble), or run systemd/install.sh again`;
    case 'hci-socket-missing':
      return 'sudo apt-get install build-essential python3, then run systemd/install.sh again (offline, with npm_config_nodedir=/usr where Node\'s headers are in /usr/include/node)';
    case 'native-missing':
      return `${compile} (it compiles the module through its install script; npm 11 and later run that only where package.json's allowScripts allows ${HCI_MODULE}, as panic-pair's does; needs build-essential and python3)`;
    case 'native-incompatible':
    case 'native-prebuilt':
      return `${compile} (it fixes the module's sources and compiles them for this machine; needs build-essential and python3), or run systemd/install.sh again`;
  }
}
