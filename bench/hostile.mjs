// The running daemon attacked from outside for minutes at a time (CONTRACT 18, issue 29): a
// hostile MQTT client, control-socket client, browser and API at once, against one daemon with
// linked buttons. Afterwards the daemon answers `status`, its store holds exactly the buttons it
// linked before the attack (nothing linked, lost or changed by it), no secret appears in its logs,
// and its RSS, once at rest again, has grown by at most 20 MB from the start of the attack.
//
//   node bench/hostile.mjs [--minutes 2] [--seed N]
//
// Opt-in (not in `npm run bench`): it runs for minutes. Bounded in time, loopback only. Run
// `npm run build` first.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../test/support/loopback.mjs';
import { mb, onCleanup, report, runBench, sleep, startDaemon, startMosquitto, startSimulator } from './lib/harness.mjs';
import { announce, buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '2' }, seed: { type: 'string', default: '29' } } });
const MINUTES = Number(values.minutes);
const PREFIX = 'hostile';
const LINKED = 5;
const RSS_BOUND = 20 * 1024 * 1024;
const CODE = `hostile-code-${randomBytes(6).toString('hex')}`;

// A small seeded generator, so that a run can be repeated.
let state = Number(values.seed) >>> 0 || 1;
const random = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
const pick = (list) => list[Math.floor(random() * list.length)];
const bytes = (max) => Buffer.from(Array.from({ length: Math.floor(random() * max) }, () => Math.floor(random() * 256)));
const text = (max) => bytes(max).toString('latin1');

/** Payloads for every topic the daemon reads: broken, oversized, of ids nobody links, of the linked ones. */
function hostilePayload(linked) {
  return pick([
    () => bytes(64),
    () => Buffer.alloc(Math.floor(random() * 256 * 1024), 0x7b),
    () => Buffer.from(JSON.stringify({ deviceId: `STRANGER-${Math.floor(random() * 1e9)}`, rssi: -40, customerId: 7 })),
    () => Buffer.from(JSON.stringify({ deviceId: pick(linked), rssi: -50, battery: Math.floor(random() * 300) - 100 })),
    () => Buffer.from(`{"deviceId":"${text(80)}"}`),
    () => Buffer.from('{"__proto__":{"linked":true},"deviceId":"X"}'),
  ])();
}

/** One control-socket client: garbage, a partial line left open, a huge line, or a harmless request. */
let controlClients = 0;
function hostileControl(socketPath, linked) {
  controlClients++;
  return new Promise((resolve) => {
    const socket = net.createConnection({ path: socketPath });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', () => undefined);
    socket.setTimeout(3_000, () => socket.destroy());
    socket.on('connect', () => {
      const send = pick([
        () => socket.end(`${text(200)}\n`),
        () => socket.write('{"type":"status"'),
        () => socket.end(`${'x'.repeat(70 * 1024)}\n`),
        () => socket.end('{"type":"launch-missiles"}\n'),
        () => socket.end(`${JSON.stringify(pick([{ type: 'status' }, { type: 'devices' }, { type: 'household' }, { type: 'scan', seconds: 0.2 }, { type: 'pair', deviceId: pick(linked), timeoutMs: 500 }, { type: 'forget', deviceId: 'NEVER-LINKED' }]))}\n`),
      ]);
      send();
    });
  });
}

