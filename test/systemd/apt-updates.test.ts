import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { aptRepo, throwawayKey, type SigningKey } from '../support/apt-repo.js';
import { ROOT } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { checkoutPackage } from '../support/checkout-package.js';
import { pairInside, unitProperties } from '../support/container-service.js';
import type { Container } from '../support/container.js';
import { updateSuiteBoot } from '../support/update-suite.js';
import { waitFor } from '../support/wait.js';

// A hub that updates itself (docs/operator/updates.md): Debian 13 under systemd, as in the package
// test, with unattended-upgrades and no source but the repository `npm run apt-repo` builds (a
// file: repository in the container, so no network) and a decoy repository of another origin.
// Version N is installed from the repository with apt and configured, a button paired; N+1 is
// published and one `unattended-upgrade` run takes it, keeping settings, token and store, and
// restarting the daemon; the decoy's upgrade is left alone. Then N+2 is published signed by another
// key: apt refuses the repository and the hub keeps running N+1. Last, signed by its own key again
// with N listed beside N+1, a pin above 1000 leaves the hub at N+1 until Allow-downgrade lets
// unattended-upgrades take it back to N.

const TOKEN = 'apt-token-81c4f0a7e2';
const CUSTOMER_ID = 42;
const UNIT = 'panic-pair.service';
const STEP_MS = 60_000;
/** systemd's lines when it cannot start a unit's process, before any of the unit's code runs. */
const SYSTEMD_SPAWN_FAILURE = /Failed to spawn (executor|'start' task)|Failed with result 'resources'/;
/** Where the repository is inside the container, and its file: URI in the .sources. */
const REPO = '/srv/panic-pair-apt';
const DECOY = '/srv/decoy-apt';
const base = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const VERSIONS = { n: base, next: `${base}+update1`, foreign: `${base}+update2` };

const booted = await updateSuiteBoot('apt updates');
const skipReason = typeof booted === 'string' ? booted : undefined;

