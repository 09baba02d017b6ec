import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDENTIAL_RELOAD_NOTICE } from '../../src/cli/commands/run.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// SIGHUP (systemctl reload): the token and the config file read again, no restart.

type LogLine = Record<string, unknown> & { level: number; msg: string };

let hub: DaemonHarness | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-reload-'));
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Replaces the file whole, as an installer's editor or `install -m 600` does. */
async function replace(file: string, text: string, mode = 0o600): Promise<void> {
  await writeFile(`${file}.new`, text, { mode });
  await rename(`${file}.new`, file);
}

function logs(harness: DaemonHarness): LogLine[] {
  return harness
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Sends SIGHUP and waits until the daemon logged `msg` for it; returns the lines logged since. */
async function hangUp(harness: DaemonHarness, msg: string): Promise<LogLine[]> {
  const before = logs(harness).length;
  harness.kill('SIGHUP');
  await waitFor(() => logs(harness).slice(before).some((line) => line.msg === msg), { what: `"${msg}" after SIGHUP` });
  return logs(harness).slice(before);
}

/** A request the control socket refuses; the daemon logs that at debug level. */
function malformedRequest(harness: DaemonHarness): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: join(harness.runtimeDir, 'panic-pair.sock') });
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.on('data', () => undefined);
    socket.end('this is not a request\n');
  });
}

async function rotateApiToken(harness: DaemonHarness, token: string): Promise<void> {
  // Through the simulator's admin route, as a test in another process would.
  const answer = await fetch(`${harness.simulator.url}/__simulator/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  expect(answer.status).toBe(200);
}

describe('SIGHUP', () => {
  it('picks up a rotated token file, the log level and nothing else from the config file', async () => {
    const config = join(dir, 'config.json');
    await replace(config, JSON.stringify({ logLevel: 'info', minRssi: -70 }), 0o644);
    hub = await startHarness({ env: { PANIC_PAIR_CONFIG: config, PANIC_PAIR_LOG_LEVEL: undefined } });
    const tokenFile = hub.daemonEnv().PANIC_PAIR_API_TOKEN_FILE ?? '';
    const { pid } = await hub.status();

    await hub.announceSeen('ROT-1');
    expect((await hub.cli(['pair', 'ROT-1'])).code).toBe(0);

    // The API now takes only the new token; the daemon still sends the old one.
    const rotated = 'rotated-token-6f2b9d41c0';
    await rotateApiToken(hub, rotated);
    await hub.announceSeen('ROT-2');
    const refused = await hub.cli(['pair', 'ROT-2', '--timeout', '10']);
    expect(refused.code, refused.stderr).toBe(5);
    await malformedRequest(hub);

    await replace(tokenFile, `${rotated}\n`);
    await replace(config, JSON.stringify({ logLevel: 'debug', minRssi: -60 }), 0o644);
    const reloaded = await hangUp(hub, 'configuration reloaded: the next request uses the token read now');
    expect(reloaded.find((line) => line.msg === 'reload: configuration read again')).toMatchObject({ logLevel: 'debug' });
    expect(reloaded.map((line) => line.msg)).not.toContain(CREDENTIAL_RELOAD_NOTICE);
    expect(reloaded.find((line) => line.msg.startsWith('reload: these changes take effect at the next restart'))).toMatchObject({
      settings: ['minRssi'],
    });

    await hub.announceSeen('ROT-2');
    const linked = await hub.cli(['pair', 'ROT-2']);
    expect(linked.code, linked.stderr).toBe(0);
    const status = await hub.status();
    expect(status.pid).toBe(pid);
    expect(status.token).toBe('accepted');

    // At info the refused request was not logged; at debug it is.
    const malformed = (): LogLine[] => logs(hub as DaemonHarness).filter((line) => line.msg === 'refused a malformed control request');
    expect(malformed()).toEqual([]);
    await malformedRequest(hub);
    await waitFor(() => malformed().length === 1, { what: 'the debug line of a malformed request' });
  });

  it('keeps everything in use when the config file has become unreadable', async () => {
    const config = join(dir, 'config.json');
    await replace(config, JSON.stringify({ logLevel: 'info' }), 0o644);
    hub = await startHarness({ env: { PANIC_PAIR_CONFIG: config, PANIC_PAIR_LOG_LEVEL: undefined } });
    await replace(config, '{"logLevel": ', 0o644);
    const lines = await hangUp(hub, 'reload failed: the configuration cannot be read; everything in use is kept');
    expect(lines.find((line) => line.msg.startsWith('reload failed'))?.err).toContain(config);

    await hub.announceSeen('KEEP-1');
    expect((await hub.cli(['pair', 'KEEP-1'])).code).toBe(0);
  });

  it('reads the systemd credential ($CREDENTIALS_DIRECTORY/api-token) again', async () => {
    const credentials = join(dir, 'credentials');
    await mkdir(credentials, { mode: 0o700 });
    await replace(join(credentials, 'api-token'), 'credential-token-1\n', 0o400);
    hub = await startHarness({ env: { PANIC_PAIR_API_TOKEN_FILE: undefined, CREDENTIALS_DIRECTORY: credentials } });
    hub.simulator.setToken('credential-token-1');
    await hub.announceSeen('CRED-1');
    expect((await hub.cli(['pair', 'CRED-1'])).code).toBe(0);

    hub.simulator.setToken('credential-token-2');
    await replace(join(credentials, 'api-token'), 'credential-token-2\n', 0o400);
    await hangUp(hub, 'configuration reloaded: the next request uses the token read now');
    // systemd refreshes this copy only at start: the operator is told at the moment of the reload.
    const notice = await waitFor(() => logs(hub as DaemonHarness).find((line) => line.msg === CREDENTIAL_RELOAD_NOTICE), { what: 'the credential notice' });
    expect(notice.level).toBe(40);
    await hub.announceSeen('CRED-2');
    const linked = await hub.cli(['pair', 'CRED-2']);
    expect(linked.code, linked.stderr).toBe(0);
  });
});
