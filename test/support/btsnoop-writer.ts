import { writeFileSync } from 'node:fs';

// Writes btsnoop captures the way `btmon -w` (Linux monitor, datalink 2001) and Android's
// btsnoop_hci.log (H4, datalink 1002) hold them, with the HCI packets of a scan: the host's
// commands, the controller's answers and LE advertising reports. Tests check what it writes with
// `btmon -r`, so the captures are what real tools read, not only what our reader accepts.

export type Datalink = 1001 | 1002 | 2001;

export interface AdFields {
  flags?: number;
  name?: string;
  shortName?: string;
  /** Company id (written little-endian first) and the bytes after it. */
  manufacturer?: { companyId: number; data: Buffer };
  services16?: number[];
  serviceData16?: { uuid: number; data: Buffer };
}

/** Advertising data: one AD structure a field (length, type, value). */
export function adStructures(fields: AdFields): Buffer {
  const parts: Buffer[] = [];
  const add = (type: number, value: Buffer): void => {
    parts.push(Buffer.from([value.length + 1, type]), value);
  };
  if (fields.flags !== undefined) add(0x01, Buffer.from([fields.flags]));
  if (fields.services16 !== undefined) {
    const value = Buffer.alloc(fields.services16.length * 2);
    fields.services16.forEach((uuid, i) => value.writeUInt16LE(uuid, i * 2));
    add(0x03, value);
  }
  if (fields.shortName !== undefined) add(0x08, Buffer.from(fields.shortName, 'utf8'));
  if (fields.name !== undefined) add(0x09, Buffer.from(fields.name, 'utf8'));
  if (fields.serviceData16 !== undefined) {
    const uuid = Buffer.alloc(2);
    uuid.writeUInt16LE(fields.serviceData16.uuid);
    add(0x16, Buffer.concat([uuid, fields.serviceData16.data]));
  }
  if (fields.manufacturer !== undefined) {
    const company = Buffer.alloc(2);
    company.writeUInt16LE(fields.manufacturer.companyId);
    add(0xff, Buffer.concat([company, fields.manufacturer.data]));
  }
  return Buffer.concat(parts);
}

export const REPORT_TYPES = { ADV_IND: 0x00, ADV_SCAN_IND: 0x02, ADV_NONCONN_IND: 0x03, SCAN_RSP: 0x04 } as const;

export interface AdvertisingReport {
  /** `c4:64:9f:5e:94:54` */
  address: string;
  random?: boolean;
  type: keyof typeof REPORT_TYPES;
  rssi: number;
  data: Buffer;
}

/** An LE Meta event holding one LE Advertising Report, without the H4 type byte. */
export function advertisingReportEvent(report: AdvertisingReport): Buffer {
  const address = Buffer.from(report.address.split(':').reverse().join(''), 'hex');
  const parameters = Buffer.concat([
    Buffer.from([0x02, 0x01, REPORT_TYPES[report.type], report.random ? 0x01 : 0x00]),
    address,
    Buffer.from([report.data.length]),
    report.data,
    Buffer.from([report.rssi & 0xff]),
  ]);
  return Buffer.concat([Buffer.from([0x3e, parameters.length]), parameters]);
}

/** An HCI command, without the H4 type byte. */
export function command(opcode: number, parameters: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(3);
  header.writeUInt16LE(opcode, 0);
  header[2] = parameters.length;
  return Buffer.concat([header, parameters]);
}

/** The controller's Command Complete for `opcode`, status success. */
export function commandComplete(opcode: number, result: Buffer = Buffer.alloc(0)): Buffer {
  const parameters = Buffer.concat([Buffer.from([0x01, opcode & 0xff, opcode >> 8, 0x00]), result]);
  return Buffer.concat([Buffer.from([0x0e, parameters.length]), parameters]);
}

export interface CapturedPacket {
  /** Milliseconds after the capture's start. */
  atMs: number;
  kind: 'command' | 'event';
  /** Without the H4 type byte. */
  packet: Buffer;
}

/** What a scan looks like in a capture: the host enabling it, then the reports. */
export function scanCapture(reports: Array<{ atMs: number; report: AdvertisingReport }>): CapturedPacket[] {
  const SET_SCAN_PARAMETERS = 0x200b;
  const SET_SCAN_ENABLE = 0x200c;
  return [
    { atMs: 0, kind: 'command', packet: command(SET_SCAN_PARAMETERS, Buffer.from([0x01, 0x12, 0x00, 0x12, 0x00, 0x00, 0x00])) },
    { atMs: 1, kind: 'event', packet: commandComplete(SET_SCAN_PARAMETERS) },
    { atMs: 2, kind: 'command', packet: command(SET_SCAN_ENABLE, Buffer.from([0x01, 0x00])) },
    { atMs: 3, kind: 'event', packet: commandComplete(SET_SCAN_ENABLE) },
    ...reports.map(({ atMs, report }) => ({ atMs: atMs + 5, kind: 'event' as const, packet: advertisingReportEvent(report) })),
  ];
}

const EPOCH_DELTA_US = 0x00dcddb30f2f8000n; // microseconds from year 0 to 1970
const START = Date.parse('2025-03-01T12:00:00Z');

/** Writes the file; returns its bytes. */
export function writeCapture(file: string, datalink: Datalink, packets: CapturedPacket[]): Buffer {
  const header = Buffer.alloc(16);
  header.write('btsnoop\0', 0, 'latin1');
  header.writeUInt32BE(1, 8);
  header.writeUInt32BE(datalink, 12);
  const records: Buffer[] = [header];
  const record = (atMs: number, flags: number, body: Buffer): void => {
    const head = Buffer.alloc(24);
    head.writeUInt32BE(body.length, 0);
    head.writeUInt32BE(body.length, 4);
    head.writeUInt32BE(flags, 8);
    head.writeUInt32BE(0, 12);
    head.writeBigInt64BE(BigInt(START + atMs) * 1000n + EPOCH_DELTA_US, 16);
    records.push(head, body);
  };
  if (datalink === 2001) {
    // New Index (opcode 0) then Open Index (8) for hci0, as btmon writes them first.
    const newIndex = Buffer.concat([Buffer.from([0x00, 0x01]), Buffer.from('010000000002', 'hex'), Buffer.from('hci0\0\0\0\0', 'latin1')]);
    record(0, 0, newIndex);
    record(0, 8, Buffer.alloc(0));
  }
  for (const { atMs, kind, packet } of packets) {
    if (datalink === 2001) record(atMs, kind === 'command' ? 2 : 3, packet);
    else if (datalink === 1002) record(atMs, kind === 'command' ? 2 : 3, Buffer.concat([Buffer.from([kind === 'command' ? 0x01 : 0x04]), packet]));
    else record(atMs, kind === 'command' ? 2 : 3, packet);
  }
  const bytes = Buffer.concat(records);
  writeFileSync(file, bytes);
  return bytes;
}
