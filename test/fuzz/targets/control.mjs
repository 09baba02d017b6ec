// Control-socket frames: the bytes a client sends, cut into chunks as a stream may deliver them
// (partial lines, lines over the limit, bad JSON, unknown requests, data after the line), through
// the daemon's connection code with handlers that answer at once. Each connection ends in exactly
// one result or error line, or, without a whole line, in nothing written.
import { EventEmitter } from 'node:events';
import { serveConnection } from '../../../dist/control/connection.js';
import { MAX_REQUEST_BYTES } from '../../../dist/control/protocol.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { expect, tally } from './verdict.mjs';

const handlers = {
  status: () => ({ customerId: 42 }),
  devices: () => [],
  scan: async () => [],
  forget: async () => ({ removed: false }),
  pair: async (deviceId, options) => {
    options.onProgress({ step: 'entitlement' });
    return { ok: true, deviceId, linkId: 1, customerId: options.customerId ?? 42 };
  },
  window: async (_seconds, options) => {
    options.onOpen?.();
    return { linked: [] };
  },
  household: async () => [],
};
const logger = silentLogger();
export const outcomes = tally();

class FakeSocket extends EventEmitter {
  written = [];
  destroyed = false;
  writable = true;
  ended = false;
  write(text) {
    expect(!this.ended, 'nothing written after the end');
    this.written.push(text);
    return true;
  }
  end() {
    this.ended = true;
    this.writable = false;
  }
  destroy() {
    this.destroyed = true;
    this.writable = false;
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

export async function fuzz(data) {
  // The first byte says where the stream is cut (a chunk every n bytes); a large repeat count
  // makes lines over the limit without the fuzzer having to grow its inputs that far.
  const cut = Math.max(1, data[0] ?? 1);
  const repeat = (data[1] ?? 0) === 0xff ? Math.ceil((MAX_REQUEST_BYTES + 1) / Math.max(1, data.length - 2)) : 1;
  const stream = repeat > 1 ? Buffer.concat(Array(repeat).fill(data.subarray(2))) : data.subarray(2);
  const socket = new FakeSocket();
  const connection = serveConnection(socket, { handlers, logger, requestTimeoutMs: 60_000 });
  for (let at = 0; at < stream.length; at += cut) socket.emit('data', stream.subarray(at, at + cut));
  for (let i = 0; i < 4; i++) await settle();
  const lines = socket.written.join('').split('\n').filter((line) => line !== '');
  const terminal = lines.map((line) => JSON.parse(line)).filter((reply) => reply.type === 'result' || reply.type === 'error');
  const wholeLine = stream.subarray(0, MAX_REQUEST_BYTES + 1).includes(0x0a) || stream.length > MAX_REQUEST_BYTES;
  if (wholeLine) {
    expect(terminal.length === 1, `one result or error line, not ${terminal.length}`);
    expect(socket.ended, 'the connection ends after its answer');
    if (terminal[0].type === 'result') outcomes.accepted();
    else outcomes.rejected();
  } else {
    expect(socket.written.length === 0, 'nothing answered before the request line is whole');
    outcomes.ignored();
  }
  socket.emit('close');
  await connection.closed;
}

export function seeds() {
  const line = (text, cut = 0x40) => Buffer.concat([Buffer.of(cut, 0), Buffer.from(text)]);
  return [
    line('{"type":"status"}\n'),
    line('{"type":"pair","deviceId":"7F3A9C","timeoutMs":5000,"customerId":43}\n', 3),
    line('{"type":"window","seconds":30}\n', 1),
    line('{"type":"scan","seconds":1e400}\n'),
    line('{"type":"forget","deviceId":"../etc"}\n'),
    line('{"type":"launch"}\n{"type":"status"}\n'),
    line('{"type":"status"'),
    line('not json\n'),
    Buffer.concat([Buffer.of(0xff, 0xff), Buffer.from('{"type":"status","pad":"')]),
  ];
}
