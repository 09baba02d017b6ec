import { readFile, stat } from 'node:fs/promises';
import { PanicPairError } from '../errors.js';
import { advertisingReportProblem, isAdvertisingReport } from './advertising-report.js';

// Reading btsnoop captures: the Linux monitor format `btmon -w` writes (datalink 2001), Android's
// btsnoop_hci.log (H4, datalink 1002) and plain HCI (1001). Only the framing is read here: what
// is kept are the controller's advertising report events, whole, which the replay hands to noble
// to parse. Everything else (the capturing host's commands, their answers, ACL data) is left out:
// during replay the VirtualHciSocket plays the controller for this host.

const MAGIC = Buffer.from('btsnoop\0', 'latin1');
const HEADER_BYTES = 16;
const RECORD_HEADER_BYTES = 24;
/**
 * A report stamped further than this after the capture's first is refused: the replay waits that
 * long, and timestamps beyond it (a fuzzed file held one 2^62 us on) are broken, not a capture.
 */
export const MAX_OFFSET_US = 24 * 60 * 60 * 1_000_000;
/** Larger captures are refused rather than read into memory on a small hub. */
export const MAX_CAPTURE_BYTES = 256 * 1024 * 1024;

export const DATALINKS = { hci: 1001, h4: 1002, monitor: 2001 } as const;
const DATALINK_NAMES: Record<number, string> = {
  1001: 'HCI', 1002: 'H4 (Android btsnoop_hci.log)', 1003: 'BCSP', 1004: 'three-wire UART', 2001: 'Linux monitor (btmon -w)', 2002: 'simulator',
};
const MONITOR_EVENT = 3;
const H4_EVENT = 0x04;
const FLAG_RECEIVED = 0x01;
const FLAG_COMMAND_OR_EVENT = 0x02;

export interface CaptureRecord {
  /** Microseconds after the capture's first advertising report. */
  offsetUs: number;
  /** The HCI event, H4 type byte (0x04) first, as noble reads it from its socket. */
  packet: Buffer;
}

export interface Capture {
  file: string;
  datalink: number;
  /** The advertising reports, in the order recorded. */
  records: CaptureRecord[];
  /** Records of the file, advertising reports or not. */
  total: number;
  /** Said once when the capture is loaded, e.g. a last record cut short. */
  warnings: string[];
}

export async function readCapture(file: string): Promise<Capture> {
  let data: Buffer;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_CAPTURE_BYTES) throw malformed(file, `is ${Math.round(size / 1048576)} MB; captures over ${MAX_CAPTURE_BYTES / 1048576} MB are not replayed`);
    data = await readFile(file);
  } catch (error) {
    if (error instanceof PanicPairError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new PanicPairError('config', `the capture ${file} cannot be read (${code ?? (error as Error).message})`, { cause: error });
  }
  return parseCapture(data, file);
}

/** Throws a 'config' PanicPairError naming the file and what is wrong with it. */
export function parseCapture(data: Buffer, file: string): Capture {
  if (data.length < HEADER_BYTES || !data.subarray(0, 8).equals(MAGIC)) {
    throw malformed(file, `is not a btsnoop capture: it does not start with the btsnoop header ("btsnoop\\0", version, datalink)`);
  }
  const version = data.readUInt32BE(8);
  if (version !== 1) throw malformed(file, `has btsnoop version ${version}; only version 1 exists`);
  const datalink = data.readUInt32BE(12);
  if (datalink !== DATALINKS.hci && datalink !== DATALINKS.h4 && datalink !== DATALINKS.monitor) {
    const name = DATALINK_NAMES[datalink] ? ` (${DATALINK_NAMES[datalink]})` : '';
    throw malformed(file, `has datalink ${datalink}${name}; supported: 2001 (btmon -w), 1002 (Android btsnoop_hci.log) and 1001 (HCI)`);
  }

  const records: CaptureRecord[] = [];
  const warnings: string[] = [];
  let firstUs: bigint | undefined;
  let total = 0;
  let position = HEADER_BYTES;
  while (position < data.length) {
    const number = total + 1;
    const remaining = data.length - position;
    const cut = (what: string): string => `record ${number} at byte ${position} is cut short: ${what}, ${remaining} remain`;
    if (remaining < RECORD_HEADER_BYTES) {
      warnings.push(cut(`its header needs ${RECORD_HEADER_BYTES} bytes`));
      break;
    }
    const originalLength = data.readUInt32BE(position);
    const includedLength = data.readUInt32BE(position + 4);
    const flags = data.readUInt32BE(position + 8);
    const timestamp = data.readBigInt64BE(position + 16);
    if (includedLength > originalLength) {
      throw malformed(file, `record ${number} at byte ${position} holds ${includedLength} bytes of a ${originalLength}-byte packet (more than the packet)`);
    }
    if (RECORD_HEADER_BYTES + includedLength > remaining) {
      warnings.push(cut(`it announces ${RECORD_HEADER_BYTES + includedLength} bytes`));
      break;
    }
    const body = data.subarray(position + RECORD_HEADER_BYTES, position + RECORD_HEADER_BYTES + includedLength);
    position += RECORD_HEADER_BYTES + includedLength;
    total = number;
    // A packet the capture truncated (snap length) is left out, not guessed at.
    if (includedLength < originalLength) continue;
    const packet = eventOf(datalink, flags, body);
    if (packet === undefined || !isAdvertisingReport(packet)) continue;
    const problem = advertisingReportProblem(packet);
    if (problem !== undefined) throw malformed(file, `record ${number} (an advertising report) ${problem}`);
    firstUs ??= timestamp;
    const offset = timestamp - firstUs;
    if (offset > BigInt(MAX_OFFSET_US)) throw malformed(file, `record ${number} is stamped ${offset} us after the first advertising report; a replayed capture spans at most a day`);
    records.push({ offsetUs: offset > 0n ? Number(offset) : 0, packet });
  }
  if (records.length === 0) {
    throw malformed(file, `holds no LE advertising reports (${total} records read): there is nothing to replay`);
  }
  return { file, datalink, records, total, warnings };
}

/** The record as an H4 event packet, or undefined when it is not an event from the controller. */
function eventOf(datalink: number, flags: number, body: Buffer): Buffer | undefined {
  if (datalink === DATALINKS.monitor) {
    // flags: adapter index in the upper 16 bits, the monitor opcode in the lower.
    if ((flags & 0xffff) !== MONITOR_EVENT) return undefined;
    return Buffer.concat([Buffer.of(H4_EVENT), body]);
  }
  if (datalink === DATALINKS.h4) {
    return body[0] === H4_EVENT ? Buffer.from(body) : undefined;
  }
  const isEvent = (flags & FLAG_COMMAND_OR_EVENT) !== 0 && (flags & FLAG_RECEIVED) !== 0;
  return isEvent ? Buffer.concat([Buffer.of(H4_EVENT), body]) : undefined;
}

function malformed(file: string, problem: string): PanicPairError {
  return new PanicPairError('config', `the capture ${file} ${problem}`);
}
