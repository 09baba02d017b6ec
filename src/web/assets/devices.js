// The devices of the store, each linked button with when it was last heard and its battery,
// aged on the phone from the hub's own measure; Forget behind a confirmation.
import { clear, el, $ } from './dom.js';
import { ago, clock, dateTime, duration, percent, t } from './i18n.js';

const DEVICE_MARK = { linked: '✓', linking: '…', rejected: '✗', failed: '⚠' };
/** The device whose Forget waits for its confirmation: the list is rebuilt when it changes. */
let confirming = null;

export function confirmingDevice() {
  return confirming;
}
/** A linked button's words ("heard 3 min ago", "battery 15 % (low)"), updated in place between rebuilds. */
const livenessRows = new Map();

// What rebuilds the list: not a button's liveness, which changes every minute and is updated in
// place, so a tap on Forget is never lost to a refresh.
export function deviceShape(device) {
  const { heardAgoMs, lastHeard, battery, batteryLow, supervision, deadlineSeconds, problem, ...stored } = device;
  return [stored, supervision === undefined ? null : [problem, battery !== null && battery !== undefined, batteryLow]];
}

/** The supervision of a linked button in words, aged since the snapshot arrived. */
function livenessText(device, receivedAt) {
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

export function updateLiveness(devices, receivedAt) {
  for (const device of devices) {
    const row = livenessRows.get(device.deviceId);
    if (!row || device.supervision === undefined) continue;
    const heard = livenessText(device, receivedAt);
    if (row.heard.textContent !== heard) row.heard.textContent = heard;
    const battery = batteryText(device);
    if (row.battery && row.battery.textContent !== battery) row.battery.textContent = battery;
  }
}

/**
 * `rerender` shows the list again (a Forget asked or kept); `forget` sends a confirmed one.
 * The liveness words are filled by updateLiveness, after.
 */
export function renderDevices(devices, { live, rerender, forget }) {
  const rows = clear($('device-list'));
  livenessRows.clear();
  $('devices-empty').hidden = devices.length > 0;
  for (const device of devices) {
    const item = el('li', undefined, `device ${device.state}${device.problem ? ' problem' : ''}`);
    // A silent button never looks linked and well.
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
    item.append(confirming === device.deviceId ? confirmation(device.deviceId, rerender, forget) : forgetButton(device.deviceId, live, rerender));
    rows.append(item);
  }
}

function forgetButton(deviceId, live, rerender) {
  const button = el('button', t('forget.button'), 'secondary');
  button.type = 'button';
  button.dataset.action = 'forget';
  button.dataset.device = deviceId;
  // Begins with the visible word, so a speech user's "Forget" reaches it (WCAG 2.5.3).
  button.setAttribute('aria-label', t('forget.label', { device: deviceId }));
  button.disabled = !live;
  button.addEventListener('click', () => { confirming = deviceId; rerender(); });
  return button;
}

function confirmation(deviceId, rerender, forget) {
  const box = el('div', undefined, 'confirm');
  box.append(el('p', t('forget.question', { device: deviceId })));
  const yes = el('button', t('forget.yes', { device: deviceId }), 'danger');
  const no = el('button', t('forget.keep'), 'secondary');
  yes.type = 'button';
  no.type = 'button';
  yes.dataset.action = 'forget-confirm';
  no.dataset.action = 'forget-keep';
  yes.addEventListener('click', () => {
    confirming = null;
    forget(deviceId);
  });
  no.addEventListener('click', () => { confirming = null; rerender(); });
  box.append(yes, no);
  return box;
}
