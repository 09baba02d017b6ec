import { afterAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/status/status-report.js';
import { advertisingReportEvent } from '../support/btsnoop-writer.js';
import { startHarness } from '../support/daemon-harness.js';
import { compileHciKernel, startHciKernel } from '../support/hci-kernel.js';
import { BLE_BUTTON } from '../support/native-ble-pairing.js';
import { waitFor } from '../support/wait.js';
import { buttonReports } from './fixtures/captures.js';

// The recovery ladder (src/discovery/adapter-recovery.ts) with the daemon as it runs: its real HCI
// module reads a kernel socket stand-in (test/support/hci-kernel.c). hci0 goes away (it leaves the
// sysfs listing, the socket is cut and the adapter reads as down) and comes back: the daemon says
// `unavailable` meanwhile and opens a fresh socket by itself.
// On a real kernel under qemu the same rows are timed against their bounds by the kernel test.

const compiled = await compileHciKernel();
const skipReason = typeof compiled === 'string' ? compiled : undefined;
afterAll(() => (typeof compiled === 'string' ? undefined : compiled.dispose()));

describe.skipIf(skipReason !== undefined)(`the daemon's BLE adapter, gone and back${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('an adapter that goes away and comes back is opened again, without a restart of the daemon', async () => {
    if (typeof compiled === 'string') return;
    const kernel = await startHciKernel(compiled.library);
    const harness = await startHarness({ env: { PANIC_PAIR_BLE: 'on', ...kernel.env } });
    try {
      const status = (): Promise<StatusReport> => harness.status();
      await waitFor(async () => (await harness.status()).ble === 'scanning', { timeoutMs: 20_000, what: 'scanning at start' });
      const before = await status();
      expect(before).toMatchObject({ bleAdapter: { name: 'hci0', address: '02:00:00:00:00:01' }, bleRestarts: 0, bleLastHeardSeconds: null });
      const first = kernel.controller();
      const pid = before.pid;

      kernel.vanish();
      await waitFor(async () => (await harness.status()).ble === 'unavailable', { timeoutMs: 20_000, what: 'unavailable once hci0 is gone' });
      expect((await harness.status()).bleAdapter).toBeNull();
      // Listed again: the daemon opens it afresh (the old socket is never written to again).
      kernel.plugIn();
      await waitFor(async () => kernel.controller() !== first && (await harness.status()).ble === 'scanning', { timeoutMs: 20_000, what: 'scanning on a socket opened afresh' });
      expect(harness.output()).toContain('the BLE adapter went away');

      const after = await status();
      expect(after).toMatchObject({ pid, bleAdapter: { name: 'hci0' }, bleRestarts: 1 });
      for (const report of buttonReports(BLE_BUTTON)) kernel.controller()!.deliver(Buffer.concat([Buffer.of(0x04), advertisingReportEvent(report)]));
      await waitFor(async () => (await harness.cliJson<Array<{ deviceId: string }>>(['scan'])).some((s) => s.deviceId === BLE_BUTTON.id), { what: 'the button heard on the adapter opened again' });
      expect((await harness.status()).bleLastHeardSeconds).not.toBeNull();
    } finally {
      await harness.close();
      await kernel.close();
    }
  });
});
