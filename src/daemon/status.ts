import type { Counters } from '../status/counters.js';
import { CLOCK_UNSET } from '../clock.js';
import type { StatusReport } from '../status/status-report.js';
import type { DeviceRecord } from '../store/record.js';
import type { EntitlementState, TokenState } from '../api/types.js';
import { mqttProblems, mqttStatusFields, type MqttDetail } from './mqtt-status.js';
import type { ButtonCounts } from '../supervision/types.js';
import type { PageAddress } from '../status/page-address.js';
import { updateOutcomeOf, updateProblem, type UpdateRecord } from '../update/record.js';

export interface StatusInputs {
  version: string;
  pid: number;
  startedAt: string;
  entitlement: EntitlementState;
  /** The household's customer ids, the hub's first. */
  household: number[];
  token: TokenState;
  /** Where the token comes from: a reload reads a token file again, while systemd's credential copy
   * and the environment are read only at a start. */
  tokenSource?: 'file' | 'credential' | 'env';
  api: StatusReport['api'];
  mqtt: StatusReport['mqtt'];
  mqttDetail?: MqttDetail;
  ble: StatusReport['ble'];
  bleReason?: string;
  bleAdapter?: StatusReport['bleAdapter'];
  bleRestarts?: number;
  bleLastHeardSeconds?: number | null;
  bleRequired: boolean;
  store: StatusReport['store'];
  unsavedLinks: number;
  devices: readonly DeviceRecord[];
  /** Counts over the linked buttons by supervision, and their problems in words. */
  buttons?: ButtonCounts;
  buttonProblems?: readonly string[];
  supervision?: 'on' | 'off';
  autoPair: boolean;
  homeAssistantPrefix?: string;
  /** Where a phone opens the installer's page; none or null: the page is off. */
  page?: PageAddress | null;
  windowOpenUntil?: number;
  counters: Counters;
  /** The wall clock reads earlier than the package's build. */
  clockUnset?: boolean;
  uptimeSeconds?: number;
  /** update.json as last read: null when there is none (or none readable). */
  update?: UpdateRecord | null;
}

/** What to do about a refused token, where the token comes from. */
function tokenFix(source: StatusInputs['tokenSource']): string {
  if (source === 'file') return 'write a valid token to the token file, then reload (systemctl reload panic-pair)';
  if (source === 'env') return 'set a valid PANIC_PAIR_API_TOKEN, then restart (systemctl restart panic-pair)';
  // systemd hands the daemon a copy of /etc/panic-pair/api-token when it starts: a reload reads the old copy.
  return 'write a valid token to /etc/panic-pair/api-token, then restart (systemctl restart panic-pair)';
}

/** Assembles `status` and says, in words an installer can act on, why the hub is degraded. */
export function buildStatus(inputs: StatusInputs): StatusReport {
  const problems: string[] = [];
  if (inputs.clockUnset === true) problems.push(CLOCK_UNSET);
  const rollback = updateProblem(inputs.update ?? null);
  if (rollback !== undefined) problems.push(rollback);
  if (inputs.token === 'missing') problems.push('no API token is configured');
  if (inputs.token === 'refused') problems.push(`the API refused the token (401): ${tokenFix(inputs.tokenSource)}`);
  if (inputs.entitlement.entitled === false) {
    problems.push(inputs.entitlement.error ?? `customer ${inputs.entitlement.customerId} holds no active subscription`);
  }
  if (inputs.api.state === 'failing') problems.push(`the API is failing: ${inputs.api.lastError ?? 'unknown error'}`);
  problems.push(...mqttProblems(inputs.mqtt, inputs.mqttDetail));
  if (inputs.bleRequired && inputs.ble !== 'scanning') problems.push(`BLE is ${inputs.ble}${inputs.bleReason ? `: ${inputs.bleReason}` : ''}`);
  if (!inputs.store.ok) problems.push(`the pairing store cannot be written: ${inputs.store.error ?? 'unknown error'}; the last good state is kept`);
  if (inputs.unsavedLinks > 0) problems.push(`${inputs.unsavedLinks} link(s) made by the API are not yet recorded in the store`);
  problems.push(...(inputs.buttonProblems ?? []));

  const devices = { total: inputs.devices.length, linked: 0, linking: 0, rejected: 0, failed: 0 };
  for (const record of inputs.devices) devices[record.state]++;

  const report: StatusReport = {
    version: inputs.version,
    pid: inputs.pid,
    startedAt: inputs.startedAt,
    healthy: problems.length === 0,
    problems,
    customerId: inputs.entitlement.customerId,
    entitled: inputs.entitlement.entitled,
    household: inputs.household,
    token: inputs.token,
    api: inputs.api,
    mqtt: inputs.mqtt,
    ...mqttStatusFields(inputs.mqtt, inputs.mqttDetail),
    ble: inputs.ble,
    bleAdapter: inputs.bleAdapter ?? null,
    bleRestarts: inputs.bleRestarts ?? 0,
    bleLastHeardSeconds: inputs.bleLastHeardSeconds ?? null,
    store: inputs.store,
    devices,
    buttons: inputs.buttons ?? { linked: devices.linked, online: 0, missing: 0, unknown: devices.linked, unsupervised: 0, batteryLow: 0 },
    autoPair: inputs.autoPair,
    update: updateOutcomeOf(inputs.update ?? null),
    page: inputs.page ?? null,
    counters: { ...inputs.counters },
  };
  if (inputs.entitlement.checkedAt !== undefined) report.entitlementCheckedAt = inputs.entitlement.checkedAt;
  if (inputs.bleReason !== undefined) report.bleReason = inputs.bleReason;
  if (inputs.uptimeSeconds !== undefined) report.uptimeSeconds = inputs.uptimeSeconds;
  if (inputs.supervision !== undefined) report.supervision = inputs.supervision;
  if (inputs.homeAssistantPrefix !== undefined) report.homeAssistant = { discoveryPrefix: inputs.homeAssistantPrefix };
  if (inputs.windowOpenUntil !== undefined) report.windowOpenUntil = new Date(inputs.windowOpenUntil).toISOString();
  return report;
}
