import type { ButtonCounts } from '../supervision/types.js';
import { HUB_STATES, type HubRow } from './hub-row.js';

// `fleet --prometheus`: the rows in the Prometheus text exposition format (version 0.0.4), what
// node_exporter's textfile collector and any scrape read. Every metric is a gauge labelled `hub`;
// `promtool check metrics` passes it (test/fleet/prometheus.test.ts).

/** Button states as label values: Prometheus's snake_case for ButtonCounts' `batteryLow`. */
const BUTTON_LABELS: ReadonlyArray<[keyof ButtonCounts, string]> = [
  ['linked', 'linked'],
  ['online', 'online'],
  ['missing', 'missing'],
  ['unknown', 'unknown'],
  ['unsupervised', 'unsupervised'],
  ['batteryLow', 'battery_low'],
];

/** A hostile topic level or version is cut to this many characters in a label. */
const MAX_LABEL_CHARACTERS = 128;

interface Metric {
  name: string;
  help: string;
  samples(row: HubRow, now: number): Array<[labels: Record<string, string>, value: number]>;
}

const METRICS: Metric[] = [
  {
    name: 'panic_pair_hub_up',
    help: "1 while the hub is reachable; 0 when it is offline (its daemon's status offline, or its bridge down).",
    samples: (row) => [[{}, row.state === 'offline' ? 0 : 1]],
  },
  {
    name: 'panic_pair_hub_healthy',
    help: '1 when the hub is healthy: a fresh health (under 3 minutes) with no problem; else 0.',
    samples: (row) => [[{}, row.state === 'healthy' ? 1 : 0]],
  },
  {
    name: 'panic_pair_hub_state',
    help: "1 for the hub's state as `panic-pair fleet` says it (offline, stale, unreadable, rolled-back, unhealthy, healthy), 0 for the others.",
    samples: (row) => HUB_STATES.map((state) => [{ state }, row.state === state ? 1 : 0]),
  },
  {
    name: 'panic_pair_hub_rolled_back',
    help: "1 when the hub's latest update was rolled back to the version before (its last health says so), else 0.",
    samples: (row) => [[{}, row.update?.state === 'rolled-back' ? 1 : 0]],
  },
  {
    name: 'panic_pair_hub_buttons',
    help: "The hub's linked buttons by supervision state (battery_low counts those with a low battery); absent for a hub too old to report them.",
    samples: ({ buttons }) => (buttons === null ? [] : BUTTON_LABELS.map(([key, state]) => [{ state }, buttons[key]])),
  },
  {
    name: 'panic_pair_hub_info',
    help: 'The version the hub runs, as the label version; always 1.',
    samples: (row) => (row.version === null ? [] : [[{ version: row.version }, 1]]),
  },
  {
    name: 'panic_pair_hub_health_age_seconds',
    help: "Seconds from the hub's last health (its at) to this reading.",
    samples: (row, now) => (row.healthAt === null ? [] : [[{}, Math.max(0, Math.round((now - Date.parse(row.healthAt)) / 1000))]]),
  },
];

/** The text format for `rows`, read at wall-clock `now`. */
export function prometheusText(rows: readonly HubRow[], now: number): string {
  const lines: string[] = [];
  for (const metric of METRICS) {
    lines.push(`# HELP ${metric.name} ${metric.help}`, `# TYPE ${metric.name} gauge`);
    for (const row of rows) {
      for (const [labels, value] of metric.samples(row, now)) lines.push(`${metric.name}{${labelText({ hub: row.hub, ...labels })}} ${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabel(value)}"`)
    .join(',');
}

/** The format's escapes in a label value: backslash, double quote, line feed. */
function escapeLabel(value: string): string {
  const cut = value.length > MAX_LABEL_CHARACTERS ? `${value.slice(0, MAX_LABEL_CHARACTERS)}...` : value;
  return cut.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