describe.skipIf(skipReason !== undefined)(`updates from a signed repository, in a systemd container${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const box = booted as Container;
  const out = mkdtempSync(path.join(tmpdir(), 'panic-pair-apt-updates-'));
  let simulator: Simulator;
  let broker: TestBroker;
  let ours: SigningKey;
  let foreign: SigningKey;

  const inside = (file: string): string => path.join(box.root, file);
  const show = (...properties: string[]) => unitProperties(box, UNIT, ...properties);
  /**
   * The unit's properties once systemd has settled it (not `activating`). Once, in a full run on a
   * busy machine, systemd itself failed to start the upgraded unit: "Failed to spawn executor: No
   * such file or directory", result 'resources', before any of the daemon's code ran. The unit's
   * Restart=on-failure started it 5 s later, as it would on a hub.
   */
  const settled = (...properties: string[]) =>
    waitFor(
      async () => {
        const now = await show('ActiveState', ...properties);
        return now.ActiveState === 'activating' ? undefined : now;
      },
      { timeoutMs: STEP_MS / 2, intervalMs: 200, what: `${UNIT} settled` },
    );
  const aptEnv = { env: { DEBIAN_FRONTEND: 'noninteractive' } };
  const apt = (...args: string[]) => box.run(['apt-get', '-y', '-q', '--no-install-recommends', ...args], aptEnv);
  const installed = async (name: string) => (await box.check(['dpkg-query', '-W', '-f', '${Version}', name])).trim();
  // status exits 1 while the hub is degraded (a daemon just restarted may not have reached its
  // broker yet): its report is what is read.
  const status = async () => {
    const result = await box.run(['panic-pair', 'status', '--json']);
    if (result.code !== 0 && result.code !== 1) throw new Error(`status exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as { version: string; pid: number };
  };
  // The settings and token as they were, and every pairing of the store (its last-heard times,
  // saved at each stop, move on).
  const settings = () => [
    ...['/etc/panic-pair/config.json', '/etc/panic-pair/api-token'].map((file) => readFileSync(inside(file), 'utf8')),
    (JSON.parse(readFileSync(inside('/var/lib/panic-pair/pairings.json'), 'utf8')) as { devices: unknown }).devices,
  ];
  const publish = (version: string, key: SigningKey) => publishFrom(path.join(out, version), key);
  const publishFrom = async (debs: string, key: SigningKey) => {
    const result = await aptRepo(['--key-id', key.id, '--debs', debs, '--out', inside(REPO), '--url', `file:${REPO}`], key);
    if (result.code !== 0) throw new Error(`npm run apt-repo exited ${result.code}: ${result.stderr}`);
    return result;
  };

  beforeAll(async () => {
    simulator = await startSimulator({ token: TOKEN });
    broker = await startBroker();
    ours = await throwawayKey(path.join(out, 'gnupg-ours'), 'fleet-updates');
    foreign = await throwawayKey(path.join(out, 'gnupg-foreign'), 'someone-else');
    // Each version's package in a folder of its own, which the repository is made from.
    for (const version of Object.values(VERSIONS)) {
      mkdirSync(path.join(out, version));
      copyFileSync(await checkoutPackage('amd64', version), path.join(out, version, `panic-pair_${version}_amd64.deb`));
    }
    await decoyRepository(out, inside(DECOY));
  }, 5 * STEP_MS);

  afterAll(async () => {
    await box?.stop();
    await broker?.stop();
    await simulator?.close();
    await ours?.close();
    await foreign?.close();
    rmSync(out, { recursive: true, force: true });
  }, 2 * STEP_MS);

  it("a hub given the repository's keyring and .sources installs version N from it with apt", async () => {
    const published = await publish(VERSIONS.n, ours);
    expect(published.stdout).toContain(`panic-pair ${VERSIONS.n} amd64`);
    // The hub's sources: this repository and the decoy only (the container has no network).
    rmSync(inside('/etc/apt/sources.list'), { force: true });
    rmSync(inside('/etc/apt/sources.list.d'), { recursive: true, force: true });
    mkdirSync(inside('/etc/apt/sources.list.d'));
    mkdirSync(inside('/etc/apt/keyrings'), { recursive: true });
    // As docs/operator/install.md says: the two files the build wrote, copied to the hub.
    copyFileSync(inside(`${REPO}/panic-pair-archive-keyring.gpg`), inside('/etc/apt/keyrings/panic-pair-archive-keyring.gpg'));
    copyFileSync(inside(`${REPO}/panic-pair.sources`), inside('/etc/apt/sources.list.d/panic-pair.sources'));
    writeFileSync(inside('/etc/apt/sources.list.d/decoy.sources'), `Types: deb\nURIs: file:${DECOY}\nSuites: ./\nTrusted: yes\n`);
    writeFileSync(inside('/etc/apt/apt.conf.d/51panic-pair-upgrades'), 'Unattended-Upgrade::Origins-Pattern { "origin=panic-pair"; };\n');

    const update = await apt('update');
    expect(update.code, update.stdout + update.stderr).toBe(0);
    expect(update.stdout + update.stderr).not.toMatch(/^(W|E): /m);
    expect((await box.check(['apt-cache', 'policy'])).replace(/\s+/g, ' ')).toContain('release o=panic-pair,a=stable,n=stable,l=panic-pair,c=main,b=amd64');
    const install = await apt('install', 'panic-pair', 'fleet-decoy=1.0');
    expect(install.code, install.stdout + install.stderr).toBe(0);
    expect(await installed('panic-pair')).toBe(VERSIONS.n);
  });

  it('configured and with a button paired, it runs version N', async () => {
    const config = { apiUrl: simulator.url, customerId: CUSTOMER_ID, mqttUrl: broker.url };
    writeFileSync(inside('/etc/panic-pair/config.json'), `${JSON.stringify(config, null, 2)}\n`);
    writeFileSync(inside('/etc/panic-pair/api-token'), `${TOKEN}\n`, { mode: 0o600 });
    await box.check(['systemctl', 'restart', UNIT]);
    const paired = await pairInside(box, broker.url, 'APT-1');
    expect(paired.code, paired.stderr).toBe(0);
    expect((await status()).version).toBe(VERSIONS.n);
  });

  it('one unattended-upgrade run takes N+1 from the repository, keeps settings, token and store, and restarts the daemon', async () => {
    const before = settings();
    const { MainPID, ActiveEnterTimestampMonotonic } = await show('MainPID', 'ActiveEnterTimestampMonotonic');
    await publish(VERSIONS.next, ours);
    expect((await apt('update')).code).toBe(0);
    const run = await box.run(['unattended-upgrade', '-v']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Packages that will be upgraded: panic-pair\s*$/m);

    expect(await installed('panic-pair')).toBe(VERSIONS.next);
    // Scoped to origin=panic-pair: the other repository's upgrade is left alone.
    expect(await installed('fleet-decoy')).toBe('1.0');
    expect(settings()).toEqual(before);
    const now = await settled('MainPID', 'ActiveEnterTimestampMonotonic');
    expect(now.ActiveState).toBe('active');
    expect(now.MainPID).not.toBe(MainPID);
    expect(Number(now.ActiveEnterTimestampMonotonic)).toBeGreaterThan(Number(ActiveEnterTimestampMonotonic));
    const report = await status();
    expect(report).toMatchObject({ version: VERSIONS.next, pid: Number(now.MainPID) });
    expect(readFileSync(inside('/var/lib/panic-pair/pairings.json'), 'utf8')).toContain('APT-1');
  });

  it('a repository re-signed by another key is refused by apt; unattended-upgrade takes nothing and N+1 keeps running', async () => {
    const { MainPID } = await show('MainPID');
    const published = await publish(VERSIONS.foreign, foreign);
    expect(published.stdout).toContain('panic-pair-archive-keyring.gpg changed');
    // apt 3 (Debian 13) checks with sqv; a repository it had verified before keeps its old index
    // and says why, as a warning (exit 0); a hub that never had it gets an error instead.
    const update = await apt('update');
    const said = update.stdout + update.stderr;
    expect(said).toContain('W: An error occurred during the signature verification. The repository is not updated and the previous index files will be used.');
    expect(said).toMatch(/file:\/srv\/panic-pair-apt stable InRelease: .*(Missing key [0-9A-F]{40}, which is needed to verify signature|NO_PUBKEY)/);
    const run = await box.run(['unattended-upgrade', '-v']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('No packages found that can be upgraded unattended');

    expect(await installed('panic-pair')).toBe(VERSIONS.next);
    expect(await show('MainPID', 'ActiveState')).toEqual({ MainPID, ActiveState: 'active' });
    expect((await status()).version).toBe(VERSIONS.next);
    // Not even asking: the refused index never reached apt's lists.
    expect(await box.check(['apt-cache', 'madison', 'panic-pair'])).not.toContain(VERSIONS.foreign);
  });

  it('going back: signed by its own key again and listing N beside N+1, a pin above 1000 with Allow-downgrade takes the hub back to N', async () => {
    const both = path.join(out, 'both');
    mkdirSync(both);
    for (const version of [VERSIONS.n, VERSIONS.next]) copyFileSync(path.join(out, version, `panic-pair_${version}_amd64.deb`), path.join(both, `panic-pair_${version}_amd64.deb`));
    await publishFrom(both, ours);
    writeFileSync(inside('/etc/apt/preferences.d/panic-pair-rollback.pref'), `Package: panic-pair\nPin: version ${VERSIONS.n}\nPin-Priority: 1001\n`);
    const before = settings();
    const { MainPID } = await show('MainPID');
    const update = await apt('update');
    expect(update.stdout + update.stderr).not.toMatch(/^(W|E): /m);
    // The pin alone: unattended-upgrades does not downgrade.
    const pinned = await box.run(['unattended-upgrade', '-v']);
    expect(pinned.code, pinned.stdout + pinned.stderr).toBe(0);
    expect(await installed('panic-pair')).toBe(VERSIONS.next);

    writeFileSync(inside('/etc/apt/apt.conf.d/52panic-pair-rollback'), 'Unattended-Upgrade::Allow-downgrade "true";\n');
    const run = await box.run(['unattended-upgrade', '-v']);
    expect(run.code, run.stdout + run.stderr).toBe(0);

    expect(await installed('panic-pair')).toBe(VERSIONS.n);
    expect(settings()).toEqual(before);
    const now = await settled('MainPID');
    expect(now.ActiveState).toBe('active');
    expect(now.MainPID).not.toBe(MainPID);
    expect((await status()).version).toBe(VERSIONS.n);
    // Every restart the updates made (up, down) stopped the daemon cleanly.
    const journal = await box.check(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT]);
    // systemd's own failure to start a process (see `settled`) is not the daemon's, and is said.
    const systemds = journal.split('\n').filter((line) => SYSTEMD_SPAWN_FAILURE.test(line));
    if (systemds.length > 0) process.stderr.write(`systemd failed to start ${UNIT} on its own, then restarted it:\n  ${systemds.join('\n  ')}\n`);
    const daemons = journal.split('\n').filter((line) => !SYSTEMD_SPAWN_FAILURE.test(line));
    expect(daemons.join('\n')).not.toMatch(/code=(dumped|killed)|status=\d+\/|Failed with result/);
  });
});

