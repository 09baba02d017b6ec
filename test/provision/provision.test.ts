import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { provisionCommand, type ProvisionOptions } from '../../src/cli/commands/provision.js';
import { ProvisionInputError, SCRUBBED_USER_DATA } from '../../src/provision/index.js';
import { findExecutable } from '../support/installed.js';
import { assertBuilt, runBinary } from '../support/binary.js';
import { unprivileged } from '../support/unprivileged.js';

// `panic-pair provision`: what it prints, what it refuses, and that real
// cloud-init accepts what it prints. test/systemd/provision-cloud-init.test.ts boots it.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-provision-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'tok-3f9a:c1#e7';
const CODE = 'label-482913';
function file(name: string, text: string, mode = 0o600): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  chmodSync(at, mode);
  return at;
}
const tokenFile = file('token', `${TOKEN}\n`);
const codeFile = file('code', `${CODE}\n`);
const base = { apiUrl: 'https://api.example.com/panic-api/v2', customer: '42', tokenFile };

function printed(options: ProvisionOptions): string {
  let out = '';
  provisionCommand(options, { stdout: { write: (text: string) => (out += text) } });
  return out;
}

function refusal(options: ProvisionOptions): ProvisionInputError | Error {
  try {
    printed(options);
  } catch (error) {
    return error as Error;
  }
  throw new Error('not refused');
}

/** The YAML as cloud-init reads it, through Python's yaml (cloud-init's own parser). */
function parsedYaml(text: string): { write_files: Array<Record<string, string>>; runcmd: string[][] } {
  const json = execFileSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], { input: text, encoding: 'utf8' });
  return JSON.parse(json) as { write_files: Array<Record<string, string>>; runcmd: string[][] };
}

const hasYaml = spawnSync('python3', ['-c', 'import yaml']).status === 0;
/** Said where a test that reads the YAML cannot run: it is skipped with this, never passed. */
const NO_YAML = "python3's yaml module (Debian's python3-yaml, cloud-init's own parser) is not installed";
const cloudInit = findExecutable('cloud-init');

