import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';

// The API token never leaves the token file: not in the daemon's logs (even at trace), not in
// `status`, `devices` or the store, and not after the API refused it.

let hub: DaemonHarness | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

/** Everything an installer or a log collector could read, the daemon's output last (after stop). */
async function everythingVisible(harness: DaemonHarness, deviceId: string): Promise<string[]> {
  const texts = [
    (await harness.cli(['status', '--json'])).stdout,
    (await harness.cli(['status'])).stdout,
    (await harness.cli(['devices', '--json'])).stdout,
    (await harness.cli(['devices'])).stdout,
  ];
  const pair = await harness.cli(['pair', deviceId, '--timeout', '5']);
  texts.push(pair.stdout, pair.stderr);
  if (existsSync(harness.storeFile)) texts.push(readFileSync(harness.storeFile, 'utf8'));
  await harness.stop();
  texts.push(harness.output());
  return texts;
}

describe('the API token', () => {
  it('appears nowhere after a link, with the daemon logging at trace', async () => {
    hub = await startHarness({ logLevel: 'trace' });
    await hub.announceSeen('SECRET-A');
    const pair = await hub.cli(['pair', 'SECRET-A']);
    expect(pair.code, pair.stderr).toBe(0);

    const texts = await everythingVisible(hub, 'SECRET-A');
    for (const text of texts) expect(text).not.toContain(hub.token);
  });

  it('appears nowhere after the API refused it (401)', async () => {
    const refused = 'refused-token-0123456789abcdef';
    hub = await startHarness({ logLevel: 'trace', daemonToken: refused });
    await hub.announceSeen('SECRET-B');
    const pair = await hub.cli(['pair', 'SECRET-B']);
    expect(pair.code).toBe(5);
    expect((await hub.status()).token).toBe('refused');
    // Refused before any link: nothing was posted, so nothing was written to the store.
    expect(hub.simulator.stats().requests.link).toBe(0);
    expect(hub.storeRecords()).toEqual([]);

    const texts = [pair.stdout, pair.stderr, ...(await everythingVisible(hub, 'SECRET-B'))];
    for (const text of texts) {
      expect(text).not.toContain(refused);
      expect(text).not.toContain(hub.token);
    }
  });

  it('appears nowhere when a 401 to the link echoes it back', async () => {
    hub = await startHarness({ logLevel: 'trace' });
    hub.simulator.setFaults({ queue: [{ type: 'status', status: 401, route: 'link', message: `token ${hub.token} is not valid` }] });
    await hub.announceSeen('SECRET-C');
    const pair = await hub.cli(['pair', 'SECRET-C']);
    expect(pair.code).toBe(5);
    const record = hub.storeRecords().find((device) => device.deviceId === 'SECRET-C');
    expect(record?.state).toBe('failed');

    const texts = [pair.stdout, pair.stderr, ...(await everythingVisible(hub, 'SECRET-C'))];
    for (const text of texts) expect(text).not.toContain(hub.token);
  });
});
