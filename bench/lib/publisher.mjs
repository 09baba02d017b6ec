// The one publisher of the ingest benchmark, in its own process: raw MQTT 3.1.1 over TCP, the
// PUBLISH packets encoded before the clock starts, written as fast as the socket takes them
// (honouring backpressure), so that the subscriber under test, not the publisher, sets the pace.
//
// Commands on stdin, one a line; answers on stdout:
//   prepare <topic> <count> <idPrefix>   ->  prepared <bytes>
//   go                                   ->  sent <ms>
//   quit
import net from 'node:net';
import readline from 'node:readline';

const [host, portText] = process.argv.slice(2);
const socket = net.connect({ host, port: Number(portText) });
socket.setNoDelay(true);

function remainingLength(length) {
  const bytes = [];
  do {
    let byte = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) byte |= 0x80;
    bytes.push(byte);
  } while (length > 0);
  return Buffer.from(bytes);
}

function connectPacket(clientId) {
  const id = Buffer.from(clientId);
  const body = Buffer.concat([
    Buffer.from([0, 4]), Buffer.from('MQTT'), Buffer.from([4, 0x02, 0, 60]),
    Buffer.from([id.length >> 8, id.length & 0xff]), id,
  ]);
  return Buffer.concat([Buffer.from([0x10]), remainingLength(body.length), body]);
}

function publishPacket(topic, payload) {
  const t = Buffer.from(topic);
  const p = Buffer.from(payload);
  const length = 2 + t.length + p.length;
  return Buffer.concat([Buffer.from([0x30]), remainingLength(length), Buffer.from([t.length >> 8, t.length & 0xff]), t, p]);
}

/** Distinct, valid announcements: what a flood of unknown buttons looks like. */
export function announcement(idPrefix, i) {
  return JSON.stringify({ deviceId: `${idPrefix}-${String(i).padStart(7, '0')}`, rssi: -40 - (i % 50) });
}

let prepared = Buffer.alloc(0);
const say = (line) => process.stdout.write(`${line}\n`);

async function writeAll(buffer) {
  const chunk = 64 * 1024;
  for (let offset = 0; offset < buffer.length; offset += chunk) {
    if (!socket.write(buffer.subarray(offset, offset + chunk))) {
      await new Promise((resolve) => socket.once('drain', resolve));
    }
  }
}

socket.once('connect', () => socket.write(connectPacket(`bench-publisher-${process.pid}`)));
socket.once('data', (data) => {
  if (data[0] !== 0x20 || data[3] !== 0) {
    process.stderr.write('publisher: the broker refused the connection\n');
    process.exit(1);
  }
  say('ready');
});
socket.on('error', (error) => {
  process.stderr.write(`publisher: ${error.message}\n`);
  process.exit(1);
});

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const [command, topic, countText, idPrefix] = line.trim().split(' ');
  if (command === 'prepare') {
    const count = Number(countText);
    const packets = new Array(count);
    for (let i = 0; i < count; i++) packets[i] = publishPacket(topic, announcement(idPrefix, i));
    prepared = Buffer.concat(packets);
    say(`prepared ${prepared.length}`);
  } else if (command === 'go') {
    const started = performance.now();
    await writeAll(prepared);
    say(`sent ${(performance.now() - started).toFixed(1)}`);
  } else if (command === 'quit') {
    socket.end(Buffer.from([0xe0, 0]));
    process.exit(0);
  }
});
