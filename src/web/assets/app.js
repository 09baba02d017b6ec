// The installer's page. Everything shown comes from the hub's live channel (POST /api/live, one
// JSON snapshot a line) as states and numbers, worded here in the installer's language from its
// catalogue (i18n.js); text from devices is always set as text, never as markup. While the
// channel is down the page says so, greys out what it last heard and offers no action.
import { confirmingDevice, deviceShape, renderDevices, updateLiveness } from './devices.js';
import { clear, el, $ } from './dom.js';
import { renderChecks, renderHealth, renderHousehold } from './health.js';
import { ago, clock, languageControl, length, loadLanguage, t, translatePage } from './i18n.js';
import { renderPairing, renderWindow, stopCountdown } from './pairing.js';

const BEAT_TIMEOUT_MS = 12000;
let snapshot = null;
let receivedAt = 0;
let live = false;
let retryMs = 1000;
let connection = null;

// ---- the live channel ----

function setLive(on) {
  live = on;
  const banner = $('live');
  banner.className = on ? 'live-on' : 'live-off';
  banner.dataset.state = on ? 'live' : 'not-live';
  if (on) banner.textContent = t('live.on');
  else if (snapshot) banner.textContent = t('live.offStale', { time: clock(new Date(receivedAt).toISOString()) });
  else banner.textContent = t('live.offNew');
  $('main').classList.toggle('stale', !on);
  if (!on) forgetLiveParts();
  for (const control of document.querySelectorAll('main button, main input, main select')) {
    if (!control.closest('.sign-out')) control.disabled = !on;
  }
}

async function connect() {
  if (connection) return;
  const controller = new AbortController();
  connection = controller;
  let watchdog = setTimeout(() => controller.abort(), BEAT_TIMEOUT_MS);
  try {
    const response = await fetch('/api/live', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: controller.signal, cache: 'no-store',
    });
    if (response.status === 401) { location.reload(); return; }
    if (!response.ok || !response.body) throw new Error(String(response.status));
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      clearTimeout(watchdog);
      watchdog = setTimeout(() => controller.abort(), BEAT_TIMEOUT_MS);
      buffer += value;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() !== '') receive(JSON.parse(line));
      }
    }
  } catch {
    // the hub restarted, the Wi-Fi dropped, or the beat stopped: reconnect below
  } finally {
    clearTimeout(watchdog);
    connection = null;
  }
  setLive(false);
  setTimeout(connect, retryMs);
  retryMs = Math.min(retryMs * 2, 5000);
}

function receive(message) {
  if (message.type !== 'snapshot') return;
  snapshot = message;
  receivedAt = Date.now();
  retryMs = 1000;
  // Live first: the parts rendered next then set their controls' state for a live page.
  if (!live) setLive(true);
  render();
}

// What only holds while live is taken off the page, not greyed: which buttons are being heard
// and how long a window has left cannot be known without the hub.
function forgetLiveParts() {
  shown = {};
  heardRows.clear();
  clear($('heard-list'));
  const empty = $('heard-empty');
  empty.hidden = false;
  empty.textContent = t('heard.notLive');
  stopCountdown();
  if (snapshot && snapshot.window && snapshot.window.open) $('window-state').textContent = t('window.notLive');
}

window.addEventListener('online', () => { if (connection) connection.abort(); else connect(); });

// ---- screens ----

// A part is rebuilt only when what it shows changed: a list rebuilt under a finger loses the tap,
// and a status region rebuilt is read out again by a screen reader.
let shown = {};
function changed(part, value) {
  const key = JSON.stringify(value);
  if (shown[part] === key) return false;
  shown[part] = key;
  return true;
}

function render() {
  if (changed('health', snapshot.status)) renderHealth(snapshot.status);
  if (changed('checks', snapshot.check)) renderChecks(snapshot.check, live);
  if (changed('household', snapshot.household)) renderHousehold(snapshot.household);
  renderHeard(snapshot.heard);
  if (changed('pairing', snapshot.pairings[0] || null)) renderPairing(snapshot.pairings, live);
  const window = snapshot.window && { ...snapshot.window, remainingMs: undefined };
  if (changed('window', window)) renderWindow(snapshot.window, live);
  if (changed('devices', [snapshot.devices.map(deviceShape), confirmingDevice()])) renderDevices(snapshot.devices, { live, rerender: render, forget: forgetDevice });
  updateLiveness(snapshot.devices, receivedAt);
}
function signal(rssi) {
  if (rssi === undefined || rssi === null) return t('signal.unknown');
  const bars = rssi >= -60 ? '▮▮▮▮' : rssi >= -70 ? '▮▮▮▯' : rssi >= -80 ? '▮▮▯▯' : '▮▯▯▯';
  return `${bars} ${t('signal.dbm', { dbm: Math.round(rssi) })}`;
}

