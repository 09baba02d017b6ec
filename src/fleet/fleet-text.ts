import { table } from '../text.js';
import type { HubRow, HubState } from './hub-row.js';
import { HUB_STATES } from './hub-row.js';
import { buttonsWords, printable, shownId, stateWords } from './words.js';
import { runningVersionWords } from '../update/words.js';
import { isHubId } from './bridge-input.js';

// `fleet`'s text: a table, one row a hub, worst first, and a line of totals; `--watch` prints one
// line a change ("hub-0042 offline: its bridge went down 14:02").

function hubText(hub: string): string {
  return isHubId(hub) ? hub : shownId(hub);
}

export function fleetTable(rows: readonly HubRow[]): string {
  if (rows.length === 0) return 'no hub on the central broker (nothing retained under hubs/+/health, hubs/+/status or hubs/+/bridge/state)\n';
  const cells = rows.map((row) => [hubText(row.hub), stateWords(row.state), printable(versionText(row, '-')), buttonsWords(row.buttons), printable(row.reason)]);
  return table(['HUB', 'STATE', 'VERSION', 'BUTTONS', 'WHY'], cells) + `${totals(rows)}\n`;
}

/** `0.3.1 (rolled back from 0.3.2)` while a rollback is the hub's latest update. */
function versionText(row: HubRow, unknown: string): string {
  return row.version === null ? unknown : runningVersionWords(row.version, row.update);
}

/** `3 hubs: 2 healthy, 1 offline` */
export function totals(rows: readonly HubRow[]): string {
  const counts = new Map<HubState, number>();
  for (const row of rows) counts.set(row.state, (counts.get(row.state) ?? 0) + 1);
  const parts = HUB_STATES.filter((state) => counts.has(state)).map((state) => `${counts.get(state)} ${stateWords(state)}`);
  return `${rows.length} hub${rows.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** `hub-0107 unhealthy: button 7F3A9C missing for 2 h 10 min (version 0.2.0; 3 buttons, 1 missing)` */
export function rowLine(row: HubRow): string {
  const detail = [`version ${printable(versionText(row, 'unknown'))}`];
  if (row.buttons !== null) detail.push(buttonsWords(row.buttons));
  return `${hubText(row.hub)} ${stateWords(row.state)}: ${printable(row.reason)} (${detail.join('; ')})`;
}
