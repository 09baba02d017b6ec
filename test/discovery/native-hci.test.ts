import { afterAll, describe, it } from 'vitest';
import { compileHciKernel } from '../support/hci-kernel.js';
import { pairThroughNativeModule } from '../support/native-ble-pairing.js';

// The source install's HCI module (@abandonware/bluetooth-hci-socket, compiled by npm ci for this
// Node) carrying a button's reports from a kernel socket (test/support/hci-kernel.c) through noble
// to a link. The Debian package's module gets the same test in test/packaging/node-api.test.ts.

const compiled = await compileHciKernel();
const skipReason = typeof compiled === 'string' ? compiled : undefined;
afterAll(() => (typeof compiled === 'string' ? undefined : compiled.dispose()));

describe.skipIf(skipReason !== undefined)(`the source install's native HCI module${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('reads a button from the kernel socket, and the button is linked with one POST', async () => {
    if (typeof compiled !== 'string') await pairThroughNativeModule(compiled.library);
  });
});