/**
 * A second repository, of origin `decoy`, unsigned and trusted by its .sources: fleet-decoy 1.0
 * and 2.0 (Architecture: all, nothing inside). An unattended-upgrade scoped to panic-pair must
 * leave its 2.0 alone.
 */
async function decoyRepository(work: string, target: string): Promise<void> {
  mkdirSync(target, { recursive: true });
  for (const version of ['1.0', '2.0']) {
    const stage = path.join(work, `decoy-${version}`);
    mkdirSync(path.join(stage, 'DEBIAN'), { recursive: true });
    writeFileSync(path.join(stage, 'DEBIAN', 'control'), `Package: fleet-decoy\nVersion: ${version}\nArchitecture: all\nMaintainer: test <test@panic-pair.invalid>\nDescription: decoy\n`);
    await promisify(execFile)('dpkg-deb', ['--root-owner-group', '--build', stage, path.join(target, `fleet-decoy_${version}_all.deb`)]);
  }
  const ftparchive = (...args: string[]) => promisify(execFile)('apt-ftparchive', args, { cwd: target }).then(({ stdout }) => stdout);
  writeFileSync(path.join(target, 'Packages'), await ftparchive('packages', '.'));
  writeFileSync(path.join(target, 'Release'), await ftparchive('-o', 'APT::FTPArchive::Release::Origin=decoy', 'release', '.'));
}
