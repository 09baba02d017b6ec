import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBle } from '../../src/check/ble-check.js';
import { withUnitCodeFile } from '../../src/check/page-check.js';
import { renderReport, runChecks, type CheckName } from '../../src/check/index.js';
import { reportOf, fail, off, pass } from '../../src/check/result.js';
import { checkToken } from '../../src/check/token-check.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { BleState } from '../../src/check/ble-probe.js';
import { makeCertificates } from '../support/test-ca.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-checks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const configOf = (env: Record<string, string>): Config => loadConfig({ env, defaultConfigFile: join(dir, 'absent.json') });

describe('the token check outside the unit', () => {
  it('with no token configured, checks the file the unit loads as its credential', async () => {
    const unitFile = join(dir, 'unit-api-token');
    await writeFile(unitFile, 'unit-token\n', { mode: 0o600 });
    const checked = checkToken(configOf({}), unitFile);
    expect(checked.result).toEqual(pass('token', `token file ${unitFile}; readable by its owner only`));
    expect(checked.token?.reveal()).toBe('unit-token');

    await chmod(unitFile, 0o640);
    expect(checkToken(configOf({}), unitFile).result).toEqual(
      fail('token', `token file ${unitFile} is readable by group or others (mode 0640)`, `chmod 600 ${unitFile}`),
    );
  });

  it('with no token anywhere, says where to put it', () => {
    const unitFile = join(dir, 'missing-api-token');
    const { result } = checkToken(configOf({}), unitFile);
    expect(result.ok).toBe(false);
    expect(result.fix).toBe(`write the token to ${unitFile} (one line), then chmod 600 ${unitFile}`);
  });

  it('an empty token file fails with its own reason, never quoting content', async () => {
    const empty = join(dir, 'empty-token');
    await writeFile(empty, '\n', { mode: 0o600 });
    const { result } = checkToken(configOf({ PANIC_PAIR_API_TOKEN_FILE: empty }));
    expect(result).toMatchObject({ ok: false, fix: `put the API token alone, on one line, in ${empty}` });
    expect(result.detail).toContain('is empty');
  });
});

describe('the BLE check', () => {
  const probe = (state: BleState) => async () => state;
  const unauthorized: BleState = { state: 'unauthorized', reason: 'not permitted to open hci0' };

  it('off: skipped, passes', async () => {
    expect(await checkBle(configOf({ PANIC_PAIR_BLE: 'off' }), probe(unauthorized))).toEqual(off('ble', 'off (PANIC_PAIR_BLE=off, or "ble": "off" in config.json)'));
  });

  it('auto without a usable adapter: skipped with the reason, passes (the daemon runs without BLE)', async () => {
    const result = await checkBle(configOf({ PANIC_PAIR_BLE: 'auto' }), probe({ state: 'unavailable', reason: 'unsupported: no Bluetooth' }));
    expect(result).toMatchObject({ ok: true, skipped: true });
    expect(result.detail).toContain('unsupported: no Bluetooth');
  });

  it('on: a powered adapter passes; any other state fails with its fix', async () => {
    const on = configOf({ PANIC_PAIR_BLE: 'on', PANIC_PAIR_HCI_DEVICE: '1' });
    expect(await checkBle(on, probe({ state: 'starting' }))).toEqual(pass('ble', 'adapter hci1 is powered on'));
    expect((await checkBle(on, probe(unauthorized))).fix).toMatch(/^run the check as root/);
    expect((await checkBle(on, probe({ state: 'powered-off', reason: 'hci1 is powered off' }))).fix).toBe('bluetoothctl power on (or btmgmt power on)');
    const blocked = await checkBle(on, probe({ state: 'blocked', reason: 'hci1 is blocked by rfkill (soft block): rfkill unblock bluetooth' }));
    expect(blocked).toMatchObject({ ok: false, detail: 'adapter hci1 cannot be used: hci1 is blocked by rfkill (soft block): rfkill unblock bluetooth', fix: 'rfkill unblock bluetooth' });
    expect((await checkBle(on, probe({ state: 'unavailable', reason: 'no adapter hci1 (not present)' }))).fix).toMatch(/bluetoothctl list.*hciuart/);
  });

  it('auto with an adapter blocked or powered off: skipped, but with the fix', async () => {
    const auto = configOf({ PANIC_PAIR_BLE: 'auto' });
    expect(await checkBle(auto, probe({ state: 'blocked', reason: 'hci0 is blocked by rfkill (soft block): rfkill unblock bluetooth' }))).toMatchObject({ ok: true, skipped: true, fix: 'rfkill unblock bluetooth' });
    expect(await checkBle(auto, probe({ state: 'powered-off', reason: 'hci0 is powered off' }))).toMatchObject({ ok: true, skipped: true, fix: 'bluetoothctl power on (or btmgmt power on)' });
  });

  it('names the adapter by its address when configured so', async () => {
    const byAddress = configOf({ PANIC_PAIR_BLE: 'on', PANIC_PAIR_HCI_DEVICE: 'c4:64:9f:00:00:01' });
    let asked: unknown;
    const result = await checkBle(byAddress, async (adapter) => ((asked = adapter), { state: 'starting' }));
    expect(asked).toEqual({ address: 'C4:64:9F:00:00:01' });
    expect(result).toEqual(pass('ble', 'adapter C4:64:9F:00:00:01 is powered on'));
  });

  it('a replayed capture is checked instead of the adapter', async () => {
    const capture = join(dir, 'capture.btsnoop');
    await writeFile(capture, '');
    const never = async (): Promise<BleState> => {
      throw new Error('the adapter must not be probed');
    };
    expect(await checkBle(configOf({ PANIC_PAIR_BLE: 'on', PANIC_PAIR_BLE_REPLAY: capture }), never)).toMatchObject({ ok: true });
    const missing = await checkBle(configOf({ PANIC_PAIR_BLE: 'on', PANIC_PAIR_BLE_REPLAY: join(dir, 'none.btsnoop') }), never);
    expect(missing).toMatchObject({ ok: false, fix: 'correct PANIC_PAIR_BLE_REPLAY, or unset it to use the adapter' });
  });
});

