// The installer's page, three figures against a real daemon, broker and simulated API,
// with Debian's chromium at a phone's size driven by playwright-core:
//  1. the first load in bytes (sign-in page, then the page after sign-in with its assets; the live
//     channel's first snapshot counted too): target 150 KB or less, nothing from elsewhere;
//  2. the daemon's RSS with the page on and one browser connected, after the page has shown 50
//     buttons and linked 5, over the dependency floor of bench/memory.mjs (a node process that only
//     imports mqtt, got, pino, zod and env-var): target 1.25 or less;
//  3. the delay from a button's announcement (publish acknowledged by the broker) to the page
//     showing it, median and 95th percentile of 30 buttons (no target; informs).
// Also printed: what the page's code costs to load (import time and RSS of dist/web/index.js).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, PHONE } from '../test/support/chromium.mjs';
import { freePort } from '../test/support/loopback.mjs';
import { median, mb, mqttClient, onCleanup, report, ROOT, runBench, sleep, startChild, startDaemon, startDependencyFloor, startMosquitto, startSimulator, until } from './lib/harness.mjs';

const PREFIX = 'bench';
const CODE = 'bench-installer-code';
const SAMPLES = 30;

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

await runBench('web-page', async () => {
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-web-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const codeFile = path.join(dir, 'installer-code');
  writeFileSync(codeFile, `${CODE}\n`, { mode: 0o600 });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;

  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({
    apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: PREFIX,
    env: { PANIC_PAIR_WEB_LISTEN: `127.0.0.1:${port}`, PANIC_PAIR_WEB_CODE_FILE: codeFile, PANIC_PAIR_LOG_LEVEL: 'warn' },
  });
  await daemon.ready();
  const floor = startDependencyFloor();

  const profile = mkdtempSync(path.join(tmpdir(), 'bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: PHONE,
    args: [...CHROMIUM_ARGS],
  });
  onCleanup(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());

  // 1. First load: every response the browser received, headers included.
  let hubBytes = 0;
  let elsewhere = 0;
  const pending = [];
  page.on('requestfinished', (request) => {
    if (!request.url().startsWith(origin)) elsewhere++;
    pending.push(request.sizes().then((sizes) => (hubBytes += sizes.responseBodySize + sizes.responseHeadersSize)));
  });
  page.on('requestfailed', (request) => {
    if (!request.url().startsWith(origin)) elsewhere++;
  });
  await page.goto(origin);
  await page.locator('[name="code"]').fill(CODE);
  await page.locator('[data-action="sign-in"]').click();
  await page.locator('#live[data-state="live"]').waitFor({ timeout: 20_000 });
  await Promise.all(pending);
  // The live channel never finishes; its first line is the snapshot the page started from, read
  // here as the page reads it (the page's own copy is inside its module).
  const snapshotBytes = await page.evaluate(async () => {
    const response = await fetch('/api/live', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', cache: 'no-store' });
    const reader = response.body.getReader();
    let bytes = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return bytes;
      const newline = value.indexOf(10);
      if (newline >= 0) {
        await reader.cancel();
        return bytes + newline + 1;
      }
      bytes += value.length;
    }
  });
  const firstLoad = hubBytes + snapshotBytes;

  // 3. Announcement to the page: publish, acknowledged by the broker, until the button shows.
  const client = await mqttClient(broker.url);
  const delays = [];
  for (let i = 0; i < SAMPLES; i++) {
    const deviceId = `WEBLAT-${String(i).padStart(3, '0')}`;
    const shown = page.locator(`[data-action="choose"][data-device="${deviceId}"]`);
    const started = performance.now();
    await client.publishAsync(`${PREFIX}/announce`, JSON.stringify({ deviceId, rssi: -30 }), { qos: 1 });
    await shown.waitFor({ timeout: 10_000 });
    delays.push(performance.now() - started);
  }

  // 2. RSS with the page connected, after it has shown buttons and followed a few links.
  for (let i = 0; i < 20; i++) await client.publishAsync(`${PREFIX}/announce`, JSON.stringify({ deviceId: `WEBMEM-${i}`, rssi: -60 }), { qos: 1 });
  await page.locator('[data-action="open-window"]').click();
  await page.locator('#window-state[data-state="open"]').waitFor();
  for (let i = 0; i < 5; i++) await client.publishAsync(`${PREFIX}/announce`, JSON.stringify({ deviceId: `WEBLINK-${i}`, rssi: -40 }), { qos: 1 });
  await until('5 links shown on the page', async () => (await page.locator('#window-outcomes li').count()) >= 5, { timeoutMs: 30_000, everyMs: 50 });
  await client.endAsync();
  await sleep(20_000); // the live channel beats meanwhile; V8 settles after the burst
  const daemonRss = daemon.rssBytes();
  const baselineRss = floor.rss();
  const status = await daemon.status();

  // The page's code alone: what lazy loading saves a hub without the page.
  const cost = startChild(process.execPath, ['--input-type=module', '-e',
    `const a = process.memoryUsage.rss(); const t = performance.now(); await import(${JSON.stringify(path.join(ROOT, 'dist', 'web', 'index.js'))}); ` +
    'process.stdout.write(JSON.stringify({ ms: performance.now() - t, rss: process.memoryUsage.rss() - a }));'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let costText = '';
  cost.stdout.setEncoding('utf8').on('data', (chunk) => (costText += chunk));
  await new Promise((resolve) => cost.once('exit', resolve));
  const load = JSON.parse(costText);

  report({
    figure: "web: the installer's page, first load in KB",
    ratio: firstLoad / 1024,
    target: { op: '<=', value: 150 },
    detail: `${(firstLoad / 1024).toFixed(1)} KB from the hub (responses with headers ${hubBytes} B + first snapshot ${snapshotBytes} B), ${elsewhere} requests elsewhere; ` +
      `its code loads in ${load.ms.toFixed(0)} ms and ${mb(load.rss)} when the page is on`,
    checks: { 'nothing from elsewhere': elsewhere === 0 },
  });
  report({
    figure: 'web: daemon RSS with the page and one browser / node importing its libraries',
    ratio: daemonRss / baselineRss,
    target: { op: '<=', value: 1.25 },
    detail: `daemon ${mb(daemonRss)} 20 s after the page showed ${SAMPLES + 20} buttons and 5 links, baseline ${mb(baselineRss)}; ${status.devices.linked} linked`,
    checks: { '5 linked': status.devices.linked >= 5 },
  });
  report({
    figure: 'web: announcement to the page showing the button, median ms',
    ratio: median(delays),
    target: undefined,
    detail: `median ${median(delays).toFixed(0)} ms, p95 ${percentile(delays, 95).toFixed(0)} ms, max ${Math.max(...delays).toFixed(0)} ms over ${SAMPLES} buttons (broker ack to the element in the DOM, as playwright sees it)`,
  });
}, { timeoutMs: 240_000 });