/** One request as a browser (or anything on the LAN) might send it to the page. */
function hostileRequest(port, cookie) {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', () => socket.destroy());
    socket.setTimeout(3_000, () => socket.destroy());
    const body = pick([() => `code=${text(30)}`, () => '{"deviceId":"X","customerId":43}', () => '{"seconds":30}', () => text(300), () => ''])();
    const lines = [
      `${pick(['GET', 'POST', 'HEAD', 'PUT', text(8)])} ${pick(['/', '/login', '/logout', '/api/live', '/api/pair', '/api/window', '/api/forget', '/api/check', `/${text(40)}`])} HTTP/1.1`,
      `Host: ${pick([`127.0.0.1:${port}`, 'evil.example', text(20)])}`,
      ...(random() < 0.5 ? [`Origin: ${pick([`http://127.0.0.1:${port}`, 'http://evil.example', 'null'])}`] : []),
      ...(random() < 0.5 ? [`Cookie: ${pick([cookie, `panic_pair_session=${text(43)}`, text(100)])}`] : []),
      `Content-Type: ${pick(['application/json', 'application/x-www-form-urlencoded', text(20)])}`,
      `Content-Length: ${Buffer.byteLength(body, 'latin1')}`,
    ];
    socket.on('connect', () => socket.end(Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1')));
  });
}

/** The API as an attacker or a broken proxy: each few seconds a new queue of faults. */
function hostileApi(simulator) {
  const fault = () =>
    pick([
      { type: 'status', status: pick([400, 401, 403, 404, 409, 429, 500, 502, 503]), retryAfter: pick([0, 1, 120, 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT']) },
      { type: 'drop' },
      { type: 'not-json' },
      { type: 'slow-body', stallMs: 2_000 },
      { type: 'delay', ms: 500 },
      { type: 'other-device' },
      { type: 'other-customer' },
    ]);
  simulator.setFaults({ queue: Array.from({ length: 20 }, fault) });
}

await runBench(
  'hostile',
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-hostile-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const codeFile = path.join(dir, 'installer-code');
    writeFileSync(codeFile, `${CODE}\n`, { mode: 0o600 });
    const port = await freePort();
    const broker = await startMosquitto();
    const simulator = await startSimulator();
    const daemon = await startDaemon({
      apiUrl: simulator.url,
      token: simulator.token,
      mqttUrl: broker.url,
      prefix: PREFIX,
      env: { PANIC_PAIR_WEB_LISTEN: `127.0.0.1:${port}`, PANIC_PAIR_WEB_CODE_FILE: codeFile, PANIC_PAIR_ENTITLEMENT_TTL: '2', PANIC_PAIR_LOG_LEVEL: 'debug' },
    });
    await daemon.ready();

    // The buttons linked before the attack: the store must end exactly so.
    const client = await mqttClient(broker.url);
    const linked = buttonIds('LINKED', LINKED);
    const window = await openWindow(daemon, 30);
    await announce(client, PREFIX, linked);
    await window.waitForOutcomes(LINKED);
    await window.close();
    const storeFile = path.join(daemon.dir, 'pairings.json');
    const before = JSON.parse(readFileSync(storeFile, 'utf8'));
    const rssBefore = daemon.rssBytes();
    const counts = { mqtt: 0, control: 0, page: 0, api: 0 };

    const until = Date.now() + MINUTES * 60_000;
    const loop = async (what, act) => {
      while (Date.now() < until) {
        await act();
        counts[what]++;
      }
    };
    await Promise.all([
      loop('mqtt', async () => {
        for (const topic of [`${PREFIX}/announce`, 'zigbee2mqtt/bridge/event', 'home/gw/BTtoMQTT/AA']) client.publish(topic, hostilePayload(linked));
        await sleep(2);
      }),
      // A client at a time, and every twentieth turn a flood of 100 at once.
      loop('control', () => (counts.control % 20 === 19 ? Promise.all(Array.from({ length: 100 }, () => hostileControl(daemon.socketPath, linked))) : hostileControl(daemon.socketPath, linked))),
      loop('page', () => hostileRequest(port, 'panic_pair_session=forged')),
      loop('api', async () => {
        hostileApi(simulator);
        await sleep(3_000);
      }),
    ]);
    simulator.setFaults({ queue: [] });
    // RSS once the daemon is at rest again: V8 gives back what a burst grew only at its idle
    // collection, some seconds to a minute and a half later (bench/memory.mjs). The lowest reading
    // over two minutes, or the first back within the bound.
    let rssAfter = daemon.rssBytes();
    for (const settleUntil = Date.now() + 120_000; Date.now() < settleUntil && rssAfter - rssBefore > RSS_BOUND; ) {
      await sleep(5_000);
      rssAfter = Math.min(rssAfter, daemon.rssBytes());
    }

    const status = await daemon.status();
    const after = JSON.parse(readFileSync(storeFile, 'utf8'));
    const log = readFileSync(daemon.log, 'utf8');
    const checks = {
      'the daemon answers status': typeof status === 'object' && status !== null,
      'the store is as before the attack': JSON.stringify(after) === JSON.stringify(before),
      'no secret in the logs': !log.includes(simulator.token) && !log.includes(CODE),
      'RSS grew by at most 20 MB': rssAfter - rssBefore <= RSS_BOUND,
    };
    report({
      figure: `hostile: ${MINUTES} min of MQTT, control, page and API attacks, RSS growth in MB`,
      ratio: Math.round(((rssAfter - rssBefore) / 1048576) * 10) / 10,
      target: { op: '<=', value: 20 },
      detail: `${counts.mqtt * 3} MQTT messages, ${controlClients} control clients, ${counts.page} page requests, ${counts.api} API fault queues; RSS ${mb(rssBefore)} -> ${mb(rssAfter)}`,
      checks,
    });
    if (Object.values(checks).some((ok) => !ok)) process.exitCode = 1;
  },
  { timeoutMs: (MINUTES + 3) * 60_000 },
);
