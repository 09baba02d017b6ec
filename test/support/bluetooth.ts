import { createRequire } from 'node:module';

/** Whether this kernel refuses AF_BLUETOOTH (no Bluetooth at all): the tests of such a hub need it. */
export function bluetoothRefused(): boolean {
  try {
    const HciSocket = createRequire(import.meta.url)('@abandonware/bluetooth-hci-socket') as new () => unknown;
    new HciSocket();
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EAFNOSUPPORT';
  }
}
