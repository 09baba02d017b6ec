import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCapture, readCapture } from '../../src/discovery/btsnoop.js';
import { PanicPairError } from '../../src/errors.js';
import { adStructures, advertisingReportEvent, scanCapture, writeCapture } from '../support/btsnoop-writer.js';
import { btmonRead, writeScene } from './fixtures/captures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-btsnoop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BUTTON = { id: '7F3A9C', address: 'c4:64:9f:5e:94:54', rssi: -55 };

describe.each([
  [2001, 'btmon -w (Linux monitor)', 'scene.btsnoop'],
  [1002, "Android's btsnoop_hci.log (H4)", 'btsnoop_hci.log'],
  [1001, 'plain HCI', 'hci.btsnoop'],
] as const)('datalink %i, %s', (datalink, _name, fileName) => {
  const file = path.join(dir, fileName);
  writeScene(file, datalink, { buttons: [BUTTON], phones: 1, durationMs: 200, everyMs: 100 });

  it('is a capture btmon reads, holding the scan and the reports', async (context) => {
    const text = await btmonRead(file);
    if (text === undefined) return context.skip('btmon is not installed');
    expect(text).toContain('LE Set Scan Enable');
    expect(text).toContain('LE Advertising Report');
    expect(text).toContain('Name (complete): PANIC-7F3A9C');
    expect(text).toContain('Address: C4:64:9F:5E:94:54');
    expect(text).toContain('RSSI: -55 dBm');
    expect(text).toContain('Company: Apple, Inc. (76)');
  });

  it('is read as its advertising reports alone, with their recorded offsets', async () => {
    const capture = await readCapture(file);
    expect(capture.datalink).toBe(datalink);
    // Two rounds of three reports (button advertisement, its scan response, a phone).
    expect(capture.records).toHaveLength(6);
    expect(capture.total).toBe(datalink === 2001 ? 12 : 10);
    expect(capture.records.map((record) => record.offsetUs)).toEqual([0, 0, 0, 100_000, 100_000, 100_000]);
    for (const record of capture.records) expect([...record.packet.subarray(0, 2), record.packet[3]]).toEqual([0x04, 0x3e, 0x02]);
    expect(capture.records[1]!.packet.includes(Buffer.from('PANIC-7F3A9C'))).toBe(true);
    expect(capture.warnings).toEqual([]);
  });
});

describe('a malformed capture gives a clear error naming the file and what is wrong', () => {
  const good = writeCapture(path.join(dir, 'good.log'), 1002, scanCapture([{ atMs: 0, report: { address: 'c4:64:9f:5e:94:54', type: 'ADV_NONCONN_IND', rssi: -50, data: adStructures({ name: 'PANIC-1' }) } }]));
  const failure = (bytes: Buffer, name = 'broken.log'): string => {
    try {
      parseCapture(bytes, path.join(dir, name));
    } catch (error) {
      expect(error).toBeInstanceOf(PanicPairError);
      expect((error as PanicPairError).kind).toBe('config');
      return (error as Error).message;
    }
    throw new Error('parsed without an error');
  };
  const withHeader = (version: number, datalink: number): Buffer => {
    const copy = Buffer.from(good);
    copy.writeUInt32BE(version, 8);
    copy.writeUInt32BE(datalink, 12);
    return copy;
  };

  it.each([
    ['a text file', () => Buffer.from('hello, this is not a capture\n'), /broken\.log is not a btsnoop capture: it does not start with the btsnoop header/],
    ['an empty file', () => Buffer.alloc(0), /broken\.log is not a btsnoop capture/],
    ['an unknown version', () => withHeader(2, 1002), /broken\.log has btsnoop version 2; only version 1 exists/],
    ['BCSP framing', () => withHeader(1, 1003), /broken\.log has datalink 1003 \(BCSP\); supported: 2001 \(btmon -w\), 1002 \(Android btsnoop_hci\.log\)/],
    [
      'a record holding more than its packet',
      () => {
        const copy = Buffer.from(good);
        copy.writeUInt32BE(3, 16); // the first record's original length, below its included length
        return copy;
      },
      /broken\.log record 1 at byte 16 holds 11 bytes of a 3-byte packet/,
    ],
    [
      'a report whose length byte lies',
      () => {
        const event = advertisingReportEvent({ address: 'c4:64:9f:5e:94:54', type: 'ADV_NONCONN_IND', rssi: -50, data: adStructures({ name: 'PANIC-1' }) });
        event[1] = event[1]! + 4;
        return Buffer.concat([good.subarray(0, 16), recordH4(event)]);
      },
      /broken\.log record 1 \(an advertising report\) announces \d+ parameter bytes but holds \d+/,
    ],
    [
      'a report whose data runs past the event',
      () => {
        const event = advertisingReportEvent({ address: 'c4:64:9f:5e:94:54', type: 'ADV_NONCONN_IND', rssi: -50, data: adStructures({ name: 'PANIC-1' }) });
        event[12] = 200; // the report's data length
        return Buffer.concat([good.subarray(0, 16), recordH4(event)]);
      },
      /record 1 \(an advertising report\) report 1 of 1 announces more data than the event holds/,
    ],
    [
      // Found by the btsnoop fuzz target (test/fuzz/btsnoop/): the replay would wait past what a timer holds.
      'a report stamped decades after the first',
      () => {
        const event = advertisingReportEvent({ address: 'c4:64:9f:5e:94:54', type: 'ADV_NONCONN_IND', rssi: -50, data: adStructures({ name: 'PANIC-1' }) });
        const later = recordH4(event);
        later.writeBigInt64BE(2n ** 62n, 16);
        return Buffer.concat([good.subarray(0, 16), recordH4(event), later]);
      },
      /broken\.log record 2 is stamped \d+ us after the first advertising report; a replayed capture spans at most a day/,
    ],
    ['a capture without advertising reports', () => good.subarray(0, 16 + 4 * (24 + 10)), /broken\.log holds no LE advertising reports \(\d+ records read\): there is nothing to replay/],
  ])('%s', (_name, bytes, expected) => {
    expect(failure(bytes())).toMatch(expected);
  });

  it('a file that cannot be read', async () => {
    await expect(readCapture(path.join(dir, 'missing.log'))).rejects.toThrow(/the capture .*missing\.log cannot be read \(ENOENT\)/);
  });

  it('a last record cut short (a log copied while being written) keeps what came before, with a warning', () => {
    const cut = Buffer.concat([good, good.subarray(16, 40)]);
    const capture = parseCapture(cut, path.join(dir, 'cut.log'));
    expect(capture.records).toHaveLength(1);
    expect(capture.warnings).toEqual([expect.stringMatching(/^record 6 at byte \d+ is cut short: it announces \d+ bytes, 24 remain$/)]);
  });

});

/** One H4 record (flags: received event) around an event without its type byte. */
function recordH4(event: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from([0x04]), event]);
  const head = Buffer.alloc(24);
  head.writeUInt32BE(body.length, 0);
  head.writeUInt32BE(body.length, 4);
  head.writeUInt32BE(3, 8);
  head.writeBigInt64BE(0x00e03ab44a676000n, 16);
  return Buffer.concat([head, body]);
}
