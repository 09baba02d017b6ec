import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBle } from '../../src/check/ble-check.js';
import { loadConfig } from '../../src/config/index.js';
import { bleModuleFix, bleModuleProblem, bleModuleReason, type BleModuleProblem } from '../../src/discovery/ble-module.js';
import { conditionOfOpenError } from '../../src/discovery/ble.js';
import { kernelHciSocketClass } from '../../src/discovery/kernel-hci-socket.js';
import { hciSocketFile } from '../../src/discovery/noble-loader.js';
import { ROOT } from '../support/binary.js';

// Each way the Bluetooth modules go missing on a real install, made real: a copy of the installed
// modules with a part taken away, loaded the way noble loads them.

const dir = mkdtempSync(path.join(tmpdir(), 'ble-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const installed = path.join(ROOT, 'node_modules', '@abandonware');

/** A folder with noble and the HCI module (installed within it) copied in, changed by `spoil`; its require. */
function copyIn(name: string, spoil: (modules: string) => void): NodeJS.Require {
  const root = path.join(dir, name);
  const modules = path.join(root, 'node_modules');
  mkdirSync(path.join(modules, '@abandonware'), { recursive: true });
  cpSync(path.join(installed, 'noble'), path.join(modules, '@abandonware', 'noble'), { recursive: true, dereference: true });
  for (const module of ['debug', 'ms', 'node-gyp-build']) {
    cpSync(path.join(ROOT, 'node_modules', module), path.join(modules, module), { recursive: true });
  }
  spoil(modules);
  writeFileSync(path.join(root, 'index.cjs'), '');
  return createRequire(path.join(root, 'index.cjs'));
}

/** The error noble's bindings throw in a copy changed by `spoil`. */
function loadIn(name: string, spoil: (modules: string) => void): unknown {
  const require = copyIn(name, spoil);
  try {
    require('@abandonware/noble/lib/hci-socket/bindings.js');
  } catch (error) {
    return error;
  }
  throw new Error(`noble loaded in the copy ${name}`);
}

const hciSocket = (modules: string): string => path.join(modules, '@abandonware', 'noble', 'node_modules', '@abandonware', 'bluetooth-hci-socket');
/** The HCI module without a native part: no build of its own and none of its prebuilt ones. */
const withoutNative = (modules: string): void => {
  for (const part of ['build', 'prebuilds']) rmSync(path.join(hciSocket(modules), part), { recursive: true, force: true });
};

describe('why the Bluetooth modules cannot be loaded', () => {
  const cases: Array<[BleModuleProblem, (modules: string) => void]> = [
    ['noble-missing', (modules) => rmSync(path.join(modules, '@abandonware', 'noble'), { recursive: true })],
    ['hci-socket-missing', (modules) => rmSync(hciSocket(modules), { recursive: true })],
    ['native-missing', withoutNative],
    [
      'native-incompatible',
      (modules) => {
        mkdirSync(path.join(hciSocket(modules), 'build', 'Release'), { recursive: true });
        writeFileSync(path.join(hciSocket(modules), 'build', 'Release', 'bluetooth_hci_socket.node'), 'not an ELF file');
      },
    ],
  ];

  it.each(cases)('%s is told apart from the other three', (problem, spoil) => {
    const error = loadIn(problem, spoil);
    expect(bleModuleProblem(error)).toBe(problem);
    expect(conditionOfOpenError(error, 'hci0')).toEqual({ state: 'unavailable', reason: bleModuleReason(problem, error) });
  });

  it("native-prebuilt: the module's own build, without the descriptor fix, is refused and told apart", () => {
    // Only the prebuilt binaries it ships are left: what node-gyp-build loads when nothing was compiled.
    const require = copyIn('native-prebuilt', (modules) => rmSync(path.join(hciSocket(modules), 'build'), { recursive: true, force: true }));
    const file = createRequire(require.resolve('@abandonware/noble/lib/hci-socket/hci.js')).resolve('@abandonware/bluetooth-hci-socket');
    let error: unknown;
    try {
      kernelHciSocketClass(file);
    } catch (thrown) {
      error = thrown;
    }
    expect(bleModuleProblem(error)).toBe('native-prebuilt');
    expect(bleModuleReason('native-prebuilt', error)).toMatch(/not the build panic-pair compiles: .* closes a stopped socket's descriptor twice/);
    // The build in the checkout is the fixed one: loading it is not refused.
    expect(() => kernelHciSocketClass(hciSocketFile())).not.toThrow(/descriptor fix/);
  });

  it('an error that is not about the modules is left to the adapter checks', () => {
    expect(bleModuleProblem(Object.assign(new Error('Address family not supported'), { code: 'EAFNOSUPPORT' }))).toBeUndefined();
  });

  it('the fix fits the install: a source folder gets npm commands run there, the package a reinstall', () => {
    const source = '/opt/panic-pair/dist/discovery/ble-module.js';
    expect(bleModuleFix('native-missing', source)).toMatch(/^cd \/opt\/panic-pair && sudo npm run hci-module /);
    expect(bleModuleFix('noble-missing', source)).toMatch(/^cd \/opt\/panic-pair && sudo npm ci --omit=dev/);
    // A native part that does not load (a prebuilt one for a newer glibc), or the module's own
    // build without the descriptor fix: compiled here from the fixed sources.
    expect(bleModuleFix('native-incompatible', source)).toMatch(/^cd \/opt\/panic-pair && sudo npm run hci-module \(it fixes the module's sources/);
    expect(bleModuleFix('native-prebuilt', source)).toBe(bleModuleFix('native-incompatible', source));
    expect(bleModuleFix('native-prebuilt', '/usr/lib/panic-pair/dist/chunk-X.js')).toBe('reinstall the package: sudo apt-get install --reinstall panic-pair');
    expect(bleModuleFix('hci-socket-missing', source)).toMatch(/^sudo apt-get install build-essential python3, then run systemd\/install.sh again/);
    expect(bleModuleFix('native-missing', '/usr/lib/panic-pair/dist/chunk-X.js')).toBe('reinstall the package: sudo apt-get install --reinstall panic-pair');
    // The package's module uses Node-API: the Node's version is not part of the fix.
    expect(bleModuleFix('native-incompatible', '/usr/lib/panic-pair/dist/chunk-X.js')).toBe(
      `install the panic-pair package built for this machine (${({ x64: 'amd64', arm: 'armhf' } as Record<string, string>)[process.arch] ?? process.arch})`,
    );
  });
});

describe('check with the HCI module not built', () => {
  const error = loadIn('check', withoutNative);
  const state = { state: 'unavailable' as const, reason: bleModuleReason('native-missing', error) };
  const configOf = (ble: string) => loadConfig({ env: { PANIC_PAIR_BLE: ble, PANIC_PAIR_HCI_DEVICE: '7' }, defaultConfigFile: path.join(dir, 'absent.json') });

  it('fails with ble on, naming the native part and the rebuild', async () => {
    const result = await checkBle(configOf('on'), async () => state);
    expect(result).toMatchObject({ ok: false, detail: expect.stringContaining('is missing: none of its prebuilt ones is for this machine, and npm skipped its install script') });
    expect(result.fix).toContain('npm run hci-module');
  });

  it('under auto with no adapter in the kernel: skipped, and still says why and the fix', async () => {
    const result = await checkBle(configOf('auto'), async () => state);
    expect(result).toMatchObject({ ok: true, skipped: true, detail: expect.stringContaining('no adapter hci7, and the native part') });
    expect(result.fix).toContain('npm run hci-module');
  });
});