describe('one hub', () => {
  it('prints #cloud-config that writes the settings and the owner-only secrets, then restarts the unit and scrubs the seed', (context) => {
    if (!hasYaml) return context.skip(NO_YAML);
    const text = printed({ ...base, webCodeFile: codeFile, hubId: 'hub-7', mqttUrl: 'mqtt://127.0.0.1:1883' });
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    const doc = parsedYaml(text);
    const last = (p: string) => doc.write_files.filter((entry) => entry.path === p).at(-1);
    // The secret is written into a file already 0600: an empty 0600 entry comes first.
    expect(doc.write_files.filter((entry) => entry.path === '/etc/panic-pair/api-token')).toEqual([
      { path: '/etc/panic-pair/api-token', owner: 'root:root', permissions: '0600', content: '' },
      { path: '/etc/panic-pair/api-token', owner: 'root:root', permissions: '0600', content: `${TOKEN}\n` },
    ]);
    expect(last('/etc/panic-pair/installer-code')).toMatchObject({ permissions: '0600', content: `${CODE}\n` });
    expect(JSON.parse(last('/etc/panic-pair/config.json')?.content ?? '')).toEqual({
      apiUrl: 'https://api.example.com',
      customerId: 42,
      mqttUrl: 'mqtt://127.0.0.1:1883',
      webListen: '0.0.0.0:8080',
    });
    expect(last('/etc/panic-pair/config.json')?.permissions).toBe('0644');
    expect(last('/etc/panic-pair/hub-id')?.content).toBe('hub-7\n');
    expect(doc.runcmd.slice(0, 2)).toEqual([
      ['systemctl', 'enable', 'panic-pair.service'],
      ['systemctl', 'restart', 'panic-pair.service'],
    ]);
    expect(doc.runcmd[2]?.[2]).toContain('/boot/firmware');
  });

  it('installs a .deb from the boot partition first, keeping the settings cloud-init wrote, with --deb-on-boot', () => {
    const deb = file('panic-pair_0.1.0_arm64.deb', 'not really a package', 0o644);
    const text = printed({ ...base, debOnBoot: deb });
    expect(text).toContain(
      '- ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", "--no-install-recommends", "-o", "Dpkg::Options::=--force-confold", "/boot/firmware/panic-pair_0.1.0_arm64.deb"]\n- ["systemctl", "enable", "panic-pair.service"]',
    );
    expect(refusal({ ...base, debOnBoot: path.join(dir, 'panic-pair_9_arm64.deb') }).message).toMatch(/^--deb-on-boot: .*panic-pair_9_arm64.deb does not exist$/);
    expect(refusal({ ...base, debOnBoot: file('token.txt', 'x') }).message).toMatch(/^--deb-on-boot: must be a Debian package file/);
  });

  it('leaves the page off without a code, and has no hub-id file without --hub-id', () => {
    const text = printed(base);
    expect(text).not.toContain('installer-code');
    expect(text).not.toContain('webListen');
    expect(text).not.toContain('hub-id');
  });

  it('the same input gives the same file', () => {
    expect(printed(base)).toBe(printed(base));
  });

  it.each([
    [{ customer: '7x' }, '--customer', /--customer: must be a customer id, a positive integer, not "7x"/],
    [{ customer: '0' }, '--customer', /positive integer/],
    [{ customer: '-3' }, '--customer', /positive integer/],
    [{ apiUrl: 'ftp://api.example.com' }, '--api-url', /^--api-url: must be/],
    [{ apiUrl: 'http://api.example.com' }, '--api-url', /must use https/],
    [{ apiUrl: 'https://user:pw@api.example.com' }, '--api-url', /\[redacted\]@/],
    [{ tokenFile: path.join(dir, 'absent') }, '--token-file', /absent does not exist/],
    [{ hubId: 'a/b' }, '--hub-id', /letters, digits/],
    [{ hubId: 'a+b' }, '--hub-id', /letters, digits/],
    [{ mqttUrl: 'http://broker' }, '--mqtt-url', /must be/],
    [{ webCodeFile: file('short', 'abc\n') }, '--web-code-file', /at least 6 characters/],
  ] as const)('refuses %o naming %s, with exit 2', (change, field, message) => {
    const error = refusal({ ...base, ...change });
    expect(error).toBeInstanceOf(ProvisionInputError);
    expect((error as ProvisionInputError).field).toBe(field);
    expect((error as ProvisionInputError).kind).toBe('usage');
    expect(error.message).toMatch(message);
  });

  it('refuses a token file of two words or two lines, without quoting it', () => {
    const error = refusal({ ...base, tokenFile: file('two', 'secret-one\nsecret-two\n') });
    expect(error.message).toMatch(/--token-file: .*two holds spaces, several lines/);
    expect(error.message).not.toContain('secret-');
  });

  // Root reads any file: the binary run by a user without root's privileges (nobody, where the suite runs as root).
  it('refuses an unreadable token file without quoting it, exit 2', async () => {
    assertBuilt();
    const open = mkdtempSync(path.join(tmpdir(), 'panic-pair-provision-locked-'));
    try {
      chmodSync(open, 0o755);
      const unreadable = path.join(open, 'unreadable');
      writeFileSync(unreadable, 'never-shown\n', { mode: 0o000 });
      const args = ['provision', '--api-url', base.apiUrl, '--customer', base.customer, '--token-file', unreadable];
      const result = await runBinary(args, { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '' }, { timeoutMs: 30_000, ...(unprivileged() ?? {}) });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/--token-file: .*unreadable cannot be read by this user/);
      expect(result.stderr).not.toContain('never-shown');
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });
});

