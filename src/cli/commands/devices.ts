import type { DeviceRecord } from '../../store/record.js';
import { PanicPairError } from '../../errors.js';
import { askDaemon, type ClientOptions } from '../daemon.js';
import { printJson, printLine, table } from '../render.js';

// `panic-pair devices`: the pairing store as the daemon holds it, one row a device.

export function devicesTable(devices: readonly DeviceRecord[]): string {
  const rows = [...devices]
    .sort((a, b) => a.deviceId.localeCompare(b.deviceId))
    .map((device) => [
      device.deviceId,
      device.state,
      String(device.customerId),
      device.source,
      device.linkId === undefined ? '-' : String(device.linkId),
      device.linkedAt ?? device.updatedAt,
      device.error ?? '',
    ]);
  return table(['DEVICE', 'STATE', 'CUSTOMER', 'SOURCE', 'LINK', 'LINKED/UPDATED', 'ERROR'], rows);
}

export async function devicesCommand(options: ClientOptions & { json?: boolean }): Promise<void> {
  const devices = await askDaemon<DeviceRecord[]>(options, { type: 'devices' }, { timeoutMs: 10_000 });
  if (!Array.isArray(devices)) throw new PanicPairError('failure', 'the daemon sent a device list this client cannot read');
  if (options.json) printJson(devices);
  else if (devices.length === 0) printLine('no devices paired yet');
  else process.stdout.write(devicesTable(devices));
}
