// The installer's page. Everything shown comes from the hub's live channel (POST /api/live, one
// JSON snapshot a line) as states and numbers, worded here in the installer's language from its
// catalogue (i18n.js); text from devices is always set as text, never as markup. While the
// channel is down the page says so, greys out what it last heard and offers no action.
import { ago, clock, dateTime, duration, languageControl, length, list, loadLanguage, parts, percent, t, translatePage } from './i18n.js';

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
  clearInterval(countdown);
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
  if (changed('checks', snapshot.check)) renderChecks(snapshot.check);
  if (changed('household', snapshot.household)) renderHousehold(snapshot.household);
  renderHeard(snapshot.heard);
  if (changed('pairing', snapshot.pairings[0] || null)) renderPairing(snapshot.pairings);
  const window = snapshot.window && { ...snapshot.window, remainingMs: undefined };
  if (changed('window', window)) renderWindow(snapshot.window);
  if (changed('devices', [snapshot.devices.map(deviceShape), confirming])) renderDevices(snapshot.devices);
  updateLiveness(snapshot.devices);
}

// Each problem of the hub by its kind, with what fixes it.
function problemText(problem) {
  switch (problem.kind) {
    case 'not-entitled': return t('problem.not-entitled', { customer: String(problem.customerId) });
    case 'mqtt-refused': return t('problem.mqtt-refused', { topic: problem.topic });
    case 'ble': return t('problem.ble', { state: t(`state.ble.${problem.state}`) });
    case 'unsaved': return t('problem.unsaved', { count: problem.count });
    case 'button-missing': return missingText(problem.deviceId, problem.silentMs, problem.lastHeard);
    case 'battery-low': return problem.battery === null ? t('problem.battery-low-flag', { device: problem.deviceId }) : t('problem.battery-low', { device: problem.deviceId, percent: percent(problem.battery) });
    default: return t(`problem.${problem.kind}`);
  }
}

function missingText(deviceId, silentMs, lastHeard) {
  if (silentMs === null) return t('problem.button-missing-never', { device: deviceId });
  return t('problem.button-missing', { device: deviceId, duration: duration(silentMs), time: clock(lastHeard) });
}

function fixFor(problem) {
  if (problem.kind === 'ble') return t(`fix.ble.${['blocked', 'powered-off', 'unauthorized'].includes(problem.state) ? problem.state : 'other'}`);
  if (problem.kind === 'mqtt-refused') return t('fix.mqtt-refused', { topic: problem.topic });
  return t(`fix.${problem.kind}`);
}

const MARKS = {
  token: { accepted: '✓', refused: '✗', missing: '✗', unknown: '…' },
  api: { ok: '✓', failing: '✗', unknown: '…' },
  mqtt: { connected: '✓', connecting: '…', disconnected: '✗', off: '–' },
  ble: { scanning: '✓', starting: '…', off: '–', unavailable: '✗', unauthorized: '✗', 'powered-off': '✗', blocked: '✗' },
};

function word(kind, value) {
  return `${(MARKS[kind] && MARKS[kind][value]) || '?'} ${t(`state.${kind}.${value}`)}`;
}

// A BLE that is not required (PANIC_PAIR_BLE=auto) and cannot be used is no problem to status,
// so none here either: status lists a problem for it exactly when BLE is required.
function bleText(status) {
  const failing = MARKS.ble[status.ble] === '✗';
  if (failing && !status.problems.some((problem) => problem.kind === 'ble')) return `– ${t('ble.optional', { state: t(`state.ble.${status.ble}`) })}`;
  return word('ble', status.ble);
}

function renderHealth(status) {
  const summary = $('health-summary');
  summary.dataset.state = status.healthy ? 'healthy' : 'degraded';
  summary.textContent = status.healthy ? t('health.ok') : t('health.problems', { count: status.problems.length });
  summary.className = status.healthy ? 'good' : 'bad';
  const problems = clear($('health-problems'));
  for (const problem of status.problems) {
    const item = el('li', undefined, 'bad');
    item.dataset.state = problem.kind;
    item.append(el('strong', `✗ ${problemText(problem)}`));
    item.append(el('span', t('fix.label', { fix: fixFor(problem) }), 'fix'));
    problems.append(item);
  }
  const entitled = status.entitled === true ? t('entitled.yes') : status.entitled === false ? t('entitled.no') : t('entitled.unknown');
  const devices = status.devices;
  const facts = [
    ['fact.customer', t('fact.customerValue', { customer: String(status.customerId), entitled })],
    ['fact.token', word('token', status.token)],
    ['fact.api', word('api', status.api.state)],
    ['fact.mqtt', word('mqtt', status.mqtt)],
    ['fact.ble', bleText(status)],
    ['fact.store', status.store.ok ? t('store.ok') : t('store.failing')],
    ['fact.devices', parts([t('count.linked', { count: devices.linked }), t('count.linking', { count: devices.linking }), t('count.notLinked', { count: devices.failed + devices.rejected })])],
    ...(status.buttons ? [['fact.buttons', buttonsText(status.buttons)]] : []),
    ['fact.version', status.version],
  ];
  const list = clear($('health-facts'));
  for (const [term, value] of facts) list.append(el('dt', t(term)), el('dd', value));
}

