// CPU per verified report: a keyed button's encrypted BTHome report through the
// authenticator (AES-128-CCM with node:crypto, the counter rule, reading the objects), against an
// unkeyed button's plain report through the same authenticator, in this process, alternating
// rounds. The ratio is informative (no target); the figure that matters is microseconds a report.
import { createCipheriv } from 'node:crypto';
import { dist, median, report, runBench } from './lib/harness.mjs';

const REPORTS = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const { Authenticator } = await dist('authentication/authenticator.js');
const { createCounters } = await dist('status/counters.js');
const { silentLogger } = await dist('log/logger.js');

const KEY = Buffer.from('231d39c1d7cc1ab1aee224cd096db932', 'hex');
const MAC = '54:48:E6:8F:80:A5';

function encrypted(counter) {
  const info = 0x41;
  const counterBytes = Buffer.alloc(4);
  counterBytes.writeUInt32LE(counter);
  const nonce = Buffer.concat([Buffer.from(MAC.replaceAll(':', ''), 'hex'), Buffer.from([0xd2, 0xfc, info]), counterBytes]);
  const cipher = createCipheriv('aes-128-ccm', KEY, nonce, { authTagLength: 4 });
  const body = cipher.update(Buffer.from([0x00, counter & 0xff, 0x01, 0x57, 0x3a, 0x01]));
  cipher.final();
  return Buffer.concat([Buffer.of(info), body, counterBytes, cipher.getAuthTag()]);
}

const keys = { ids: () => [MAC], get: () => KEY, set: async () => undefined, remove: async () => undefined };

function authenticator() {
  let delivered = 0;
  const deliver = () => void delivered++;
  const guard = new Authenticator({ keys, fileKeys: new Map(), savedCounters: new Map(), keyRequired: new Set(), counters: createCounters(), deliver, hearOnly: deliver, logger: silentLogger() });
  return { guard, delivered: () => delivered };
}

function cpuMs(run) {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

await runBench('authentication', async () => {
  // Made ahead: a button encrypts, the hub only decrypts.
  const sealed = Array.from({ length: REPORTS }, (_, i) => encrypted(i + 1));
  const keyedMs = [];
  const plainMs = [];
  let checks = {};
  for (let round = 0; round <= ROUNDS; round++) {
    const keyed = authenticator();
    const offset = round * REPORTS;
    const keyedRound = cpuMs(() => {
      for (let i = 0; i < REPORTS; i++) keyed.guard.sighting({ deviceId: MAC, source: 'ble', at: offset + i * 1000, sealed: { data: sealed[i], address: MAC } });
    });
    const plain = authenticator();
    const plainRound = cpuMs(() => {
      for (let i = 0; i < REPORTS; i++) plain.guard.sighting({ deviceId: 'PLAIN1', source: 'ble', at: offset + i * 1000, battery: 87 });
    });
    if (round === 0) continue;
    keyedMs.push(keyedRound);
    plainMs.push(plainRound);
    checks = { everyKeyedReportVerified: keyed.delivered() === REPORTS, everyPlainReportPassed: plain.delivered() === REPORTS };
  }
  const perVerifiedUs = (median(keyedMs) * 1000) / REPORTS;
  const perPlainUs = (median(plainMs) * 1000) / REPORTS;
  process.stderr.write(`authentication: ${perVerifiedUs.toFixed(2)} µs CPU a verified report, ${perPlainUs.toFixed(3)} µs an unkeyed one\n`);
  report({
    figure: 'authentication-verified-report',
    ratio: Number((perVerifiedUs / perPlainUs).toFixed(1)),
    detail: { reports: REPORTS, rounds: ROUNDS, verifiedReportUs: Number(perVerifiedUs.toFixed(2)), unkeyedReportUs: Number(perPlainUs.toFixed(3)) },
    checks,
  });
});
