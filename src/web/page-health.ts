// The hub's health as the page needs it: states, numbers and names, never
// the English sentences of `status`. Each problem of status is told by its kind and its figures, in
// the same order; the page words it in the installer's language. A problem this file does not know
// yet still counts, as `other`, so the page never says "healthy" while status does not.
import { CLOCK_UNSET } from '../clock.js';
import type { StatusReport } from '../status/status-report.js';
import type { DeviceRow } from '../supervision/types.js';

export type PageProblem =
  | { kind: 'clock' }
  | { kind: 'token-missing' }
  | { kind: 'token-refused' }
  | { kind: 'not-entitled'; customerId: number }
  | { kind: 'api-failing' }
  | { kind: 'mqtt-down' }
  | { kind: 'mqtt-refused'; topic: string }
  | { kind: 'ble'; state: StatusReport['ble'] }
  | { kind: 'store' }
  | { kind: 'unsaved'; count: number }
  | { kind: 'button-missing'; deviceId: string; silentMs: number | null; lastHeard: string | null }
  | { kind: 'battery-low'; deviceId: string; battery: number | null }
  | { kind: 'imitated'; deviceId: string }
  | { kind: 'update-rolled-back'; version: string; previous: string }
  | { kind: 'other' };

/**
 * Status without its sentences: what is failing says itself through `state` fields and `problems`.
 * The update's reason is the judge's sentence: a rollback reaches the page as its problem, its
 * two versions with it.
 */
export type PageStatus = Omit<StatusReport, 'problems' | 'api' | 'store' | 'mqttReason' | 'bleReason' | 'mqttRefusals' | 'counters' | 'update' | 'page'> & {
  api: { state: StatusReport['api']['state'] };
  store: { ok: boolean };
  problems: PageProblem[];
};

export function pageStatus(status: StatusReport, devices: readonly DeviceRow[], nowWall: number): PageStatus {
  const { problems, api, store, mqttReason: _m, bleReason: _b, mqttRefusals, counters: _c, update: _u, page: _p, ...rest } = status;
  const refused = [...(mqttRefusals?.subscriptions.map((s) => s.filter) ?? []), ...(mqttRefusals?.publishes.map((p) => p.topic) ?? [])];
  const byId = new Map(devices.map((row) => [row.deviceId, row]));
  let entitlementSaid = false;
  const kinds = problems.map((text): PageProblem => {
    const kind = problemOf(text, status, refused, byId, nowWall);
    // Status says the entitlement once, in its own words or the API's: the first problem no
    // other kind claims. Any later one is new to this file.
    if (kind.kind !== 'not-entitled') return kind;
    if (entitlementSaid) return { kind: 'other' };
    entitlementSaid = true;
    return kind;
  });
  return { ...rest, api: { state: api.state }, store: { ok: store.ok }, problems: kinds };
}

function problemOf(text: string, status: StatusReport, refused: string[], byId: Map<string, DeviceRow>, nowWall: number): PageProblem {
  if (text === CLOCK_UNSET) return { kind: 'clock' };
  if (text.startsWith('no API token')) return { kind: 'token-missing' };
  if (text.startsWith('the API refused the token')) return { kind: 'token-refused' };
  if (text.startsWith('the API is failing')) return { kind: 'api-failing' };
  if (text.startsWith('the MQTT broker is not connected')) return { kind: 'mqtt-down' };
  if (text.startsWith('the MQTT broker refuses')) return { kind: 'mqtt-refused', topic: refused.find((topic) => text.includes(` ${topic} `)) ?? '' };
  if (text.startsWith('BLE is')) return { kind: 'ble', state: status.ble };
  if (text.startsWith('the pairing store')) return { kind: 'store' };
  // Versions hold no space; an epoch's colon is never followed by one, the reason's always is.
  const rollback = /^update to (\S+) rolled back to (\S+?)(?:: |$)/.exec(text);
  if (rollback) return { kind: 'update-rolled-back', version: rollback[1] ?? '', previous: rollback[2] ?? '' };
  const unsaved = /^(\d+) link\(s\) made by the API/.exec(text);
  if (unsaved) return { kind: 'unsaved', count: Number(unsaved[1]) };
  const imitated = /^button (\S+) imitated/.exec(text);
  if (imitated) return { kind: 'imitated', deviceId: imitated[1] ?? '' };
  const button = /^button (\S+) (missing|battery)/.exec(text);
  if (button) {
    const deviceId = button[1] ?? '';
    const row = byId.get(deviceId);
    if (button[2] === 'battery') return { kind: 'battery-low', deviceId, battery: row?.battery ?? null };
    const heard = row?.lastHeard ? Date.parse(row.lastHeard) : Number.NaN;
    return { kind: 'button-missing', deviceId, silentMs: Number.isNaN(heard) ? null : Math.max(0, nowWall - heard), lastHeard: row?.lastHeard ?? null };
  }
  // Entitlement last: its words are the API's own when it gave a reason.
  if (status.entitled === false) return { kind: 'not-entitled', customerId: status.customerId };
  return { kind: 'other' };
}