// CONTRACT.md section 17's counts, in words: a missing button never looks like a number alone.
function buttonsText(buttons) {
  const said = [t('count.online', { count: buttons.online })];
  if (buttons.missing) said.push(`⚠ ${t('count.missing', { count: buttons.missing })}`);
  if (buttons.unknown) said.push(t('count.unknown', { count: buttons.unknown }));
  if (buttons.unsupervised) said.push(t('count.unsupervised', { count: buttons.unsupervised }));
  if (buttons.batteryLow) said.push(`⚠ ${t('count.batteryLow', { count: buttons.batteryLow })}`);
  return parts(said);
}

function renderChecks(check) {
  const state = $('checks-state');
  const items = clear($('checks-list'));
  $('run-checks').disabled = !live || Boolean(check && check.running);
  state.dataset.state = !check ? 'none' : check.running ? 'running' : check.error ? 'error' : check.report.ok ? 'passed' : 'failed';
  if (!check) { state.textContent = t('checks.intro'); return; }
  if (check.running) { state.textContent = t('checks.running'); return; }
  if (check.error) { state.textContent = t('checks.error', { reason: t(`reason.${check.error}`) }); return; }
  const report = check.report;
  state.textContent = report.ok ? t('checks.passed', { time: clock(check.at) }) : t('checks.failed', { time: clock(check.at) });
  for (const result of report.checks) {
    const item = el('li', undefined, result.ok ? 'good' : 'bad');
    item.dataset.state = result.ok ? (result.skipped ? 'off' : 'passed') : result.skipped ? 'blocked' : 'failed';
    const mark = result.ok ? (result.skipped ? '–' : '✓') : '✗';
    item.append(el('strong', `${mark} ${t(`check.${result.name}`)}: `), el('span', t(`check.result.${item.dataset.state}`)));
    if (!result.ok && !result.skipped) item.append(el('span', t('fix.label', { fix: t('fix.check') }), 'fix'));
    items.append(item);
  }
}

