import { expect } from 'vitest';
import { advertisingReportEvent } from './btsnoop-writer.js';
import { startHarness, type HarnessOptions } from './daemon-harness.js';
import { startHciKernel } from './hci-kernel.js';
import { waitFor } from './wait.js';
import { buttonReports } from '../discovery/fixtures/captures.js';

// One pairing over BLE through a real HCI module: the daemon (`daemon`, or the checkout's) opens
// its adapter through the module, which reads from hci-kernel.c's socket; the controller there
// powers on and takes noble's scan. The adapter is then powered off and on (noble starts the
// socket a second time), and the controller delivers one button's advertisement and scan
// response. The button must then be heard and linked with one POST, the module reading and
// handing over each packet on its own (a thread of the Node-API module); SIGTERM then ends the
// daemon with exit code 0.

export const BLE_BUTTON = { id: '7F3A9C', address: 'c4:64:9f:5e:94:54', rssi: -55 };

export async function pairThroughNativeModule(library: string, daemon?: HarnessOptions['daemon']): Promise<void> {
  const kernel = await startHciKernel(library);
  const harness = await startHarness({ env: { PANIC_PAIR_BLE: 'on', ...kernel.env }, daemon });
  try {
    const ble = async (state: string, what: string) => waitFor(async () => (await harness.status()).ble === state, { timeoutMs: 20_000, what });
    await ble('scanning', 'the daemon to scan through the native module');
    kernel.setPowered(false);
    await ble('powered-off', 'the daemon to see the adapter powered off');
    kernel.setPowered(true);
    await ble('scanning', 'the daemon to scan again once the adapter is back on');
    const controller = kernel.controller();
    expect(controller?.scanning).toBe(true);
    for (const report of buttonReports(BLE_BUTTON)) {
      expect(controller?.deliver(Buffer.concat([Buffer.of(0x04), advertisingReportEvent(report)]))).toBe(true);
    }
    await waitFor(
      async () => {
        const heard = await harness.cliJson<Array<{ deviceId: string }>>(['scan']);
        return heard.some((sighting) => sighting.deviceId === BLE_BUTTON.id);
      },
      { what: `the daemon to hear ${BLE_BUTTON.id} over BLE` },
    );
    const paired = await harness.cli(['pair', BLE_BUTTON.id]);
    expect(paired.code, paired.stdout + paired.stderr).toBe(0);
    expect(harness.simulator.stats().postsByDevice[BLE_BUTTON.id]).toBe(1);
    expect(kernel.opened()).toBeGreaterThan(0);
    // Nothing on stderr about the APIs it uses: Node 24 warns about url.parse(), for one.
    expect(harness.output()).not.toMatch(/DeprecationWarning|ExperimentalWarning/);
    // And it exits cleanly, the module's reading thread stopped (no abort at exit).
    expect(await harness.stop()).toEqual({ code: 0, signal: null });
  } finally {
    await harness.close();
    await kernel.close();
  }
}