describe('runChecks and the report', () => {
  it('BLE required but unusable makes the whole check fail', async () => {
    const report = await runChecks({
      env: { PANIC_PAIR_BLE: 'on', PANIC_PAIR_API_TOKEN: 'dev-token' },
      defaultConfigFile: join(dir, 'absent.json'),
      probeBle: async () => ({ state: 'powered-off', reason: 'hci0 is powered off' }),
    });
    expect(report.ok).toBe(false);
    expect(report.checks.map((check) => [check.name, check.ok])).toEqual([
      ['configuration', false],
      ['token', true],
      ['api', false],
      ['entitlement', false],
      ['mqtt', true],
      ['ble', false],
      ['page', true],
    ]);
  });

  it('renders marks on a terminal and words in a pipe, with the fix on the same line', () => {
    const report = reportOf([pass('configuration', 'fine'), fail('token', 'loose', 'chmod 600 /x'), off('mqtt', 'off')]);
    expect(renderReport(report, true)).toBe(
      ['✔ configuration  fine', '✘ API token      loose — fix: chmod 600 /x', '– MQTT           off', 'not ready: 1 check failed', 'once fixed: sudo systemctl restart panic-pair', ''].join('\n'),
    );
    expect(renderReport(report, false).split('\n').slice(0, 3)).toEqual([
      'PASS configuration  fine',
      'FAIL API token      loose — fix: chmod 600 /x',
      'SKIP MQTT           off',
    ]);
  });
});

describe('the page check outside the unit', () => {
  const env = { PANIC_PAIR_WEB_LISTEN: '[::1]:8443', PANIC_PAIR_API_TOKEN: 'dev-token', PANIC_PAIR_BLE: 'off' };
  const checkOf = async (unitCodeFile: string, name: CheckName) =>
    (await runChecks({ env, defaultConfigFile: join(dir, 'absent.json'), unitCodeFile })).checks.find((check) => check.name === name);

  it('with no PANIC_PAIR_WEB_CODE_FILE, checks the file the unit loads as its installer-code credential', async () => {
    const unitCodeFile = join(dir, 'unit-installer-code');
    await writeFile(unitCodeFile, 'unit-code-5h2k9q\n', { mode: 0o600 });
    expect(await checkOf(unitCodeFile, 'page')).toEqual(pass('page', `HTTP on [::1]:8443: http://[::1]:8443, this hub only: no phone can open it (webListen 0.0.0.0:8080 serves the network); installer code in ${unitCodeFile}, readable by its owner only`));
  });

  it("under the Debian package's unit, which always hands the code over, a missing code file is named as the daemon names it", async () => {
    const packageUnit = join(dir, 'panic-pair.service');
    await writeFile(packageUnit, '[Service]\nLoadCredential=installer-code:/etc/panic-pair/installer-code\n');
    const absent = join(dir, 'absent-installer-code');
    expect(withUnitCodeFile({}, absent, packageUnit)).toEqual({ PANIC_PAIR_WEB_CODE_FILE: absent });
    expect(withUnitCodeFile({}, absent, join(dir, 'no-such.service'))).toEqual({});
    expect(withUnitCodeFile({ CREDENTIALS_DIRECTORY: '/run/credentials/x' }, absent, packageUnit)).toEqual({ CREDENTIALS_DIRECTORY: '/run/credentials/x' });
  });

  it('with neither, the configuration fails naming PANIC_PAIR_WEB_CODE_FILE', async () => {
    expect(await checkOf(join(dir, 'no-unit-installer-code'), 'configuration')).toMatchObject({ name: 'configuration', ok: false, detail: expect.stringContaining('PANIC_PAIR_WEB_CODE_FILE') });
  });

  it('with a certificate and key: HTTPS; a key others can read fails with its chmod', async () => {
    const unitCodeFile = join(dir, 'unit-installer-code');
    await writeFile(unitCodeFile, 'unit-code-5h2k9q\n', { mode: 0o600 });
    const { certFile, keyFile } = makeCertificates(dir, ['DNS:localhost']);
    await chmod(keyFile, 0o600);
    const tls = { ...env, PANIC_PAIR_WEB_CERT_FILE: certFile, PANIC_PAIR_WEB_KEY_FILE: keyFile };
    const pageWith = async () => (await runChecks({ env: tls, defaultConfigFile: join(dir, 'absent.json'), unitCodeFile })).checks.find((check) => check.name === 'page');
    expect(await pageWith()).toMatchObject({ ok: true, detail: expect.stringMatching(/^HTTPS on \[::1\]:8443: https:\/\/\[::1\]:8443, this hub only/) });
    await chmod(keyFile, 0o640);
    expect(await pageWith()).toMatchObject({ ok: false, detail: `PANIC_PAIR_WEB_KEY_FILE ${keyFile} is readable by group or others (mode 0640)`, fix: `chmod 600 ${keyFile}`, readAtStart: true });
  });
});
