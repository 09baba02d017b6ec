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
import { connectPacket, DISCONNECT, publishPacket } from './mqtt-packets.mjs';

const [host, portText] = process.argv.slice(2);
const socket = net.connect({ host, port: Number(portText) });
socket.setNoDelay(true);

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
    socket.end(DISCONNECT);
    process.exit(0);
  }
});
