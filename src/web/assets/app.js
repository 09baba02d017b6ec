// The installer's page. Everything shown comes from the hub's live channel (POST /api/live, one
// JSON snapshot a line); text from devices is always set as text, never as markup. While the
// channel is down the page says so, greys out what it last heard and offers no action.
'use strict';

const $ = (id) => document.getElementById(id);
const BEAT_TIMEOUT_MS = 12000;
let snapshot = null;
let receivedAt = 0;
let live = false;
let retryMs = 1000;
let connection = null;
let countdown = null;

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function when(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

// ---- the live channel ----

function setLive(on) {
  live = on;
  const banner = $('live');
  banner.className = on ? 'live-on' : 'live-off';
  if (on) banner.textContent = '● Live: changes appear as they happen';
  else if (snapshot) banner.textContent = `⚠ Not live: reconnecting to the hub… What you see is from ${new Date(receivedAt).toLocaleTimeString()} and may be out of date.`;
  else banner.textContent = '⚠ Not live: connecting to the hub…';
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
    if (!response.ok || !response.body) throw new Error(`the hub answered ${response.status}`);
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
  empty.textContent = 'Not live: the buttons heard appear again once the hub is back.';
  clearInterval(countdown);
  if (snapshot && snapshot.window && snapshot.window.open) $('window-state').textContent = 'Not live: whether the window is still open is not known.';
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
  if (changed('checks', snapshot.check)) renderChecks(snapshot.check);
  if (changed('household', snapshot.household)) renderHousehold(snapshot.household);
  renderHeard(snapshot.heard);
  if (changed('pairing', snapshot.pairings[0] || null)) renderPairing(snapshot.pairings);
  const window = snapshot.window && { ...snapshot.window, remainingMs: undefined };
  if (changed('window', window)) renderWindow(snapshot.window);
  if (changed('devices', [snapshot.devices.map(deviceShape), confirming])) renderDevices(snapshot.devices);
  updateLiveness(snapshot.devices);
}

const FIXES = [
  [/no API token/, 'Install the API token (install.sh --token-file), then restart: systemctl restart panic-pair.'],
  [/no active subscription|not entitled/, 'Ask the provider to activate this customer\'s subscription; the hub links nothing until then.'],
  [/API is failing/, 'Check the hub\'s internet connection; the hub keeps trying by itself.'],
  [/MQTT broker/, 'Check that the broker runs (systemctl status mosquitto) and the hub\'s PANIC_PAIR_MQTT_URL.'],
  [/^BLE is blocked/, 'Lift the radio block: rfkill unblock bluetooth. The hub scans again by itself within seconds.'],
  [/^BLE is powered-off/, 'Power the adapter on: bluetoothctl power on (or btmgmt power on). The hub scans again by itself within seconds.'],
  [/^BLE is unauthorized/, 'Give the service its Bluetooth capabilities (CAP_NET_RAW, CAP_NET_ADMIN), then restart it.'],
  [/^BLE is/, 'Check that the Bluetooth adapter is attached (bluetoothctl list; on a Raspberry Pi, systemctl status hciuart). The hub finds it again by itself when it comes back.'],
  [/clock/, 'Connect the hub to the internet so that NTP sets its clock.'],
  [/^button \S+ missing/, 'Press the button near the hub: it shows online again at its next report. Otherwise check its battery, whether it was moved out of reach, or replace it.'],
  [/^button \S+ battery/, 'Replace the button\'s battery before it goes silent.'],
  [/store/, 'Free space on the SD card, or replace it; the last good state is kept.'],
];

function fixFor(problem) {
  const found = FIXES.find(([pattern]) => pattern.test(problem));
  return found ? found[1] : '';
}

const STATE_WORDS = {
  token: { accepted: ['✓', 'accepted'], refused: ['✗', 'refused (401)'], missing: ['✗', 'missing'], unknown: ['…', 'not checked yet'] },
  api: { ok: ['✓', 'reachable'], failing: ['✗', 'failing'], unknown: ['…', 'not asked yet'] },
  mqtt: { connected: ['✓', 'connected'], connecting: ['…', 'connecting'], disconnected: ['✗', 'disconnected'], off: ['–', 'off'] },
  ble: { scanning: ['✓', 'scanning'], starting: ['…', 'starting'], off: ['–', 'off'], unavailable: ['✗', 'no adapter'], unauthorized: ['✗', 'not allowed'], 'powered-off': ['✗', 'powered off'], blocked: ['✗', 'blocked by rfkill'] },
};

function word(kind, value) {
  const [icon, text] = (STATE_WORDS[kind] && STATE_WORDS[kind][value]) || ['?', String(value)];
  return `${icon} ${text}`;
}

// A BLE that is not required (PANIC_PAIR_BLE=auto) and cannot be used is no problem to status,
// so none here either: status lists a problem for it exactly when BLE is required.
function bleText(status) {
  const reason = status.bleReason ? `: ${status.bleReason}` : '';
  const failing = STATE_WORDS.ble[status.ble] && STATE_WORDS.ble[status.ble][0] === '✗';
  if (failing && !status.problems.some((problem) => /^BLE is/.test(problem))) {
    return `– not in use (optional on this hub), ${STATE_WORDS.ble[status.ble][1]}${reason}`;
  }
  return word('ble', status.ble) + reason;
}

function renderHealth(status) {
  const summary = $('health-summary');
  summary.textContent = status.healthy ? '✓ The hub is healthy and ready to pair.' : `⚠ The hub needs attention: ${status.problems.length} ${status.problems.length === 1 ? 'problem' : 'problems'}.`;
  summary.className = status.healthy ? 'good' : 'bad';
  const problems = clear($('health-problems'));
  for (const problem of status.problems) {
    const item = el('li', undefined, 'bad');
    item.append(el('strong', `✗ ${problem}`));
    const fix = fixFor(problem);
    if (fix) item.append(el('span', `Fix: ${fix}`, 'fix'));
    problems.append(item);
  }
  const entitled = status.entitled === true ? '✓ active subscription' : status.entitled === false ? '✗ no active subscription' : '… not checked yet';
  const facts = [
    ['Customer', `${status.customerId}: ${entitled}`],
    ['API token', word('token', status.token)],
    ['API', word('api', status.api.state) + (status.api.lastError ? `: ${status.api.lastError}` : '')],
    ['MQTT', word('mqtt', status.mqtt)],
    ['Bluetooth', bleText(status)],
    ['Store', status.store.ok ? '✓ writable' : `✗ ${status.store.error || 'failing'}`],
    ['Devices', `${status.devices.linked} linked, ${status.devices.linking} linking, ${status.devices.failed + status.devices.rejected} not linked`],
    ...(status.buttons ? [['Buttons', buttonsText(status.buttons)]] : []),
    ['Version', status.version],
  ];
  const list = clear($('health-facts'));
  for (const [term, value] of facts) list.append(el('dt', term), el('dd', value));
}

// CONTRACT.md section 17's counts, in words: a missing button never looks like a number alone.
function buttonsText(buttons) {
  const parts = [`${buttons.online} online`];
  if (buttons.missing) parts.push(`⚠ ${buttons.missing} missing`);
  if (buttons.unknown) parts.push(`${buttons.unknown} not known`);
  if (buttons.unsupervised) parts.push(`${buttons.unsupervised} not supervised`);
  if (buttons.batteryLow) parts.push(`⚠ ${buttons.batteryLow} battery low`);
  return parts.join(', ');
}

const ROLE_WORDS = { hub: 'the hub\'s customer', holder: 'subscription holder', dependant: 'dependant' };

const CHECK_NAMES = { configuration: 'Configuration', token: 'API token', api: 'API', entitlement: 'Subscription', mqtt: 'MQTT', ble: 'Bluetooth', page: 'This page' };

function renderChecks(check) {
  const state = $('checks-state');
  const list = clear($('checks-list'));
  $('run-checks').disabled = !live || Boolean(check && check.running);
  if (!check) { state.textContent = 'The checks of panic-pair check: configuration, token, API, subscription, MQTT, Bluetooth.'; return; }
  if (check.running) { state.textContent = '… Running the checks'; return; }
  if (check.error) { state.textContent = `✗ The checks could not run: ${check.error}`; return; }
  const report = check.report;
  state.textContent = report.ok ? `✓ Every check passed (${when(check.at)}).` : `✗ Some checks failed (${when(check.at)}):`;
  for (const result of report.checks) {
    const item = el('li', undefined, result.ok ? 'good' : 'bad');
    const mark = result.ok ? (result.skipped ? '–' : '✓') : '✗';
    item.append(el('strong', `${mark} ${CHECK_NAMES[result.name] || result.name}: `), el('span', result.detail));
    if (!result.ok && result.fix) item.append(el('span', `Fix: ${result.fix}`, 'fix'));
    list.append(item);
  }
}

function renderHousehold(members) {
  const list = clear($('household-list'));
  const select = $('customer');
  const chosen = select.value;
  clear(select);
  for (const member of members) {
    const entitled = member.entitled === true ? '✓ entitled' : member.entitled === false ? '✗ not entitled' : '… not checked yet';
    const role = ROLE_WORDS[member.role] || member.role;
    const item = el('li');
    item.append(el('strong', `Customer ${member.customerId}`), el('span', ` (${role}) `), el('span', entitled, member.entitled ? 'good' : 'bad'));
    list.append(item);
    const option = el('option', `${member.customerId}, ${role}${member.entitled === false ? ' (not entitled)' : ''}`);
    option.value = String(member.customerId);
    select.append(option);
  }
  if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
}

function signal(rssi) {
  if (rssi === undefined || rssi === null) return 'signal unknown';
  const bars = rssi >= -60 ? '▮▮▮▮' : rssi >= -70 ? '▮▮▮▯' : rssi >= -80 ? '▮▮▯▯' : '▮▯▯▯';
  return `${bars} ${Math.round(rssi)} dBm`;
}

function age(ms) {
  if (ms < 5000) return 'heard just now';
  return `heard ${Math.round(ms / 1000)} s ago`;
}

const heardRows = new Map();

function heardMeta(button) {
  return `${age(button.ageMs)} · ${signal(button.rssi)} · via ${button.source}${button.state ? ` · ${button.state}` : ''}`;
}

// Rebuilt when the buttons, their order or their state change; otherwise only their ages and
// signals are updated in place, so a tap on a row is never lost to a refresh.
function renderHeard(heard) {
  $('heard-empty').hidden = heard.length > 0;
  $('heard-empty').textContent = 'No button heard in the last minute.';
  if (changed('heard', heard.map((button) => [button.deviceId, button.state]))) {
    const list = clear($('heard-list'));
    heardRows.clear();
    for (const button of heard) {
      const item = el('li');
      const choose = el('button', undefined, 'choice');
      choose.type = 'button';
      const meta = el('span', '', 'meta');
      choose.append(el('strong', button.deviceId), meta);
      choose.disabled = !live;
      choose.addEventListener('click', () => {
        $('device-id').value = button.deviceId;
        $('pair').scrollIntoView({ behavior: 'smooth' });
        $('pair-button').focus();
      });
      item.append(choose);
      list.append(item);
      heardRows.set(button.deviceId, { item, choose, meta });
    }
  }
  for (const button of heard) {
    const row = heardRows.get(button.deviceId);
    if (!row) continue;
    row.item.className = button.ageMs < 5000 ? 'fresh' : '';
    row.meta.textContent = heardMeta(button);
    const dbm = button.rssi === undefined ? 'signal unknown' : `${Math.round(button.rssi)} dBm`;
    row.choose.setAttribute('aria-label', `Choose ${button.deviceId}, ${age(button.ageMs)}, ${dbm}`);
  }
}

const STEP_TEXT = {
  waiting: 'Waiting for the button: press it now',
  checking: 'Checking the customer\'s subscription',
  linking: 'Linking with the panic-api',
  linked: 'Linked',
};
const STEPS = ['waiting', 'checking', 'linking', 'linked'];
/** What a step reads once it is done. */
const DONE_TEXT = { waiting: 'Heard the button' };

function minutes(seconds) {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/** A pairing asked from this page that has not ended: the Pair button waits for it. */
function pairingRuns(latest) {
  return Boolean(latest) && latest.step !== 'linked' && latest.step !== 'failed';
}

function renderPairing(pairings) {
  const box = clear($('pair-steps'));
  const latest = pairings[0];
  const button = $('pair-button');
  button.disabled = !live || pairingRuns(latest);
  button.textContent = pairingRuns(latest) ? 'Pairing…' : 'Pair';
  if (!latest) return;
  box.append(el('p', `Button ${latest.deviceId} for customer ${latest.customerId}:`, 'steps-title'));
  const list = el('ol');
  const reached = STEPS.indexOf(latest.step);
  STEPS.forEach((step, index) => {
    if (latest.step === 'failed' && index > 0) return;
    const done = index < reached || latest.step === 'linked';
    const current = index === reached && latest.step !== 'linked';
    let text = done ? DONE_TEXT[step] || STEP_TEXT[step] : STEP_TEXT[step];
    if (step === 'waiting' && current && latest.timeoutSeconds) text += ` (waits up to ${minutes(latest.timeoutSeconds)})`;
    if (step === 'linked' && latest.step === 'linked') {
      text = latest.alreadyLinked ? 'Linked already (nothing sent again)' : `Linked${latest.linkId !== undefined ? `: link id ${latest.linkId}` : ''}`;
    }
    if (index > reached && latest.step !== 'linked') return;
    list.append(el('li', `${done ? '✓' : current ? '▶' : '·'} ${text}`, done ? 'good' : current ? 'current' : ''));
  });
  // A wait through a passing API failure, in the CLI's words: the installer sees why it takes long.
  if (latest.retry && latest.step !== 'linked' && latest.step !== 'failed') list.append(el('li', `… ${latest.retry}`, 'wait'));
  if (latest.step === 'failed') list.append(el('li', `✗ Failed: ${latest.message || 'unknown error'}`, 'bad'));
  box.append(list);
}

// "Closed: linked A1 and B2; not linked: C3." in words, not counts.
function windowResult(outcomes) {
  const names = (list) => list.map((outcome) => outcome.deviceId).join(', ');
  const linked = outcomes.filter((outcome) => outcome.ok);
  const failed = outcomes.filter((outcome) => !outcome.ok);
  if (outcomes.length === 0) return 'Closed: no button was pressed and linked while it was open.';
  const parts = [];
  if (linked.length) parts.push(`linked ${names(linked)}`);
  if (failed.length) parts.push(`not linked: ${names(failed)} (see below why)`);
  return `Closed: ${parts.join('; ')}.`;
}

function renderWindow(window) {
  clearInterval(countdown);
  const state = $('window-state');
  const outcomes = clear($('window-outcomes'));
  if (!window) { state.textContent = 'No window open.'; return; }
  if (window.error) {
    state.textContent = `✗ The window for customer ${window.customerId} did not open: ${window.error}`;
    $('open-window').disabled = !live;
    return;
  }
  if (window.open && window.opening) {
    state.textContent = `… Opening a window for customer ${window.customerId}: wait until it says to press the buttons.`;
    $('open-window').disabled = true;
    return;
  }
  const endsAt = performance.now() + window.remainingMs;
  const tick = () => {
    const left = Math.max(0, Math.ceil((endsAt - performance.now()) / 1000));
    state.textContent = window.open ? `● Open for customer ${window.customerId}: ${left} s left. Press each button near the hub now.` : windowResult(window.outcomes);
  };
  tick();
  if (window.open) countdown = setInterval(tick, 1000);
  for (const outcome of window.outcomes) {
    const text = outcome.ok ? `✓ ${outcome.deviceId} linked${outcome.linkId !== undefined ? ` (link id ${outcome.linkId})` : ''}` : `✗ ${outcome.deviceId}: ${outcome.message || 'failed'}`;
    outcomes.append(el('li', text, outcome.ok ? 'good' : 'bad'));
  }
  for (const retry of window.retries || []) outcomes.append(el('li', `… ${retry.deviceId}: ${retry.text}`, 'wait'));
  $('open-window').disabled = !live || window.open;
}

const DEVICE_STATE = { linked: '✓ linked', linking: '… linking', rejected: '✗ rejected', failed: '⚠ failed' };
let confirming = null;
/** A linked button's words ("heard 3 min ago", "battery 15 % (low)"), updated in place between rebuilds. */
const livenessRows = new Map();

// What rebuilds the list: not the words of a button's liveness, which change every minute and
// are updated in place, so a tap on Forget is never lost to a refresh.
function deviceShape(device) {
  const { words, lastHeard, battery, batteryLow, supervision, deadlineSeconds, ...stored } = device;
  return [stored, words ? [words.problem, Boolean(words.battery)] : null];
}

function updateLiveness(devices) {
  for (const device of devices) {
    const row = livenessRows.get(device.deviceId);
    if (!row || !device.words) continue;
    const heard = device.words.problem && device.supervision === 'missing' ? `⚠ ${device.words.heard}` : device.words.heard;
    if (row.heard.textContent !== heard) row.heard.textContent = heard;
    const battery = device.words.battery ? (device.batteryLow ? `⚠ ${device.words.battery}` : device.words.battery) : '';
    if (row.battery && row.battery.textContent !== battery) row.battery.textContent = battery;
  }
}

function renderDevices(devices) {
  const list = clear($('device-list'));
  livenessRows.clear();
  $('devices-empty').hidden = devices.length > 0;
  for (const device of devices) {
    const item = el('li', undefined, `device ${device.state}${device.words && device.words.problem ? ' problem' : ''}`);
    // A silent button never looks linked and well (CONTRACT.md section 17).
    const missing = device.supervision === 'missing';
    const state = missing ? '⚠ linked, but missing' : DEVICE_STATE[device.state] || device.state;
    item.append(el('strong', device.deviceId), el('span', state, `state ${device.state === 'linked' && !missing ? 'good' : device.state === 'linking' ? '' : 'bad'}`));
    // Said in words first (a missing button reads "missing"), coloured second.
    if (device.words) {
      const heard = el('p', '', `liveness ${device.supervision === 'missing' ? 'bad' : ''}`);
      const battery = device.words.battery ? el('p', '', `liveness ${device.batteryLow ? 'bad' : ''}`) : null;
      item.append(heard);
      if (battery) item.append(battery);
      livenessRows.set(device.deviceId, { heard, battery });
    }
    const facts = el('dl', undefined, 'facts');
    const add = (term, value) => { if (value !== undefined && value !== '') facts.append(el('dt', term), el('dd', value)); };
    add('Customer', device.customerId);
    add('Link id', device.linkId);
    add('Linked at', when(device.linkedAt));
    add('Changed', when(device.updatedAt));
    add('Heard via', device.source);
    add('Error', device.error);
    item.append(facts);
    item.append(confirming === device.deviceId ? confirmation(device.deviceId) : forgetButton(device.deviceId));
    list.append(item);
  }
  updateLiveness(devices);
}

function forgetButton(deviceId) {
  const button = el('button', 'Forget', 'secondary');
  button.type = 'button';
  button.setAttribute('aria-label', `Forget ${deviceId}`);
  button.disabled = !live;
  button.addEventListener('click', () => { confirming = deviceId; render(); });
  return button;
}

function confirmation(deviceId) {
  const box = el('div', undefined, 'confirm');
  box.append(el('p', `Forget ${deviceId} on this hub? The panic-api keeps its link (it has no unlink).`));
  const yes = el('button', `Yes, forget ${deviceId}`, 'danger');
  const no = el('button', 'Keep it', 'secondary');
  yes.type = 'button';
  no.type = 'button';
  yes.addEventListener('click', async () => {
    confirming = null;
    shown.devices = undefined;
    const result = await post('/api/forget', { deviceId });
    if (!result.ok) alertProblem(result.error);
  });
  no.addEventListener('click', () => { confirming = null; render(); });
  box.append(yes, no);
  return box;
}

// ---- actions ----

async function post(path, body) {
  try {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
    if (response.status === 401) { location.reload(); return { ok: false, error: 'signed out' }; }
    const data = await response.json().catch(() => ({}));
    return response.ok ? { ok: true, data } : { ok: false, error: data.error || `the hub answered ${response.status}` };
  } catch {
    return { ok: false, error: 'the hub cannot be reached' };
  }
}

function alertProblem(message) {
  shown.pairing = undefined;
  const box = clear($('pair-steps'));
  box.append(el('p', `✗ ${message}`, 'bad'));
}

$('pair-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const deviceId = $('device-id').value.trim();
  const result = await post('/api/pair', { deviceId, customerId: Number($('customer').value) });
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
