// Figure 3, latency: one button announced into an open pairing window, the entitlement already
// known, until its retained state on `<prefix>/devices/<id>` says `linked` (published once the
// link is durably stored), versus the API's own 20 ms a request. Target 1.5 or less, the median
// of 25 buttons, one at a time, a quarter of a second apart.
import http from 'node:http';
import path from 'node:path';
import { apiLinkMs, cpuMsOf, CUSTOMER_ID, dist, median, report, runBench, sleep, startDaemon, startMosquitto, startSimulator, tempDir } from './lib/harness.mjs';
import { buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

const BUTTONS = 25;
const LATENCY_MS = 20;
const PREFIX = 'bench';
/** Outside the daemon's topics: the observer's own message through the broker and back. */
const LOOP_TOPIC = 'bench-loop/probe';

await runBench('latency', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: PREFIX });
  await daemon.ready();
  simulator.reset();
  simulator.setFaults({ latencyMs: LATENCY_MS });

  const client = await mqttClient(broker.url);
  const waiting = new Map();
  client.on('message', (topic, payload) => {
    const at = performance.now();
    if (topic === LOOP_TOPIC) return waiting.get(LOOP_TOPIC)?.(at);
    if (JSON.parse(payload.toString()).state !== 'linked') return;
    waiting.get(topic.slice(`${PREFIX}/devices/`.length))?.(at);
  });
  /** Resolves with the moment the message awaited under `key` (a deviceId, or the loop's topic) arrives. */
  const arrival = (key, missing) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${missing} within 10 s`)), 10_000);
      waiting.set(key, (at) => {
        clearTimeout(timer);
        waiting.delete(key);
        resolve(at);
      });
    });
  /** Resolves with the moment the device's retained state said `linked`. */
  const linked = (deviceId) => arrival(deviceId, `${deviceId} was not linked`);
  // QoS 1, as the daemon publishes: this observer acknowledges each state at once. mosquitto
  // leaves Nagle's algorithm on (set_tcp_nodelay false), so a second small packet to a client that
  // has not acknowledged the first waits for its delayed ACK, up to 40 ms on Linux: with a QoS 0
  // observer, `linked` would wait on the ACK of `linking`.
  await client.subscribeAsync(`${PREFIX}/devices/+`, { qos: 1 });
  await client.subscribeAsync(LOOP_TOPIC, { qos: 0 });

  // Alongside each button, a bare POST of this process to the same simulator: the floor under the
  // daemon's figure as the machine stands at that moment (not part of the ratio).
  const agent = new http.Agent({ keepAlive: true });
  const barePost = (deviceId) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ customerId: CUSTOMER_ID, deviceId });
      const started = performance.now();
      const request = http.request(`${simulator.url}/panic-api/v2/devices`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${simulator.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (response) => {
        response.resume();
        response.on('end', () => resolve(performance.now() - started));
      });
      request.on('error', reject);
      request.end(body);
    });
  const bareTimes = [];
  // And a durable write of the same kind as the store's (its four steps), timed in a
  // directory of its own: what each of the two writes on the daemon's path costs right now.
  const { writeFileDurably } = await dist('store/durable-write.js');
  const scratch = path.join(tempDir('latency-writes'), 'probe.json');
  const writeTimes = [];
  const durableWrite = async () => {
    const started = performance.now();
    await writeFileDurably(scratch, `${JSON.stringify({ probe: Date.now(), pad: 'x'.repeat(400) })}\n`);
    return performance.now() - started;
  };

  // And a message from this client to itself through the broker, as the announcement goes in and
  // the state comes out: the broker's two hops on the path.
  const loopTimes = [];
  const brokerLoop = async () => {
    const started = performance.now();
    const back = arrival(LOOP_TOPIC, 'the broker did not bring the probe back');
    client.publish(LOOP_TOPIC, 'probe');
    return (await back) - started;
  };

  const window = await openWindow(daemon, 300);
  const times = [];
  let cpuAfterWarmUp = 0;
  // One warm-up button first: the first request also opens the keep-alive connection.
  for (const deviceId of buttonIds('LAT', BUTTONS + 1)) {
    const done = linked(deviceId);
    const started = performance.now();
    client.publish(`${PREFIX}/announce`, JSON.stringify({ deviceId, rssi: -50 }));
    times.push((await done) - started);
    if (times.length === 1) cpuAfterWarmUp = cpuMsOf(daemon.pid);
    // Buttons are pressed seconds apart, not back to back: an announcement right behind the
    // broker's PUBACK of the daemon's last state would wait on that Nagle stall too.
    await sleep(125);
    bareTimes.push(await barePost(`BARE-${deviceId}`));
    writeTimes.push(await durableWrite());
    loopTimes.push(await brokerLoop());
    await sleep(125);
  }
  // The daemon's CPU over the measured buttons, idle gaps included (a few timers): per button.
  const cpuPerButton = (cpuMsOf(daemon.pid) - cpuAfterWarmUp) / BUTTONS;
  await window.close();
  agent.destroy();
  const measured = times.slice(1);
  const stats = simulator.stats();
  // What the machine gives at that moment to any daemon: the bare POST, the two durable writes of
  // a link (`linking`, then its outcome) and the broker's hops. Reported beside the ratio, not part of it.
  const bare = median(bareTimes.slice(1));
  const write = median(writeTimes.slice(1));
  const loop = median(loopTimes.slice(1));
  const floor = bare + 2 * write + loop;
  report({
    figure: 'latency: announce to retained linked / API 20 ms',
    ratio: median(measured) / LATENCY_MS,
    target: { op: '<=', value: 1.5 },
    detail:
      `median of ${BUTTONS}: ${median(measured).toFixed(1)} ms (min ${Math.min(...measured).toFixed(1)}, max ${Math.max(...measured).toFixed(1)}); ` +
      `the simulator's own time a POST, median ${apiLinkMs(simulator).toFixed(1)} ms, a bare http.request POST alongside ${bare.toFixed(1)} ms, ` +
      `a durable write alongside ${write.toFixed(1)} ms (two are on the path), ` +
      `the broker there and back ${loop.toFixed(1)} ms; ` +
      `the floor so made ${floor.toFixed(1)} ms (${(floor / LATENCY_MS).toFixed(2)} of the API's ${LATENCY_MS} ms), the daemon's time over it ${(median(measured) - floor).toFixed(1)} ms; ` +
      `the daemon's CPU a button ${cpuPerButton.toFixed(2)} ms; ` +
      `GETs during the run ${stats.subscriptionGets}`,
    checks: {
      'no entitlement GET per button (cache warm)': stats.subscriptionGets === 0,
      'one POST per button': stats.requests.link === (BUTTONS + 1) * 2,
    },
  });
});
