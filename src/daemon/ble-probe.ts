import type { StatusReport } from './status-report.js';

export interface BleState {
  state: StatusReport['ble'];
  reason?: string;
}

/**
 * Whether the hub's own radio can be used. noble is native and binds the HCI socket when it is
 * loaded, so it is loaded only here, lazily; on a machine without Bluetooth the load itself fails.
 */
export async function probeBle(hciDevice: number): Promise<BleState> {
  process.env.NOBLE_HCI_DEVICE_ID ??= String(hciDevice);
  try {
    await import('@abandonware/noble');
  } catch (error) {
    return { state: 'unavailable', reason: describeBleError(error) };
  }
  return { state: 'unavailable', reason: 'scanning with the hub\'s own radio is not enabled in this build' };
}

function describeBleError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'EAFNOSUPPORT' || message.includes('EAFNOSUPPORT')) return 'unsupported: this kernel has no Bluetooth (AF_BLUETOOTH refused)';
  if (code === 'EPERM' || code === 'EACCES' || /EPERM|EACCES/.test(message)) {
    return 'unauthorized: grant CAP_NET_RAW and CAP_NET_ADMIN (the systemd unit does), or run as root';
  }
  if (code === 'ERR_MODULE_NOT_FOUND') return 'unsupported: the Bluetooth module (@abandonware/noble) is not installed';
  return `unavailable: ${message}`;
}
