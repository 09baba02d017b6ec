import { createServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { fnv1a, turnedFor } from '../../src/fleet/central-addresses.js';
import { assertBuilt } from '../support/binary.js';
import { bridgeConfig } from '../support/bridged-hub.js';
import { fleet } from '../support/fleet-reader.js';

// `--central URL,URL,...` and `--central-protocol` (the central side on a cluster): the bridge
// lists every node, turned by the hub id; a 3.1.1-only cluster (NATS Server)
// gets a plain 3.1.1 bridge carrying the topics that cannot hold a '.' (NATS 2.9 cuts a publish
// with one); the refusals name their flag.

const NODES = ['mqtt://10.0.0.1:1883', 'mqtt://10.0.0.2:1883', 'mqtt://10.0.0.3:1883'];
const CLUSTER = ['--central', NODES.join(',')];

/** The printed directives, comments left out, each line as key and values. */
function lines(text: string): Array<[string, string]> {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => [line.split(' ')[0]!, line.slice(line.indexOf(' ') + 1)]);
}
const valuesOf = (text: string, key: string): string[] => lines(text).filter(([name]) => name === key).map(([, value]) => value);

beforeAll(() => assertBuilt());

/** A TCP listener on 127.0.0.1 that tells of each connection and closes it at once. */
async function listening(connected: () => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => {
    connected();
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('turning the node list by hub id', () => {
  it('starts each hub at node fnv1a(id) mod n, keeping the order after it', () => {
    // FNV-1a's published 32-bit values: the offset basis for "", and those for "a" and "foobar".
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    // Worked by hand (offset basis, then XOR each byte and multiply by 16777619, modulo 2^32):
    // "hub-a" 0x6e841936, 0 mod 3; "hub-7" 0xa08467ec, 1 mod 3; "hub-c" 0x6c841610, 2 mod 3.
    expect(fnv1a('hub-7')).toBe(0xa08467ec);
    expect(turnedFor('hub-a', ['x', 'y', 'z'])).toEqual(['x', 'y', 'z']);
    expect(turnedFor('hub-7', ['x', 'y', 'z'])).toEqual(['y', 'z', 'x']);
    expect(turnedFor('hub-c', ['x', 'y', 'z'])).toEqual(['z', 'x', 'y']);
    expect(turnedFor('hub-7', ['only'])).toEqual(['only']);
  });

  it('spreads a fleet over the nodes about evenly', () => {
    const firsts = [0, 0, 0];
    for (let i = 0; i < 3_000; i++) firsts[turnedFor(`hub-${i}`, [0, 1, 2])[0]!]!++;
    for (const count of firsts) expect(count).toBeGreaterThan(800);
  });
});

describe('bridge-config for a cluster', () => {
  it('lists every node with round_robin, turned by the hub id, and keeps the default protocol lines', async () => {
    const printed = await bridgeConfig([...CLUSTER, '--hub-id', 'hub-7']);
    expect(printed.code, printed.stderr).toBe(0);
    // "hub-7" starts at node 1 of 3 (fnv1a, above), then the order after it.
    expect(valuesOf(printed.stdout, 'address')).toEqual(['10.0.0.2:1883 10.0.0.3:1883 10.0.0.1:1883']);
    expect(valuesOf(printed.stdout, 'round_robin')).toEqual(['true']);
    expect(valuesOf(printed.stdout, 'try_private')).toEqual(['true']);
    expect(valuesOf(printed.stdout, 'topic')).toEqual(['# out 1 panic-pair/ hubs/hub-7/']);
    expect(printed.stdout).toMatch(/a central cluster of 3 nodes/);
  });

  it('gives two hubs different first nodes when their ids hash apart', async () => {
    // By hand, as above: "hub-a" starts at node 0, "hub-c" at node 2.
    const firstOf = async (hubId: string): Promise<string | undefined> => valuesOf((await bridgeConfig([...CLUSTER, '--hub-id', hubId])).stdout, 'address')[0]?.split(' ')[0];
    expect(await firstOf('hub-a')).toBe('10.0.0.1:1883');
    expect(await firstOf('hub-c')).toBe('10.0.0.3:1883');
  });

  it("--central-protocol mqttv311: plain 3.1.1 (try_private false), carrying only the topics that cannot hold a '.', and saying so", async () => {
    const printed = await bridgeConfig([...CLUSTER, '--central-protocol', 'mqttv311', '--hub-id', 'hub-1'], { PANIC_PAIR_MQTT_PREFIX: 'pp' });
    expect(printed.code, printed.stderr).toBe(0);
    expect(valuesOf(printed.stdout, 'bridge_protocol_version')).toEqual(['mqttv311']);
    expect(valuesOf(printed.stdout, 'try_private')).toEqual(['false']);
    expect(valuesOf(printed.stdout, 'topic')).toEqual(['health out 1 pp/ hubs/hub-1/', 'status out 1 pp/ hubs/hub-1/', 'entitlement out 1 pp/ hubs/hub-1/']);
    // The refusal said in the file and to whoever runs the command.
    expect(printed.stdout).toMatch(/^# Not carried: pp\/devices\/<id> \(with its availability and supervision\), pp\/announce\./m);
    expect(printed.stdout).toMatch(/refused rather than mapped/);
    expect(printed.stderr).toMatch(/carries only health, status, entitlement, not the devices' topics/);
    expect(valuesOf(printed.stdout, 'notification_topic')).toEqual(['hubs/hub-1/bridge/state']);
  });

  it('--central-protocol mqttv5: an MQTT 5 bridge carrying <prefix>/#', async () => {
    const printed = await bridgeConfig(['--central', 'mqtt://10.0.0.1', '--central-protocol', 'mqttv5', '--hub-id', 'hub-1']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toBe('');
    expect(printed.stdout).not.toMatch(/Not carried/);
    expect(valuesOf(printed.stdout, 'bridge_protocol_version')).toEqual(['mqttv50']);
    expect(valuesOf(printed.stdout, 'try_private')).toEqual([]);
    expect(valuesOf(printed.stdout, 'round_robin')).toEqual([]);
    expect(valuesOf(printed.stdout, 'topic')).toEqual(['# out 1 panic-pair/ hubs/hub-1/']);
  });
});

describe('refusals: exit 2, naming the flag', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['a . in the hub id for a 3.1.1-only cluster (NATS 2.9 cuts the bridge)', [...CLUSTER, '--central-protocol', 'mqttv311', '--hub-id', 'site.7'], /--hub-id "site\.7" holds a "\."[^]*refused rather than mapped/],
    ['an unknown protocol', [...CLUSTER, '--central-protocol', 'mqttv31', '--hub-id', 'h'], /--central-protocol "mqttv31": expected one of mqttv311, mqttv5/],
    ['mqtt:// beside mqtts://', ['--central', 'mqtt://a,mqtts://b', '--hub-id', 'h'], /--central mixes mqtt:\/\/ and mqtts:\/\//],
    ['an empty address', ['--central', 'mqtt://a,,mqtt://b', '--hub-id', 'h'], /--central .* has an empty address/],
    ['a node named twice', ['--central', 'mqtt://a,mqtt://a:1883', '--hub-id', 'h'], /--central names a:1883 twice/],
    ['a bad node among good ones', ['--central', 'mqtt://a,http://b', '--hub-id', 'h'], /--central must be an mqtt:\/\/ or mqtts:\/\/ URL/],
  ];
  it.each(cases)('bridge-config: %s', async (_name, args, message) => {
    const result = await bridgeConfig(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('the same hub id with a . is fine where the cluster takes it (no --central-protocol mqttv311)', async () => {
    expect((await bridgeConfig([...CLUSTER, '--hub-id', 'site.7'])).code).toBe(0);
  });

  it('fleet: the same address checks, before anything connects', async () => {
    // Two real listeners as the nodes: whatever reaches them is counted.
    let connections = 0;
    const nodes = await Promise.all([0, 1].map(() => listening(() => (connections += 1))));
    try {
      const [one, two] = nodes.map((node) => `127.0.0.1:${node.port}`);
      for (const [args, message] of [
        [['--central', `mqtt://${one},mqtts://${two}`], /--central mixes/],
        [['--central', `mqtt://${one},mqtt://${two}`, '--central-protocol', 'mqtt3'], /--central-protocol "mqtt3"/],
      ] as Array<[string[], RegExp]>) {
        const result = await fleet(args);
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(message);
      }
      expect(connections).toBe(0);
      // The same nodes with good flags are reached: the count above could have seen a connection.
      await fleet(['--central', `mqtt://${one},mqtt://${two}`, '--central-protocol', 'mqttv311']);
      expect(connections).toBeGreaterThan(0);
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });
});
