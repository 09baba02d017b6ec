// btsnoop captures (PANIC_PAIR_BLE_REPLAY): Linux monitor (btmon -w, 2001), Android H4 (1002) and
// plain HCI (1001). A capture is read, or refused with a 'config' error naming the file.
import { parseCapture } from '../../../dist/discovery/btsnoop.js';
import { isAdvertisingReport } from '../../../dist/discovery/virtual-hci-socket.js';
import { PanicPairError } from '../../../dist/errors.js';
import { expect, tally } from './verdict.mjs';

export const outcomes = tally();

export function fuzz(data) {
  let capture;
  try {
    capture = parseCapture(data, 'fuzzed.btsnoop');
  } catch (error) {
    if (!(error instanceof PanicPairError) || error.kind !== 'config') throw error;
    expect(error.message.startsWith('the capture fuzzed.btsnoop '), 'a refusal names the file');
    outcomes.rejected();
    return;
  }
  expect(capture.records.length > 0 && capture.total >= capture.records.length, 'a capture holds at least one report');
  for (const record of capture.records) {
    expect(isAdvertisingReport(record.packet), 'every record kept is an advertising report');
    expect(Number.isSafeInteger(record.offsetUs) && record.offsetUs >= 0, 'offsets are whole, from the first report on');
  }
  outcomes.accepted();
}

function record(body, flags, timestampUs) {
  const header = Buffer.alloc(24);
  header.writeUInt32BE(body.length, 0);
  header.writeUInt32BE(body.length, 4);
  header.writeUInt32BE(flags, 8);
  header.writeBigInt64BE(BigInt(timestampUs), 16);
  return Buffer.concat([header, body]);
}

function capture(datalink, records) {
  const header = Buffer.alloc(16);
  header.write('btsnoop\0', 0, 'latin1');
  header.writeUInt32BE(1, 8);
  header.writeUInt32BE(datalink, 12);
  return Buffer.concat([header, ...records]);
}

/** An LE advertising report event (no H4 byte): PANIC-7F3A9C with BTHome service data (UUID 0xFCD2). */
export function advertisingReport() {
  const name = Buffer.from('PANIC-7F3A9C');
  const data = Buffer.concat([Buffer.from([0x02, 0x01, 0x06, name.length + 1, 0x09]), name, Buffer.from([0x08, 0x16, 0xd2, 0xfc, 0x40, 0x01, 0x50, 0x15, 0x00])]);
  const body = Buffer.concat([Buffer.from([0x02, 0x01, 0x00, 0x00, 0x54, 0x94, 0x5e, 0x9f, 0x64, 0xc4, data.length]), data, Buffer.from([0xc9])]);
  return Buffer.concat([Buffer.from([0x3e, body.length]), body]);
}

export function seeds() {
  const report = advertisingReport();
  const h4 = Buffer.concat([Buffer.of(0x04), report]);
  return [
    capture(2001, [record(report, 0x0003, 1_000_000), record(Buffer.from([0x03, 0x0c, 0x00]), 0x0002, 1_000_100), record(report, 0x0003, 1_050_000)]),
    capture(1002, [record(h4, 0x03, 5), record(Buffer.from([0x01, 0x0c, 0x20, 0x02, 0x01, 0x00]), 0x02, 6), record(h4, 0x03, 900)]),
    capture(1001, [record(report, 0x03, 0), record(report, 0x01, 10)]),
    capture(2001, [record(report, 0x0003, 0)]).subarray(0, 40),
    capture(1003, []),
  ];
}
