// The pictures of docs/installer/pair-a-button.md: the installer's page on a phone, made again
// after the page changes with
//
//   npm run build && node scripts/page-screenshots.mjs [out-dir]    (default docs/installer/)
//
// It runs what `panic-pair demo` runs (the API simulator, an embedded MQTT broker, the real daemon,
// simulated buttons), with the page on, and drives Debian's chromium through playwright-core at a
// phone's size (390 x 844), as the page's browser tests do. Each picture is what the phone's screen
// shows. With pngquant installed (apt-get install pngquant) each PNG is cut to 64 colours, which
// keeps it well under 100 KB; without it they are kept as Chromium writes them.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectAsync } from 'mqtt';
import { chromium } from 'playwright-core';
import { phoneContext } from '../test/support/chromium.mjs';
import { freePort } from '../test/support/loopback.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs', 'installer'));
const DIST = path.join(ROOT, 'dist');
if (!existsSync(path.join(DIST, 'simulator', 'index.js'))) {
  console.error('page-screenshots: dist/ is missing; run npm run build first');
  process.exit(2);
}
const { startSimulator } = await import(path.join(DIST, 'simulator', 'index.js'));
const { startEmbeddedBroker } = await import(path.join(DIST, 'demo', 'embedded-broker.js'));
const { callDaemon } = await import(path.join(DIST, 'control', 'client.js'));

const CODE = 'label-4711-hub';
const PREFIX = 'panic-pair';
const WAIT = { timeout: 30_000 };
/** The hub's customer 42 holds a subscription naming 43 and 44; 43 is entitled by its own, 44's is suspended. */
const SEED = {
  customers: [
    { id: 42, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [43, 44] }] },
    { id: 43, subscriptions: [{ id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [43, 44] }] },
    { id: 44, subscriptions: [{ id: 2, subscriptionTypeId: 1, status: 'suspended', dependantCustomerIds: [] }] },
  ],
};

const cleanups = [];
const cleanUp = async () => {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
};