describe('a batch from a CSV file', () => {
  ['t-aaa-111', 't-bbb-222', 't-ccc-333'].forEach((token, i) => file(`token-${i}`, `${token}\n`));

  function batch(csv: string, options: Partial<ProvisionOptions> = {}): { out: string; result: string[] | Error } {
    const out = mkdtempSync(path.join(dir, 'out-'));
    rmSync(out, { recursive: true });
    const csvFile = file(`batch-${Math.random().toString(36).slice(2)}.csv`, csv, 0o644);
    try {
      return { out, result: printed({ apiUrl: base.apiUrl, csv: csvFile, outDir: out, ...options }).trim().split('\n') };
    } catch (error) {
      return { out, result: error as Error };
    }
  }

  it('writes one owner-only file a hub, named after its hub id, each with its own token and hub id', () => {
    const csv = ['hubId,customerId,tokenFile', 'hub-a,11,token-0', 'hub-b,12,token-1', '# a comment', '', '"hub-c",13,token-2', ''].join('\n');
    const { out, result } = batch(csv);
    expect(result).toEqual(['hub-a', 'hub-b', 'hub-c'].map((id) => path.join(out, `${id}.user-data`)));
    expect(readdirSync(out).sort()).toEqual(['hub-a.user-data', 'hub-b.user-data', 'hub-c.user-data']);
    ['hub-a', 'hub-b', 'hub-c'].forEach((id, i) => {
      const text = readFileSync(path.join(out, `${id}.user-data`), 'utf8');
      expect(statSync(path.join(out, `${id}.user-data`)).mode & 0o777).toBe(0o600);
      expect(text).toContain(`t-${['aaa-111', 'bbb-222', 'ccc-333'][i]}\\n`);
      expect(text).toContain(`"${id}\\n"`);
      expect(text).toContain(`"customerId": ${11 + i}`);
    });
  });

  it('takes --token-file for rows without one', () => {
    const { result } = batch('hubId,customerId\nhub-x,5\n', { tokenFile });
    expect(result).toHaveLength(1);
  });

  it.each([
    ['hubId,customerId,tokenFile\nhub-a,11,token-0\nhub-b,1x,token-1\n', 3, 'customerId', /positive integer/],
    ['hubId,customerId,tokenFile\nhub-a,11,token-0\nhub-a,12,token-1\n', 3, 'hubId', /hub-a is already the hub id of row 2/],
    ['hubId,customerId,tokenFile\nHub-A,11,token-0\nhub-a,12,token-1\n', 3, 'hubId', /already the hub id of row 2/],
    ['hubId,customerId,tokenFile\nhub-a,11,token-0\nhub/b,12,token-1\n', 3, 'hubId', /letters, digits/],
    ['hubId,customerId,tokenFile\nhub-a,11,token-0\nhub-b,12,missing-token\n', 3, 'tokenFile', /missing-token does not exist/],
    ['hubId,customerId,tokenFile\nhub-a,11,token-0\nhub-b,12\n', 3, 'row', /has 2 field\(s\); the header has 3/],
    ['hubId,customerId,tokenFile\nhub-a,11,token-0\nhub-b,"12,token-1\n', 3, 'row', /misplaced double quote/],
    ['hubId,customerId\nhub-a,11\n', 2, 'tokenFile', /no --token-file/],
    ['hubId,customer,tokenFile\nhub-a,11,token-0\n', 1, 'column 2', /unknown column "customer"/],
    ['hubId,tokenFile\nhub-a,token-0\n', 1, 'customerId', /no customerId column/],
  ])('refuses a bad row and writes nothing: %j', (csv, row, field, message) => {
    const { out, result } = batch(csv);
    expect(result).toBeInstanceOf(ProvisionInputError);
    const error = result as ProvisionInputError;
    expect([error.row, error.field]).toEqual([row, field]);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(`row ${row}, ${field}: `)).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses flags that belong to one hub, and --csv without --out-dir', () => {
    expect(batch('hubId,customerId\nh,1\n', { tokenFile, customer: '4' }).result).toHaveProperty('message', '--customer does not go with --csv: each row gives its own');
    expect(() => printed({ ...base, csv: 'x.csv' })).toThrow(/--csv needs --out-dir/);
  });
});

describe.skipIf(cloudInit === undefined)(`cloud-init schema${cloudInit === undefined ? ' (skipped: cloud-init is not installed)' : ''}`, () => {
  it('accepts what provision prints, with and without the page', () => {
    for (const [name, options] of [
      ['plain', base],
      ['full', { ...base, webCodeFile: codeFile, hubId: 'hub-1', mqttUrl: 'mqtt://127.0.0.1', webListen: '[::]:8443' }],
    ] as const) {
      const userData = file(`${name}.user-data`, printed(options));
      const result = spawnSync('cloud-init', ['schema', '--config-file', userData], { encoding: 'utf8' });
      expect(`${result.status} ${result.stdout}${result.stderr}`).toMatch(/^0 Valid (cloud-config|schema)/);
    }
  });

  it('accepts what the boot partition keeps after first boot', () => {
    const result = spawnSync('cloud-init', ['schema', '--config-file', file('scrubbed', SCRUBBED_USER_DATA)], { encoding: 'utf8' });
    expect(`${result.status} ${result.stdout}${result.stderr}`).toMatch(/^0 Valid (cloud-config|schema)/);
  });
});

describe('the binary', () => {
  it('prints #cloud-config with exit 0, and exits 2 naming --customer for 7x, never showing the token', async () => {
    assertBuilt();
    const good = await runBinary(['provision', '--api-url', 'https://api.example.com', '--customer', '42', '--token-file', tokenFile], {});
    expect(good.code).toBe(0);
    expect(good.stdout.startsWith('#cloud-config\n')).toBe(true);
    const bad = await runBinary(['provision', '--api-url', 'https://api.example.com', '--customer', '7x', '--token-file', tokenFile], {});
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--customer');
    expect(bad.stderr).not.toContain(TOKEN);
  });
});
