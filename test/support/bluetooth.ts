import { kernelHciSocketClass } from '../../src/discovery/kernel-hci-socket.js';
import { hciSocketFile } from '../../src/discovery/noble-loader.js';

/** Whether this kernel refuses AF_BLUETOOTH (no Bluetooth at all): the tests of such a hub need it. */
export function bluetoothRefused(): boolean {
  try {
    const HciSocket = kernelHciSocketClass(hciSocketFile());
    new HciSocket();
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EAFNOSUPPORT';
  }
}