function renderHousehold(members) {
  const rows = clear($('household-list'));
  const select = $('customer');
  const chosen = select.value;
  clear(select);
  for (const member of members) {
    const entitled = member.entitled === true ? t('member.entitled') : member.entitled === false ? t('member.notEntitled') : t('entitled.unknown');
    const role = t(`role.${member.role}`);
    const customer = String(member.customerId);
    const item = el('li');
    item.append(el('strong', t('household.customer', { customer })), el('span', ` (${role}) `), el('span', entitled, member.entitled ? 'good' : 'bad'));
    rows.append(item);
    const option = el('option', t(member.entitled === false ? 'household.optionNotEntitled' : 'household.option', { customer, role }));
    option.value = customer;
    select.append(option);
  }
  if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
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

const STEPS = ['waiting', 'checking', 'linking', 'linked'];

/** A pairing asked from this page that has not ended: the Pair button waits for it. */
function pairingRuns(latest) {
  return Boolean(latest) && latest.step !== 'linked' && latest.step !== 'failed';
}

function retryText(retry) {
  return t('retry', { api: retry.api, duration: duration(Math.max(1000, retry.inMs)) });
}

function renderPairing(pairings) {
  const box = clear($('pair-steps'));
  const latest = pairings[0];
  const button = $('pair-button');
  button.disabled = !live || pairingRuns(latest);
  button.textContent = pairingRuns(latest) ? t('pair.running') : t('pair.submit');
  box.dataset.state = latest ? (latest.step === 'failed' ? latest.reason || 'failure' : latest.step) : 'none';
  if (!latest) return;
  box.append(el('p', t('step.title', { device: latest.deviceId, customer: String(latest.customerId) }), 'steps-title'));
  const steps = el('ol');
  const reached = STEPS.indexOf(latest.step);
  STEPS.forEach((step, index) => {
    if (latest.step === 'failed' && index > 0) return;
    const done = index < reached || latest.step === 'linked';
    const current = index === reached && latest.step !== 'linked';
    let text = done && step === 'waiting' ? t('step.heard') : t(`step.${step}`);
    if (step === 'waiting' && current && latest.timeoutSeconds) text = t('step.waitingUpTo', { duration: duration(latest.timeoutSeconds * 1000) });
    if (step === 'linked' && latest.step === 'linked') {
      text = latest.alreadyLinked ? t('step.alreadyLinked') : latest.linkId !== undefined ? t('step.linkedId', { link: String(latest.linkId) }) : t('step.linked');
    }
    if (index > reached && latest.step !== 'linked') return;
    steps.append(el('li', `${done ? '✓' : current ? '▶' : '·'} ${text}`, done ? 'good' : current ? 'current' : ''));
  });
  // A wait through a passing API failure: the installer sees why it takes long.
  if (latest.retry && pairingRuns(latest)) steps.append(el('li', `… ${retryText(latest.retry)}`, 'wait'));
  if (latest.step === 'failed') steps.append(el('li', `✗ ${t('step.failed', { reason: t(`reason.${latest.reason || 'failure'}`) })}`, 'bad'));
  box.append(steps);
}

// "Closed: linked A1 and B2; not linked: C3." in words, not counts.
function windowResult(outcomes) {
  const names = (chosen) => list(chosen.map((outcome) => outcome.deviceId));
  const linked = outcomes.filter((outcome) => outcome.ok);
  const failed = outcomes.filter((outcome) => !outcome.ok);
  if (outcomes.length === 0) return t('window.closedNone');
  const said = [];
  if (linked.length) said.push(t('window.closedLinked', { devices: names(linked) }));
  if (failed.length) said.push(t('window.closedFailed', { devices: names(failed) }));
  return t('window.closed', { result: said.join('; ') });
}

function renderWindow(window) {
  clearInterval(countdown);
  const state = $('window-state');
  const outcomes = clear($('window-outcomes'));
  const customer = window ? String(window.customerId) : '';
  state.dataset.state = !window ? 'none' : window.error ? 'failed' : window.opening ? 'opening' : window.open ? 'open' : 'closed';
  if (!window) { state.textContent = t('window.none'); return; }
  if (window.error) {
    state.textContent = `✗ ${t('window.failed', { customer, reason: t(`reason.${window.error}`) })}`;
    $('open-window').disabled = !live;
    return;
  }
  if (window.open && window.opening) {
    state.textContent = t('window.opening', { customer });
    $('open-window').disabled = true;
    return;
  }
  const endsAt = performance.now() + window.remainingMs;
  const tick = () => {
    const left = Math.max(0, Math.ceil((endsAt - performance.now()) / 1000));
    state.textContent = window.open ? t('window.openFor', { customer, left: duration(left * 1000) }) : windowResult(window.outcomes);
  };
  tick();
  if (window.open) countdown = setInterval(tick, 1000);
  for (const outcome of window.outcomes) {
    const text = outcome.ok
      ? `✓ ${outcome.linkId !== undefined ? t('window.linkedId', { device: outcome.deviceId, link: String(outcome.linkId) }) : t('window.linked', { device: outcome.deviceId })}`
      : `✗ ${outcome.deviceId}: ${t(`reason.${outcome.reason || 'failure'}`)}`;
    outcomes.append(el('li', text, outcome.ok ? 'good' : 'bad'));
  }
  for (const retry of window.retries || []) outcomes.append(el('li', `… ${retry.deviceId}: ${retryText(retry)}`, 'wait'));
  $('open-window').disabled = !live || window.open;
}

const DEVICE_MARK = { linked: '✓', linking: '…', rejected: '✗', failed: '⚠' };
let confirming = null;
/** A linked button's words ("heard 3 min ago", "battery 15 % (low)"), updated in place between rebuilds. */
const livenessRows = new Map();

// What rebuilds the list: not a button's liveness, which changes every minute and is updated in
// place, so a tap on Forget is never lost to a refresh.
function deviceShape(device) {
  const { heardAgoMs, lastHeard, battery, batteryLow, supervision, deadlineSeconds, problem, ...stored } = device;
  return [stored, supervision === undefined ? null : [problem, battery !== null && battery !== undefined, batteryLow]];
}

/** The supervision of a linked button in words (CONTRACT.md section 17), aged since the snapshot arrived. */
function livenessText(device) {
  const silentMs = device.heardAgoMs === null || device.heardAgoMs === undefined ? null : device.heardAgoMs + (Date.now() - receivedAt);
  const lastHeard = (text) => (device.lastHeard ? t('live.lastHeard', { text, time: clock(device.lastHeard) }) : text);
  switch (device.supervision) {
    case 'online':
      if (silentMs === null) return t('live.online');
      return silentMs < 5000 ? t('heard.justNow') : t('heard.ago', { ago: ago(silentMs) });
    case 'missing':
      return silentMs === null ? t('live.missingNever') : `⚠ ${t('live.missing', { duration: duration(silentMs), time: clock(device.lastHeard) })}`;
    case 'unknown':
      return lastHeard(t(device.deaf ? 'live.unknownDeaf' : 'live.unknown'));
    default:
      return lastHeard(t(device.supervisionOff ? 'live.supervisionOff' : 'live.unsupervised'));
  }
}

function batteryText(device) {
  if (device.battery === null || device.battery === undefined) return device.batteryLow ? `⚠ ${t('battery.low')}` : '';
  return device.batteryLow ? `⚠ ${t('battery.percentLow', { percent: percent(device.battery) })}` : t('battery.percent', { percent: percent(device.battery) });
}

function updateLiveness(devices) {
  for (const device of devices) {
    const row = livenessRows.get(device.deviceId);
    if (!row || device.supervision === undefined) continue;
    const heard = livenessText(device);
    if (row.heard.textContent !== heard) row.heard.textContent = heard;
    const battery = batteryText(device);
    if (row.battery && row.battery.textContent !== battery) row.battery.textContent = battery;
  }
}

function renderDevices(devices) {
  const rows = clear($('device-list'));
  livenessRows.clear();
  $('devices-empty').hidden = devices.length > 0;
  for (const device of devices) {
    const item = el('li', undefined, `device ${device.state}${device.problem ? ' problem' : ''}`);
    // A silent button never looks linked and well (CONTRACT.md section 17).
    const missing = device.supervision === 'missing';
    item.dataset.state = missing ? 'missing' : device.state;
    const state = missing ? `⚠ ${t('deviceState.missing')}` : `${DEVICE_MARK[device.state] || ''} ${t(`deviceState.${device.state}`)}`;
    item.append(el('strong', device.deviceId), el('span', state, `state ${device.state === 'linked' && !missing ? 'good' : device.state === 'linking' ? '' : 'bad'}`));
    // Said in words first (a missing button reads "missing"), coloured second.
    if (device.supervision !== undefined) {
      const heard = el('p', '', `liveness ${missing ? 'bad' : ''}`);
      const known = (device.battery !== null && device.battery !== undefined) || device.batteryLow;
      const battery = known ? el('p', '', `liveness ${device.batteryLow ? 'bad' : ''}`) : null;
      item.append(heard);
      if (battery) item.append(battery);
      livenessRows.set(device.deviceId, { heard, battery });
    }
    const facts = el('dl', undefined, 'facts');
    const add = (term, value) => { if (value !== undefined && value !== '') facts.append(el('dt', t(term)), el('dd', value)); };
    add('device.customer', String(device.customerId));
    add('device.linkId', device.linkId === undefined ? undefined : String(device.linkId));
    add('device.linkedAt', device.linkedAt ? dateTime(device.linkedAt) : undefined);
    add('device.changed', dateTime(device.updatedAt));
    add('device.via', device.source);
    item.append(facts);
    item.append(confirming === device.deviceId ? confirmation(device.deviceId) : forgetButton(device.deviceId));
    rows.append(item);
  }
  updateLiveness(devices);
}

function forgetButton(deviceId) {
  const button = el('button', t('forget.button'), 'secondary');
  button.type = 'button';
  button.dataset.action = 'forget';
  button.dataset.device = deviceId;
  // Begins with the visible word, so a speech user's "Forget" reaches it (WCAG 2.5.3).
  button.setAttribute('aria-label', t('forget.label', { device: deviceId }));
  button.disabled = !live;
  button.addEventListener('click', () => { confirming = deviceId; render(); });
  return button;
}

function confirmation(deviceId) {
  const box = el('div', undefined, 'confirm');
  box.append(el('p', t('forget.question', { device: deviceId })));
  const yes = el('button', t('forget.yes', { device: deviceId }), 'danger');
  const no = el('button', t('forget.keep'), 'secondary');
  yes.type = 'button';
  no.type = 'button';
  yes.dataset.action = 'forget-confirm';
  no.dataset.action = 'forget-keep';
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
