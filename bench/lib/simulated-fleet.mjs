// Many hubs as the central broker sees them, each a raw MQTT 3.1.1 connection in this process
// (a few kilobytes each): the client id, will and topics a `panic-pair bridge-config` bridge has,
// the retained bridge state, status and health at connect, then the health again every refresh
// and a keepalive ping as often, each hub at its own phase.
import net from 'node:net';
import { onCleanup } from './lifecycle.mjs';
import { connectPacket, DISCONNECT, PINGREQ, publishPacket } from './mqtt-packets.mjs';

const CONNECT_BATCH = 100;

function startHub(port, hubId, health) {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  socket.on('error', () => undefined);
  let packetId = 0;
  const nextId = () => (packetId = (packetId % 65535) + 1);
  const publish = (topic, payload) => socket.write(publishPacket(topic, payload, { qos: 1, retain: true, packetId: nextId() }));
  const connected = new Promise((resolve, reject) => {
    socket.once('connect', () => socket.write(connectPacket(`panic-pair-hub-${hubId}`, { will: { topic: `hubs/${hubId}/bridge/state`, payload: '0' } })));
    socket.once('data', (data) => (data[0] === 0x20 && data[3] === 0 ? resolve() : reject(new Error(`hub ${hubId} refused`))));
    socket.once('close', () => reject(new Error(`hub ${hubId} closed`)));
  });
  return {
    connected: connected.then(() => {
      publish(`hubs/${hubId}/bridge/state`, '1');
      publish(`hubs/${hubId}/status`, 'online');
      publish(`hubs/${hubId}/health`, health);
    }),
    refresh: () => publish(`hubs/${hubId}/health`, health),
    ping: () => socket.write(PINGREQ),
    close: () => socket.end(DISCONNECT),
  };
}

/**
 * `count` hubs connected to the broker on `port`, CONNECT_BATCH at a time; resolves with the
 * time it took once every one has its CONNACK and has published its retained topics.
 */
export async function startSimulatedFleet({ port, count, health, refreshMs }) {
  const hubs = [];
  const started = performance.now();
  for (let first = 0; first < count; first += CONNECT_BATCH) {
    const batch = [];
    for (let i = first; i < Math.min(count, first + CONNECT_BATCH); i++) batch.push(startHub(port, `sim-${i}`, health));
    await Promise.all(batch.map((hub) => hub.connected));
    hubs.push(...batch);
  }
  const connectMs = performance.now() - started;
  // Each hub's refresh and ping at its own phase, as hubs started at different times have.
  const due = hubs.map(() => performance.now() + Math.random() * refreshMs);
  let sent = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    for (let i = 0; i < hubs.length; i++) {
      if (due[i] > now) continue;
      hubs[i].refresh();
      hubs[i].ping();
      sent++;
      due[i] += refreshMs;
    }
  }, 50);
  const stop = () => {
    clearInterval(tick);
    for (const hub of hubs) hub.close();
  };
  onCleanup(stop);
  return { connectMs, refreshesSent: () => sent, stop };
}