function heardAgo(ms) {
  return ms < 5000 ? t('heard.justNow') : t('heard.ago', { ago: ago(ms) });
}

const heardRows = new Map();

function heardMeta(button) {
  const said = [heardAgo(button.ageMs), signal(button.rssi), t('heard.via', { source: button.source })];
  if (button.state) said.push(t(`deviceState.${button.state}`));
  return said.join(' · ');
}

// Rebuilt when the buttons, their order or their state change; otherwise only their ages and
// signals are updated in place, so a tap on a row is never lost to a refresh. A row's accessible
// name is its visible text (WCAG 2.5.3, Label in Name): a speech user says what is seen.
function renderHeard(heard) {
  $('heard-empty').hidden = heard.length > 0;
  $('heard-empty').textContent = t('heard.empty');
  if (changed('heard', heard.map((button) => [button.deviceId, button.state]))) {
    const rows = clear($('heard-list'));
    heardRows.clear();
    for (const button of heard) {
      const item = el('li');
      const choose = el('button', undefined, 'choice');
      choose.type = 'button';
      choose.dataset.action = 'choose';
      choose.dataset.device = button.deviceId;
      const meta = el('span', '', 'meta');
      choose.append(el('strong', button.deviceId), meta);
      choose.disabled = !live;
      choose.addEventListener('click', () => {
        $('device-id').value = button.deviceId;
        $('pair').scrollIntoView({ behavior: 'smooth' });
        $('pair-button').focus();
      });
      item.append(choose);
      rows.append(item);
      heardRows.set(button.deviceId, { item, choose, meta });
    }
  }
  for (const button of heard) {
    const row = heardRows.get(button.deviceId);
    if (!row) continue;
    row.item.className = button.ageMs < 5000 ? 'fresh' : '';
    row.meta.textContent = heardMeta(button);
  }
}
// ---- actions ----

/** The page's own refusals; any other code is the kind of an engine error. */
const REFUSALS = ['invalid', 'pairing-running', 'window-open', 'checks-running'];

/** What the hub refused, by its code; the hub's English `error` is for scripts. */
async function post(path, body) {
  try {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
    if (response.status === 401) { location.reload(); return { ok: false, error: t('refusal.signedOut') }; }
    const data = await response.json().catch(() => ({}));
    if (response.ok) return { ok: true, data };
    const code = data.code || 'failure';
    return { ok: false, error: t(REFUSALS.includes(code) ? `refusal.${code}` : `reason.${code}`, { device: body.deviceId }) };
  } catch {
    return { ok: false, error: t('refusal.unreachable') };
  }
}

async function forgetDevice(deviceId) {
  shown.devices = undefined;
  const result = await post('/api/forget', { deviceId });
  if (!result.ok) alertProblem(result.error);
}

function alertProblem(message) {
  shown.pairing = undefined;
  const box = clear($('pair-steps'));
  box.dataset.state = 'refused';
  box.append(el('p', `✗ ${message}`, 'bad'));
}

function fillWindowLengths() {
  for (const option of $('window-seconds').options) option.textContent = length(Number(option.value));
}

await loadLanguage();
translatePage();
fillWindowLengths();
languageControl($('language'));

// A button's key is offered only over HTTPS, where it cannot be read on the way; it
// leaves the field as it is sent, and the page keeps no copy.
const keyField = $('button-key');
if (location.protocol === 'https:') {
  keyField.hidden = false;
  $('button-key-label').hidden = false;
}

$('pair-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const deviceId = $('device-id').value.trim();
  const key = keyField.hidden ? '' : keyField.value.trim();
  keyField.value = '';
  const result = await post('/api/pair', { deviceId, customerId: Number($('customer').value), ...(key === '' ? {} : { key }) });
  if (!result.ok) alertProblem(result.error);
});

$('run-checks').addEventListener('click', async () => {
  const result = await post('/api/check', {});
  if (!result.ok) $('checks-state').textContent = `✗ ${result.error}`;
});

$('open-window').addEventListener('click', async () => {
  const result = await post('/api/window', { seconds: Number($('window-seconds').value), customerId: Number($('customer').value) });
  if (!result.ok) $('window-state').textContent = `✗ ${result.error}`;
});

setLive(false);
connect();
