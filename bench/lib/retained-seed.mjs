// A fleet's retained topics put on a central broker by a few MQTT clients (not a connection a
// hub): each hub's bridge state, status and health, retained at QoS 1. For a NATS Server cluster,
// whose MQTT side stores each retained message in a replicated JetStream stream before its PUBACK
// (about 2 ms of a client's read loop each, on loopback): so the work is spread over many
// clients and nodes, and a client the broker drops (its JetStream API calls time out after 4 s
// on a busy machine, and it refuses the connect or the publish) is connected again and its chunk
// sent again, which retained messages make harmless.
import { connect } from 'mqtt';

const CHUNK = 300;
const ATTEMPTS = 20;
const CHUNK_TIMEOUT_MS = 30_000;

/** The three retained messages of hub `i`. */
function messagesOf(i, health) {
  const hub = `hub-${String(i).padStart(6, '0')}`;
  return [[`hubs/${hub}/bridge/state`, '1'], [`hubs/${hub}/status`, 'online'], [`hubs/${hub}/health`, health]];
}

/** A CONNACK, or why not: a connect the broker closes without one (NATS under load) is a failure too. */
function connectOnce(address, clientId) {
  return new Promise((resolve, reject) => {
    const client = connect(address, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 10_000, clientId });
    client.on('error', () => undefined);
    const fail = (why) => {
      client.end(true);
      reject(new Error(`${clientId} could not connect to ${address}: ${why}`));
    };
    client.once('connect', () => {
      client.removeAllListeners('close');
      resolve(client);
    });
    client.once('close', () => fail('closed before its CONNACK'));
  });
}

async function connected(address, clientId) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectOnce(address, clientId);
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Sends one chunk and waits for every PUBACK; false when the connection died meanwhile. */
function sendChunk(client, messages) {
  return new Promise((resolve) => {
    let left = messages.length;
    const timer = setTimeout(() => finish(false), CHUNK_TIMEOUT_MS);
    const onClose = () => finish(false);
    const finish = (ok) => {
      clearTimeout(timer);
      client.removeListener('close', onClose);
      resolve(ok);
    };
    client.once('close', onClose);
    for (const [topic, payload] of messages) {
      client.publish(topic, payload, { qos: 1, retain: true }, (error) => {
        if (error) finish(false);
        else if (--left === 0) finish(true);
      });
    }
  });
}

/**
 * `hubs` hubs' retained topics through `clients` clients spread over `addresses`; resolves with
 * the seconds it took and how many times a client had to connect again.
 */
export async function seedRetainedFleet({ addresses, hubs, clients, health, onProgress = () => undefined }) {
  const started = performance.now();
  let reconnects = 0;
  let sent = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const address = addresses[c % addresses.length];
      const clientId = `bench-seed-${c}`;
      let client = await connected(address, clientId);
      client.on('error', () => undefined);
      const mine = [];
      for (let i = c; i < hubs; i += clients) mine.push(...messagesOf(i, health));
      for (let from = 0; from < mine.length; ) {
        const chunk = mine.slice(from, from + CHUNK);
        if (await sendChunk(client, chunk)) {
          from += chunk.length;
          sent += chunk.length;
          onProgress(sent);
          continue;
        }
        reconnects++;
        if (reconnects > ATTEMPTS * clients) throw new Error(`the broker kept dropping the seeding clients (${reconnects} reconnects)`);
        client.end(true);
        client = await connected(address, clientId);
        client.on('error', () => undefined);
      }
      await client.endAsync();
    }),
  );
  return { seconds: (performance.now() - started) / 1000, reconnects };
}
