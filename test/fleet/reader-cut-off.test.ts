import { createServer, type Server, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/binary.js';
import { fleet } from '../support/fleet-reader.js';

// A reader cut off while the broker sends its retained copies (NATS Server closes a reader slower
// than its write_deadline: "Slow Consumer Detected") is a broker that cannot be read, exit 2, never
// an empty exit 0: mqtt.js never calls back the marker's QoS 1 publish on a closed connection, and
// `fleet` once waited on it until Node found nothing left to run and ended, printing nothing.

/** A broker that answers CONNECT and SUBSCRIBE, sends one retained health, and closes at the marker. */
function cuttingBroker(): Promise<{ server: Server; address: string }> {
  const server = createServer((socket: Socket) => {
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    const send = (packet: mqttPacket.Packet): void => {
      socket.write(mqttPacket.generate(packet, { protocolVersion: 4 }));
    };
    parser.on('packet', (packet) => {
      if (packet.cmd === 'connect') send({ cmd: 'connack', returnCode: 0, sessionPresent: false });
      else if (packet.cmd === 'subscribe') {
        send({ cmd: 'suback', messageId: packet.messageId!, granted: packet.subscriptions.map(() => 0) });
        if (packet.subscriptions.some((subscription) => subscription.topic === 'hubs/+/health')) {
          send({ cmd: 'publish', topic: 'hubs/hub-1/health', payload: Buffer.from('{}'), qos: 0, retain: true, dup: false });
        }
      } else if (packet.cmd === 'publish') socket.destroy();
    });
    socket.on('data', (chunk) => parser.parse(chunk));
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, address: `mqtt://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

let broker: { server: Server; address: string } | undefined;
beforeAll(() => assertBuilt());
afterEach(() => broker?.server.close());

describe('a reader cut off during the retained copies', () => {
  it('exits 2 naming the broker, and prints no rows', async () => {
    broker = await cuttingBroker();
    const result = await fleet(['--central', broker.address, '--central-protocol', 'mqttv311', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`the central broker at ${broker.address} closed the connection while sending its retained messages`);
  }, 60_000);
});