try {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-screenshots-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const token = randomBytes(18).toString('base64url');
  const simulator = await startSimulator({ port: 0, token, seed: SEED });
  cleanups.push(() => simulator.close());
  const broker = await startEmbeddedBroker();
  cleanups.push(() => broker.close());

  writeFileSync(path.join(dir, 'api-token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(path.join(dir, 'installer-code'), `${CODE}\n`, { mode: 0o600 });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const daemon = spawn(process.execPath, [path.join(ROOT, 'bin', 'panic-pair.js'), 'run'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      PATH: process.env.PATH,
      PANIC_PAIR_CONFIG: '',
      PANIC_PAIR_API_URL: simulator.url,
      PANIC_PAIR_API_TOKEN_FILE: path.join(dir, 'api-token'),
      PANIC_PAIR_CUSTOMER_ID: '42',
      PANIC_PAIR_STATE_DIR: dir,
      PANIC_PAIR_RUNTIME_DIR: dir,
      PANIC_PAIR_MQTT_URL: broker.url,
      PANIC_PAIR_MQTT_PREFIX: PREFIX,
      PANIC_PAIR_BLE: 'off',
      PANIC_PAIR_LOG_LEVEL: 'error',
      PANIC_PAIR_WEB_LISTEN: `127.0.0.1:${port}`,
      PANIC_PAIR_WEB_CODE_FILE: path.join(dir, 'installer-code'),
    },
  });
  cleanups.push(() => new Promise((resolve) => (daemon.exitCode !== null ? resolve() : (daemon.once('exit', resolve), daemon.kill('SIGTERM')))));
  await until('the daemon to connect to the broker', async () => (await callDaemon(path.join(dir, 'panic-pair.sock'), { type: 'status' })).mqtt === 'connected');

  // Buttons pressed again and again, as an installer presses the one in their hand.
  const buttons = await connectAsync(broker.url, { clientId: 'panic-pair-screenshots' });
  cleanups.push(() => buttons.endAsync());
  const pressing = new Map();
  const press = (deviceId, rssi) => {
    const send = () => void buttons.publish(`${PREFIX}/announce`, JSON.stringify({ deviceId, rssi }));
    send();
    pressing.set(deviceId, setInterval(send, 700));
  };
  const release = (deviceId) => clearInterval(pressing.get(deviceId));
  cleanups.push(() => pressing.forEach((timer) => clearInterval(timer)));

  const profile = mkdtempSync(path.join(tmpdir(), 'panic-pair-chromium-'));
  cleanups.push(() => rmSync(profile, { recursive: true, force: true }));
  const context = await chromium.launchPersistentContext(profile, phoneContext({ locale: 'en-GB' }));
  cleanups.push(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(OUT, { recursive: true });
  const shots = [];
  /** What the phone's screen shows, with `section` (when given) at the top, under the page's header. */
  const shot = async (file, section) => {
    await page.evaluate((id) => {
      const header = document.querySelector('header');
      const target = id === undefined ? undefined : document.getElementById(id);
      window.scrollTo(0, target === undefined || target === null ? 0 : target.offsetTop - (header?.offsetHeight ?? 0) - 8);
    }, section);
    await page.waitForTimeout(300);
    const file_ = path.join(OUT, file);
    await page.screenshot({ path: file_ });
    shots.push(file_);
  };

  // 1. Sign in with the code on the hub's label.
  await page.goto(origin);
  await page.locator('[name=code]').waitFor(WAIT);
  await shot('sign-in.png');
  await page.locator('[name=code]').fill(CODE);
  await page.locator('[data-action=sign-in]').click();
  await page.locator('#live[data-state=live]').waitFor(WAIT);
  await page.locator('#health-summary[data-state=healthy]').waitFor(WAIT);
  await page.locator('#household-list li').nth(2).waitFor(WAIT);
  // 2. Whether the hub is ready: live, healthy, its household.
  await shot('health.png');

  // 3. Press the button: it is heard; tap it.
  press('7F3A9C', -48);
  press('2B4D6F', -71);
  const heard = page.locator('[data-action=choose][data-device="7F3A9C"]');
  await heard.waitFor(WAIT);
  await page.locator('[data-action=choose][data-device="2B4D6F"]').waitFor(WAIT);
  await shot('heard.png', 'heard');
  await heard.click();

  // 4. Pair it for the hub's customer; each step up to Linked.
  await page.locator('[name=customer]').selectOption('42');
  await page.locator('[data-action=pair]').click();
  await page.locator('[role=status][data-state=linked]').waitFor(WAIT);
  release('7F3A9C');
  await shot('linked.png', 'pair');

  // 5. A pairing for a customer without an active subscription fails before any button is awaited.
  await page.locator('[name=deviceId]').fill('9C1E55');
  await page.locator('[name=customer]').selectOption('44');
  await page.locator('[data-action=pair]').click();
  await page.locator('[role=status][data-state=not-entitled]').waitFor(WAIT);
  await shot('not-entitled.png', 'pair');

  // 6. A pairing window for the dependant, 43: the button pressed is linked to 43.
  await page.locator('[name=customer]').selectOption('43');
  await page.locator('[name=seconds]').selectOption('30');
  await page.locator('[data-action=open-window]').click();
  await page.locator('#window-state[data-state=open]').waitFor(WAIT);
  await page.locator('#window-outcomes li.good').waitFor(WAIT);
  release('2B4D6F');
  await shot('window.png', 'window');

  // 7. The devices, as the hub's store holds them.
  await page.locator('#device-list li').nth(1).waitFor(WAIT);
  await shot('devices.png', 'devices');

  // 8. The panic-api out of reach, once the window has closed while a button is linked: the page says whom it waits for, and when it tries again.
  await page.locator('#window-state[data-state=closed]').waitFor({ timeout: 60_000 });
  await simulator.close();
  press('5D8E21', -55);
  await page.locator('[name=deviceId]').fill('5D8E21');
  await page.locator('[name=customer]').selectOption('42');
  await page.locator('[data-action=pair]').click();
  await page.locator('#pair-steps li.wait').waitFor(WAIT);
  await shot('api-unreachable.png', 'pair');

  for (const file of shots) {
    const quantised = spawnSync('pngquant', ['--force', '--skip-if-larger', '--strip', '--ext', '.png', '64', file], { stdio: 'ignore' });
    const note = quantised.error === undefined ? '' : ' (pngquant not found: kept as Chromium wrote it)';
    console.log(`${path.relative(ROOT, file)}: ${Math.round(statSync(file).size / 1024)} KB${note}`);
  }
} finally {
  await cleanUp();
}

async function until(what, test) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if (await test()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`page-screenshots: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
