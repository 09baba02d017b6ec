import { PanicPairError } from '../../errors.js';
import { centralSettingsOf, type CentralFlags, type CentralSettings } from '../../fleet/central-input.js';
import { READ_LIMIT_MS } from '../../fleet/central-reader.js';
import { fleetTable, rowLine } from '../../fleet/fleet-text.js';
import { fromFirstAnswering } from '../../fleet/first-answering.js';
import { writeJsonRows, writeWaiting } from '../../fleet/fleet-json.js';
import { readFleet } from '../../fleet/fleet-snapshot.js';
import { watchFleet } from '../../fleet/fleet-watch.js';
import { prometheusText } from '../../fleet/prometheus.js';
import { EXIT } from '../exit-codes.js';
import { printLine } from '../render.js';

// `panic-pair fleet`: every hub's row from the central broker, or from
// the first node of a cluster that answers. Exit 0 when every hub is healthy, 1 otherwise (none
// found included), 2 when the broker (every node of the cluster) cannot be read.

export type FleetOptions = CentralFlags & { json?: boolean; prometheus?: boolean; watch?: boolean };

export async function fleetCommand(options: FleetOptions): Promise<void> {
  if (options.json === true && options.prometheus === true) throw new PanicPairError('usage', '--json and --prometheus are two outputs: give one');
  if (options.watch === true && options.prometheus === true) {
    throw new PanicPairError('usage', '--prometheus is one reading, not a stream: run it from cron or a scrape, without --watch');
  }
  const nodes = centralSettingsOf(options);
  if (options.watch === true) return watch(options, nodes);
  const { rows, end, at } = await fromFirstAnswering(nodes, readFleet, (text) => process.stderr.write(`panic-pair: ${text}\n`));
  if (end.by === 'limit') {
    process.stderr.write(`panic-pair: the central broker was still sending retained messages after ${READ_LIMIT_MS / 1000} s; the rows may be incomplete\n`);
  }
  if (options.json === true) await writeJsonRows(rows, writeWaiting(process.stdout));
  else if (options.prometheus === true) process.stdout.write(prometheusText(rows.slice(), at));
  else process.stdout.write(fleetTable(rows.slice()));
  process.exitCode = rows.allHealthy ? EXIT.ok : EXIT.failure;
}

async function watch(options: FleetOptions, nodes: readonly CentralSettings[]): Promise<void> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await watchFleet(
      nodes,
      {
        row: (row, now) => printLine(options.json === true ? JSON.stringify({ at: new Date(now).toISOString(), ...row }) : `${clock(now)} ${rowLine(row)}`),
        note: (text) => process.stderr.write(`panic-pair: ${text}\n`),
      },
      stop.signal,
    );
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** `14:02:11` on the reader's clock. */
function clock(at: number): string {
  return new Date(at).toTimeString().slice(0, 8);
}
