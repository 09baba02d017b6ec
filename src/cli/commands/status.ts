import type { StatusReport } from '../../status/status-report.js';
import { PanicPairError } from '../../errors.js';
import { askDaemon, type ClientOptions } from '../daemon.js';
import { EXIT } from '../exit-codes.js';
import { duration, facts, printJson } from '../render.js';
import { updateLine } from '../../update/words.js';
import { hubOnNetwork, PAGE_OFF, pageAddressText, withAddressesHere, type HubOnNetwork } from '../../status/page-address.js';

// `panic-pair status`: one line a fact, then exit 0 when healthy and 1 when degraded, so a
// monitoring script needs only the exit code.

const STATUS_TIMEOUT_MS = 10_000;

function entitlementText(report: StatusReport): string {
  const checked = report.entitlementCheckedAt ? ` (checked ${report.entitlementCheckedAt})` : '';
  if (report.entitled === true) return `entitled: an active subscription${checked}`;
  if (report.entitled === false) return `NOT entitled: no active subscription${checked}`;
  return 'unknown (not checked yet)';
}

function householdText(report: StatusReport): string {
  // A daemon older than households sends none: its household is its customer.
  const others = (report.household ?? [report.customerId]).filter((id) => id !== report.customerId);
  return others.length === 0 ? `customer ${report.customerId} alone` : `customer ${report.customerId} and ${others.join(', ')} (see \`panic-pair household\`)`;
}

const TOKEN_TEXT: Record<StatusReport['token'], string> = {
  unknown: 'not used yet',
  accepted: 'accepted',
  refused: 'REFUSED by the API (401): replace it',
  missing: 'MISSING: set PANIC_PAIR_API_TOKEN_FILE',
};

/** `here`: this machine's name and addresses, for a page the daemon could name but not address (its sandbox). */
export function statusLines(report: StatusReport, now: number, here: HubOnNetwork = { name: '', ipv4: [] }): string {
  // The daemon's own monotonic uptime when it gives one: the wall clocks may have jumped since.
  const startedAt = Date.parse(report.startedAt);
  const uptime =
    typeof report.uptimeSeconds === 'number'
      ? duration(report.uptimeSeconds * 1000)
      : Number.isNaN(startedAt)
        ? 'unknown'
        : duration(now - startedAt);
  const d = report.devices;
  const c = report.counters;
  const rows: [string, string][] = [
    ['daemon', `running, pid ${report.pid}, up ${uptime} (version ${report.version})`],
    // Older daemons send neither.
    ...(report.update === undefined ? [] : [['update', updateLine(report.update)] as [string, string]]),
    ...(report.page === undefined ? [] : [['page', report.page === null ? PAGE_OFF : pageAddressText(withAddressesHere(report.page, here))] as [string, string]]),
    ['customer', String(report.customerId)],
    ['household', householdText(report)],
    ['entitlement', entitlementText(report)],
    ['API token', TOKEN_TEXT[report.token] ?? String(report.token)],
    ['API', report.api.state === 'failing' ? `failing: ${report.api.lastError ?? 'unknown error'}` : report.api.state],
    ['MQTT', mqttLine(report)],
    ['BLE', bleLine(report)],
    ['store', report.store.ok ? `ok (${report.store.path})` : `FAILING (${report.store.path}): ${report.store.error ?? 'unknown error'}`],
    ['devices', `${d.total} total: ${d.linked} linked, ${d.linking} linking, ${d.rejected} rejected, ${d.failed} failed`],
    ...(report.buttons === undefined ? [] : [['buttons', buttonsLine(report.buttons)] as [string, string]]),
    ['auto-pair', report.autoPair ? 'on' : 'off'],
    ['Home Assistant', report.homeAssistant ? `discovery on, under ${report.homeAssistant.discoveryPrefix}/` : 'discovery off'],
    ['window', report.windowOpenUntil ? `open until ${report.windowOpenUntil}` : 'closed'],
    ['counters', `announcements ${c.announcements}, dropped ${c.dropped}, links ${c.links}, API errors ${c.apiErrors}, battery values dropped ${c.batteryDropped ?? 0}${refusedWords(c)}`],
    ['health', report.healthy ? 'healthy' : 'DEGRADED'],
    ...report.problems.map((problem): [string, string] => ['problem', problem]),
  ];
  return facts(rows);
}

export async function statusCommand(options: ClientOptions & { json?: boolean }): Promise<void> {
  const report = await askDaemon<StatusReport>(options, { type: 'status' }, { timeoutMs: STATUS_TIMEOUT_MS });
  if (!report || typeof report.healthy !== 'boolean') {
    throw new PanicPairError('failure', 'the daemon sent a status this client cannot read (is it the same version?)');
  }
  if (options.json) printJson(report);
  else process.stdout.write(statusLines(report, Date.now(), hubOnNetwork()));
  if (!report.healthy) process.exitCode = EXIT.failure;
}

/** The state and its reason with the fix; the adapter, its recoveries and when it last heard anything. */
function bleLine(report: StatusReport): string {
  const state = report.bleReason ? `${report.ble} (${report.bleReason})` : report.ble;
  // Older daemons send none of these.
  if (report.bleAdapter === undefined) return state;
  const parts: string[] = [];
  if (report.bleAdapter !== null) parts.push(`adapter ${report.bleAdapter.name}${report.bleAdapter.address === null ? '' : ` ${report.bleAdapter.address}`}`);
  if (report.ble !== 'off') {
    parts.push(report.bleLastHeardSeconds === null ? 'nothing heard yet' : `last heard ${duration(report.bleLastHeardSeconds * 1000)} ago`);
    parts.push(`${report.bleRestarts} ${report.bleRestarts === 1 ? 'recovery' : 'recoveries'}`);
  }
  return parts.length === 0 ? state : `${state}; ${parts.join(', ')}`;
}

/** The linked buttons by supervision; older daemons send none. */
function buttonsLine(b: NonNullable<StatusReport['buttons']>): string {
  const parts = [`${b.online} online`, `${b.missing} missing`, `${b.unknown} not known yet`];
  if (b.unsupervised > 0) parts.push(`${b.unsupervised} not supervised`);
  parts.push(`${b.batteryLow} battery low`);
  return `${b.linked} linked: ${parts.join(', ')}`;
}

/** `connected (MQTT 5)`, and why it is down or degraded: the broker's reason. */
function mqttLine(report: StatusReport): string {
  const protocol = report.mqtt === 'connected' && report.mqttProtocol !== undefined ? ` (MQTT ${report.mqttProtocol})` : '';
  return `${report.mqtt}${protocol}${report.mqttReason === undefined ? '' : `: ${report.mqttReason}`}`;
}

/** Keyed buttons' refused reports, named once there are any. */
function refusedWords(counters: Partial<Record<'forged' | 'replayed' | 'plain', number>>): string {
  const { forged = 0, replayed = 0, plain = 0 } = counters;
  return forged + replayed + plain === 0 ? '' : `; keyed buttons' reports refused: forged ${forged}, replayed ${replayed}, plain ${plain}`;
}
