// The hub's health, the checks run from the page and the household, worded in the installer's
// language from the states and numbers the hub sends.
import { clear, el, $ } from './dom.js';
import { clock, duration, parts, percent, t } from './i18n.js';

// Each problem of the hub by its kind, with what fixes it.
function problemText(problem) {
  switch (problem.kind) {
    case 'not-entitled': return t('problem.not-entitled', { customer: String(problem.customerId) });
    case 'mqtt-refused': return t('problem.mqtt-refused', { topic: problem.topic });
    case 'ble': return t('problem.ble', { state: t(`state.ble.${problem.state}`) });
    case 'unsaved': return t('problem.unsaved', { count: problem.count });
    case 'button-missing': return missingText(problem.deviceId, problem.silentMs, problem.lastHeard);
    case 'imitated': return t('problem.imitated', { device: problem.deviceId });
    case 'update-rolled-back': return t('problem.update-rolled-back', { version: problem.version, previous: problem.previous });
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

export function renderHealth(status) {
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

// The linked buttons' counts by supervision, in words: a missing button never looks like a number alone.
function buttonsText(buttons) {
  const said = [t('count.online', { count: buttons.online })];
  if (buttons.missing) said.push(`⚠ ${t('count.missing', { count: buttons.missing })}`);
  if (buttons.unknown) said.push(t('count.unknown', { count: buttons.unknown }));
  if (buttons.unsupervised) said.push(t('count.unsupervised', { count: buttons.unsupervised }));
  if (buttons.batteryLow) said.push(`⚠ ${t('count.batteryLow', { count: buttons.batteryLow })}`);
  return parts(said);
}

export function renderChecks(check, live) {
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

export function renderHousehold(members) {
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
