import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// The token through a whole rotation at trace level: a link, a 401, a SIGHUP with a new token and
// a link with it. Neither token may show in the daemon's output, `status --json`, `devices --json`
// or pairings.json. (pairing-secrets.test.ts covers more kinds of 401.)

let hub: DaemonHarness | undefined;
afterAll(async () => {
  await hub?.close();
});

it('never shows the old or the new token, across a link, a 401 and a reload', async () => {
  hub = await startHarness({ logLevel: 'trace' });
  const harness = hub;
  const oldToken = harness.token;
  const newToken = 'rotated-9d0c54e2a7f1b3';

  await harness.announceSeen('LOG-1');
  expect((await harness.cli(['pair', 'LOG-1'])).code).toBe(0);

  harness.simulator.setToken(newToken);
  await harness.announceSeen('LOG-2');
  const refused = await harness.cli(['pair', 'LOG-2', '--timeout', '10']);
  expect(refused.code).toBe(5);

  const tokenFile = harness.daemonEnv().PANIC_PAIR_API_TOKEN_FILE ?? '';
  writeFileSync(`${tokenFile}.new`, `${newToken}\n`, { mode: 0o600 });
  renameSync(`${tokenFile}.new`, tokenFile);
  harness.kill('SIGHUP');
  await waitFor(() => harness.output().includes('configuration reloaded'), { what: 'the reload' });
  await harness.announceSeen('LOG-2');
  const linked = await harness.cli(['pair', 'LOG-2']);
  expect(linked.code, linked.stderr).toBe(0);

  const visible = [
    refused.stdout,
    refused.stderr,
    linked.stdout,
    linked.stderr,
    (await harness.cli(['status', '--json'])).stdout,
    (await harness.cli(['devices', '--json'])).stdout,
    readFileSync(harness.storeFile, 'utf8'),
  ];
  expect(await harness.stop()).toMatchObject({ code: 0 });
  const output = harness.output();
  // The daemon logged at trace, below info (debug lines are there), the 401 and the reload: the
  // check below means something.
  expect(output).toContain('"logLevel":"trace"');
  expect(output).toContain('"level":20');
  expect(output).toContain('401');
  expect(output).toContain('configuration reloaded');
  for (const text of [...visible, output]) {
    expect(text).not.toContain(oldToken);
    expect(text).not.toContain(newToken);
  }
});
