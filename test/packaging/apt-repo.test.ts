import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptRepo, throwawayKey, type ScriptRun, type SigningKey } from '../support/apt-repo.js';
import { findExecutable } from '../support/installed.js';

// `npm run apt-repo` on small stand-in packages (the real one is built and installed from the
// repository by test/systemd/apt-updates.test.ts): what the Release says, that the signatures
// verify with gpgv against the keyring a hub is given, that the host's own apt reads the
// repository and its Origin, suites sharing one pool, and each bad input named.

const TOOLS = ['gpg', 'gpgv', 'apt-ftparchive', 'dpkg-deb'];
const missing = TOOLS.filter((tool) => findExecutable(tool) === undefined);
const skipReason = missing.length > 0 ? `not installed: ${missing.join(', ')} (apt-get install gpg apt-utils dpkg-dev)` : undefined;

describe.skipIf(skipReason !== undefined)(`npm run apt-repo${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const work = mkdtempSync(path.join(tmpdir(), 'panic-pair-apt-repo-'));
  const out = path.join(work, 'apt');
  const file = (...parts: string[]) => readFileSync(path.join(out, ...parts), 'utf8');
  let ours: SigningKey;
  let foreign: SigningKey;
  const repo = (args: string[], key = ours) => aptRepo(['--out', out, ...args], key);

  beforeAll(async () => {
    ours = await throwawayKey(path.join(work, 'gnupg-ours'), 'gnupg-ours');
    foreign = await throwawayKey(path.join(work, 'gnupg-foreign'), 'gnupg-foreign');
    await standIn('v1', '0.1.0', 'amd64');
    await standIn('v1', '0.1.0', 'arm64');
    await standIn('v2', '0.2.0', 'amd64');
    await standIn('v2', '0.2.0', 'arm64');
  });

  afterAll(async () => {
    await ours?.close();
    await foreign?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** A package named panic-pair with nothing in it but its control file. */
  async function standIn(folder: string, version: string, arch: string): Promise<void> {
    const stage = path.join(work, 'stage', `${version}-${arch}`);
    mkdirSync(path.join(stage, 'DEBIAN'), { recursive: true });
    const control = `Package: panic-pair\nVersion: ${version}\nArchitecture: ${arch}\nMaintainer: test <test@panic-pair.invalid>\nDescription: stand-in\n`;
    writeFileSync(path.join(stage, 'DEBIAN', 'control'), control);
    mkdirSync(path.join(work, folder), { recursive: true });
    await promisify(execFile)('dpkg-deb', ['--root-owner-group', '--build', stage, path.join(work, folder, `panic-pair_${version}_${arch}.deb`)]);
  }

  it('writes a signed suite: Origin and Label panic-pair, the architectures present, a binary keyring and a .sources', async () => {
    const result = await repo(['--key-id', 'gnupg-ours@panic-pair.invalid', '--debs', path.join(work, 'v1'), '--url', 'https://apt.example.com/panic-pair']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const release = file('dists', 'stable', 'Release');
    for (const line of ['Origin: panic-pair', 'Label: panic-pair', 'Suite: stable', 'Codename: stable', 'Architectures: amd64 arm64', 'Components: main']) {
      expect(release.split('\n')).toContain(line);
    }
    expect(release).toMatch(/^SHA256:\n .* main\/binary-arm64\/Packages\.gz$/ms);
    for (const arch of ['amd64', 'arm64']) {
      const index = file('dists', 'stable', 'main', `binary-${arch}`, 'Packages');
      const filename = index.match(/^Filename: (.+)$/m)?.[1] ?? '';
      expect(filename).toBe(`pool/main/p/panic-pair/panic-pair_0.1.0_${arch}.deb`);
      expect(existsSync(path.join(out, filename))).toBe(true);
    }
    // gpgv with the exported keyring alone, as apt checks a source whose Signed-By names it.
    const keyring = path.join(out, 'panic-pair-archive-keyring.gpg');
    expect(readFileSync(keyring)[0]! & 0x80).toBe(0x80); // an OpenPGP packet, not ASCII armour
    const dists = path.join(out, 'dists', 'stable');
    await promisify(execFile)('gpgv', ['--keyring', keyring, path.join(dists, 'InRelease')]);
    await promisify(execFile)('gpgv', ['--keyring', keyring, path.join(dists, 'Release.gpg'), path.join(dists, 'Release')]);
    expect(file('panic-pair.sources').split('\n').filter((line) => !line.startsWith('#'))).toEqual([
      'Types: deb',
      'URIs: https://apt.example.com/panic-pair',
      'Suites: stable',
      'Components: main',
      'Signed-By: /etc/apt/keyrings/panic-pair-archive-keyring.gpg',
      '',
    ]);
  });

  it.skipIf(process.getuid?.() !== 0 || findExecutable('apt-get') === undefined)("the host's apt verifies it and reads origin panic-pair", async () => {
    const state = path.join(work, 'apt-state');
    for (const dir of ['lists/partial', 'cache/archives/partial', 'sources.list.d']) mkdirSync(path.join(state, dir), { recursive: true });
    const sources = file('panic-pair.sources')
      .replace(/^URIs: .*$/m, `URIs: file:${out}`)
      .replace(/^Signed-By: .*$/m, `Signed-By: ${path.join(out, 'panic-pair-archive-keyring.gpg')}`);
    writeFileSync(path.join(state, 'sources.list.d', 'panic-pair.sources'), sources);
    const options = [
      ['Dir::Etc::SourceList', '/dev/null'],
      ['Dir::Etc::SourceParts', path.join(state, 'sources.list.d')],
      ['Dir::Etc::Preferences', '/dev/null'],
      ['Dir::Etc::PreferencesParts', path.join(state, 'none')],
      ['Dir::State::Lists', path.join(state, 'lists')],
      ['Dir::Cache', path.join(state, 'cache')],
      ['Dir::State::status', '/dev/null'],
      ['APT::Architecture', 'amd64'],
      // The test's folders are its own (0700); a hub's apt downloads as _apt.
      ['APT::Sandbox::User', 'root'],
    ].flatMap(([name, value]) => ['-o', `${name}=${value}`]);
    const update = await promisify(execFile)('apt-get', [...options, 'update']);
    expect(update.stderr).toBe('');
    const policy = (await promisify(execFile)('apt-cache', [...options, 'policy'])).stdout;
    expect(policy).toMatch(/release o=panic-pair,a=stable,n=stable,l=panic-pair,c=main,b=amd64/);
    expect((await promisify(execFile)('apt-cache', [...options, 'policy', 'panic-pair'])).stdout).toMatch(/Candidate: 0\.1\.0/);
  });

  it('a canary suite shares the pool; promoting is the same packages built into stable', async () => {
    const v2 = path.join(work, 'v2');
    const canary = await repo(['--key-id', 'gnupg-ours@panic-pair.invalid', '--debs', v2, '--suite', 'canary']);
    expect(canary.code).toBe(0);
    expect(canary.stdout).toContain('note: URIs is the placeholder https://apt.panic-pair.invalid/panic-pair; give the repository');
    expect(file('dists', 'canary', 'Release')).toMatch(/^Suite: canary$/m);
    expect(file('panic-pair-canary.sources')).toMatch(/^Suites: canary$/m);
    expect(file('dists', 'canary', 'main', 'binary-amd64', 'Packages')).toMatch(/^Version: 0\.2\.0$/m);
    expect(file('dists', 'stable', 'main', 'binary-amd64', 'Packages')).toMatch(/^Version: 0\.1\.0$/m);

    expect((await repo(['--key-id', 'gnupg-ours@panic-pair.invalid', '--debs', v2, '--url', 'https://apt.example.com/panic-pair'])).code).toBe(0);
    expect(file('dists', 'stable', 'main', 'binary-amd64', 'Packages')).toMatch(/^Version: 0\.2\.0$/m);
    // Both versions stay in the pool, so a hub that has not updated its index yet still finds its files.
    expect(existsSync(path.join(out, 'pool', 'main', 'p', 'panic-pair', 'panic-pair_0.1.0_amd64.deb'))).toBe(true);
  });

  it('names the flag or the folder at fault', async () => {
    const none = await repo(['--debs', path.join(work, 'v1')]);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringMatching(/^npm run apt-repo: --key-id is required/) });
    const unknown = await repo(['--key-id', 'nobody@panic-pair.invalid', '--debs', path.join(work, 'v1')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`--key-id nobody@panic-pair.invalid: no secret key with that id in ${ours.home}`);
    const empty = path.join(work, 'empty');
    mkdirSync(empty);
    expect((await repo(['--key-id', 'gnupg-ours@panic-pair.invalid', '--debs', empty])).stderr).toContain(`no .deb in ${empty}: build one first (npm run deb -- --arch amd64)`);
    expect((await repo(['--key-id', 'x', '--suite', 'Stable/1'])).stderr).toContain('--suite Stable/1: use lower-case letters');
    expect((await repo(['--key-id', 'x', '--url', 'mqtt://hub.example.com'])).stderr).toContain('--url mqtt://hub.example.com: apt fetches this repository over https:, http: or file:');
  });

  it('refuses a version already published with other contents', async () => {
    const rebuilt = path.join(work, 'rebuilt');
    const stage = path.join(work, 'stage', 'rebuilt');
    mkdirSync(path.join(stage, 'DEBIAN'), { recursive: true });
    mkdirSync(rebuilt);
    writeFileSync(path.join(stage, 'DEBIAN', 'control'), 'Package: panic-pair\nVersion: 0.1.0\nArchitecture: amd64\nMaintainer: test <test@panic-pair.invalid>\nDescription: rebuilt\n');
    await promisify(execFile)('dpkg-deb', ['--root-owner-group', '--build', stage, path.join(rebuilt, 'panic-pair_0.1.0_amd64.deb')]);
    const result = await repo(['--key-id', 'gnupg-ours@panic-pair.invalid', '--debs', rebuilt]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the pool already holds panic-pair 0.1.0 (amd64) with other contents; build it with a new version');
  });

  it('re-signed by another key, it says the keyring changed, and the old keyring no longer verifies it', async () => {
    const oldKeyring = path.join(work, 'old-keyring.gpg');
    writeFileSync(oldKeyring, readFileSync(path.join(out, 'panic-pair-archive-keyring.gpg')));
    const result = await repo(['--key-id', 'gnupg-foreign@panic-pair.invalid', '--debs', path.join(work, 'v2')], foreign);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('note: panic-pair-archive-keyring.gpg changed; hubs holding the old one refuse this suite');
    const verified = await promisify(execFile)('gpgv', ['--keyring', oldKeyring, path.join(out, 'dists', 'stable', 'InRelease')]).catch((error: ScriptRun) => error);
    expect(verified.stderr).toMatch(/Can't check signature: No public key|public key not found/);
  });
});

